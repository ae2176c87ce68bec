/// A byte buffer for writing CSV fast: numbers are formatted by integer arithmetic with a table of
/// digit pairs (no `String`), and the bytes go to an ``OutputFile`` in large blocks.
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

    /// Ensures room for `n` more bytes (rows are far shorter than the slack; this guards text).
    @inline(__always)
    mutating func reserve(_ n: Int) -> Bool { count + n <= capacity }

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

    /// "00" to "99": two ASCII digits per value, in the binary's read-only data.
    static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

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

    /// Appends an unsigned integer, at least `minimumDigits` digits (zero padded).
    @inline(__always)
    mutating func appendDigits(_ value: UInt64, minimumDigits: Int) {
        let digits = Swift.max(Self.digitCount(value), minimumDigits)
        let pairs = Self.digitPairs.utf8Start
        var n = value
        var i = count + digits
        while n >= 100 {
            let r = Int(n % 100)
            n /= 100
            i -= 2
            storage[i] = pairs[2 * r]
            storage[i + 1] = pairs[2 * r + 1]
        }
        if n >= 10 {
            i -= 2
            storage[i] = pairs[2 * Int(n)]
            storage[i + 1] = pairs[2 * Int(n) + 1]
        } else {
            i -= 1
            storage[i] = UInt8(truncatingIfNeeded: 0x30 &+ n)
        }
        while i > count {
            i -= 1
            storage[i] = 0x30
        }
        count += digits
    }

    static let powersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(UInt64(1)) { a, _ in a * 10 } }

    /// 10^k as an integer, for the decimals used in rows (no table lookup on the common cases).
    @inline(__always)
    static func integerPowersOfTen(_ k: Int) -> UInt64 {
        switch k {
        case 4: return 10_000
        case 5: return 100_000
        case 8: return 100_000_000
        case 9: return 1_000_000_000
        default: return powersOfTen[k]
        }
    }

    /// 10^k as a double.
    @inline(__always)
    static func doublePowersOfTen(_ k: Int) -> Double { Double(integerPowersOfTen(k)) }

    /// Appends `value` with exactly `decimals` digits after the point (at most 15). Values whose
    /// scaled magnitude exceeds 2⁶³ use the shortest round-trip form; NaN and infinities are
    /// written as `nan`, `inf`, `-inf`.
    @inline(__always)
    public mutating func append(_ value: Double, decimals: Int) {
        let scale = Self.doublePowersOfTen(decimals)
        // Round half up by adding one half and truncating (libm's round is a call).
        let scaled = abs(value) * scale + 0.5
        guard scaled < 9.0e18 else {
            appendShortest(value)
            return
        }
        let n = UInt64(scaled)
        if value < 0 && n != 0 { append(byte: 0x2D) }
        let p = Self.integerPowersOfTen(decimals)
        appendDigits(n / p, minimumDigits: 1)
        if decimals > 0 {
            append(byte: 0x2E)
            appendDigits(n % p, minimumDigits: decimals)
        }
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
    public mutating func appendTime(_ t: Double) {
        let start = count
        while true {
            append(t, decimals: timeDecimals)
            let end = count
            let exact = (storage + start).withMemoryRebound(to: UInt8.self, capacity: end - start) { p in
                if case .value(let v) = DecimalParser.parse(UnsafePointer(p), 0, end - start) { return v == t }
                return false
            }
            if exact || !t.isFinite { return }
            count = start
            if timeDecimals >= 15 || abs(t) * Self.doublePowersOfTen(timeDecimals + 1) >= 9.0e18 {
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
