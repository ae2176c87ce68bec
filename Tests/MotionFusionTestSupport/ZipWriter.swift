import CZlib
import Foundation

/// Writes small `.zip` archives for tests: each entry stored or DEFLATE-compressed with zlib.
public enum ZipWriter {
    /// The archive bytes of `entries` (name, contents), deflated when `deflate`.
    public static func archive(_ entries: [(String, [UInt8])], deflate: Bool = true) -> [UInt8] {
        var out = [UInt8]()
        var directory = [UInt8]()
        func u16(_ v: Int, _ a: inout [UInt8]) { a += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int, _ a: inout [UInt8]) { u16(v & 0xFFFF, &a); u16(v >> 16 & 0xFFFF, &a) }
        for (name, data) in entries {
            let crc = data.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, UInt32($0.count))) }
            let body = deflate ? compress(data) : data
            let offset = out.count
            let nameBytes = Array(name.utf8)
            func header(_ a: inout [UInt8], central: Bool) {
                if central { u16(20, &a) }  // version made by
                u16(20, &a)  // version needed
                u16(0, &a)  // flags
                u16(deflate ? 8 : 0, &a)
                u16(0, &a)  // time
                u16(0, &a)  // date
                u32(crc, &a)
                u32(body.count, &a)
                u32(data.count, &a)
                u16(nameBytes.count, &a)
                u16(0, &a)  // extra
                if central {
                    u16(0, &a)  // comment
                    u16(0, &a)  // disk
                    u16(0, &a)  // internal attributes
                    u32(0, &a)  // external attributes
                    u32(offset, &a)
                }
                a += nameBytes
            }
            u32(0x0403_4B50, &out)
            header(&out, central: false)
            out += body
            u32(0x0201_4B50, &directory)
            header(&directory, central: true)
        }
        let directoryOffset = out.count
        out += directory
        u32(0x0605_4B50, &out)
        u16(0, &out)
        u16(0, &out)
        u16(entries.count, &out)
        u16(entries.count, &out)
        u32(directory.count, &out)
        u32(directoryOffset, &out)
        u16(0, &out)
        return out
    }

    /// Raw DEFLATE of `data`.
    static func compress(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        deflateInit2_(
            &stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(data.count))) + 64)
        var input = data
        let produced: Int = input.withUnsafeMutableBufferPointer { i in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = i.baseAddress
                stream.avail_in = UInt32(i.count)
                stream.next_out = o.baseAddress
                stream.avail_out = UInt32(o.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return Int(stream.total_out)
            }
        }
        return Array(out[0..<produced])
    }

    /// Writes the archive of every file of `folder` (by name) to `path`.
    public static func write(folder: String, names: [String], to path: String, deflate: Bool = true) throws {
        let entries = try names.map { name -> (String, [UInt8]) in
            (name, Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))))
        }
        try Data(archive(entries, deflate: deflate)).write(to: URL(fileURLWithPath: path))
    }
}
