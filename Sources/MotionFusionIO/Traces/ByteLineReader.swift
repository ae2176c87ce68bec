import Glibc

/// Bytes decoded as they are read, in constant memory: a gzip stream, a `.zip` entry.
protocol ByteSource: AnyObject {
    /// Fills up to `count` bytes at `buffer`; 0 at the end. Throws when the data is damaged,
    /// at the latest when its end is reached (before the last bytes are handed out).
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int
}

/// Reads a file or a stream (standard input, a pipe) in chunks and hands out complete lines as byte
/// ranges, so memory stays constant whatever the length. Accepts LF and CRLF line endings; a file
/// or stream that starts as gzip data (`.csv.gz`) is decompressed as it is read, and so is an
/// archive's entry.
///
/// A "line" is a record in the sense of RFC 4180: a line break inside a quoted field (`"Pixel 7\nPro"`,
/// a quote opening at a field's start) does not end it, so a quoted comment or device name written
/// over two lines stays one field. A quote still open after ``maximumRecordLines`` lines, or at the
/// end of the input, or followed by a line that misplaces the closing quote or starts as a data
/// row does (``Continuation``) where the rows' shape does not say it goes on the field, is no
/// quoted field: the line ends at its own line break, as without quotes.
/// ``lineNumber`` counts the lines of the file, and ``location(atByte:)`` turns a byte of the
/// record into the line and column it is on.
public final class ByteLineReader {
    /// The name used in messages: the path, or `stdin`.
    public let name: String
    private let fd: Int32
    private let ownsDescriptor: Bool
    @exclusivity(unchecked) private var buffer: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var capacity: Int
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    @exclusivity(unchecked) private var eof = false
    /// 1-based number of the line most recently returned (its last line, when a quoted field
    /// spans several).
    @exclusivity(unchecked) public private(set) var lineNumber = 0
    /// Lines of the file the most recently returned record spans: 1 unless a quoted field holds
    /// a line break.
    @exclusivity(unchecked) public private(set) var recordLines = 1
    /// Byte offsets, in the most recently returned record, of the line feeds inside its quoted
    /// fields (empty when ``recordLines`` is 1).
    private var recordBreaks = [Int]()
    /// Bytes read so far.
    @exclusivity(unchecked) public private(set) var bytesRead = 0
    /// The input's size in bytes when it is a regular file (not compressed) or an archive entry, else nil.
    public private(set) var size: Int?
    /// The decoder of a gzip input or an archive entry.
    private var source: ByteSource?
    /// Called before every `read` that may block, e.g. to flush outputs so a live pipe sees rows
    /// as soon as they are computed.
    public var beforeRead: (() -> Void)?
    /// Called with every line handed out (its bytes without the line ending), e.g. to keep a copy
    /// of a stream's first rows (``StreamUnitEvidence``).
    @exclusivity(unchecked) var lineCopy: ((UnsafeBufferPointer<UInt8>) -> Void)?

    /// Most lines of the file one record may span through quoted line breaks (64).
    public static let maximumRecordLines = 64

    /// The file's field separator once the reader of its rows knows it (0: runs of spaces or
    /// tabs), the number of fields of its rows, and whether its rows end with a separator of
    /// their own (one field more, empty). With them a quoted line break is told from a stray
    /// quote by the rows' shape (``Continuation/dataRow``); before, by `,` `;` or a tab alone.
    public var fieldSeparator: UInt8?
    public var rowFields: Int?
    public var rowsEndWithSeparator = false

    /// The name standard input gets in messages.
    public static let standardInputName = "stdin"

    /// The longest line read, bytes (16 MiB): a delimited row is at most a few kilobytes, so a
    /// longer line is binary data or a file without line breaks (`/dev/zero`, carriage returns
    /// only), refused before it fills memory.
    public static let maximumLineLength = 1 << 24

    /// Opens `path` for reading; `-` reads standard input.
    public init(path: String, chunkSize: Int = 1 << 20) throws {
        if path == "-" {
            name = Self.standardInputName
            fd = 0
            ownsDescriptor = false
        } else {
            name = path
            var st = stat()
            if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR {
                throw TraceError(
                    .unreadable, SourceLocation(file: path, line: 0, column: 0), "is a folder, expected a file")
            }
            let opened = open(path, O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else {
                let reason = String(cString: strerror(errno))
                throw TraceError(.unreadable, SourceLocation(file: path, line: 0, column: 0), "cannot open: \(reason)")
            }
            fd = opened
            ownsDescriptor = true
            var info = stat()
            if fstat(opened, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { size = Int(info.st_size) }
        }
        capacity = max(chunkSize, 2)
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + 1)
        // The first two bytes tell gzip data; anything else stays in the buffer as read.
        var n = 0
        repeat {
            n = read(fd, buffer + end, 2 - end)
            if n > 0 { end += n }
        } while (n > 0 && end < 2) || (n < 0 && errno == EINTR)
        if n == 0 { eof = true }
        bytesRead = end
        if end == 2 && buffer[0] == GzipStream.magic[0] && buffer[1] == GzipStream.magic[1] {
            source = try GzipStream(
                DescriptorSource(fd, name: name), name: name,
                prefix: Array(UnsafeBufferPointer(start: buffer, count: 2)))
            end = 0
            bytesRead = 0
            size = nil
        }
    }

    /// Reads an open descriptor (a pipe, say), named `name` in messages; it is not closed.
    public init(descriptor: Int32, name: String, chunkSize: Int = 1 << 20) {
        self.name = name
        fd = descriptor
        ownsDescriptor = false
        capacity = chunkSize
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + 1)
    }

    /// Reads lines from bytes in memory, named `name` in messages.
    public init(bytes: [UInt8], name: String) {
        self.name = name
        fd = -1
        ownsDescriptor = false
        capacity = max(1, bytes.count)
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + 1)
        bytes.withUnsafeBufferPointer { if let b = $0.baseAddress { buffer.update(from: b, count: bytes.count) } }
        end = bytes.count
        bytesRead = bytes.count
        size = bytes.count
        eof = true
    }

    /// Reads lines from a decoder (an archive's entry, `size` bytes once decoded), named `name` in
    /// messages. Decoded bytes that start as gzip data (a `.csv.gz` entry) are decompressed too.
    init(source: ByteSource, name: String, size: Int?, chunkSize: Int = 1 << 20) throws {
        self.name = name
        fd = -1
        ownsDescriptor = false
        self.source = source
        self.size = size
        capacity = max(chunkSize, 2)
        buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + 1)
        while end < 2 {
            let n = try source.read(into: buffer + end, count: 2 - end)
            if n == 0 {
                eof = true
                break
            }
            end += n
        }
        bytesRead = end
        if end == 2 && buffer[0] == GzipStream.magic[0] && buffer[1] == GzipStream.magic[1] {
            self.source = try GzipStream(
                source, name: name, prefix: Array(UnsafeBufferPointer(start: buffer, count: 2)))
            end = 0
            bytesRead = 0
            self.size = nil
        }
    }

    deinit {
        if ownsDescriptor { close(fd) }
        buffer.deallocate()
    }

    /// Calls `body` with the next line's bytes (without the line ending) and returns its result,
    /// or returns nil at the end of the input.
    @inline(__always)
    public func nextLine<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) throws -> R? {
        guard let (s, contentEnd, next, spanned) = try locateLine() else { return nil }
        start = next
        lineNumber += spanned
        if spanned > 1 || recordLines > 1 {
            recordLines = spanned
            recordBreaks = (s..<contentEnd).filter { buffer[$0] == 0x0A }.map { $0 - s }
        }
        if let lineCopy { lineCopy(UnsafeBufferPointer(start: buffer + s, count: contentEnd - s)) }
        return try body(UnsafePointer(buffer + s), contentEnd - s)
    }

    /// The 1-based line of the file on which the most recently returned record starts.
    public var recordFirstLine: Int { lineNumber - recordLines + 1 }

    /// Where byte `offset` (0-based) of the most recently returned record is: its line of the file
    /// and 1-based column on that line; a negative offset means the record's first line as a whole
    /// (column 0).
    public func location(atByte offset: Int) -> SourceLocation {
        guard offset >= 0 else { return SourceLocation(file: name, line: recordFirstLine, column: 0) }
        let before = recordBreaks.lastIndex { $0 < offset }
        let lineStart = before.map { recordBreaks[$0] + 1 } ?? 0
        return SourceLocation(
            file: name, line: recordFirstLine + (before.map { $0 + 1 } ?? 0), column: offset - lineStart + 1)
    }

    /// The 1-based line of the file on which the record `ahead` records after the next one starts
    /// (0 is the next record), consuming nothing; past the end, the line after the last.
    public func lineNumber(ahead: Int) throws -> Int {
        var offset = 0
        var line = lineNumber + 1
        for _ in 0..<ahead {
            guard let (_, _, next, spanned) = try locateLine(from: start + offset) else { break }
            offset = next - start
            line += spanned
        }
        return line
    }

    /// How many of the records not yet consumed start within the next `lines` lines of the file
    /// (`--skip-lines` counts the file's lines, whatever quoted line breaks join).
    public func records(within lines: Int) throws -> Int {
        var offset = 0
        var covered = 0
        var k = 0
        while covered < lines, let (_, _, next, spanned) = try locateLine(from: start + offset) {
            offset = next - start
            covered += spanned
            k += 1
        }
        return k
    }

    /// A copy of the next line without consuming it, or nil at the end of the input.
    public func peekLine() throws -> [UInt8]? {
        guard let (s, contentEnd, _, _) = try locateLine() else { return nil }
        return Array(UnsafeBufferPointer(start: buffer + s, count: contentEnd - s))
    }

    /// Up to `count` bytes ahead without consuming them (fewer only at the end of the input).
    public func peekBytes(_ count: Int) throws -> [UInt8] {
        while end - start < count && !eof { try fill() }
        return Array(UnsafeBufferPointer(start: buffer + start, count: min(count, end - start)))
    }

    /// A copy of the line `ahead` lines after the next one (0 is the next line) without consuming
    /// anything, or nil when the input ends before it. Reads only as far as that line, so a live
    /// stream is not waited on for more.
    public func peekLine(ahead: Int) throws -> [UInt8]? {
        var offset = 0
        for k in 0...ahead {
            guard let (s, contentEnd, next, _) = try locateLine(from: start + offset) else { return nil }
            if k == ahead { return Array(UnsafeBufferPointer(start: buffer + s, count: contentEnd - s)) }
            offset = next - start
        }
        return nil
    }

    /// The next record's start, content end, the start of the record after it and the lines of
    /// the file it spans, reading as needed.
    @inline(__always)
    private func locateLine() throws -> (Int, Int, Int, Int)? { try locateLine(from: start) }

    /// The same for the record starting at `from` (at or after ``start``); reading more keeps its
    /// distance from ``start``.
    @inline(__always)
    private func locateLine(from: Int) throws -> (Int, Int, Int, Int)? {
        // Offsets from `start`, which reading moves: the record's start, where the search for its
        // end goes on, and its first line feed (the end when a quote turns out to be no field's).
        let recordOffset = from - start
        var searchOffset = recordOffset
        var firstBreak: Int?
        // The first line going on the quoted field that starts as a data row does (offsets
        // from `start`): the record is one row only if its shape says so (``isOneRow``).
        var doubtful: Range<Int>?
        var open = false
        var spanned = 1
        while true {
            let lineStart = start + recordOffset
            let searchStart = start + searchOffset
            if let nl = memchr(buffer + searchStart, 0x0A, end - searchStart) {
                let lineEnd = buffer.distance(to: nl.assumingMemoryBound(to: UInt8.self))
                if open {
                    switch Self.continuation(buffer, searchStart, lineEnd, separator: fieldSeparator) {
                    case .continues: break
                    case .dataRow where rowFields != nil:
                        doubtful = doubtful ?? (searchStart - start)..<(lineEnd - start)
                    case .dataRow, .breaks:
                        return (lineStart, contentEnd(lineStart, start + firstBreak!), start + firstBreak! + 1, 1)
                    }
                }
                if open || memchr(buffer + searchStart, 0x22, lineEnd - searchStart) != nil {
                    open = Self.quoteOpen(buffer, searchStart, lineEnd, open: open, recordStart: lineStart)
                }
                if open && spanned < Self.maximumRecordLines {
                    firstBreak = firstBreak ?? lineEnd - start
                    spanned += 1
                    searchOffset = lineEnd + 1 - start
                    continue
                }
                if open || !isOneRow(lineStart..<lineEnd, firstBreak: firstBreak, doubtful: doubtful) {
                    let recordEnd = firstBreak.map { start + $0 } ?? lineEnd
                    return (lineStart, contentEnd(lineStart, recordEnd), recordEnd + 1, 1)
                }
                return (lineStart, contentEnd(lineStart, lineEnd), lineEnd + 1, spanned)
            }
            if eof {
                guard lineStart < end else { return nil }
                if open, let firstBreak {
                    // The last line, without a line break of its own, may still close the field.
                    let last = start + searchOffset
                    var goesOn = false
                    switch Self.continuation(buffer, last, end, separator: fieldSeparator) {
                    case .continues: goesOn = true
                    case .dataRow where rowFields != nil:
                        goesOn = true
                        doubtful = doubtful ?? (last - start)..<(end - start)
                    case .dataRow, .breaks: break
                    }
                    if goesOn && !Self.quoteOpen(buffer, last, end, open: true, recordStart: lineStart)
                        && isOneRow(lineStart..<end, firstBreak: firstBreak, doubtful: doubtful)
                    {
                        return (lineStart, contentEnd(lineStart, end), end, spanned)
                    }
                    return (lineStart, contentEnd(lineStart, start + firstBreak), start + firstBreak + 1, 1)
                }
                return (lineStart, contentEnd(lineStart, end), end, spanned)
            }
            try fill()
        }
    }

    /// Whether the record `record` (buffer offsets), whose quoted field goes on past its first
    /// line (ending at `firstBreak`, from ``start``), is one row, when a line going on the field
    /// (`doubtful`, from ``start``) starts as a data row does (`2, slower"` under `"lap 1`): the
    /// record has the rows' fields, and its first line and that line are not each a row of their
    /// own (a ditto mark `"` ending a row over a row ending with one too is two stray quotes).
    /// Without such a line it is.
    private func isOneRow(_ record: Range<Int>, firstBreak: Int?, doubtful: Range<Int>?) -> Bool {
        guard let doubtful, let firstBreak else { return true }
        guard let fields = rowFields, let separator = fieldSeparator else { return false }
        let dialect = TextDialect(separator: separator == 0 ? .whitespace : .byte(separator))
        func isRow(_ from: Int, _ to: Int) -> Bool {
            let to = contentEnd(from, to)
            guard to > from else { return false }
            let n = FieldSplitter(dialect: dialect).forEachField(UnsafePointer(buffer + from), to - from) { _, _, _ in }
            return n == fields || (rowsEndWithSeparator && n == fields + 1)
        }
        return isRow(record.lowerBound, record.upperBound)
            && !(isRow(record.lowerBound, start + firstBreak)
                && isRow(start + doubtful.lowerBound, start + doubtful.upperBound))
    }

    /// The end of a line's content: `lineEnd` less a carriage return before it.
    @inline(__always)
    private func contentEnd(_ lineStart: Int, _ lineEnd: Int) -> Int {
        lineEnd > lineStart && buffer[lineEnd - 1] == 0x0D ? lineEnd - 1 : lineEnd
    }

    /// How the line `p[from..<to]` goes on a quoted field left open by the line before.
    enum Continuation {
        /// It goes on the field.
        case continues
        /// It starts as a data row does, with a first field of a number or a time (digits,
        /// signs, `.`, `e`, `E`, `:`, `T`, `Z`, spaces; a decimal comma in a file of another
        /// separator) ended by a separator: a row of its own after a stray quote (a ditto mark,
        /// an unbalanced quote in a note), unless the rows' shape says it goes on the field
        /// (``ByteLineReader/isOneRow(_:firstBreak:doubtful:)``).
        case dataRow
        /// The quote that would close the field is followed by anything but spaces and then a
        /// separator, a carriage return or the line's end (`"t","gyr_x"` after a comment's stray
        /// quote): the line is a row of its own.
        case breaks
    }

    /// How the line `p[from..<to]` goes on a quoted field left open by the line before
    /// (``Continuation``). The separators are the file's `separator` once known (0: spaces and
    /// tabs), else `,` `;` and a tab.
    static func continuation(_ p: UnsafePointer<UInt8>, _ from: Int, _ to: Int, separator: UInt8?) -> Continuation {
        @inline(__always) func isSeparator(_ c: UInt8) -> Bool {
            switch separator {
            case nil: return c == 0x2C || c == 0x3B || c == 0x09
            case 0: return c == 0x20 || c == 0x09
            case let s?: return c == s
            }
        }
        // A comma is a decimal comma in a file whose separator is known to be another.
        let decimalComma = separator != nil && separator != 0x2C
        var i = from
        var numeric = true
        while i < to {
            let c = p[i]
            if c == 0x22 {
                if i + 1 < to && p[i + 1] == 0x22 {
                    numeric = false
                    i += 2
                    continue
                }
                var k = i + 1
                while k < to && (p[k] == 0x20 || p[k] == 0x09) && !isSeparator(p[k]) { k += 1 }
                guard k < to else { return .continues }
                return isSeparator(p[k]) || p[k] == 0x0D ? .continues : .breaks
            }
            if isSeparator(c) {
                if numeric && i > from { return .dataRow }
                numeric = false
            } else {
                switch c {
                case 0x30...0x39, 0x2B, 0x2D, 0x2E, 0x65, 0x45, 0x3A, 0x54, 0x5A, 0x20: break
                case 0x2C where decimalComma: break
                default: numeric = false
                }
            }
            i += 1
        }
        return .continues
    }

    /// Whether a quoted field is open at `p[to]`, given whether one was at `p[from]`: a quote at a
    /// field's start (the record's start, or after `,` `;` a tab or a space) opens one, the next
    /// single quote closes it, and `""` inside is a quote.
    static func quoteOpen(
        _ p: UnsafePointer<UInt8>, _ from: Int, _ to: Int, open isOpen: Bool, recordStart: Int
    ) -> Bool {
        var open = isOpen
        var i = from
        while i < to {
            if p[i] == 0x22 {
                if open {
                    if i + 1 < to && p[i + 1] == 0x22 {
                        i += 2
                        continue
                    }
                    open = false
                } else if i == recordStart {
                    open = true
                } else {
                    switch p[i - 1] {
                    case 0x2C, 0x3B, 0x09, 0x20: open = true
                    default: break
                    }
                }
            }
            i += 1
        }
        return open
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
            guard capacity < Self.maximumLineLength else {
                // The long line follows the lines still held (a look-ahead reads past the
                // consumed ones).
                var held = 0
                for k in start..<end where buffer[k] == 0x0A { held += 1 }
                throw TraceError(
                    .lineTooLong, SourceLocation(file: name, line: lineNumber + held + 1, column: 0),
                    "line longer than \(Self.maximumLineLength >> 20) MiB: not a text trace (binary data, or line breaks that are not LF or CRLF)"
                )
            }
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2 + 1)
            bigger.update(from: buffer, count: end)
            buffer.deallocate()
            buffer = bigger
            capacity *= 2
        }
        beforeRead?()
        var n: Int
        if let source {
            n = try source.read(into: buffer + end, count: capacity - end)
        } else {
            repeat {
                n = read(fd, buffer + end, capacity - end)
            } while n < 0 && errno == EINTR
        }
        if n < 0 {
            let reason = String(cString: strerror(errno))
            throw TraceError(
                .unreadable, SourceLocation(file: name, line: lineNumber, column: 0), "read failed: \(reason)")
        }
        if n == 0 { eof = true }
        end += n
        bytesRead += n
    }

    /// The rest of the input as bytes (for whole-file formats read from a stream).
    public func readAll() throws -> [UInt8] {
        var out = Array(UnsafeBufferPointer(start: buffer + start, count: end - start))
        start = end
        while !eof {
            start = 0
            end = 0
            try fill()
            out.append(contentsOf: UnsafeBufferPointer(start: buffer, count: end))
            start = end
        }
        return out
    }
}
