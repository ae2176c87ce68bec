/// Numeric rows of a delimited text file, streamed: the preamble skipped (see ``Preamble``), the
/// header lines, the dialect (detected from the header and first data line unless given), then
/// each data row's selected columns parsed into a caller's buffer. Every text reader of the package
/// stands on it: native traces, any delimited file read with `--columns`, the recording formats,
/// estimate files. Errors name file:line:column.
///
/// Comment lines (`#`, `//`, `%`) among the rows are skipped and counted. With ``junkAllowed`` set,
/// a row that is mostly not numbers (a spreadsheet's summary line, a logger's status message) is
/// dropped and counted too, up to ``maximumJunk(rows:)``; beyond that, and always without it, it is
/// the structural error it is.
public final class DelimitedRows {
    /// The input.
    public let lines: ByteLineReader
    /// The dialect in use.
    public let dialect: TextDialect
    /// Header rows as text fields (quotes removed, trimmed); the first holds the column names.
    public let headerRows: [[String]]
    /// Fields per row: the header's count, or the first data row's when there is no header.
    public let columnCount: Int
    /// Data rows returned so far.
    @exclusivity(unchecked) public private(set) var rowCount = 0
    /// Byte offset (0-based) of each parsed field's start in the current line, by slot.
    @exclusivity(unchecked) public private(set) var fieldOffsets: UnsafeMutablePointer<Int>
    @exclusivity(unchecked) var offsetCapacity: Int
    let slotOfColumn: UnsafeMutablePointer<Int>
    /// The slot whose fields are read as the number times 10^``scaledSlotExponent``, rounded once
    /// (a time in ms, µs or ns read as seconds); -1 for none.
    @exclusivity(unchecked) public var scaledSlot = -1
    /// The power of ten of ``scaledSlot``.
    @exclusivity(unchecked) public var scaledSlotExponent = 0
    let slotCount: Int
    let splitter: FieldSplitter
    /// Lines skipped before the header (`--skip-lines`, or the preamble detected).
    public let preambleLines: Int
    /// 1-based line number of the first header row (of the first data row without a header).
    public let headerLine: Int
    /// Whether data rows end with a separator the header does not have (an empty last field),
    /// dropped before the row is split.
    let rowsEndWithSeparator: Bool
    /// Comment lines skipped among the rows.
    @exclusivity(unchecked) public private(set) var commentLines = 0
    /// Whether rows that are not data are dropped (up to ``maximumJunk(rows:)``) rather than errors.
    @exclusivity(unchecked) public var junkAllowed = false
    /// Rows dropped as not data, and the error the first one would have been.
    @exclusivity(unchecked) public private(set) var junkRows = 0
    /// The line of the first row dropped as not data, and its text.
    @exclusivity(unchecked) public private(set) var firstJunk: (location: SourceLocation, text: String)?
    /// The slots (those below 64, as bits `1 << slot`) of the current row whose cell holds an
    /// explicit `nan` rather than nothing: both parse as NaN, but only an empty cell is no value.
    @exclusivity(unchecked) public private(set) var explicitNaNSlots: UInt64 = 0
    /// Rows of numbers dropped because another delimiter separates their fields (``foreignSeparator``).
    @exclusivity(unchecked) public private(set) var foreignRows = 0
    /// The first of them: its line and the column of its first delimiter, and its text with the
    /// delimiters named.
    @exclusivity(unchecked) public private(set) var firstForeign: (location: SourceLocation, text: String)?

    /// Most rows dropped as not data after `rows` data rows: 10, or 1 % of the rows when more.
    public static func maximumJunk(rows: Int) -> Int { max(10, rows / 100) }

    /// The column names (the first header row), or empty without a header.
    public var names: [String] { headerRows.first ?? [] }
    /// The lines skipped before the header (metadata such as `// Update Rate: 100.0Hz`), as text.
    public let preamble: [String]
    /// Whether the second header row was found rather than given (`--header-rows`): a row of
    /// names over the data under a first row of sensor headings, or a row of units.
    public let detectedSecondHeaderRow: Bool

    /// The names that say what each column holds: the first header row's, each joined with what
    /// a second header row says of its column — a sensor heading over a group of bare axes
    /// (`Accelerometer` over `X,Y,Z` gives `Accelerometer X`), or a unit (`Acc_X` over `m/s^2`
    /// gives `Acc_X (m/s^2)`).
    public var columnNames: [String] { Self.joinedNames(headerRows) }
    /// The input's name in messages.
    public var name: String { lines.name }
    /// 1-based line number of the current row.
    public var lineNumber: Int { lines.lineNumber }

    /// Reads the header and prepares to parse rows.
    ///
    /// - Parameters:
    ///   - headerRows: lines before the data (the first holds the names). Blank lines before the
    ///     header are skipped.
    ///   - separator: the field separator, or nil to detect it (or take it from a `sep=` line).
    ///   - decimalComma: force (true) or forbid (false) a decimal comma, or nil to detect it.
    ///   - skipLines: lines skipped before the header (`--skip-lines`), or nil to detect a preamble.
    ///   - detectSecondHeaderRow: with one header row, whether a line under it that gives units or
    ///     completes sensor headings is read as a second (``detectedSecondHeaderRow``).
    public init(
        _ lines: ByteLineReader, headerRows headerCount: Int = 1, separator given: TextDialect.Separator? = nil,
        decimalComma: Bool? = nil, skipLines: Int? = nil, detectSecondHeaderRow: Bool = false
    ) throws {
        self.lines = lines
        var separator = given
        var skipped = [String]()
        func skip() throws -> [UInt8]? {
            guard let line = try lines.nextLine({ Array(UnsafeBufferPointer(start: $0, count: $1)) }) else {
                return nil
            }
            if skipped.count < Preamble.maximumLines { skipped.append(String(decoding: line, as: UTF8.self)) }
            return line
        }
        if let skipLines {
            // The file's lines, whatever quoted line breaks join into one record.
            let first = lines.lineNumber
            while lines.lineNumber - first < skipLines, let line = try skip() {
                if lines.lineNumber - lines.recordLines == first, separator == nil {
                    separator = Preamble.separatorHint(line)
                }
            }
        } else {
            let found = try Preamble.find(lines, headerRows: headerCount, separator: separator)
            for _ in 0..<found.lines { _ = try skip() }
            separator = separator ?? found.separator
        }
        preamble = skipped
        preambleLines = lines.lineNumber
        var raw = [[UInt8]]()
        var firstHeaderLine = lines.lineNumber + 1
        while raw.count < headerCount {
            guard let line = try lines.nextLine({ p, n in Array(UnsafeBufferPointer(start: p, count: n)) }) else {
                break
            }
            if raw.isEmpty && line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if raw.isEmpty { firstHeaderLine = lines.recordFirstLine }
            raw.append(raw.isEmpty ? Self.withoutBOM(line) : line)
        }
        // A second header row nobody asked for: sensor headings over bare axes, or units under
        // the names (only the row's shape decides; see ``Preamble/isSecondHeaderRow``).
        var second = false
        // The line after the names is looked at first: a row of numbers (data) ends the question
        // without waiting for another line of a live stream.
        if detectSecondHeaderRow, headerCount == 1, raw.count == 1, let next = try lines.peekLine(),
            Preamble.mayBeSecondHeaderRow(next, under: raw[0], separator: separator),
            let data = try Self.peekData(lines, after: 1),
            Preamble.isSecondHeaderRow(next, under: raw[0], over: data, separator: separator)
        {
            raw.append(next)
            _ = try lines.nextLine { _, _ in () }
            second = true
        }
        detectedSecondHeaderRow = second
        headerLine = raw.isEmpty ? lines.lineNumber + 1 : firstHeaderLine
        guard raw.count >= headerCount else {
            throw TraceError(
                .empty, SourceLocation(file: lines.name, line: max(1, lines.lineNumber), column: 0),
                headerCount == 1
                    ? "file is empty; expected a header line such as 't,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z'"
                    : "file ends within its \(headerCount) header lines")
        }
        let firstData = try Self.peekData(lines)
        var d = TextDialect.detect(
            header: raw.first ?? [], data: firstData.map { headerCount == 0 ? Self.withoutBOM($0) : $0 },
            separator: separator)
        if let decimalComma { d.decimalPoint = decimalComma ? UInt8(ascii: ",") : UInt8(ascii: ".") }
        if d.decimalPoint == UInt8(ascii: ","), d.separatorByte == UInt8(ascii: ",") {
            throw TraceError(
                .malformedNumber, SourceLocation(file: lines.name, line: 1, column: 0),
                "a decimal comma needs another field separator (--delimiter semicolon, tab or space)")
        }
        dialect = d
        let split = FieldSplitter(dialect: d)
        splitter = split
        var header = raw.map { split.texts($0) }
        let dataCount = firstData.map { FieldSplitter.count(Self.withoutBOM($0), d.separator) }
        // A trailing separator on the header's line or on the rows' only: an empty last field
        // that is no column.
        if let names = header.first, let dataCount, names.count == dataCount + 1, names.last == "" {
            header = header.map { $0.count == names.count && $0.last == "" ? Array($0.dropLast()) : $0 }
        }
        headerRows = header
        columnCount = header.first?.count ?? dataCount ?? 0
        rowsEndWithSeparator =
            !header.isEmpty && dataCount == columnCount + 1 && d.separatorByte != 0
            && firstData.map { TextDialect.endsWithSeparator($0, d.separatorByte) } == true
        slotCount = max(1, columnCount)
        // From here the rows' shape tells a quoted line break from a stray quote.
        lines.fieldSeparator = d.separatorByte
        lines.rowFields = columnCount
        lines.rowsEndWithSeparator = rowsEndWithSeparator
        offsetCapacity = 1
        fieldOffsets = .allocate(capacity: 1)
        fieldOffsets.initialize(to: 0)
        slotOfColumn = .allocate(capacity: slotCount)
        slotOfColumn.initialize(repeating: -1, count: slotCount)
        skipBOM = headerCount == 0
    }

    deinit {
        fieldOffsets.deallocate()
        slotOfColumn.deallocate()
    }

    /// Whether the first data row may start with a byte-order mark (no header line took it).
    @exclusivity(unchecked) var skipBOM: Bool

    static func withoutBOM(_ line: [UInt8]) -> [UInt8] {
        line.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(line.dropFirst(3)) : line
    }

    /// A copy of the first data line (neither blank nor a comment) from `after` lines ahead,
    /// consuming nothing.
    static func peekData(_ lines: ByteLineReader, after: Int = 0) throws -> [UInt8]? {
        var k = after
        while let line = try lines.peekLine(ahead: k) {
            if !Preamble.isBlank(line) && !Preamble.isComment(line) { return line }
            k += 1
        }
        return nil
    }

    /// The slot of a column of date-times read as seconds since the epoch (``DateTimeText``), or
    /// -1 for none.
    @exclusivity(unchecked) var dateTimeSlot = -1
    /// Whether the date-times are times of day without a date (``DateTimeText/isTimeOfDay(_:)``):
    /// a time more than 12 hours before the last is in the next day (a recording past midnight).
    @exclusivity(unchecked) var timeOfDay = false
    /// Whether the dates are written month first (`M/D/YYYY`), as the file states
    /// (``Preamble/statesMonthFirstDates(_:)``).
    @exclusivity(unchecked) var monthFirstDates = false
    /// Seconds added to times of day for the midnights passed, and the last time read.
    @exclusivity(unchecked) var midnights = 0.0, lastTimeOfDay = -Double.infinity

    /// The 0-based byte offset in the current line of the field parsed into `slot`, or nil for a
    /// slot beyond those selected.
    public func fieldOffset(of slot: Int) -> Int? { slot >= 0 && slot < offsetCapacity ? fieldOffsets[slot] : nil }

    /// Chooses which columns are parsed: column `c` goes to `values[slot]`, -1 skips it.
    public func select(_ slots: [Int]) {
        for c in 0..<slotCount { slotOfColumn[c] = c < slots.count ? slots[c] : -1 }
        let needed = max(1, (slots.max() ?? 0) + 1)
        if needed > offsetCapacity {
            fieldOffsets.deallocate()
            fieldOffsets = .allocate(capacity: needed)
            fieldOffsets.initialize(repeating: 0, count: needed)
            offsetCapacity = needed
        }
    }

    /// Parses the next data row's selected columns into `values` (NaN for an empty field) and
    /// returns true, or returns false at the end of the input. Blank and comment lines are skipped,
    /// and rows that are not data while ``junkAllowed``. Throws on a wrong field count or a field
    /// that is not a number.
    public func next(into values: UnsafeMutablePointer<Double>, slots valueCount: Int) throws -> Bool {
        precondition(valueCount >= offsetCapacity, "values must hold every selected slot")
        while true {
            let status: Int? = try lines.nextLine { p, n in
                do {
                    return try parse(p, n, values, valueCount)
                } catch let error as TraceError {
                    if let foreign = Self.foreignSeparator(p, n, dialect, columns: columnCount) {
                        try dropForeign(p, n, foreign)
                        return 0
                    }
                    guard junkAllowed, Self.isJunk(p, n, dialect) else { throw error }
                    try dropJunk(error, FieldSplitter.text(p, 0, n))
                    return 0
                }
            }
            guard let status else { return false }
            if status == 0 { continue }
            rowCount += 1
            return true
        }
    }

    /// Whether a line that failed to parse is mostly not numbers: a row that is no data rather
    /// than a data row with a damaged field.
    static func isJunk(_ p: UnsafePointer<UInt8>, _ n: Int, _ dialect: TextDialect) -> Bool {
        let shape = Preamble.Shape(Array(UnsafeBufferPointer(start: p, count: n)), dialect)
        return shape.texts >= shape.numbers
    }

    /// Counts a row that is not data, or throws `error` (with the tally) when there are too many.
    private func dropJunk(_ error: TraceError, _ text: String) throws {
        junkRows += 1
        // The whole row is at fault: its line, not the field that failed.
        if firstJunk == nil { firstJunk = (lines.location(atByte: -1), text) }
        try checkDropped(error)
    }

    /// Throws `error` (with the tally) when more rows were dropped than ``maximumJunk(rows:)``.
    private func checkDropped(_ error: TraceError) throws {
        let dropped = junkRows + foreignRows
        guard dropped <= Self.maximumJunk(rows: rowCount) else {
            var e = error
            e.message +=
                " (\(dropped) rows that are not data or use another delimiter so far: more than the \(Self.maximumJunk(rows: rowCount)) dropped as value faults, so the file is not read as a table of numbers)"
            throw e
        }
    }

    /// The separator, other than the file's, that splits a row which failed to parse into the
    /// file's number of fields, every one a number or empty: a row of data written with another
    /// delimiter (two logs joined, a hand edit), or nil.
    static func foreignSeparator(_ p: UnsafePointer<UInt8>, _ n: Int, _ dialect: TextDialect, columns: Int)
        -> TextDialect.Separator?
    {
        guard columns >= 2 else { return nil }
        let line = Array(UnsafeBufferPointer(start: p, count: n))
        let candidates: [TextDialect.Separator] = [
            .byte(UInt8(ascii: ",")), .byte(UInt8(ascii: ";")), .byte(0x09), .whitespace,
        ]
        for candidate in candidates where candidate != dialect.separator {
            // A comma between fields leaves the decimal point; another may go with either.
            for point in Set([dialect.decimalPoint, UInt8(ascii: ".")])
            where TextDialect(separator: candidate).separatorByte != point {
                let shape = Preamble.Shape(line, TextDialect(separator: candidate, decimalPoint: point))
                if shape.count == columns && shape.texts == 0 && shape.numbers >= 2 { return candidate }
            }
        }
        return nil
    }

    /// Counts a row whose fields `foreign` separates, or throws it as the structural error it is
    /// (``junkAllowed`` unset, or too many dropped rows).
    private func dropForeign(_ p: UnsafePointer<UInt8>, _ n: Int, _ foreign: TextDialect.Separator) throws {
        let byte = TextDialect(separator: foreign).separatorByte
        let first = (0..<n).first { byte == 0 ? p[$0] == 0x20 || p[$0] == 0x09 : p[$0] == byte } ?? 0
        let location = lines.location(atByte: first)
        let text =
            "'\(FieldSplitter.text(p, 0, n).escapedForMessage)' (fields separated by \(TextDialect.separatorName(foreign)), the file's by \(TextDialect.separatorName(dialect.separator)))"
        let error = TraceError(
            .wrongColumnCount, location,
            "a row with another delimiter: \(text) (--strict refuses value faults; without it the row is dropped and reported)"
        )
        guard junkAllowed else { throw error }
        foreignRows += 1
        if firstForeign == nil { firstForeign = (location, text) }
        try checkDropped(error)
    }

    /// Parses one line. Returns 0 for a blank or comment line, 1 for a row.
    @inline(__always)
    private func parse(
        _ base: UnsafePointer<UInt8>, _ length: Int, _ values: UnsafeMutablePointer<Double>, _ valueCount: Int
    ) throws -> Int {
        var p = base
        var n = length
        if skipBOM {
            skipBOM = false
            if n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF {
                p += 3
                n -= 3
            }
        }
        if n == 0 || (n == 1 && p[0] == 0x0D) { return 0 }
        // A row starts with a digit, a sign, a point or a separator: only then is it a comment.
        if p[0] &- 0x30 >= 10 && Preamble.isComment(p, n) {
            commentLines += 1
            return 0
        }
        if rowsEndWithSeparator && p[n - 1] == dialect.separatorByte { n -= 1 }
        for k in 0..<valueCount { values[k] = .nan }
        explicitNaNSlots = 0
        let separator = dialect.separatorByte
        let point = dialect.decimalPoint
        var i = 0
        if separator == 0 {
            // Whitespace separated: skip leading spaces; a blank line has no fields.
            while i < n && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
            if i == n { return 0 }
        }
        // With no column read in another way (scaled, date-time), the loop skips the per-field
        // checks for them.
        let plain = scaledSlot < 0 && dateTimeSlot < 0
        let field = try fields(p, i, n, values, separator: separator, point: point, plain: plain)
        guard field == columnCount else {
            throw TraceError(
                .wrongColumnCount, lines.location(atByte: n),
                "row has \(field) fields; expected \(columnCount) (\(dialect))")
        }
        return 1
    }

    /// Parses the fields of one row from byte `start` on and returns their count. With `plain` no
    /// slot is scaled or read as a date-time.
    private func fields(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ n: Int, _ values: UnsafeMutablePointer<Double>,
        separator: UInt8, point: UInt8, plain: Bool
    ) throws -> Int {
        let columns = columnCount
        let slots = slotOfColumn
        let fieldOffsets = self.fieldOffsets
        let scaledSlot = plain ? -1 : self.scaledSlot
        let scaledSlotExponent = plain ? 0 : self.scaledSlotExponent
        let dateTimeSlot = plain ? -1 : self.dateTimeSlot
        var field = 0
        var i = start
        while true {
            guard field < columns else {
                throw TraceError(
                    .wrongColumnCount, lines.location(atByte: i),
                    "too many fields: expected \(columns) (\(dialect))")
            }
            let slot = slots[field]
            let exponent = !plain && slot == scaledSlot ? scaledSlotExponent : 0
            var j: Int
            if slot >= 0 && (plain || slot != dateTimeSlot),
                let (v, stop) = DecimalParser.parsePlain(
                    p, i, n, separator: separator, point: point, exponentOffset: exponent)
            {
                values[slot] = v
                fieldOffsets[slot] = i
                j = stop
            } else {
                j = try otherField(p, i, n, values, field: field, slot: slot, exponent: exponent)
            }
            field &+= 1
            if separator == 0 {
                while j < n && (p[j] == 0x20 || p[j] == 0x09) { j += 1 }
                if j >= n { break }
                i = j
            } else {
                if j >= n { break }
                i = j &+ 1
            }
        }
        return field
    }

    /// A field the plain path did not read: skipped, a date-time, empty, a number in another
    /// spelling, or not a number (thrown). Returns the index of the byte after it.
    @inline(never)
    private func otherField(
        _ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int, _ values: UnsafeMutablePointer<Double>, field: Int, slot: Int,
        exponent: Int
    ) throws -> Int {
        let separator = dialect.separatorByte
        let point = dialect.decimalPoint
        let j = FieldSplitter.fieldEnd(p, i, n, separator: separator)
        guard slot >= 0 else { return j }
        if slot == dateTimeSlot {
            if var v = DateTimeText.seconds(p, i, j, monthFirst: monthFirstDates) {
                if timeOfDay {
                    v += midnights
                    if v < lastTimeOfDay - 43_200 {
                        midnights += 86_400
                        v += 86_400
                    }
                    lastTimeOfDay = v
                }
                values[slot] = v
            } else if case .empty = DecimalParser.parse(p, i, j, point: point, exponentOffset: 0) {
                values[slot] = .nan
            } else {
                let text = FieldSplitter.text(p, i, j)
                let label = field < names.count ? "column '\(names[field])'" : "column \(field + 1)"
                throw TraceError(
                    .malformedNumber, lines.location(atByte: i),
                    "'\(text.escapedForMessage)' in \(label) is not a date-time as in the first row; expected e.g. 2024-03-01T12:00:00.123Z, 2024-03-01 12:00:00.123 or 2024-03-01T13:00:00+01:00 (or an empty field for missing)"
                )
            }
            fieldOffsets[slot] = i
            return j
        }
        switch DecimalParser.parse(p, i, j, point: point, exponentOffset: exponent) {
        case .value(let v):
            values[slot] = v
            if v.isNaN && slot < 64 { explicitNaNSlots |= 1 << UInt64(slot) }
        case .empty: values[slot] = .nan
        case .malformed(let off):
            let text = FieldSplitter.text(p, i, j)
            let label = field < names.count ? "column '\(names[field])'" : "column \(field + 1)"
            throw TraceError(
                .malformedNumber, lines.location(atByte: i + off),
                "'\(text.escapedForMessage)' in \(label) is not a number; expected a decimal such as -0.0123 or 9.81e0 (or nan or an empty field for missing)"
            )
        }
        fieldOffsets[slot] = i
        return j
    }
}

extension String {
    /// The text with control characters and non-UTF-8 bytes escaped (`\u{1B}`), cut to 200
    /// characters: safe to print in a message whatever a file contains.
    public var escapedForMessage: String {
        var out = ""
        var count = 0
        for scalar in unicodeScalars {
            if count >= 200 {
                out += "…"
                break
            }
            switch scalar.value {
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0..<0x20, 0x7F..<0xA0, 0xFFFD: out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return out
    }
}
