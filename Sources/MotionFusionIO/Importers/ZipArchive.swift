import CZlib
import Glibc

/// The files of a `.zip` archive, read in place: the central directory is parsed, and each entry
/// is stored or DEFLATE-compressed (decoded by zlib as it is read, ``ZipEntryStream``), so memory
/// stays constant whatever the entry's size. Every entry's CRC-32 and size are checked when its
/// end is read. Anything else — encryption, ZIP64, other methods, sizes that disagree, a damaged
/// stream, a checksum that does not match — is an error naming the archive and the entry, never a
/// crash and never silently corrupted values.
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
    let file: ArchiveFile

    /// Largest total uncompressed size accepted, bytes (guards against archive bombs). 2 GiB.
    public static let maximumSize = 1 << 31
    /// Largest expansion of DEFLATE, uncompressed bytes per compressed byte.
    static let maximumExpansion = 1032
    /// Largest central directory read, bytes (a recording's few files need a few kilobytes).
    static let maximumDirectorySize = 1 << 24

    func fail(_ message: String) -> TraceError { Self.fail(path, message) }

    static func fail(_ path: String, _ message: String) -> TraceError {
        TraceError(.unreadable, SourceLocation(file: path, line: 0, column: 0), message)
    }

    /// Reads the directory of the archive at `path`.
    public init(path: String) throws {
        try self.init(path: path, file: ArchiveFile(path: path))
    }

    /// Reads the directory of an archive held in memory (tests, fuzzing).
    public init(path: String, bytes: [UInt8]) throws {
        try self.init(path: path, file: ArchiveFile(bytes: bytes))
    }

    init(path: String, file: ArchiveFile) throws {
        self.path = path
        self.file = file
        let fail = { (m: String) in Self.fail(path, m) }
        // End of central directory: signature 0x06054b50 within the last 64 KiB + 22 bytes.
        let tailStart = max(0, file.size - 22 - 65_535)
        let tail = try file.bytes(at: tailStart, count: file.size - tailStart, archive: path)
        func u16(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ b: [UInt8], _ o: Int) -> Int { u16(b, o) | u16(b, o + 2) << 16 }
        var eocd = -1
        var o = tail.count - 22
        while o >= 0 {
            if tail[o] == 0x50 && tail[o + 1] == 0x4B && tail[o + 2] == 0x05 && tail[o + 3] == 0x06 {
                eocd = o
                break
            }
            o -= 1
        }
        guard eocd >= 0 else { throw fail("not a zip archive (no end-of-directory record)") }
        let count = u16(tail, eocd + 10)
        let directorySize = u32(tail, eocd + 12)
        let directoryOffset = u32(tail, eocd + 16)
        guard directoryOffset + directorySize <= tailStart + eocd, count != 0xFFFF, directoryOffset != 0xFFFF_FFFF,
            directorySize <= Self.maximumDirectorySize
        else {
            throw fail("damaged or ZIP64 archive directory (not supported)")
        }
        let directory = try file.bytes(at: directoryOffset, count: directorySize, archive: path)
        var entries = [Entry]()
        var total = 0
        o = 0
        for _ in 0..<count {
            guard o + 46 <= directory.count, u32(directory, o) == 0x0201_4B50 else {
                throw fail("damaged zip directory entry")
            }
            let flags = u16(directory, o + 8)
            let method = UInt16(u16(directory, o + 10))
            let crc = UInt32(u32(directory, o + 16))
            let compressed = u32(directory, o + 20)
            let size = u32(directory, o + 24)
            let nameLength = u16(directory, o + 28)
            let extraLength = u16(directory, o + 30)
            let commentLength = u16(directory, o + 32)
            let local = u32(directory, o + 42)
            guard o + 46 + nameLength <= directory.count else { throw fail("damaged zip directory entry") }
            let name = String(decoding: directory[(o + 46)..<(o + 46 + nameLength)], as: UTF8.self)
            if flags & 1 != 0 { throw fail("entry '\(name.escapedForMessage)' is encrypted (not supported)") }
            // DEFLATE expands at most about 1032 times; a larger claimed size is damage (or a bomb),
            // refused before anything is read for it.
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

    /// The entry whose file name (last path component) is `fileName`, ignoring case, if any (the
    /// first in directory order; ``entries(named:)`` gives all).
    public func entry(named fileName: String) -> Entry? { entries(named: fileName).first }

    /// The entries whose file name (last path component) is `fileName`, ignoring case: more than
    /// one when folders in the archive hold files of one name.
    public func entries(named fileName: String) -> [Entry] {
        entries.filter {
            ($0.name.split(separator: "/").last.map(String.init) ?? $0.name).lowercased() == fileName.lowercased()
        }
    }

    /// The uncompressed bytes of an entry, checked against its CRC-32 (for small entries: memory
    /// grows with the entry; ``lines(_:name:)`` streams).
    public func contents(_ e: Entry) throws -> [UInt8] {
        let stream = try ZipEntryStream(self, e)
        var out = [UInt8](repeating: 0, count: e.size)
        var filled = 0
        try out.withUnsafeMutableBufferPointer { b in
            while filled < e.size {
                let n = try stream.read(into: b.baseAddress! + filled, count: e.size - filled)
                if n == 0 { break }
                filled += n
            }
        }
        // Reads past the end so that a stream cut short or a checksum is checked.
        var probe: UInt8 = 0
        guard try stream.read(into: &probe, count: 1) == 0, filled == e.size else {
            throw fail("entry '\(e.name.escapedForMessage)': sizes disagree")
        }
        return out
    }

    /// A line reader over an entry, decoded as it is read (and a `.gz` entry decompressed),
    /// named `name` in messages.
    public func lines(_ e: Entry, name: String) throws -> ByteLineReader {
        try ByteLineReader(source: try ZipEntryStream(self, e), name: name, size: e.size)
    }

    /// Where an entry's data starts in the archive, from its local header.
    func dataStart(_ e: Entry) throws -> Int {
        let header = try file.bytes(at: e.localHeaderOffset, count: 30, archive: path)
        func u16(_ o: Int) -> Int { Int(header[o]) | Int(header[o + 1]) << 8 }
        guard header.count == 30, u16(0) | u16(2) << 16 == 0x0403_4B50 else {
            throw fail("entry '\(e.name.escapedForMessage)': damaged local header")
        }
        let start = e.localHeaderOffset + 30 + u16(26) + u16(28)
        guard start + e.compressedSize <= file.size else {
            throw fail("entry '\(e.name.escapedForMessage)' runs past the end of the archive")
        }
        return start
    }
}

/// An archive's bytes, read where they lie: a file read with `pread` (never whole), or bytes in
/// memory.
final class ArchiveFile {
    private let fd: Int32
    private let memory: [UInt8]?
    /// Size in bytes.
    let size: Int

    init(path: String) throws {
        let fail = { (reason: String) in ZipArchive.fail(path, "cannot read: \(reason)") }
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { throw fail("is a folder, expected a file") }
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw fail(String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw fail("not a regular file (an archive is read in place)")
        }
        size = Int(info.st_size)
        memory = nil
    }

    init(bytes: [UInt8]) {
        fd = -1
        memory = bytes
        size = bytes.count
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Reads up to `count` bytes at `offset` into `buffer`; fewer only at the end of the file.
    func read(at offset: Int, into buffer: UnsafeMutablePointer<UInt8>, count: Int, archive: String) throws -> Int {
        let count = max(0, min(count, size - offset))
        if count == 0 { return 0 }
        if let memory {
            memory.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + offset, count: count) }
            return count
        }
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw ZipArchive.fail(archive, "read failed: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Up to `count` bytes at `offset`.
    func bytes(at offset: Int, count: Int, archive: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max(0, count))
        let n = try out.withUnsafeMutableBufferPointer { b in
            try b.baseAddress.map { try read(at: offset, into: $0, count: count, archive: archive) } ?? 0
        }
        return Array(out.prefix(n))
    }
}
