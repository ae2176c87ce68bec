import Glibc

/// Byte-level decimal-to-`Double` conversion for CSV fields, correctly rounded.
///
/// The fast path (Clinger's): when the significand has at most 19 digits and is at most 2⁵³, and
/// the decimal exponent is within ±22, the significand and the power of ten are both exact doubles,
/// so one IEEE multiplication or division gives the correctly rounded result. Every other input is
/// handed to the C library's `strtod`, which rounds correctly. Either way the value is bit-identical
/// to a correct decimal conversion.
public enum DecimalParser {
    /// The outcome of parsing a field.
    public enum Result: Equatable {
        /// A number (may be ±infinity or NaN when spelled so).
        case value(Double)
        /// An empty field.
        case empty
        /// Not a number; the payload is the 0-based byte offset of the first bad byte.
        case malformed(offset: Int)
    }

    @usableFromInline
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses the bytes `p[start..<end]`. Surrounding spaces and one pair of double quotes are
    /// allowed. Accepts `nan`, `inf`, `infinity` in any case, with an optional sign.
    @inlinable
    public static func parse(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Result {
        var i = start
        var e = end
        while i < e && (p[i] == 0x20 || p[i] == 0x09) { i += 1 }
        while e > i && (p[e - 1] == 0x20 || p[e - 1] == 0x09) { e -= 1 }
        if e - i >= 2 && p[i] == 0x22 && p[e - 1] == 0x22 {
            i += 1
            e -= 1
        }
        if i == e { return .empty }
        let begin = i
        var negative = false
        if p[i] == 0x2D {
            negative = true
            i += 1
        } else if p[i] == 0x2B {
            i += 1
        }
        if i < e && (p[i] | 0x20) >= 0x61 && (p[i] | 0x20) <= 0x7A {
            return parseWord(p, i, e, negative: negative, start: start)
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var sawDigit = false
        // Integer part.
        while i < e, p[i] &- 0x30 < 10 {
            sawDigit = true
            if digits < 19 {
                mantissa = mantissa &* 10 &+ UInt64(p[i] &- 0x30)
                if mantissa != 0 { digits += 1 }
            } else {
                digits += 1
                exponent += 1
            }
            i += 1
        }
        if i < e && p[i] == 0x2E {
            i += 1
            while i < e, p[i] &- 0x30 < 10 {
                sawDigit = true
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(p[i] &- 0x30)
                    if mantissa != 0 { digits += 1 }
                    exponent -= 1
                } else {
                    digits += 1
                }
                i += 1
            }
        }
        guard sawDigit else { return .malformed(offset: i - start) }
        if i < e && (p[i] | 0x20) == 0x65 {
            i += 1
            var expNegative = false
            if i < e && (p[i] == 0x2D || p[i] == 0x2B) {
                expNegative = p[i] == 0x2D
                i += 1
            }
            var expValue = 0
            var sawExpDigit = false
            while i < e, p[i] &- 0x30 < 10 {
                sawExpDigit = true
                if expValue < 100_000 { expValue = expValue * 10 + Int(p[i] &- 0x30) }
                i += 1
            }
            guard sawExpDigit else { return .malformed(offset: i - start) }
            exponent += expNegative ? -expValue : expValue
        }
        guard i == e else { return .malformed(offset: i - start) }
        if digits <= 19 && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 && digits < 19 {
            var v = Double(mantissa)
            if exponent < 0 {
                v /= powersOfTen[-exponent]
            } else {
                v *= powersOfTen[exponent]
            }
            return .value(negative ? -v : v)
        }
        if mantissa == 0 { return .value(negative ? -0.0 : 0.0) }
        return .value(slowParse(p, begin, e))
    }

    /// `strtod` on a NUL-terminated copy, for inputs outside the exact fast path.
    @usableFromInline
    @inline(never)
    static func slowParse(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> Double {
        var buffer = [CChar](repeating: 0, count: end - start + 1)
        for k in 0..<(end - start) { buffer[k] = CChar(bitPattern: p[start + k]) }
        return buffer.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
    }

    @usableFromInline
    @inline(never)
    static func parseWord(
        _ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, negative: Bool, start: Int
    ) -> Result {
        var word = ""
        for k in i..<e { word.append(Character(Unicode.Scalar(p[k] | 0x20))) }
        switch word {
        case "nan": return .value(.nan)
        case "inf", "infinity": return .value(negative ? -.infinity : .infinity)
        default: return .malformed(offset: i - start)
        }
    }

    /// Parses a Swift string (convenience for tests and options).
    public static func parse(_ text: String) -> Result {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { parse($0.baseAddress!, 0, $0.count - 1) }
    }
}
