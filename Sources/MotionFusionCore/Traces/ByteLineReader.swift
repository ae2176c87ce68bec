import Glibc

/// Reads a file in fixed-size chunks and hands out complete lines as byte ranges, so memory stays
/// constant whatever the file size. Accepts LF and CRLF line endings.
final class ByteLineReader {
    let path: String
    private let fd: Int32
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0
    private var eof = false
    /// 1-based number of the line most recently returned.
    private(set) var lineNumber = 0
    /// Bytes consumed so far.
    private(set) var bytesRead = 0

    /// Opens `path` for reading.
    init(path: String, chunkSize: Int = 1 << 20) throws {
        self.path = path
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
            throw TraceError(
                .unreadable, SourceLocation(file: path, line: 0, column: 0), "is a folder, expected a file")
        }
        fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw TraceError(.unreadable, SourceLocation(file: path, line: 0, column: 0), "cannot open: \(reason)")
        }
        capacity = chunkSize
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + 1)
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Calls `body` with the next line's bytes (without the line ending) and returns true, or returns
    /// false at the end of the file.
    @inline(__always)
    func nextLine<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) throws -> R? {
        while true {
            if let nl = memchr(buffer + start, 0x0A, end - start) {
                let lineEnd = buffer.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                var contentEnd = lineEnd
                if contentEnd > start && buffer[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                let s = start
                start = lineEnd + 1
                lineNumber += 1
                return try body(UnsafePointer(buffer + s), contentEnd - s)
            }
            if eof {
                if start < end {
                    var contentEnd = end
                    if buffer[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                    let s = start
                    start = end
                    lineNumber += 1
                    return try body(UnsafePointer(buffer + s), contentEnd - s)
                }
                return nil
            }
            try fill()
        }
    }

    private func fill() throws {
        // Move the partial line to the front; grow when one line exceeds the buffer.
        if start > 0 {
            let remaining = end - start
            if remaining > 0 { memmove(buffer, buffer + start, remaining) }
            start = 0
            end = remaining
        }
        if end == capacity {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2 + 1)
            bigger.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = bigger
            capacity *= 2
        }
        let n = read(fd, buffer + end, capacity - end)
        if n < 0 {
            let reason = String(cString: strerror(errno))
            throw TraceError(
                .unreadable, SourceLocation(file: path, line: lineNumber, column: 0), "read failed: \(reason)")
        }
        if n == 0 { eof = true }
        end += n
        bytesRead += n
    }
}
