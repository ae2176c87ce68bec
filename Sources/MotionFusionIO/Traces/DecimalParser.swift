import Glibc

/// 10^k for 0 ≤ k ≤ 19, padded with zeros to 32 entries (indices are masked to 5 bits). A global
/// array of constants is laid out statically: a lookup is one load, with no lazy initialisation.
@usableFromInline
let integerPowersOfTen: [UInt64] = [
    1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 10_000_000_000,
    100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000,
    10_000_000_000_000_000, 100_000_000_000_000_000, 1_000_000_000_000_000_000, 10_000_000_000_000_000_000,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]

/// 10^k as a double for 0 ≤ k ≤ 22 (all exact), then 1e22 up to 31 (indices are masked to 5 bits):
/// a load where a `switch` compiled to an indirect jump, mispredicted whenever the exponent changes.
@usableFromInline
let doublePowersOfTen: [Double] = [
    1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22, 1e22, 1e22, 1e22, 1e22, 1e22, 1e22, 1e22, 1e22, 1e22,
]

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

    /// 10^k for 0 ≤ k ≤ 22, all exactly representable (1e22 for k from 23 to 31), from a table.
    @inlinable @inline(__always)
    static func exactPowerOfTen(_ k: Int) -> Double { doublePowersOfTen[k & 31] }

    /// Parses the bytes `p[start..<end]`. Surrounding spaces and one pair of double quotes are
    /// allowed. Accepts `nan`, `inf`, `infinity` in any case, with an optional sign. With an
    /// `exponentOffset` the value read is the number times 10^`exponentOffset`, correctly rounded
    /// once (a time in ms, µs or ns read as seconds).
    @inlinable @inline(__always)
    public static func parse(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, point: UInt8 = UInt8(ascii: "."),
        exponentOffset: Int = 0
    ) -> Result {
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
        if i < e && p[i] == point {
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
        exponent += exponentOffset
        if digits <= 19 && mantissa <= (1 << 53) && exponent >= -22 && exponent <= 22 && digits < 19 {
            var v = Double(mantissa)
            if exponent < 0 {
                v /= exactPowerOfTen(-exponent)
            } else if exponent > 0 {
                v *= exactPowerOfTen(exponent)
            }
            return .value(negative ? -v : v)
        }
        if mantissa == 0 { return .value(negative ? -0.0 : 0.0) }
        return .value(slowParse(p, begin, e, point: point, exponentOffset: exponentOffset))
    }

    /// The run of digits that starts at `p`, up to eight of them, read as one little-endian word:
    /// its value and its length (0 to 8). Reads eight bytes, so `p` must have eight readable bytes.
    ///
    /// Standard SWAR arithmetic, with no branch per digit: a byte is a digit when its high nibble is
    /// 3 both before and after adding 6 to it. Adding 6 to a byte from 0xFA up carries into the next
    /// byte, but only past a byte that is not a digit, so the run is classified exactly. The run's
    /// bytes are shifted to the top of the word, leaving zeros (leading zero digits) below, and the
    /// eight digits are combined in pairs, fours and eights by exact multiply-and-shift steps.
    @inlinable @inline(__always)
    static func digitRun(_ p: UnsafePointer<UInt8>) -> (value: UInt64, count: Int) {
        let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
        let high: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        let threes: UInt64 = 0x3030_3030_3030_3030
        let notDigit = ((word & high) ^ threes) | (((word &+ 0x0606_0606_0606_0606) & high) ^ threes)
        let count = notDigit.trailingZeroBitCount &>> 3
        guard count > 0 else { return (0, 0) }
        var v = (word & 0x0F0F_0F0F_0F0F_0F0F) &<< UInt64(64 &- 8 &* count)
        v = (v &* 2561) &>> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) &>> 16
        v = ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) &>> 32
        return (v, count)
    }

    /// 10^k as an integer, 0 ≤ k ≤ 19, read from a table: no branch (a switch here compiles to an
    /// indirect jump, mispredicted as often as field lengths change).
    @inlinable @inline(__always)
    static func integerPowerOfTen(_ k: Int) -> UInt64 { integerPowersOfTen[k & 31] }

    /// Reads the digits from `i` on into `mantissa` (wrapping past 19 digits; the caller then
    /// declines by the digit count) and returns the index after them: eight bytes at a time while
    /// eight bytes remain before `end`, then byte by byte.
    @inlinable @inline(__always)
    static func readDigits(
        _ p: UnsafePointer<UInt8>, _ i: Int, _ end: Int, into mantissa: inout UInt64
    ) -> Int {
        var i = i
        while i &+ 8 <= end {
            let (value, count) = digitRun(p + i)
            guard count < 8 else {
                mantissa = mantissa &* 100_000_000 &+ value
                i &+= 8
                continue
            }
            mantissa = mantissa &* integerPowerOfTen(count) &+ value
            return i &+ count
        }
        while i < end {
            let d = p[i] &- 0x30
            if d >= 10 { break }
            mantissa = mantissa &* 10 &+ UInt64(d)
            i &+= 1
        }
        return i
    }

    /// The common case in one pass: a plain decimal (optional sign, digits, point, exponent) that
    /// ends at `separator` (0 for a space or tab) or at `end`, exact by the fast path. Returns the value and the index of the
    /// byte after the number, or `nil` for anything else (spaces, quotes, words, long significands),
    /// which the caller hands to ``parse(_:_:_:point:exponentOffset:)``; `exponentOffset` as there. Reads up to eight bytes at a time but never
    /// past `end`.
    @inlinable @inline(__always)
    public static func parsePlain(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, separator: UInt8 = UInt8(ascii: ","),
        point: UInt8 = UInt8(ascii: "."), exponentOffset: Int = 0
    ) -> (Double, Int)? {
        // Indices stay within [start, end], so wrapping arithmetic cannot wrap; it spares the
        // overflow checks of `+=` in this hottest loop of every reader.
        var i = start
        guard i < end else { return nil }
        var negative = false
        if p[i] == 0x2D {
            negative = true
            i &+= 1
        }
        var mantissa: UInt64 = 0
        let firstDigit = i
        // The whole part: mostly one to three digits, cheaper a byte at a time than as a word; a
        // fourth digit sends the rest eight at a time.
        var d = i < end ? p[i] &- 0x30 : 10
        if d < 10 {
            mantissa = UInt64(d)
            i &+= 1
            d = i < end ? p[i] &- 0x30 : 10
            if d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                i &+= 1
                d = i < end ? p[i] &- 0x30 : 10
                if d < 10 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    i = readDigits(p, i &+ 1, end, into: &mantissa)
                }
            }
        }
        var digits = i &- firstDigit
        var exponent = 0
        if i < end && p[i] == point {
            i &+= 1
            let fractionStart = i
            i = readDigits(p, i, end, into: &mantissa)
            digits &+= i &- fractionStart
            exponent = fractionStart &- i
        }
        // One digit at least (a point or a sign alone is no number), 18 at most (exact).
        guard UInt(bitPattern: digits &- 1) < 18 else { return nil }
        // A field ends at the separator (0: a space or tab) or at `end`; an exponent may come
        // first. The separator is looked for first: it is what follows nearly every number.
        @inline(__always) func isSeparator(_ c: UInt8) -> Bool {
            separator == 0 ? (c == 0x20 || c == 0x09) : c == separator
        }
        if i < end && !isSeparator(p[i]) {
            guard (p[i] | 0x20) == 0x65 else { return nil }
            i &+= 1
            var expNegative = false
            if i < end && (p[i] == 0x2D || p[i] == 0x2B) {
                expNegative = p[i] == 0x2D
                i &+= 1
            }
            let expStart = i
            var e = 0
            while i < end && i &- expStart < 4 {
                let d = p[i] &- 0x30
                if d >= 10 { break }
                e = e &* 10 &+ Int(d)
                i &+= 1
            }
            guard i > expStart, i == end || isSeparator(p[i]) else { return nil }
            exponent &+= expNegative ? -e : e
        }
        exponent &+= exponentOffset
        guard mantissa <= (1 << 53), exponent >= -22, exponent <= 22 else { return nil }
        var v = Double(mantissa)
        if exponent < 0 {
            v /= exactPowerOfTen(-exponent)
        } else if exponent > 0 {
            v *= exactPowerOfTen(exponent)
        }
        return (negative ? -v : v, i)
    }

    /// `strtod` on a NUL-terminated copy, for inputs outside the exact fast path; an
    /// `exponentOffset` is added to the copy's exponent, so the result is still rounded once.
    @usableFromInline
    @inline(never)
    static func slowParse(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, point: UInt8, exponentOffset: Int = 0
    ) -> Double {
        if exponentOffset == 0 {
            // The common case (a number beyond the fast path's exponents, such as 3.9136012e-19):
            // copied to the stack, not to an array on the heap.
            let count = end - start
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { b in
                for k in 0..<count {
                    b[k] = CChar(bitPattern: p[start + k] == point ? UInt8(ascii: ".") : p[start + k])
                }
                b[count] = 0
                return strtod(b.baseAddress!, nil)
            }
        }
        var text = [UInt8]()
        text.reserveCapacity(end - start + 16)
        for k in start..<end { text.append(p[k] == point ? UInt8(ascii: ".") : p[k]) }
        if exponentOffset != 0 {
            var exponent = exponentOffset
            if let e = text.firstIndex(where: { $0 | 0x20 == 0x65 }) {
                // The text is already a valid number here: an optional sign and digits follow.
                var k = e + 1
                let negative = k < text.count && text[k] == UInt8(ascii: "-")
                if k < text.count && (text[k] == UInt8(ascii: "-") || text[k] == UInt8(ascii: "+")) { k += 1 }
                var written = 0
                while k < text.count, written < 100_000 {
                    written = written * 10 + Int(text[k] - 0x30)
                    k += 1
                }
                exponent += negative ? -written : written
                text.removeSubrange(e...)
            }
            text += Array("e\(exponent)".utf8)
        }
        text.append(0)
        return text.withUnsafeBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { strtod($0, nil) }
        }
    }

    @usableFromInline
    @inline(never)
    static func parseWord(
        _ p: UnsafePointer<UInt8>, _ i: Int, _ e: Int, negative: Bool, start: Int
    ) -> Result {
        // Compared byte by byte, case-insensitively: no string is built per field.
        func matches(_ word: StaticString) -> Bool {
            guard e - i == word.utf8CodeUnitCount else { return false }
            for k in 0..<word.utf8CodeUnitCount where (p[i + k] | 0x20) != word.utf8Start[k] { return false }
            return true
        }
        if matches("nan") { return .value(.nan) }
        if matches("inf") || matches("infinity") { return .value(negative ? -.infinity : .infinity) }
        return .malformed(offset: i - start)
    }

    /// Parses a Swift string (convenience for tests and options).
    public static func parse(_ text: String) -> Result {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { parse($0.baseAddress!, 0, $0.count - 1) }
    }
}
