/// Where in an input file something was found: file, 1-based line and 1-based byte column.
public struct SourceLocation: Equatable, Sendable, CustomStringConvertible {
    /// File path as given.
    public var file: String
    /// 1-based line number (the header is line 1).
    public var line: Int
    /// 1-based byte column within the line; 0 when the whole line (or file) is meant.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String {
        // Line 0 is the file as a whole (an archive, a folder, the units of a column).
        line <= 0 ? file : column > 0 ? "\(file):\(line):\(column)" : "\(file):\(line)"
    }
}

/// A bad input file. The message names what is wrong and what was expected.
public struct TraceError: Error, Equatable, CustomStringConvertible {
    /// The class of problem, for programs that react to it.
    public enum Kind: String, Sendable {
        /// A field is not a number.
        case malformedNumber
        /// A row has a different number of fields than the header.
        case wrongColumnCount
        /// A required column is missing from the header.
        case missingColumn
        /// The `--columns` or `--units` given do not fit the file (a mistake in the call, not in the file).
        case columnSpecification
        /// Two columns name the same quantity.
        case duplicateColumn
        /// The file has no header or no data rows.
        case empty
        /// A timestamp is not larger than the one before.
        case nonMonotonicTime
        /// A value is NaN or infinite where that is not allowed.
        case nonFiniteValue
        /// The format could not be recognised.
        case unknownFormat
        /// The file could not be opened or read.
        case unreadable
        /// A line is longer than any text trace has (binary data, or no line breaks).
        case lineTooLong
        /// The files of one recording do not share one clock.
        case inconsistentClocks
        /// The time column steps at no rate an inertial sensor records at, in any time unit.
        case implausibleClock
    }

    /// The class of problem.
    public var kind: Kind
    /// Where it was found.
    public var location: SourceLocation
    /// What is wrong and what was expected.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ location: SourceLocation, _ message: String) {
        self.kind = kind
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// A problem that did not stop reading, reported with its location and suggested fix; or a note
/// on how the input was read that needs no action (lines skipped before the header).
public struct TraceWarning: Equatable, Sendable, CustomStringConvertible {
    /// Where it applies (line 0 for the whole file).
    public var location: SourceLocation
    /// What was seen and what to do about it.
    public var message: String
    /// Whether it is a note rather than a warning.
    public var isNote: Bool
    /// Why a unit looks wrong, in a few words, when the warning says so (`UnitCheck`'s): `info`
    /// quotes it in its summary of the units.
    public var suspectUnits: String?

    /// Creates a warning, or a note.
    public init(_ location: SourceLocation, _ message: String, note: Bool = false) {
        self.location = location
        self.message = message
        isNote = note
    }

    /// Creates a warning that a unit looks wrong, for the reason `suspectUnits`.
    public init(_ location: SourceLocation, _ message: String, suspectUnits: String) {
        self.init(location, message)
        self.suspectUnits = suspectUnits
    }

    public var description: String { "\(location): \(isNote ? "note" : "warning"): \(message)" }
}
