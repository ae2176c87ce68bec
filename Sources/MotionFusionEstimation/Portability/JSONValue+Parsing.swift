/// Reading JSON text into a ``JSONValue``, so the library reads calibration files and filter
/// parameters without Foundation's `JSONSerialization`. It accepts what `JSONSerialization`
/// accepted (objects and arrays at the top, a trailing comma in either) and words its errors as
/// it did ("Invalid value around character N."), with the byte offset alongside.
extension JSONValue {
    /// Malformed JSON text: what is wrong, and the byte offset where reading stopped.
    public struct SyntaxError: Error, CustomStringConvertible {
        public var offset: Int
        public var description: String
    }

    /// The value the JSON text `bytes` holds (an object or an array). Integers that fit an `Int`
    /// read as ``integer(_:)``, other numbers as ``number(_:)``.
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        guard let first = reader.peek else { throw reader.endOfFile() }
        guard first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { throw reader.invalid() }
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.peek == nil else { throw reader.invalid() }
        return value
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// A number as a `Double`, or nil.
    public var doubleValue: Double? {
        switch self {
        case .number(let v): return v
        case .integer(let i): return Double(i)
        default: return nil
        }
    }

    /// A whole number as an `Int`, or nil.
    public var intValue: Int? {
        switch self {
        case .integer(let i): return i
        case .number(let v): return v == v.rounded() && abs(v) < 9e18 ? Int(v) : nil
        default: return nil
        }
    }

    /// A string, or nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// An array's elements, or nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// An object's members, or nil.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

        func invalid() -> SyntaxError { SyntaxError(offset: at, description: "Invalid value around character \(at).") }
        func endOfFile() -> SyntaxError {
            SyntaxError(offset: bytes.count, description: "Unexpected end of file during JSON parse.")
        }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { at += 1 }
        }

        mutating func value(depth: Int) throws -> JSONValue {
            guard let b = peek else { throw endOfFile() }
            guard depth < 512 else {
                throw SyntaxError(
                    offset: at, description: "Too many nested arrays or dictionaries around character \(at).")
            }
            switch b {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try word("true", .bool(true))
            case UInt8(ascii: "f"): return try word("false", .bool(false))
            case UInt8(ascii: "n"): return try word("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw invalid()
            }
        }

        mutating func word(_ text: String, _ value: JSONValue) throws -> JSONValue {
            let expected = Array(text.utf8)
            guard at + expected.count <= bytes.count else { throw endOfFile() }
            guard bytes[at..<(at + expected.count)].elementsEqual(expected) else { throw invalid() }
            at += expected.count
            return value
        }

        /// Before a member or an element: whether the closing bracket `close` comes (then taken).
        mutating func closes(_ close: UInt8) throws -> Bool {
            skipSpace()
            guard let b = peek else { throw endOfFile() }
            if b == close { at += 1 }
            return b == close
        }

        /// After a member or an element: a comma (taken) or the closing bracket `close` (left).
        mutating func separator(_ close: UInt8) throws {
            skipSpace()
            guard let next = peek else { throw endOfFile() }
            if next == UInt8(ascii: ",") {
                at += 1
            } else if next != close {
                throw invalid()
            }
        }

        mutating func object(depth: Int) throws -> JSONValue {
            at += 1
            var members = [String: JSONValue]()
            while try !closes(UInt8(ascii: "}")) {
                guard peek == UInt8(ascii: "\"") else { throw invalid() }
                let key = try string()
                skipSpace()
                guard let colon = peek else { throw endOfFile() }
                guard colon == UInt8(ascii: ":") else { throw invalid() }
                at += 1
                skipSpace()
                members[key] = try value(depth: depth + 1)
                try separator(UInt8(ascii: "}"))
            }
            return .object(members)
        }

        mutating func array(depth: Int) throws -> JSONValue {
            at += 1
            var items = [JSONValue]()
            while try !closes(UInt8(ascii: "]")) {
                items.append(try value(depth: depth + 1))
                try separator(UInt8(ascii: "]"))
            }
            return .array(items)
        }

        mutating func string() throws -> String {
            at += 1
            var out = [UInt8]()
            while true {
                guard let b = peek else { throw endOfFile() }
                switch b {
                case UInt8(ascii: "\""):
                    at += 1
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    let escape = at
                    let bad = SyntaxError(
                        offset: escape, description: "Invalid escape sequence around character \(escape).")
                    at += 1
                    guard let e = peek else { throw endOfFile() }
                    at += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4(bad)
                        if (0xD800..<0xDC00).contains(scalar), peek == UInt8(ascii: "\\"), at + 1 < bytes.count,
                            bytes[at + 1] == UInt8(ascii: "u")
                        {
                            at += 2
                            let low = try hex4(bad)
                            guard (0xDC00..<0xE000).contains(low) else { throw bad }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let s = Unicode.Scalar(scalar) else { throw bad }
                        out += Array(String(Character(s)).utf8)
                    default: throw bad
                    }
                case 0..<0x20:
                    throw SyntaxError(offset: at, description: "Unescaped control character around character \(at).")
                default:
                    out.append(b)
                    at += 1
                }
            }
        }

        mutating func hex4(_ bad: SyntaxError) throws -> UInt32 {
            guard at + 4 <= bytes.count else { throw endOfFile() }
            guard let v = UInt32(String(decoding: bytes[at..<(at + 4)], as: UTF8.self), radix: 16) else { throw bad }
            at += 4
            return v
        }

        mutating func number() throws -> JSONValue {
            let start = at
            var whole = true
            if peek == UInt8(ascii: "-") { at += 1 }
            func digits() -> Int {
                let from = at
                while let b = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { at += 1 }
                return at - from
            }
            let integerStart = at
            guard digits() > 0 else { throw invalid() }
            if bytes[integerStart] == UInt8(ascii: "0"), at - integerStart > 1 {
                throw SyntaxError(
                    offset: integerStart + 1,
                    description: "Number with leading zero around character \(integerStart + 1).")
            }
            if peek == UInt8(ascii: ".") {
                whole = false
                at += 1
                guard digits() > 0 else { throw invalid() }
            }
            if let e = peek, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
                whole = false
                at += 1
                if let s = peek, s == UInt8(ascii: "+") || s == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw invalid() }
            }
            let text = String(decoding: bytes[start..<at], as: UTF8.self)
            if whole, let i = Int(text) { return .integer(i) }
            guard let v = Double(text), v.isFinite else {
                throw SyntaxError(offset: start, description: "Number \(text) is not representable in Swift.")
            }
            return .number(v)
        }
    }
}
