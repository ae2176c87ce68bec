import CZlib
import Glibc

/// Decompresses a gzip stream (`.csv.gz`, one or more members) as it is read, in constant memory:
/// zlib's inflate over a fixed input buffer. The compressed bytes come from a file descriptor or
/// from another decoder (a `.csv.gz` entry of a `.zip`).
final class GzipStream: ByteSource {
    /// The two bytes every gzip member starts with.
    static let magic: [UInt8] = [0x1F, 0x8B]
    /// Compressed bytes read per `read` call.
    static let inputSize = 1 << 16

    private let compressed: ByteSource
    private let name: String
    private var stream = z_stream()
    private let input = UnsafeMutablePointer<UInt8>.allocate(capacity: GzipStream.inputSize)
    private var finished = false
    /// Whether the last member ended exactly at the end of the input read so far.
    private var memberEnded = false

    /// Starts decompressing `compressed`, whose first `prefix` bytes (already read to detect the
    /// format) are given back.
    init(_ compressed: ByteSource, name: String, prefix: [UInt8]) throws {
        self.compressed = compressed
        self.name = name
        // 16 + MAX_WBITS: a gzip header and trailer around the DEFLATE data.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            input.deallocate()
            throw TraceError(.unreadable, SourceLocation(file: name, line: 0, column: 0), "zlib could not start")
        }
        input.update(from: prefix, count: prefix.count)
        stream.next_in = input
        stream.avail_in = UInt32(prefix.count)
    }

    deinit {
        inflateEnd(&stream)
        input.deallocate()
    }

    static func allZero(_ p: UnsafeMutablePointer<UInt8>?, _ count: Int) -> Bool {
        guard let p else { return true }
        for i in 0..<count where p[i] != 0 { return false }
        return true
    }

    /// Fills up to `count` bytes at `buffer` with decompressed data; 0 at the end of the stream.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard !finished, count > 0 else { return 0 }
        stream.next_out = buffer
        stream.avail_out = UInt32(min(count, Int(UInt32.max)))
        while stream.avail_out > 0 {
            if stream.avail_in == 0 {
                let n = try compressed.read(into: input, count: Self.inputSize)
                if n == 0 {
                    guard memberEnded else {
                        throw TraceError(
                            .unreadable, SourceLocation(file: name, line: 0, column: 0),
                            "the gzip stream is cut short (an interrupted download or copy)")
                    }
                    finished = true
                    break
                }
                stream.next_in = input
                stream.avail_in = UInt32(n)
            }
            if memberEnded && Self.allZero(stream.next_in, Int(stream.avail_in)) {
                // Zero padding after a member (tape blocks, some archivers), as gzip itself allows.
                stream.avail_in = 0
                continue
            }
            let status = inflate(&stream, Z_NO_FLUSH)
            memberEnded = false
            switch status {
            case Z_STREAM_END:
                // Another member may follow (`cat a.gz b.gz`).
                memberEnded = true
                inflateReset(&stream)
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                let what = stream.msg.map { String(cString: $0) } ?? "code \(status)"
                throw TraceError(
                    .unreadable, SourceLocation(file: name, line: 0, column: 0), "not valid gzip data: \(what)")
            }
            // Return what is there rather than wait for more input (a live stream).
            if stream.avail_out < UInt32(min(count, Int(UInt32.max))) && stream.avail_in == 0 { break }
        }
        return min(count, Int(UInt32.max)) - Int(stream.avail_out)
    }
}

/// The bytes of a file descriptor as they are read (the input of a `.gz` file or stream).
final class DescriptorSource: ByteSource {
    private let fd: Int32
    private let name: String

    /// Reads `fd` (not closed here), named `name` in messages.
    init(_ fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        var n: Int
        repeat {
            n = Glibc.read(fd, buffer, count)
        } while n < 0 && errno == EINTR
        if n < 0 {
            let reason = String(cString: strerror(errno))
            throw TraceError(.unreadable, SourceLocation(file: name, line: 0, column: 0), "read failed: \(reason)")
        }
        return n
    }
}
