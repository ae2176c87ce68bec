/// The lines some loggers and spreadsheets write before a table's header, found so the header is
/// read where it is: Excel's delimiter hint `sep=;` as the first line, comment lines (`#`, `//`,
/// `%`), and metadata lines (`DOT Firmware version: 2.x`, `Sample rate,60Hz`) — a first line
/// that does not split into the header's number of fields.
///
/// The header is the first line that looks like one: at least two fields, mostly not numbers, over
/// a data line (the first non-blank, non-comment line after the header rows) with as many fields,
/// mostly numbers. The lines before it are a preamble only when every one of them looks like
/// preamble (blank, a comment, or a field count other than the header's); otherwise the first line
/// is the header, as in a file without one (a units row under the names, say, stays a header row).
/// Only as many lines are read as the decision needs: the header and the first data line of a live
/// stream.
public enum Preamble {
    /// Most lines examined for a header; beyond them the first line is the header.
    public static let maximumLines = 64

    /// What comes before the header.
    public struct Found: Equatable, Sendable {
        /// Lines before the header.
        public var lines: Int
        /// The separator a `sep=` line names.
        public var separator: TextDialect.Separator?
    }

    /// Whether `line` is a comment: its first non-blank bytes are `#`, `//` or `%`.
    @inlinable
    public static func isComment(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        while i < n && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
        guard i < n else { return false }
        let c = p[i]
        return c == UInt8(ascii: "#") || c == UInt8(ascii: "%")
            || (c == UInt8(ascii: "/") && i + 1 < n && p[i + 1] == UInt8(ascii: "/"))
    }

    static func isComment(_ line: [UInt8]) -> Bool {
        line.withUnsafeBufferPointer { $0.baseAddress.map { isComment($0, line.count) } ?? false }
    }

    static func isBlank(_ line: [UInt8]) -> Bool { line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }

    /// The separator named by Excel's `sep=X` line, or nil when `line` is not one.
    static func separatorHint(_ line: [UInt8]) -> TextDialect.Separator? {
        var text = Substring(String(decoding: DelimitedRows.withoutBOM(line), as: UTF8.self))
        if text.count >= 2 && text.first == "\"" && text.last == "\"" { text = text.dropFirst().dropLast() }
        guard text.count == 5, text.lowercased().hasPrefix("sep=") else { return nil }
        return TextDialect.separator(named: String(text.last!))
    }

    /// Fields of a line, how many are numbers and how many are text (empty ones are neither), and
    /// whether the last is empty.
    struct Shape {
        var count = 0, numbers = 0, texts = 0
        var lastEmpty = false

        init(_ line: [UInt8], _ dialect: TextDialect) {
            line.withUnsafeBufferPointer { buf in
                guard let p = buf.baseAddress, !buf.isEmpty else { return }
                count = FieldSplitter(dialect: dialect).forEachField(p, buf.count) { _, s, e in
                    switch DecimalParser.parse(p, s, e, point: dialect.decimalPoint) {
                    case .value: numbers += 1
                    case .malformed: texts += 1
                    case .empty: break
                    }
                    lastEmpty = DecimalParser.parse(p, s, e) == .empty
                }
            }
        }

        /// Whether a header and a data line of these shapes have the same columns, one of them
        /// perhaps with an extra empty field after a trailing separator.
        func matches(_ other: Shape) -> Bool {
            count == other.count || (count == other.count + 1 && lastEmpty)
                || (other.count == count + 1 && other.lastEmpty)
        }
    }

    /// Whether `header` looks like the header of a table whose first data line is `data`.
    static func looksLikeHeader(_ header: [UInt8], over data: [UInt8], separator: TextDialect.Separator?) -> Bool {
        let dialect = TextDialect.detect(header: header, data: data, separator: separator)
        let h = Shape(header, dialect)
        let d = Shape(data, dialect)
        return h.count >= 2 && h.matches(d) && h.texts > h.numbers && d.numbers > d.texts
    }

    /// Finds the preamble of the lines `lines` holds next, without consuming them. `headerRows` is
    /// the number of header lines (0: only a `sep=` line is looked for); `separator` the one given
    /// on the command line.
    public static func find(
        _ lines: ByteLineReader, headerRows: Int, separator: TextDialect.Separator?
    ) throws -> Found {
        guard let first = try lines.peekLine(ahead: 0) else { return Found(lines: 0) }
        let named = separatorHint(first)
        let start = named == nil ? 0 : 1
        let fallback = Found(lines: start, separator: named)
        guard headerRows > 0 else { return fallback }
        let separator = separator ?? named
        do {
            var h = start
            while h - start < maximumLines, let line = try lines.peekLine(ahead: h) {
                // Binary data is no table: the first line reports it.
                if line.contains(0) { return fallback }
                if isBlank(line) {
                    h += 1
                    continue
                }
                var d = h + headerRows
                var data: [UInt8]?
                while d - h <= maximumLines, let l = try lines.peekLine(ahead: d) {
                    if !isBlank(l) && !isComment(l) {
                        data = l
                        break
                    }
                    d += 1
                }
                guard let data else { return fallback }
                if looksLikeHeader(line, over: data, separator: separator) {
                    let dialect = TextDialect.detect(header: line, data: data, separator: separator)
                    let columns = Shape(line, dialect).count
                    for k in start..<h {
                        guard let l = try lines.peekLine(ahead: k) else { return fallback }
                        if !isBlank(l) && !isComment(l) && Shape(l, dialect).count == columns { return fallback }
                    }
                    return Found(lines: h, separator: named)
                }
                h += 1
            }
        } catch let e as TraceError where e.kind == .lineTooLong {
            // Reported when the lines are read.
        }
        return fallback
    }
}

extension Preamble {
    /// A copy of the header line — the first non-blank line after the preamble, or after
    /// `options.skipLines` — consuming nothing (format detection); nil for an empty input.
    public static func header(_ lines: ByteLineReader, options: DelimitedReadOptions) throws -> [UInt8]? {
        try headerLine(lines, options: options)?.bytes
    }

    /// The header line, its line number (from 1) and up to `following` of the lines after it that
    /// are neither blank nor comments (a second header row, the first data rows), consuming
    /// nothing; nil for an empty input.
    /// With `untilData`, no more lines are waited for once one is a row of numbers (a live
    /// stream's next row may be a while coming).
    static func headerAndRows(
        _ lines: ByteLineReader, options: DelimitedReadOptions, following: Int, untilData: Bool = false
    ) throws -> (bytes: [UInt8], line: Int, following: [[UInt8]])? {
        guard let header = try headerRecord(lines, options: options) else { return nil }
        let dialect = TextDialect.detect(header: header.bytes, data: nil, separator: options.separator)
        var rows = [[UInt8]]()
        // The line after the header, as an index of lines not yet consumed.
        var k = header.index + 1
        var scanned = 0
        while rows.count < following, scanned < maximumLines + following, let line = try lines.peekLine(ahead: k) {
            if !isBlank(line) && !isComment(line) {
                rows.append(line)
                if untilData {
                    let shape = Shape(line, dialect)
                    if shape.numbers > shape.texts { break }
                }
            }
            k += 1
            scanned += 1
        }
        return (header.bytes, header.line, rows)
    }

    /// The same with the header's line number (from 1) in the input.
    public static func headerLine(_ lines: ByteLineReader, options: DelimitedReadOptions) throws -> (
        bytes: [UInt8], line: Int
    )? {
        try headerRecord(lines, options: options).map { ($0.bytes, $0.line) }
    }

    /// The same with the header's index among the lines not yet consumed (a line holding a quoted
    /// line break counts once there, and as the lines it spans in `line`).
    static func headerRecord(_ lines: ByteLineReader, options: DelimitedReadOptions) throws -> (
        bytes: [UInt8], index: Int, line: Int
    )? {
        var k =
            try options.skipLines.map { try lines.records(within: $0) }
            ?? find(lines, headerRows: options.headerRows ?? 1, separator: options.separator).lines
        while let line = try lines.peekLine(ahead: k) {
            if !isBlank(line) {
                return (k == 0 ? DelimitedRows.withoutBOM(line) : line, k, try lines.lineNumber(ahead: k))
            }
            k += 1
        }
        return nil
    }
}

extension Preamble {
    /// Whether `line`, right under the header `header` and over the data line `data`, is a second
    /// header row: as many fields as the header, mostly not numbers, and either units (`s`,
    /// `m/s^2`, `[deg/s]`) or names completing a header of sensor headings — one with empty or
    /// repeated fields, as in `Accelerometer,,,Gyroscope,,` over `X,Y,Z,X,Y,Z`.
    static func isSecondHeaderRow(
        _ line: [UInt8], under header: [UInt8], over data: [UInt8], separator: TextDialect.Separator?
    ) -> Bool {
        guard !isBlank(line) && !isComment(line) else { return false }
        let dialect = TextDialect.detect(header: header, data: data, separator: separator)
        let h = Shape(header, dialect)
        let l = Shape(line, dialect)
        let d = Shape(data, dialect)
        guard h.count >= 2, l.count == h.count, h.matches(d), l.texts > l.numbers, d.numbers > d.texts else {
            return false
        }
        let split = FieldSplitter(dialect: dialect)
        let names = split.texts(header)
        let headings = names.contains("") || Set(names).count < names.count
        return isUnitsRow(split.texts(line)) || headings
    }

    /// Whether a header row gives units: at least half its fields that are not empty are units
    /// (``isUnitText``); the others are units this reader does not know (`local_flux*`).
    static func isUnitsRow(_ fields: [String]) -> Bool {
        let given = fields.filter { !$0.isEmpty }
        return !given.isEmpty && given.filter(isUnitText).count * 2 >= given.count
    }

    /// Whether `line`, right under the header, may be a second header row: as many fields, mostly
    /// not numbers (judged without the data line, which a live stream may not have sent yet).
    static func mayBeSecondHeaderRow(_ line: [UInt8], under header: [UInt8], separator: TextDialect.Separator?)
        -> Bool
    {
        guard !isBlank(line) && !isComment(line) else { return false }
        let dialect = TextDialect.detect(header: header, data: nil, separator: separator)
        let l = Shape(line, dialect)
        return l.count == Shape(header, dialect).count && l.texts > l.numbers
    }

    /// Whether a header field is a unit (`s`, `m/s^2`, `deg/s`, `[µT]`, `-`) rather than a name.
    static func isUnitText(_ field: String) -> Bool {
        var text = field.trimmingSpaces
        if let first = text.first, let last = text.last, (first == "(" && last == ")") || (first == "[" && last == "]")
        {
            text = String(text.dropFirst().dropLast())
        }
        if text == "-" || text.isEmpty { return true }
        for key in ["t", "gyr", "acc", "mag"] {
            var units = SensorUnits()
            if (try? units.set(key, text, strictly: true)) != nil && !(key == "mag" && text == "1") { return true }
        }
        return false
    }
}

extension DelimitedRows {
    /// The column names of header rows: the first row's, each joined with what the second row
    /// says of its column (see ``columnNames``).
    static func joinedNames(_ rows: [[String]]) -> [String] {
        guard rows.count >= 2 else { return rows.first ?? [] }
        let first = rows[0]
        let second = rows[1]
        let units = Preamble.isUnitsRow(second)
        var heading = ""
        var out = [String]()
        for (c, name) in first.enumerated() {
            if !name.isEmpty { heading = name }
            let below = c < second.count ? second[c] : ""
            if below.isEmpty {
                out.append(name)
            } else if units || Preamble.isUnitText(below) {
                let unit =
                    below.hasPrefix("(") || below.hasPrefix("[") ? String(below.dropFirst().dropLast()) : below
                let base = name.isEmpty ? heading : name
                out.append(ColumnLayout.unitHint(base) == nil && unit != "-" ? "\(base) (\(unit))" : base)
            } else {
                let base = name.isEmpty ? heading : name
                out.append(base.isEmpty ? below : "\(base) \(below)")
            }
        }
        return out
    }
}

extension Preamble {
    /// The sample rate a line before the header states (`// Update Rate: 100.0Hz`, `Sample rate:
    /// 60Hz`, `Sampling frequency,200 Hz`): the first line naming a rate or frequency with a number
    /// in Hz, or a sampling period with a number in s, ms or µs (HyperIMU's `Sampling Time: 50ms`,
    /// 20 Hz), or ActiLife's first line (`Data File Created By ActiGraph … at 100 Hz`), and that
    /// line.
    static func statedRate(_ preamble: [String]) -> (rate: Double, line: String)? {
        for line in preamble {
            let lower = line.lowercased()
            if isActiGraphLine(line), let rate = actiGraphRate(line) { return (rate, line.trimmingSpaces) }
            if lower.contains("rate") || lower.contains("frequency"), let hz = lower.firstRange(of: "hz"),
                let rate = number(before: hz.lowerBound, in: lower), rate > 0, rate.isFinite
            {
                return (rate, line.trimmingSpaces)
            }
            for name in ["sampling time", "sample time", "sampling interval", "sampling period", "sample period"] {
                guard let named = lower.firstRange(of: name),
                    let (period, unit) = number(after: named.upperBound, in: lower),
                    let scale = SensorUnits.timeScale(unit), period > 0, (period * scale).isFinite
                else { continue }
                return (1 / (period * scale), line.trimmingSpaces)
            }
        }
        return nil
    }

    /// Whether the preamble is ActiLife's, above an ActiGraph export (`------------ Data File
    /// Created By ActiGraph Link IMU 9DOF Sensor ActiLife v6.13.4 … at 100 Hz  -----------`).
    static func isActiGraph(_ preamble: [String]) -> Bool {
        preamble.contains { isActiGraphLine($0) }
    }

    /// Whether `line` is ActiLife's first line (see ``isActiGraph(_:)``).
    static func isActiGraphLine(_ line: String) -> Bool {
        line.lowercased().contains("data file created by actigraph")
    }

    /// The rate of ActiLife's first line: the number in `at N Hz`.
    static func actiGraphRate(_ line: String) -> Double? {
        let lower = line.lowercased()
        var from = lower.startIndex
        while let at = lower[from...].firstRange(of: " at ") {
            from = at.upperBound
            var end = from
            while end < lower.endIndex && lower[end].isASCII && (lower[end].isNumber || lower[end] == ".") {
                end = lower.index(after: end)
            }
            guard end > from, let rate = Double(lower[from..<end]), rate > 0, rate.isFinite,
                lower[end...].drop(while: { $0 == " " }).hasPrefix("hz")
            else { continue }
            return rate
        }
        return nil
    }

    /// Whether a line before the header states dates written month first (ActiLife's `date format
    /// M/d/yyyy`): the only way `3/1/2024` is read, as 1 March.
    static func statesMonthFirstDates(_ preamble: [String]) -> Bool {
        preamble.contains { line in
            let lower = line.lowercased()
            guard let named = lower.firstRange(of: "date format") else { return false }
            let format = lower[named.upperBound...].drop { $0 == " " || $0 == ":" || $0 == "=" }
            return format.hasPrefix("m/d/yyyy") || format.hasPrefix("mm/dd/yyyy")
        }
    }

    /// The number that ends right before `end` in `text` (spaces between allowed).
    static func number(before end: String.Index, in text: String) -> Double? {
        var end = end
        while end > text.startIndex && text[text.index(before: end)] == " " { end = text.index(before: end) }
        var start = end
        while start > text.startIndex {
            let c = text[text.index(before: start)]
            guard c.isASCII && (c.isNumber || c == ".") else { break }
            start = text.index(before: start)
        }
        return Double(text[start..<end])
    }

    /// The first number after `start` in `text` past a separator (`:`, `=`, `,` or spaces), and the
    /// letters right after it (its unit).
    static func number(after start: String.Index, in text: String) -> (Double, String)? {
        var i = start
        while i < text.endIndex && [" ", ":", "=", ",", "\t"].contains(text[i]) { i = text.index(after: i) }
        var end = i
        while end < text.endIndex && text[end].isASCII && (text[end].isNumber || text[end] == ".") {
            end = text.index(after: end)
        }
        guard let value = Double(text[i..<end]) else { return nil }
        while end < text.endIndex && text[end] == " " { end = text.index(after: end) }
        var unitEnd = end
        while unitEnd < text.endIndex && (text[unitEnd].isLetter || text[unitEnd] == "µ") {
            unitEnd = text.index(after: unitEnd)
        }
        return (value, String(text[end..<unitEnd]))
    }
}
