import CZlib

/// Decodes one `.zip` entry as it is read, in constant memory: its compressed bytes are read from
/// the archive in blocks and inflated by zlib (or passed through when stored). The CRC-32 and the
/// size are accumulated on the way and checked when the end is reached: a damaged entry throws
/// instead of handing out its last bytes, so a reader fails before it has read the whole entry.
final class ZipEntryStream: ByteSource {
    /// Compressed bytes read per block.
    static let inputSize = 1 << 16

    private let archive: ZipArchive
    private let entry: ZipArchive.Entry
    /// Offset of the next compressed byte in the archive, and how many are left.
    private var offset: Int
    private var remaining: Int
    private var stream = z_stream()
    private let input: UnsafeMutablePointer<UInt8>
    private var crc: UInt32 = 0
    private var produced = 0
    private var finished = false

    init(_ archive: ZipArchive, _ entry: ZipArchive.Entry) throws {
        guard entry.method == 0 || entry.method == 8 else {
            throw archive.fail(
                "entry '\(entry.name.escapedForMessage)' uses compression method \(entry.method) (only stored and deflate are supported)"
            )
        }
        if entry.method == 0 && entry.compressedSize != entry.size {
            throw archive.fail("entry '\(entry.name.escapedForMessage)': sizes disagree")
        }
        self.archive = archive
        self.entry = entry
        offset = try archive.dataStart(entry)
        remaining = entry.compressedSize
        input = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.inputSize)
        // Negative window bits: raw DEFLATE, no zlib or gzip wrapper.
        guard
            entry.method == 0
                || inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else {
            input.deallocate()
            throw archive.fail("zlib could not start")
        }
    }

    deinit {
        if entry.method == 8 { inflateEnd(&stream) }
        input.deallocate()
    }

    private func damaged(_ what: String) -> TraceError {
        archive.fail("entry '\(entry.name.escapedForMessage)': \(what)")
    }

    /// Fills up to `count` bytes at `buffer`; 0 at the end of the entry.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        guard !finished, count > 0 else { return 0 }
        let wanted = min(count, Int(UInt32.max))
        var n = 0
        if entry.method == 0 {
            n = try archive.file.read(at: offset, into: buffer, count: min(wanted, remaining), archive: archive.path)
            offset += n
            remaining -= n
            if n == 0 && remaining > 0 { throw damaged("runs past the end of the archive") }
            if remaining == 0 { finished = true }
        } else {
            n = try inflate(into: buffer, count: wanted)
        }
        crc = UInt32(crc32(UInt(crc), buffer, UInt32(n)))
        produced += n
        guard produced <= entry.size else { throw damaged("sizes disagree (more data than the archive records)") }
        if finished { try check() }
        return n
    }

    private func inflate(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        stream.next_out = buffer
        stream.avail_out = UInt32(count)
        while stream.avail_out > 0 {
            if stream.avail_in == 0 {
                let n = try archive.file.read(
                    at: offset, into: input, count: min(Self.inputSize, remaining), archive: archive.path)
                offset += n
                remaining -= n
                stream.next_in = input
                stream.avail_in = UInt32(n)
            }
            let status = CZlib.inflate(&stream, Z_NO_FLUSH)
            if status == Z_STREAM_END {
                finished = true
                break
            }
            guard status == Z_OK || (status == Z_BUF_ERROR && stream.avail_in > 0) else {
                throw damaged(
                    remaining == 0 && stream.avail_in == 0
                        ? "damaged compressed data (cut short)" : "damaged compressed data (zlib status \(status))")
            }
        }
        return count - Int(stream.avail_out)
    }

    /// The checks at the end: every compressed byte used, the size and the CRC-32 as recorded.
    private func check() throws {
        guard produced == entry.size else {
            throw damaged("sizes disagree (\(produced) bytes, the archive records \(entry.size))")
        }
        guard crc == entry.crc else {
            throw damaged(
                "damaged (CRC-32 \(String(crc, radix: 16)), the archive records \(String(entry.crc, radix: 16)))")
        }
    }
}
