import Foundation
import Glibc

/// A whole CSV file parsed into numeric columns, for the importers' per-sensor files (small next to
/// native traces). Errors carry file, line and column.
struct CSVTable {
    let path: String
    /// Header names as written (quotes removed, trimmed).
    let header: [String]
    /// `columns[c][r]`: value of column c in data row r (NaN for an empty field).
    var columns: [[Double]]
    /// 1-based file line of each data row.
    var lineOfRow: [Int]
    /// Raw text of each field's first byte offset, for error columns: `fieldOffsets[r][c]`.
    var fieldOffsets: [[Int]]
    /// Columns parsed as exact integers (for nanosecond timestamps that exceed 2⁵³).
    var integerColumns: [Int: [Int64]] = [:]

    var rowCount: Int { lineOfRow.count }

    /// Reads `path`. `integerColumnNames` are also parsed exactly as 64-bit integers.
    init(path: String, integerColumns integerNames: Set<String> = []) throws {
        self.path = path
        // Read into a plain byte array: Foundation's Data leaked its buffer when an error was
        // thrown out of `withUnsafeBytes` (found by fuzzing the phyphox importer).
        let data = try Self.readBytes(path)
        var header: [String] = []
        var columns: [[Double]] = []
        var lineOfRow: [Int] = []
        var offsets: [[Int]] = []
        var ints: [Int: [Int64]] = [:]
        var intIndices: [Int] = []
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count > 0 else {
                throw TraceError(
                    .empty, SourceLocation(file: path, line: 1, column: 0), "file is empty; expected a header line")
            }
            let n = raw.count
            var pos = 0
            var line = 0
            if n >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { pos = 3 }
            while pos < n {
                line += 1
                var end = pos
                while end < n && base[end] != 0x0A { end += 1 }
                var contentEnd = end
                if contentEnd > pos && base[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                defer { pos = end + 1 }
                if contentEnd == pos { continue }
                // Split on commas outside quotes.
                var fields: [(Int, Int)] = []
                var i = pos
                var start = pos
                var quoted = false
                while i < contentEnd {
                    let c = base[i]
                    if c == 0x22 {
                        quoted.toggle()
                    } else if c == 0x2C && !quoted {
                        fields.append((start, i))
                        start = i + 1
                    }
                    i += 1
                }
                fields.append((start, contentEnd))
                if header.isEmpty {
                    header = fields.map { f in
                        String(decoding: UnsafeBufferPointer(start: base + f.0, count: f.1 - f.0), as: UTF8.self)
                            .trimmingCharacters(in: CharacterSet(charactersIn: " \t\""))
                    }
                    columns = Array(repeating: [], count: header.count)
                    intIndices = header.indices.filter { integerNames.contains(header[$0]) }
                    for k in intIndices { ints[k] = [] }
                    continue
                }
                guard fields.count == header.count else {
                    throw TraceError(
                        .wrongColumnCount, SourceLocation(file: path, line: line, column: contentEnd - pos + 1),
                        "row has \(fields.count) fields; the header has \(header.count) columns")
                }
                lineOfRow.append(line)
                offsets.append(fields.map { $0.0 - pos })
                for (c, f) in fields.enumerated() {
                    switch DecimalParser.parse(base, f.0, f.1) {
                    case .value(let v): columns[c].append(v)
                    case .empty: columns[c].append(.nan)
                    case .malformed(let off):
                        let text = String(
                            decoding: UnsafeBufferPointer(start: base + f.0, count: f.1 - f.0), as: UTF8.self)
                        throw TraceError(
                            .malformedNumber, SourceLocation(file: path, line: line, column: f.0 - pos + off + 1),
                            "'\(text)' in column '\(header[c])' is not a number")
                    }
                }
                for k in intIndices {
                    let f = fields[k]
                    // Exact 64-bit integer straight from the bytes (nanosecond timestamps exceed 2^53).
                    var i = f.0
                    var e = f.1
                    while i < e && base[i] == 0x20 { i += 1 }
                    while e > i && base[e - 1] == 0x20 { e -= 1 }
                    var negative = false
                    if i < e && (base[i] == 0x2D || base[i] == 0x2B) {
                        negative = base[i] == 0x2D
                        i += 1
                    }
                    var value: Int64 = 0
                    var ok = i < e
                    while ok && i < e {
                        let d = base[i] &- 0x30
                        let (m, o1) = value.multipliedReportingOverflow(by: 10)
                        let (a, o2) = m.addingReportingOverflow(Int64(d))
                        if d >= 10 || o1 || o2 {
                            ok = false
                        } else {
                            value = a
                        }
                        i += 1
                    }
                    guard ok else {
                        let text = String(
                            decoding: UnsafeBufferPointer(start: base + f.0, count: f.1 - f.0), as: UTF8.self)
                        throw TraceError(
                            .malformedNumber, SourceLocation(file: path, line: line, column: f.0 - pos + 1),
                            "'\(text)' in column '\(header[k])' is not an integer timestamp")
                    }
                    ints[k]!.append(negative ? -value : value)
                }
            }
        }
        guard !header.isEmpty else {
            throw TraceError(
                .empty, SourceLocation(file: path, line: 1, column: 0), "file is empty; expected a header line")
        }
        guard !lineOfRow.isEmpty else {
            throw TraceError(.empty, SourceLocation(file: path, line: 2, column: 0), "no data rows after the header")
        }
        self.header = header
        self.columns = columns
        self.lineOfRow = lineOfRow
        self.fieldOffsets = offsets
        self.integerColumns = ints
    }

    /// The whole file as bytes, or an `unreadable` error naming the file.
    static func readBytes(_ path: String) throws -> [UInt8] {
        let fail = { (reason: String) in
            TraceError(.unreadable, SourceLocation(file: path, line: 0, column: 0), "cannot read: \(reason)")
        }
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { throw fail("is a folder, expected a file") }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw fail(String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// Index of the first header name satisfying `predicate`, or a missing-column error.
    func column(_ description: String, _ predicate: (String) -> Bool) throws -> Int {
        if let i = header.firstIndex(where: predicate) { return i }
        throw TraceError(
            .missingColumn, SourceLocation(file: path, line: 1, column: 0),
            "missing column \(description); header has: \(header.joined(separator: ","))")
    }

    /// Location of row r, column c.
    func location(row r: Int, column c: Int) -> SourceLocation {
        SourceLocation(file: path, line: lineOfRow[r], column: fieldOffsets[r][c] + 1)
    }

    /// A timestamp column converted to seconds with `scale`, checked finite and strictly
    /// increasing. Integer columns are differenced exactly from `origin` when given.
    func times(column c: Int, scale: Double, origin: Int64? = nil) throws -> [Double] {
        var result = [Double]()
        result.reserveCapacity(rowCount)
        if let ints = integerColumns[c] {
            let o = origin ?? ints[0]
            for v in ints { result.append(Double(v - o) * scale) }
        } else {
            result = columns[c].map { $0 * scale }
        }
        for r in 0..<result.count {
            guard result[r].isFinite else {
                throw TraceError(.nonFiniteValue, location(row: r, column: c), "timestamp is not a finite number")
            }
            if r > 0 && result[r] <= result[r - 1] {
                let what = result[r] == result[r - 1] ? "duplicates" : "is earlier than"
                throw TraceError(
                    .nonMonotonicTime, location(row: r, column: c),
                    "timestamp \(columns[c][r]) \(what) the previous row's \(columns[c][r - 1]); timestamps must strictly increase"
                )
            }
        }
        return result
    }

    /// Three value columns as vectors scaled by `scale`; rows where all three are NaN give `nil`,
    /// partly NaN or infinite rows are errors.
    func vectors(_ c: (Int, Int, Int), scale: Double) throws -> [Vector3?] {
        var result = [Vector3?]()
        result.reserveCapacity(rowCount)
        for r in 0..<rowCount {
            let x = columns[c.0][r]
            let y = columns[c.1][r]
            let z = columns[c.2][r]
            if x.isNaN && y.isNaN && z.isNaN {
                result.append(nil)
                continue
            }
            for k in [c.0, c.1, c.2] where !columns[k][r].isFinite {
                throw TraceError(
                    .nonFiniteValue, location(row: r, column: k),
                    "value is \(columns[k][r]) in column '\(header[k])'; expected a finite number (all three axes nan marks a missing sample)"
                )
            }
            result.append(Vector3(x, y, z) * scale)
        }
        return result
    }
}
