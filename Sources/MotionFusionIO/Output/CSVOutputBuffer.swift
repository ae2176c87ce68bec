/// A byte buffer for writing CSV fast: numbers are formatted by integer arithmetic, eight digits at
/// a time (no `String`), and the bytes go to an ``OutputFile`` in large blocks.
public struct CSVOutputBuffer {
    let storage: UnsafeMutablePointer<UInt8>
    let capacity: Int
    /// Bytes not yet flushed.
    public private(set) var count = 0
    /// Bytes are flushed once this many are pending.
    public let flushThreshold: Int
    /// Decimals of the round-trip time column so far (it only grows, so a column stays aligned).
    var timeDecimals = 3

    /// Creates a buffer that flushes at `flushThreshold` bytes.
    public init(flushThreshold: Int = 1 << 18) {
        self.flushThreshold = flushThreshold
        capacity = flushThreshold + 4096
        storage = .allocate(capacity: capacity)
    }

    /// Frees the storage (the buffer is a value; its owner calls this once).
    public func deallocate() { storage.deallocate() }

    /// Whether enough bytes are pending to flush.
    @inline(__always)
    public var isFull: Bool { count >= flushThreshold }

    /// Appends text (truncated when it would overflow; only short texts are appended).
    public mutating func append(_ text: String) {
        for b in text.utf8 where count < capacity {
            storage[count] = b
            count += 1
        }
    }

    /// Appends one byte.
    @inline(__always)
    public mutating func append(byte: UInt8) {
        storage[count] = byte
        count += 1
    }

    /// Appends `,1` or `,0`.
    @inline(__always)
    public mutating func appendFlag(_ flag: Bool) {
        storage[count] = 0x2C
        storage[count + 1] = flag ? 0x31 : 0x30
        count += 2
    }

    /// Appends a comma and a one-digit level in -9...9 (clamped).
    @inline(__always)
    public mutating func appendLevel(_ level: Int) {
        let v = min(9, max(-9, level))
        storage[count] = 0x2C
        count += 1
        if v < 0 {
            storage[count] = 0x2D
            count += 1
        }
        storage[count] = 0x30 + UInt8(abs(v))
        count += 1
    }

    /// Number of decimal digits of `n` (at least 1).
    @inline(__always)
    static func digitCount(_ n: UInt64) -> Int {
        var count = 1
        var v = n
        while v >= 10_000 {
            v /= 10_000
            count += 4
        }
        if v >= 1000 { return count + 3 }
        if v >= 100 { return count + 2 }
        if v >= 10 { return count + 1 }
        return count
    }

    /// 10^k, exact for 0 ≤ k ≤ 22.
    @inline(__always)
    static func powerOfTen(_ k: Int) -> Double { DecimalParser.exactPowerOfTen(k) }

    /// The eight decimal digits of `n` < 10⁸, zero padded, as ASCII in a little-endian word (the
    /// first digit in the lowest byte), by arithmetic on fields of one word: the two halves of four
    /// digits sit in 32-bit fields, are split into pairs in 16-bit fields and into digits in bytes,
    /// each split a multiply and shift that is exact in its range (x·10486 >> 20 = ⌊x/100⌋ for x < 10⁴,
    /// x·103 >> 10 = ⌊x/10⌋ for x < 100).
    @inline(__always)
    static func eightDigits(_ n: UInt64) -> UInt64 {
        let high = n / 10_000
        var v = high | ((n &- high &* 10_000) << 32)
        var q = ((v &* 10_486) >> 20) & 0x0000_007F_0000_007F
        v = q | ((v &- q &* 100) << 16)
        q = ((v &* 103) >> 10) & 0x000F_000F_000F_000F
        v = q | ((v &- q &* 10) << 8)
        return v | 0x3030_3030_3030_3030
    }

    /// Stores a word of eight ASCII digits at `p` (unaligned).
    @inline(__always)
    static func store(_ word: UInt64, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: word.littleEndian, as: UInt64.self)
    }

    /// 10^k as an integer, exact for 0 ≤ k ≤ 19.
    @inline(__always)
    static func integerPowerOfTen(_ k: Int) -> UInt64 { DecimalParser.integerPowerOfTen(k) }

    /// Appends the digits of `n` without leading zeros (at least one digit).
    @inline(__always)
    mutating func appendInteger(_ n: UInt64) {
        let p = storage + count
        if n < 10 {
            // One digit: the whole part of most numbers written (quaternions, biases).
            p[0] = 0x30 &+ UInt8(truncatingIfNeeded: n)
            count += 1
            return
        }
        if n < 100_000_000 {
            // Eight digits at once, the leading zeros shifted out (the bytes past the end are
            // scratch within the buffer's slack).
            let digits = Self.digitCount(n)
            Self.store(Self.eightDigits(n) >> UInt64(8 * (8 - digits)), p)
            count += digits
            return
        }
        let digits = Self.digitCount(n)
        var i = digits
        var m = n
        while i >= 8 {
            i -= 8
            Self.store(Self.eightDigits(m % 100_000_000), p + i)
            m /= 100_000_000
        }
        if i > 0 {
            let word = Self.eightDigits(m) >> UInt64(8 * (8 - i))
            // Only the first `i` bytes belong here; the rest are already written digits.
            for k in 0..<i { p[k] = UInt8(truncatingIfNeeded: word >> UInt64(8 * k)) }
        }
        count += digits
    }

    /// Appends `whole.fraction` where `fraction` < 10^`decimals` is written with exactly
    /// `decimals` digits (1…16). Up to eight decimals are one word of digits, scaled so that the
    /// first `decimals` bytes are the fraction; more are the leading `decimals` − 8 digits (one
    /// byte when there is one, as for nine decimals) followed by a word of the last eight.
    @inline(__always)
    mutating func appendFixed(whole: UInt64, fraction: UInt64, decimals: Int) {
        appendInteger(whole)
        guard decimals > 0 else { return }
        storage[count] = 0x2E
        let p = storage + count + 1
        if decimals <= 8 {
            Self.store(Self.eightDigits(fraction &* Self.integerPowerOfTen(8 &- decimals)), p)
        } else {
            let high = fraction / 100_000_000
            let low = fraction &- high &* 100_000_000
            let leading = decimals &- 8
            if leading == 1 {
                p[0] = 0x30 &+ UInt8(truncatingIfNeeded: high)
            } else {
                Self.store(Self.eightDigits(high &* Self.integerPowerOfTen(8 &- leading)), p)
            }
            Self.store(Self.eightDigits(low), p + leading)
        }
        count += decimals + 1
    }

    /// `|value|` rounded half up to `decimals` decimals (at most 16), as the whole part and the
    /// fraction scaled by 10^`decimals`; nil when the scaled magnitude exceeds 9·10¹⁸ or is not
    /// finite. The whole part is the truncated value, so no division by a power of ten runs: the
    /// scaled value is at least `whole`·10^`decimals` (the product is exact and rounding is
    /// monotonic), and rounding up can carry at most one unit into the whole part.
    @inline(__always)
    static func split(_ value: Double, decimals: Int) -> (whole: UInt64, fraction: UInt64)? {
        let magnitude = abs(value)
        let unit = powerOfTen(decimals)
        // Round half up by adding one half and truncating (libm's round is a call).
        let scaled = magnitude * unit + 0.5
        guard scaled < 9.0e18 else { return nil }
        // Below 9·10¹⁸ < 2⁶³ every value fits a signed integer, whose conversion is shorter than the
        // unsigned one (a sequence around 2⁶³); the values are not negative, so the bits are kept.
        let n = UInt64(bitPattern: Int64(scaled))
        let u = integerPowerOfTen(decimals)
        // Beyond 2⁵³ the product is no longer exact: divide (rare; such values are large).
        guard scaled < 0x1p53 else { return (n / u, n % u) }
        var whole = UInt64(bitPattern: Int64(magnitude))
        var fraction = n &- whole &* u
        if fraction >= u {
            whole &+= 1
            fraction &-= u
        }
        return (whole, fraction)
    }

    /// Appends `value` with exactly `decimals` digits after the point (0 to 16). Values whose
    /// scaled magnitude exceeds 9·10¹⁸ use the shortest round-trip form; NaN and infinities are
    /// written as `nan`, `inf`, `-inf`.
    @inline(__always)
    public mutating func append(_ value: Double, decimals: Int) {
        precondition((0...16).contains(decimals), "decimals must be 0 to 16")
        guard let (whole, fraction) = Self.split(value, decimals: decimals) else {
            appendShortest(value)
            return
        }
        if value < 0 && (whole | fraction) != 0 { append(byte: 0x2D) }
        appendFixed(whole: whole, fraction: fraction, decimals: decimals)
    }

    /// Appends the shortest text that reads back as exactly `value` (Swift's description).
    @inline(never)
    public mutating func appendShortest(_ value: Double) {
        guard value.isFinite else {
            append(value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf"))
            return
        }
        append("\(value)")
    }

    /// Appends a time so that it reads back bit-identically: fixed decimals, as few as the column
    /// has needed so far (at least three), more when this value needs them. Distinct times stay
    /// distinct however finely they are spaced.
    ///
    /// The text of `n` with `d` decimals reads back as `n / 10^d` correctly rounded. While `n ≤ 2⁵³`
    /// that is the IEEE quotient `Double(n) / 10^d` (both operands are exact), so the check needs
    /// no parsing; beyond (clocks since the epoch at fine resolution) the written text is parsed.
    public mutating func appendTime(_ t: Double) {
        guard t.isFinite else {
            appendShortest(t)
            return
        }
        while true {
            if let (whole, fraction) = Self.split(t, decimals: timeDecimals) {
                let unit = Self.powerOfTen(timeDecimals)
                let n = whole &* UInt64(unit) &+ fraction
                if n <= 1 << 53 {
                    if Double(n) / unit == abs(t) {
                        if t.sign == .minus { append(byte: 0x2D) }
                        appendFixed(whole: whole, fraction: fraction, decimals: timeDecimals)
                        return
                    }
                } else {
                    let start = count
                    if t.sign == .minus { append(byte: 0x2D) }
                    appendFixed(whole: whole, fraction: fraction, decimals: timeDecimals)
                    if case .value(let v) = DecimalParser.parse(storage + start, 0, count - start), v == t { return }
                    count = start
                }
            }
            if timeDecimals >= 15 || abs(t) * Self.powerOfTen(timeDecimals + 1) >= 9.0e18 {
                appendShortest(t)
                return
            }
            timeDecimals += 1
        }
    }

    /// Writes the pending bytes to `output` and empties the buffer.
    public mutating func flush(to output: OutputFile) throws {
        guard count > 0 else { return }
        try output.write(UnsafeRawBufferPointer(start: storage, count: count))
        count = 0
    }
}
