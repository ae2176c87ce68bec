/// Member files without a header, as Android loggers write them: `acce.txt`, `gyro.txt`,
/// `magnet.txt`, each perhaps a `# Created at …` line and then rows of a clock and the sensor's x,
/// y and z (RoNIN's collector, Sensors-Data-Logger: `timestamp x y z`; OpenCamera-Sensors:
/// `x,y,z,timestamp`).
extension SensorFilesImporter {
    /// How a member file without a header is read.
    struct Headerless: Equatable {
        /// Lines before the first row: comments, and a header of column numbers (`0,1,2,3`, as
        /// pandas writes a frame without names).
        var skip: Int
        /// The column of the clock: the first or the last of the four; the others are x, y, z.
        var clock: Int
        /// Columns before the four (a row index).
        var offset = 0
        /// The separator the rows use, when one byte.
        var separator: TextDialect.Separator?
        /// The column names of a header written as a comment (`# t x y z`), which the layout
        /// reads instead of ``clock``.
        var names: [String]?
    }

    /// Rows looked at to find the clock.
    static let headerlessProbeRows = 20

    /// How to read a member file when its first line that is not blank or a comment holds only
    /// numbers: four of them are a clock, the first or the last column (the one that never
    /// decreases over the first rows; of two, the one that counts whole ns, µs or ms), and x, y,
    /// z in the others. Nil when the file
    /// has a header; the names of one written as a comment (`#timestamp [ns],x,y,z`, EuRoC's). Errors
    /// for rows of another count of numbers (which is the clock and which the axes is not
    /// known), for a file with no rows, and for four columns none of which counts time.
    static func headerless(_ lines: ByteLineReader, file: String) throws -> Headerless? {
        var k = 0
        var lastComment: [UInt8]?
        while k < Preamble.maximumLines, let line = try lines.peekLine(ahead: k) {
            if Preamble.isBlank(line) {
                k += 1
            } else if Preamble.isComment(line) {
                lastComment = line
                k += 1
            } else {
                break
            }
        }
        guard let first = try lines.peekLine(ahead: k), !Preamble.isComment(first) else {
            throw TraceError(
                .missingColumn, SourceLocation(file: file, line: 1, column: 0),
                "no rows\(k > 0 ? " (only comment lines)" : " (an empty file)")")
        }
        var skip = k
        var offset = 0
        var row: [Double]
        // Column numbers over the rows: pandas' header of a frame without names, perhaps over a
        // row index (`,0,1,2,3` over `0,t,x,y,z`), which is not read.
        let header = fields(first)
        let numbered = header.dropFirst(header.first == "" ? 1 : 0)
        if numbered.count >= 3, numbered.enumerated().allSatisfy({ $0.element == String($0.offset) }),
            let next = try lines.peekLine(ahead: k + 1), let values = numbers(next), values.count == header.count
        {
            skip += 1
            offset = header.count - numbered.count
            row = Array(values.dropFirst(offset))
        } else {
            guard let values = numbers(first) else { return nil }
            if let comment = lastComment, let names = namedHeader(comment, count: values.count) {
                return Headerless(skip: k, clock: -1, names: names)
            }
            row = values
        }
        let here = SourceLocation(file: file, line: skip + 1, column: 0)
        guard row.count == 4 else {
            throw TraceError(
                .missingColumn, here,
                "rows of \(row.count) numbers and no header: \(row.count < 4 ? "no column is left for the time" : "which column is the time and which are x, y and z is not known"); give the file a header line (e.g. t,x,y,z\(row.count > 4 ? ",…" : "")) or read it alone with --header-rows 0 --columns"
            )
        }
        var rows = [row]
        var ahead = skip + 1
        while rows.count < headerlessProbeRows, let line = try lines.peekLine(ahead: ahead) {
            ahead += 1
            if Preamble.isBlank(line) || Preamble.isComment(line) { continue }
            guard let values = numbers(line), values.count == 4 + offset else { break }
            rows.append(Array(values.dropFirst(offset)))
        }
        let separator = separator(first).map { TextDialect.Separator.byte($0.asciiValue!) }
        func found(_ clock: Int) -> Headerless {
            Headerless(skip: skip, clock: offset + clock, offset: offset, separator: separator)
        }
        // A column may be the clock when it never decreases over the rows looked at (repeated
        // times are faults reported later); a count of whole ns, µs or ms (whole numbers of a
        // million or more) is surely one, where an axis that happens to rise in a slow motion is
        // not.
        func rises(_ c: Int) -> Bool { zip(rows, rows.dropFirst()).allSatisfy { $1[c] >= $0[c] } }
        func counts(_ c: Int) -> Bool { rows.allSatisfy { $0[c] == $0[c].rounded() && abs($0[c]) >= 1e6 } }
        switch (
            rises(0) && (rows.count == 1 || rows.last![0] > rows[0][0]),
            rises(3) && (rows.count == 1 || rows.last![3] > rows[0][3]),
            counts(0), counts(3)
        )
        {
        case (true, _, true, false), (true, false, _, _): return found(0)
        case (_, true, false, true), (false, true, _, _): return found(3)
        case (true, true, _, _):
            throw TraceError(
                .missingColumn, here,
                "rows of 4 numbers and no header, whose first and last columns both rise: which is the time is not known; give the file a header line (e.g. t,x,y,z)"
            )
        default:
            throw TraceError(
                .missingColumn, here,
                "rows of 4 numbers and no header, whose first and last columns both decrease in the first \(rows.count) rows: no clock; give the file a header line (e.g. t,x,y,z)"
            )
        }
    }

    /// Whether a file has a line that is not blank or a comment (a header or a row). A line that
    /// cannot be read counts as one, so the file is chosen and its error reported where it is read.
    static func hasRows(_ lines: ByteLineReader) -> Bool {
        var k = 0
        while k < Preamble.maximumLines {
            let next: [UInt8]?
            do { next = try lines.peekLine(ahead: k) } catch { return true }
            guard let line = next else { return false }
            if !Preamble.isBlank(line) && !Preamble.isComment(line) { return true }
            k += 1
        }
        return false
    }

    /// The separator of a headerless line: a semicolon, else a tab, else a comma (a decimal comma
    /// is read under the first two), else nil for runs of spaces. Unlike the dialect of a file
    /// with a header, a semicolon wins over commas as many (`4240;0,17;0,26;9,56`).
    static func separator(_ line: [UInt8]) -> Character? {
        let text = String(decoding: line, as: UTF8.self)
        return [";", "\t", ","].first { text.contains($0) }
    }

    /// The fields of a line, split at its ``separator(_:)``, a leading empty field kept (a row
    /// index's empty name) and trailing empty ones dropped.
    static func fields(_ line: [UInt8]) -> [String] {
        let text = String(decoding: line, as: UTF8.self)
        let separator = separator(line)
        let parts =
            separator.map { c in text.split(separator: c, omittingEmptySubsequences: false) }
            ?? text.split(whereSeparator: { $0 == " " || $0 == "\r" })
        var out = parts.map { $0.filter { !" \t\r\"".contains($0) } }
        while out.last?.isEmpty == true { out.removeLast() }
        return out
    }

    /// The numbers of a line, or nil when a field is not one (a decimal comma is read in a file
    /// whose separator is not a comma).
    static func numbers(_ line: [UInt8]) -> [Double]? {
        let fields = fields(line)
        let decimalComma = separator(line).map { $0 != "," } ?? false
        var values = [Double]()
        for f in fields {
            guard let v = Double(f) ?? (decimalComma ? Double(f.replacing(",", with: ".")) : nil) else { return nil }
            values.append(v)
        }
        return values.isEmpty ? nil : values
    }

    /// The names of a comment line that is the header of rows of `count` numbers: without its
    /// comment mark it holds `count` fields, not all numbers, one of them a time's or an axis's
    /// name (`#timestamp [ns],x,y,z`, `# t x y z`; not `# Created at Mon`).
    static func namedHeader(_ comment: [UInt8], count: Int) -> [String]? {
        var line = comment[...]
        while let c = line.first,
            c == 0x20 || c == 0x09 || c == UInt8(ascii: "#") || c == UInt8(ascii: "%")
                || c == UInt8(ascii: "/")
        {
            line = line.dropFirst()
        }
        let names = fields(Array(line)).filter { !$0.isEmpty }
        guard names.count == count && numbers(Array(line)) == nil,
            names.contains(where: { ColumnLayout.match($0) != nil || ["x", "y", "z"].contains(ColumnLayout.key($0)) })
        else { return nil }
        return names
    }
}
