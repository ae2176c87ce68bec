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

    static let digitPairs: [UInt8] = {
        var t = [UInt8]()
        for i in 0..<100 {
            t.append(UInt8(0x30 + i / 10))
            t.append(UInt8(0x30 + i % 10))
        }
        return t
    }()

    static let powersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(UInt64(1)) { a, _ in a * 10 } }

    /// Appends an unsigned integer, at least `minimumDigits` digits (zero padded).
    @inline(__always)
    mutating func appendDigits(_ value: UInt64, minimumDigits: Int) {
        var n = value
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, filled from the end
        withUnsafeMutableBytes(of: &tmp) { raw in
            let buf = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var i = 24
            Self.digitPairs.withUnsafeBufferPointer { pairs in
                while n >= 100 {
                    let r = Int(n % 100)
                    n /= 100
                    i -= 2
                    buf[i] = pairs[2 * r]
                    buf[i + 1] = pairs[2 * r + 1]
                }
                if n >= 10 {
                    i -= 2
                    buf[i] = pairs[2 * Int(n)]
                    buf[i + 1] = pairs[2 * Int(n) + 1]
                } else {
                    i -= 1
                    buf[i] = UInt8(0x30 + n)
                }
            }
            while 24 - i < minimumDigits {
                i -= 1
                buf[i] = 0x30
            }
            (storage + count).update(from: buf + i, count: 24 - i)
            count += 24 - i
        }
    }

    /// Appends `value` with exactly `decimals` digits after the point (at most 15). Values whose
    /// scaled magnitude exceeds 2⁶³ use the shortest round-trip form; NaN and infinities are
    /// written as `nan`, `inf`, `-inf`.
    @inline(__always)
    public mutating func append(_ value: Double, decimals: Int) {
        let scale = Double(Self.powersOfTen[decimals])
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e18 else {
            appendShortest(value)
            return
        }
        let n = UInt64(scaled)
        if value < 0 && n != 0 { append(byte: 0x2D) }
        let p = Self.powersOfTen[decimals]
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
            if timeDecimals >= 15 || abs(t) * Double(Self.powersOfTen[timeDecimals + 1]) >= 9.0e18 {
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
