import CZlib

/// The files of a `.zip` archive, read whole into memory (recording apps' exports are small): the
/// central directory is parsed, and each entry is stored or DEFLATE-compressed (decoded by zlib).
/// Every entry's CRC-32 is checked. Anything else — encryption, ZIP64, other methods, sizes that
/// disagree, a damaged stream, a checksum that does not match — is an error naming the archive and
/// the entry, never a crash and never silently corrupted values.
public struct ZipArchive {
    /// One file of the archive.
    public struct Entry {
        /// Path inside the archive.
        public var name: String
        /// Compression method (0 stored, 8 deflated).
        var method: UInt16
        /// CRC-32 of the uncompressed contents, from the central directory.
        var crc: UInt32
        var compressedSize: Int, size: Int
        var localHeaderOffset: Int
    }

    /// The archive's path in messages.
    public let path: String
    /// The files, in directory order.
    public let entries: [Entry]
    let bytes: [UInt8]

    /// Largest total uncompressed size accepted, bytes (guards against archive bombs). 2 GiB.
    public static let maximumSize = 1 << 31
    /// Largest expansion of DEFLATE, uncompressed bytes per compressed byte.
    static let maximumExpansion = 1032

    func fail(_ message: String) -> TraceError {
        TraceError(.unreadable, SourceLocation(file: path, line: 0, column: 0), message)
    }

    /// Reads the archive's directory.
    public init(path: String, bytes: [UInt8]) throws {
        self.path = path
        self.bytes = bytes
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        let fail = { (m: String) in TraceError(.unreadable, SourceLocation(file: path, line: 0, column: 0), m) }
        // End of central directory: signature 0x06054b50 within the last 64 KiB + 22 bytes.
        var eocd = -1
        var o = bytes.count - 22
        while o >= max(0, bytes.count - 22 - 65_535) {
            if bytes[o] == 0x50 && bytes[o + 1] == 0x4B && bytes[o + 2] == 0x05 && bytes[o + 3] == 0x06 {
                eocd = o
                break
            }
            o -= 1
        }
        guard eocd >= 0 else { throw fail("not a zip archive (no end-of-directory record)") }
        let count = u16(eocd + 10)
        let directorySize = u32(eocd + 12)
        let directoryOffset = u32(eocd + 16)
        guard directoryOffset + directorySize <= eocd, count != 0xFFFF, directoryOffset != 0xFFFF_FFFF else {
            throw fail("damaged or ZIP64 archive directory (not supported)")
        }
        var entries = [Entry]()
        var total = 0
        o = directoryOffset
        for _ in 0..<count {
            guard o + 46 <= bytes.count, u32(o) == 0x0201_4B50 else { throw fail("damaged zip directory entry") }
            let flags = u16(o + 8)
            let method = UInt16(u16(o + 10))
            let crc = UInt32(u32(o + 16))
            let compressed = u32(o + 20)
            let size = u32(o + 24)
            let nameLength = u16(o + 28)
            let extraLength = u16(o + 30)
            let commentLength = u16(o + 32)
            let local = u32(o + 42)
            guard o + 46 + nameLength <= bytes.count else { throw fail("damaged zip directory entry") }
            let name = String(decoding: bytes[(o + 46)..<(o + 46 + nameLength)], as: UTF8.self)
            if flags & 1 != 0 { throw fail("entry '\(name.escapedForMessage)' is encrypted (not supported)") }
            // DEFLATE expands at most about 1032 times; a larger claimed size is damage (or a bomb),
            // refused before anything is allocated for it.
            guard size <= compressed * Self.maximumExpansion + 1024 else {
                throw fail(
                    "entry '\(name.escapedForMessage)' claims \(size) bytes from \(compressed) compressed (damaged)")
            }
            total += size
            guard total <= Self.maximumSize else { throw fail("archive expands beyond \(Self.maximumSize >> 20) MiB") }
            entries.append(
                Entry(
                    name: name, method: method, crc: crc, compressedSize: compressed, size: size,
                    localHeaderOffset: local))
            o += 46 + nameLength + extraLength + commentLength
        }
        self.entries = entries
    }

    /// The entry whose file name (last path component) is `fileName`, ignoring case, if any.
    public func entry(named fileName: String) -> Entry? {
        entries.first {
            ($0.name.split(separator: "/").last.map(String.init) ?? $0.name).lowercased() == fileName.lowercased()
        }
    }

    /// The uncompressed bytes of an entry, checked against its CRC-32.
    public func contents(_ e: Entry) throws -> [UInt8] {
        let out = try unchecked(e)
        let crc = out.withUnsafeBufferPointer { b in
            UInt32(CZlib.crc32(0, b.baseAddress, UInt32(b.count)))
        }
        guard crc == e.crc else {
            throw fail(
                "entry '\(e.name.escapedForMessage)': damaged (CRC-32 \(String(crc, radix: 16)), the archive records \(String(e.crc, radix: 16)))"
            )
        }
        return out
    }

    /// The uncompressed bytes of an entry, as stored.
    func unchecked(_ e: Entry) throws -> [UInt8] {
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        let o = e.localHeaderOffset
        guard o + 30 <= bytes.count, u16(o) | u16(o + 2) << 16 == 0x0403_4B50 else {
            throw fail("entry '\(e.name.escapedForMessage)': damaged local header")
        }
        let start = o + 30 + u16(o + 26) + u16(o + 28)
        guard start + e.compressedSize <= bytes.count else {
            throw fail("entry '\(e.name.escapedForMessage)' runs past the end of the archive")
        }
        switch e.method {
        case 0:
            guard e.compressedSize == e.size else { throw fail("entry '\(e.name.escapedForMessage)': sizes disagree") }
            return Array(bytes[start..<(start + e.size)])
        case 8:
            return try inflate(start, e)
        default:
            throw fail(
                "entry '\(e.name.escapedForMessage)' uses compression method \(e.method) (only stored and deflate are supported)"
            )
        }
    }

    /// Raw DEFLATE decoding with zlib.
    func inflate(_ start: Int, _ e: Entry) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: e.size)
        if e.size == 0 { return out }
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw fail("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        let status: Int32 = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + start)
                stream.avail_in = UInt32(e.compressedSize)
                stream.next_out = output.baseAddress!
                stream.avail_out = UInt32(e.size)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == e.size else {
            throw fail("entry '\(e.name.escapedForMessage)': damaged compressed data (zlib status \(status))")
        }
        return out
    }
}
