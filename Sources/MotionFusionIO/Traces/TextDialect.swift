/// How a delimited text file separates its fields and writes its numbers: a comma, semicolon or
/// tab between fields, or runs of spaces; a decimal point or a decimal comma.
public struct TextDialect: Equatable, Sendable, CustomStringConvertible {
    /// The field separator.
    public enum Separator: Equatable, Sendable {
        /// One byte: `,` `;` or tab.
        case byte(UInt8)
        /// One or more spaces or tabs.
        case whitespace
    }

    /// The field separator.
    public var separator: Separator
    /// The byte between a number's integer and fractional digits: `.` or `,`.
    public var decimalPoint: UInt8

    /// Creates a dialect.
    public init(separator: Separator, decimalPoint: UInt8 = UInt8(ascii: ".")) {
        self.separator = separator
        self.decimalPoint = decimalPoint
    }

    /// Comma-separated with decimal points: the native format.
    public static let csv = TextDialect(separator: .byte(UInt8(ascii: ",")))

    /// The separator byte, or 0 for whitespace separation.
    @inlinable
    var separatorByte: UInt8 {
        if case .byte(let b) = separator { return b }
        return 0
    }

    /// The names accepted by `--delimiter`.
    public static let separatorNames = ["comma", "semicolon", "tab", "space"]

    /// The separator named by `--delimiter` (`comma`, `semicolon`, `tab`, `space`, or the character).
    public static func separator(named name: String) -> Separator? {
        switch name.lowercased() {
        case "comma", ",": return .byte(UInt8(ascii: ","))
        case "semicolon", ";": return .byte(UInt8(ascii: ";"))
        case "tab", "\t", "\\t": return .byte(0x09)
        case "space", "whitespace", " ": return .whitespace
        default: return nil
        }
    }

    public var description: String {
        "fields separated by \(Self.separatorName(separator)), decimal \(decimalPoint == UInt8(ascii: ",") ? "comma" : "point")"
    }

    /// A separator in messages: `spaces`, `tabs`, `','`.
    static func separatorName(_ separator: Separator) -> String {
        switch separator {
        case .whitespace: "spaces"
        case .byte(0x09): "tabs"
        case .byte(let b): "'\(Character(Unicode.Scalar(b)))'"
        }
    }

    /// Guesses the dialect from a header line and the first data line: the byte separator (`,` `;`
    /// tab) that splits both into the same number of fields (at least two; one line may have one
    /// more, empty, after a trailing separator), preferring the one giving most fields, else
    /// whitespace. A decimal comma is assumed when the separator is not a comma and the data line
    /// has numbers written with one (`1,25`).
    public static func detect(header: [UInt8], data: [UInt8]?, separator forced: Separator? = nil) -> TextDialect {
        var separator = forced
        let lines = [header, data ?? []].filter { !$0.isEmpty }
        if separator == nil {
            var best: (UInt8, Int)?
            for candidate in [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09] {
                let counts = lines.map { FieldSplitter.count($0, .byte(candidate)) }
                guard let fewest = counts.min(), fewest >= 2,
                    zip(lines, counts).allSatisfy({ line, count in
                        count == fewest || (count == fewest + 1 && Self.endsWithSeparator(line, candidate))
                    })
                else { continue }
                if best == nil || fewest > best!.1 { best = (candidate, fewest) }
            }
            // A first data line that does not fit (a status or junk row under the header): the
            // header alone decides, by its most frequent separator.
            let headerOnly = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09].map {
                ($0, FieldSplitter.count(header, .byte($0)))
            }
            .filter { $0.1 >= 2 }.max { $0.1 < $1.1 }
            if let (b, _) = best ?? headerOnly {
                separator = .byte(b)
            } else if let line = lines.last, FieldSplitter.count(line, .whitespace) >= 2 {
                separator = .whitespace
            } else {
                separator = .byte(UInt8(ascii: ","))
            }
        }
        var dialect = TextDialect(separator: separator!)
        if dialect.separatorByte != UInt8(ascii: ","), let row = data, Self.hasDecimalComma(row, dialect) {
            dialect.decimalPoint = UInt8(ascii: ",")
        }
        return dialect
    }

    /// Whether `line` ends with `separator` (trailing spaces aside): its last field is empty.
    static func endsWithSeparator(_ line: [UInt8], _ separator: UInt8) -> Bool {
        line.last { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D } == separator
    }

    /// True when some field of `row` looks like a number with a decimal comma and none has a point.
    static func hasDecimalComma(_ row: [UInt8], _ dialect: TextDialect) -> Bool {
        var comma = false
        var point = false
        row.withUnsafeBufferPointer { buf in
            guard let p = buf.baseAddress else { return }
            FieldSplitter(dialect: dialect).forEachField(p, buf.count) { _, s, e in
                var sawDigitBefore = false
                for k in s..<e {
                    let c = p[k]
                    if c &- 0x30 < 10 { sawDigitBefore = true }
                    if c == UInt8(ascii: ".") { point = true }
                    if c == UInt8(ascii: ","), sawDigitBefore, k + 1 < e, p[k + 1] &- 0x30 < 10 { comma = true }
                }
            }
        }
        return comma && !point
    }
}

/// Splits one line of delimited text into fields: the one tokenizer of every text reader (native
/// traces, recording formats, estimate files). Fields may be quoted (`"…"`, with `""` for a quote
/// inside); separators inside quotes do not split. With whitespace separation, leading and trailing
/// spaces are ignored and runs of spaces separate.
public struct FieldSplitter: Sendable {
    /// The dialect.
    public let dialect: TextDialect

    /// Creates a splitter.
    public init(dialect: TextDialect) { self.dialect = dialect }

    /// Calls `body(index, start, end)` with each field's byte range in `p[0..<n]` and returns the
    /// number of fields. A quoted field's range includes its quotes.
    @inlinable @discardableResult
    public func forEachField(
        _ p: UnsafePointer<UInt8>, _ n: Int, _ body: (Int, Int, Int) throws -> Void
    ) rethrows -> Int {
        var field = 0
        var i = 0
        if case .whitespace = dialect.separator {
            while true {
                while i < n && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
                if i >= n { return field }
                let start = i
                i = Self.fieldEnd(p, i, n, separator: 0)
                try body(field, start, i)
                field += 1
            }
        }
        let separator = dialect.separatorByte
        while true {
            let start = i
            i = Self.fieldEnd(p, i, n, separator: separator)
            try body(field, start, i)
            field += 1
            if i >= n { return field }
            i += 1
        }
    }

    /// The end of the field starting at `i`: the next separator outside quotes (0 means a space or
    /// tab), or `n`.
    @inlinable @inline(__always)
    static func fieldEnd(_ p: UnsafePointer<UInt8>, _ start: Int, _ n: Int, separator: UInt8) -> Int {
        var i = start
        var quoted = false
        while i < n {
            let c = p[i]
            if c == 0x22 {
                quoted.toggle()
            } else if !quoted && (separator == 0 ? (c == 0x20 || c == 0x09) : c == separator) {
                return i
            }
            i += 1
        }
        return i
    }

    /// Number of fields of a line.
    static func count(_ line: [UInt8], _ separator: TextDialect.Separator) -> Int {
        line.withUnsafeBufferPointer { buf -> Int in
            guard let p = buf.baseAddress, !buf.isEmpty else { return 0 }
            return FieldSplitter(dialect: TextDialect(separator: separator)).forEachField(p, buf.count) { _, _, _ in }
        }
    }

    /// The fields of a line as text: quotes removed (`""` becomes `"`), surrounding spaces trimmed.
    public func texts(_ line: [UInt8]) -> [String] {
        line.withUnsafeBufferPointer { buf -> [String] in
            guard let p = buf.baseAddress, !buf.isEmpty else { return [] }
            var out = [String]()
            forEachField(p, buf.count) { _, s, e in out.append(Self.text(p, s, e)) }
            return out
        }
    }

    /// One field's text, unquoted and trimmed; a line break inside quotes (RFC 4180, see
    /// ``ByteLineReader``) reads as one space, so a name written over two lines is one name.
    public static func text(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> String {
        var s = start
        var e = end
        while s < e && (p[s] == 0x20 || p[s] == 0x09) { s += 1 }
        while e > s && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
        if e - s >= 2 && p[s] == 0x22 && p[e - 1] == 0x22 {
            var bytes = [UInt8]()
            var k = s + 1
            while k < e - 1 {
                if p[k] == 0x0D || p[k] == 0x0A {
                    if bytes.last != 0x20 { bytes.append(0x20) }
                    k += 1
                    continue
                }
                bytes.append(p[k])
                k += p[k] == 0x22 && k + 1 < e - 1 && p[k + 1] == 0x22 ? 2 : 1
            }
            return String(decoding: bytes, as: UTF8.self).trimmingSpaces
        }
        return String(decoding: UnsafeBufferPointer(start: p + s, count: e - s), as: UTF8.self)
    }
}

extension String {
    /// The text without leading and trailing spaces and tabs.
    public var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

/// A `KEY=VALUE,…` list, the syntax of `--param`, `--columns` and `--units`: items separated by
/// commas (empty items skipped), each split at its first `=`, key and value without surrounding
/// spaces.
public enum KeyValueList {
    /// Calls `body` with each item's key, value and text as written, in order; an item without `=`,
    /// or with nothing before or after it, throws `malformed(item)` when it is reached.
    public static func forEach(
        _ spec: String, malformed: (Substring) -> Error,
        _ body: (_ key: String, _ value: String, _ item: Substring) throws -> Void
    ) throws {
        for item in spec.split(separator: ",", omittingEmptySubsequences: true) {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex, item.index(after: eq) != item.endIndex
            else { throw malformed(item) }
            try body(String(item[..<eq]).trimmingSpaces, String(item[item.index(after: eq)...]).trimmingSpaces, item)
        }
    }
}
