/// Numeric rows of a delimited text file, streamed: the header lines, the dialect (detected from
/// the header and first data line unless given), then each data row's selected columns parsed into
/// a caller's buffer. Every text reader of the package stands on it: native traces, any delimited
/// file read with `--columns`, the recording formats, estimate files. Errors name file:line:column.
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

    /// The column names (the first header row), or empty without a header.
    public var names: [String] { headerRows.first ?? [] }
    /// The input's name in messages.
    public var name: String { lines.name }
    /// 1-based line number of the current row.
    public var lineNumber: Int { lines.lineNumber }

    /// Reads the header and prepares to parse rows.
    ///
    /// - Parameters:
    ///   - headerRows: lines before the data (the first holds the names). Blank lines before the
    ///     header are skipped.
    ///   - separator: the field separator, or nil to detect it.
    ///   - decimalComma: force (true) or forbid (false) a decimal comma, or nil to detect it.
    public init(
        _ lines: ByteLineReader, headerRows headerCount: Int = 1, separator: TextDialect.Separator? = nil,
        decimalComma: Bool? = nil
    ) throws {
        self.lines = lines
        var raw = [[UInt8]]()
        while raw.count < headerCount {
            guard let line = try lines.nextLine({ p, n in Array(UnsafeBufferPointer(start: p, count: n)) }) else {
                break
            }
            if raw.isEmpty && line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            raw.append(raw.isEmpty ? Self.withoutBOM(line) : line)
        }
        guard raw.count == headerCount else {
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
        headerRows = raw.map { split.texts($0) }
        if let first = headerRows.first {
            columnCount = first.count
        } else {
            columnCount = firstData.map { FieldSplitter.count(Self.withoutBOM($0), d.separator) } ?? 0
        }
        slotCount = max(1, columnCount)
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

    /// A copy of the first non-blank data line, consuming the blank lines before it but not it.
    static func peekData(_ lines: ByteLineReader) throws -> [UInt8]? {
        while let line = try lines.peekLine() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
                _ = try lines.nextLine { _, _ in () }
                continue
            }
            return line
        }
        return nil
    }

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
    /// returns true, or returns false at the end of the input. Blank lines are skipped. Throws on a
    /// wrong field count or a field that is not a number.
    public func next(into values: UnsafeMutablePointer<Double>, slots valueCount: Int) throws -> Bool {
        precondition(valueCount >= offsetCapacity, "values must hold every selected slot")
        while true {
            let status: Int? = try lines.nextLine { p, n in try parse(p, n, values, valueCount) }
            guard let status else { return false }
            if status == 0 { continue }
            rowCount += 1
            return true
        }
    }

    /// Parses one line. Returns 0 for a blank line, 1 for a row.
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
        for k in 0..<valueCount { values[k] = .nan }
        let columns = columnCount
        let slots = slotOfColumn
        let fieldOffsets = self.fieldOffsets
        let separator = dialect.separatorByte
        let point = dialect.decimalPoint
        let scaledSlot = self.scaledSlot
        let scaledSlotExponent = self.scaledSlotExponent
        var field = 0
        var i = 0
        if separator == 0 {
            // Whitespace separated: skip leading spaces; a blank line has no fields.
            while i < n && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
            if i == n { return 0 }
        }
        while true {
            guard field < columns else {
                throw TraceError(
                    .wrongColumnCount, SourceLocation(file: name, line: lines.lineNumber, column: i + 1),
                    "too many fields: expected \(columns) (\(dialect))")
            }
            let slot = slots[field]
            let exponent = slot == scaledSlot ? scaledSlotExponent : 0
            var j: Int
            if slot >= 0,
                let (v, stop) = DecimalParser.parsePlain(
                    p, i, n, separator: separator, point: point, exponentOffset: exponent)
            {
                values[slot] = v
                fieldOffsets[slot] = i
                j = stop
            } else {
                j = FieldSplitter.fieldEnd(p, i, n, separator: separator)
                if slot >= 0 {
                    switch DecimalParser.parse(p, i, j, point: point, exponentOffset: exponent) {
                    case .value(let v): values[slot] = v
                    case .empty: values[slot] = .nan
                    case .malformed(let off):
                        let text = FieldSplitter.text(p, i, j)
                        let label = field < names.count ? "column '\(names[field])'" : "column \(field + 1)"
                        throw TraceError(
                            .malformedNumber, SourceLocation(file: name, line: lines.lineNumber, column: i + off + 1),
                            "'\(text.escapedForMessage)' in \(label) is not a number; expected a decimal such as -0.0123 or 9.81e0 (or nan or an empty field for missing)"
                        )
                    }
                    fieldOffsets[slot] = i
                }
            }
            field += 1
            if separator == 0 {
                while j < n && (p[j] == 0x20 || p[j] == 0x09) { j += 1 }
                if j >= n { break }
                i = j
            } else {
                if j >= n { break }
                i = j + 1
            }
        }
        guard field == columns else {
            throw TraceError(
                .wrongColumnCount, SourceLocation(file: name, line: lines.lineNumber, column: n + 1),
                "row has \(field) fields; expected \(columns) (\(dialect))")
        }
        return 1
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
