import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A problem with an output path, found before anything is read or written (a usage error), or
/// while writing.
public struct OutputError: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// Whether it is a usage mistake (a folder, an input, a missing folder) rather than a failure
    /// while writing.
    public var isUsage: Bool
    /// Creates an error.
    public init(_ message: String, usage: Bool = false) {
        self.message = message
        isUsage = usage
    }
    public var description: String { message }
}

/// The files a command reads, identified by device and inode (so hard links and other spellings
/// of a path are recognised) and by real path.
public struct InputFiles: Sendable {
    var identities: Set<[UInt64]> = []
    var paths: Set<String> = []

    /// No inputs.
    public init() {}

    /// The files at `paths`: a file itself and the files its recording reads beside it
    /// (``TraceFormat/companions(of:)``), every file below a folder (recording folders, folders of
    /// traces), nothing for `-` but the file standard input is redirected from.
    public init(_ inputs: [String]) {
        for p in inputs {
            if p == "-" {
                // Standard input redirected from a file (`< trace.csv`): that file is an input.
                var st = stat()
                if fstat(0, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                    identities.insert([UInt64(st.st_dev), UInt64(st.st_ino)])
                }
            } else {
                add(p, depth: 0)
                // The files a recording reads beside the one named (EuRoC's ground truth, the
                // other files of a multi-file recording).
                for companion in TraceFormat.companions(of: p) { add(companion, depth: 0) }
            }
        }
    }

    mutating func add(_ path: String, depth: Int) {
        var st = stat()
        guard stat(path, &st) == 0 else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            guard depth < 8, let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for e in entries { add(PathText.join(path, e), depth: depth + 1) }
            return
        }
        identities.insert([UInt64(st.st_dev), UInt64(st.st_ino)])
        if let r = OutputTarget.realPath(path) { paths.insert(r) }
    }

    /// Whether the file `st` (an existing file) or the real path `path` is an input.
    func contains(_ st: stat?, path: String?) -> Bool {
        if let st, identities.contains([UInt64(st.st_dev), UInt64(st.st_ino)]) { return true }
        if let path, paths.contains(path) { return true }
        return false
    }
}

/// Where an output goes, decided before anything is read or written:
/// - `-`: standard output, written as rows are computed;
/// - a FIFO or a character device (`/dev/null`, `/dev/full`, a terminal): written through, never
///   replaced;
/// - a regular file or a new name: written to a temporary file in the same folder, created
///   exclusively under an unpredictable name, then renamed into place, so a reader never sees half
///   a file and an interrupted run leaves the old file intact;
/// - a symbolic link: its target is written that way and the link is kept.
/// A folder, a path whose folder does not exist, and any path that resolves to an input are usage
/// errors.
public struct OutputTarget: Sendable {
    /// How the output is written.
    public enum Kind: Sendable, Equatable {
        /// Standard output.
        case standardOutput
        /// A FIFO or device, written through.
        case stream(String)
        /// A regular file, replaced atomically; `mode` keeps an existing file's permissions.
        case file(String, mode: UInt32?)
    }

    /// The path as given.
    public let given: String
    /// How it is written.
    public let kind: Kind

    /// The canonical absolute path of the file written (its folder's real path and its name), so
    /// that two spellings of one output compare equal; nil for standard output and devices.
    public var canonicalPath: String? {
        guard case .file(let path, _) = kind,
            let folder = Self.realPath(PathText.folder(path).isEmpty ? "." : PathText.folder(path))
        else { return nil }
        return PathText.join(folder, PathText.name(path))
    }

    /// The canonical absolute path of an existing file, or nil.
    static func realPath(_ path: String) -> String? {
        guard let r = realpath(path, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }

    /// Decides how to write `path`, refusing anything that would overwrite one of `inputs`. `-`
    /// is the process's standard output (descriptor 1). `option` names the path in messages.
    public static func resolve(_ path: String, protecting inputs: InputFiles, option: String = "--output") throws
        -> OutputTarget
    {
        if path == "-" {
            // Standard output redirected onto an input (`>> trace.csv`, `1<>trace.csv`).
            var st = stat()
            if fstat(1, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG,
                inputs.contains(st, path: nil)
            {
                throw OutputError(
                    "standard output is an input of this run; refusing to write onto it (redirect to another file)",
                    usage: true)
            }
            return OutputTarget(given: path, kind: .standardOutput)
        }
        guard !path.isEmpty else { throw OutputError("\(option) needs a file name", usage: true) }
        guard !path.hasSuffix("/") else {
            throw OutputError(
                "\(path): names a folder; \(option) needs a file name (or '-' for standard output)", usage: true)
        }
        var target = path
        var hops = 0
        while true {
            var lst = stat()
            guard lstat(target, &lst) == 0 else { break }  // a new file
            guard (lst.st_mode & S_IFMT) == S_IFLNK else { break }
            // A link: write its target (even a dangling one), keep the link.
            hops += 1
            guard hops < 40, let next = readLink(target) else {
                throw OutputError("\(path): too many levels of symbolic links", usage: true)
            }
            // `/proc/self/fd/1` of a pipe or socket links to `pipe:[…]`, not a path: the link
            // itself opens the object.
            if target.hasPrefix("/proc/") || target.hasPrefix("/dev/fd/"), Self.isAnonymousObject(next) { break }
            target =
                next.hasPrefix("/")
                ? next : PathText.join(PathText.folder(target), next)
        }
        var st = stat()
        if stat(target, &st) == 0 {
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR {
                throw OutputError(
                    "\(path): is a folder; \(option) needs a file name (or '-' for standard output)", usage: true)
            }
            if inputs.contains(st, path: realPath(target)) {
                throw OutputError(
                    "\(path): is an input of this run; refusing to overwrite it (choose another \(option))", usage: true
                )
            }
            if type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK {
                return OutputTarget(given: path, kind: .stream(target))
            }
            guard type == S_IFREG else { throw OutputError("\(path): is not a regular file", usage: true) }
            return OutputTarget(given: path, kind: .file(target, mode: UInt32(st.st_mode & 0o7777)))
        }
        let folder = PathText.folder(target)
        let dir = folder.isEmpty ? "." : folder
        var dst = stat()
        guard stat(dir, &dst) == 0, (dst.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError("\(path): folder '\(dir)' does not exist", usage: true)
        }
        if let r = realPath(dir),
            inputs.contains(nil, path: PathText.join(r, PathText.name(target)))
        {
            throw OutputError("\(path): is an input of this run; refusing to overwrite it", usage: true)
        }
        return OutputTarget(given: path, kind: .file(target, mode: nil))
    }

    /// The device and inode written when the output is an existing regular file, FIFO or socket
    /// (standard output's open file for `-`), else nil: two outputs with one identity would mix
    /// (a device such as `/dev/null` takes any number).
    public var identity: [UInt64]? {
        var st = stat()
        switch kind {
        case .standardOutput: guard fstat(1, &st) == 0 else { return nil }
        case .stream(let path), .file(let path, _): guard stat(path, &st) == 0 else { return nil }
        }
        let type = st.st_mode & S_IFMT
        guard type == S_IFREG || type == S_IFIFO || type == S_IFSOCK else { return nil }
        return [UInt64(st.st_dev), UInt64(st.st_ino)]
    }

    /// Refuses to run when standard output is redirected onto one of `inputs` (for commands that
    /// print their results there).
    public static func checkStandardOutput(protecting inputs: InputFiles) throws {
        _ = try resolve("-", protecting: inputs)
    }

    /// Whether a link text is the kernel's name of an object without a path (`pipe:[123]`,
    /// `socket:[…]`, `anon_inode:[…]`), as `/proc/self/fd/N` shows.
    static func isAnonymousObject(_ link: String) -> Bool {
        for kind in ["pipe:[", "socket:[", "anon_inode:["] where link.hasPrefix(kind) && link.hasSuffix("]") {
            let inside = link.dropFirst(kind.count).dropLast()
            return !inside.isEmpty && inside.allSatisfy { $0.isASCII && $0.isNumber }
        }
        return false
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        buffer[n] = 0
        return String(cString: buffer)
    }

    /// Opens the output for writing.
    public func open() throws -> OutputFile {
        switch kind {
        case .standardOutput:
            return OutputFile(
                fd: 1, name: "standard output", temporary: nil, final: nil, owns: false)
        case .stream(let path):
            let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
            guard fd >= 0 else { throw OutputError("\(given): cannot open: \(String(cString: strerror(errno)))") }
            return OutputFile(fd: fd, name: given, temporary: nil, final: nil, owns: true)
        case .file(let path, let mode):
            let folder = PathText.folder(path)
            // The temporary name starts with the file's name, shortened so that it stays within
            // the 255 bytes a file name may have however long the output's own name is.
            var base = PathText.name(path)
            while base.utf8.count > 200 { base.removeLast() }
            for _ in 0..<100 {
                // The system generator (getrandom): unpredictable names.
                let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
                let tmp = (folder.isEmpty ? "" : folder + "/") + ".\(base).\(suffix).tmp"
                let fd = Glibc.open(
                    tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode.map { mode_t($0) } ?? 0o666)
                if fd < 0 && errno == EEXIST { continue }
                guard fd >= 0 else {
                    throw OutputError("\(given): cannot create output: \(String(cString: strerror(errno)))")
                }
                if let mode { fchmod(fd, mode_t(mode)) }
                PendingOutputs.register(tmp)
                return OutputFile(fd: fd, name: given, temporary: tmp, final: path, owns: true)
            }
            throw OutputError("\(given): cannot create a temporary file beside it")
        }
    }
}

/// An output being written (see ``OutputTarget``). ``commit()`` makes it visible; ``abandon()``
/// removes a temporary file.
public final class OutputFile {
    /// The file descriptor.
    public let fd: Int32
    /// The name in messages.
    public let name: String
    let temporary: String?
    let final: String?
    let owns: Bool
    var finished = false

    init(fd: Int32, name: String, temporary: String?, final: String?, owns: Bool) {
        self.fd = fd
        self.name = name
        self.temporary = temporary
        self.final = final
        self.owns = owns
    }

    deinit { abandon() }

    /// Whether the output is a terminal.
    public var isTerminal: Bool { isatty(fd) != 0 }

    /// Whether the output is a terminal, a pipe or a socket: something a program may read live.
    public var isInteractive: Bool {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return isatty(fd) != 0 || (st.st_mode & S_IFMT) == S_IFIFO || (st.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Writes all of `bytes`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError("\(name): write failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }

    /// Writes text.
    public func write(_ text: String) throws {
        var t = text
        try t.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Closes the output and, for a file, renames it into place.
    public func commit() throws {
        guard !finished else { return }
        finished = true
        if owns, close(fd) != 0 {
            let reason = String(cString: strerror(errno))
            if let tmp = temporary {
                unlink(tmp)
                PendingOutputs.unregister(tmp)
            }
            throw OutputError("\(name): write failed: \(reason)")
        }
        if let tmp = temporary, let path = final {
            defer { PendingOutputs.unregister(tmp) }
            guard rename(tmp, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(tmp)
                throw OutputError("\(name): cannot write output: \(reason)")
            }
        }
    }

    /// Closes the output and removes a temporary file (after a failure).
    public func abandon() {
        guard !finished else { return }
        finished = true
        if owns { close(fd) }
        if let tmp = temporary {
            unlink(tmp)
            PendingOutputs.unregister(tmp)
        }
    }
}

/// Temporary output files still being written, so that a program's signal handler (the command
/// line's, `SignalHandlers` in MotionFusionCommandLine) can remove them and never leave a
/// half-written file behind. The paths live in fixed C storage that ``removePending()`` reads
/// without allocating or locking. The library installs no handler of its own: signals belong to the
/// program.
public enum PendingOutputs {
    static let capacity = 256
    static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        p.initialize(repeating: nil, count: capacity)
        return p
    }()
    static let lock = Lock()

    static func register(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        for i in 0..<capacity where slots[i] == nil {
            slots[i] = strdup(path)
            return
        }
    }

    static func unregister(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        for i in 0..<capacity {
            if let p = slots[i], String(cString: p) == path {
                slots[i] = nil
                free(p)
            }
        }
    }

    /// Allocates the storage ``removePending()`` reads; call it before installing a signal handler
    /// that calls ``removePending()`` (the storage is otherwise allocated on first use).
    public static func prepare() { _ = slots }

    /// Unlinks every temporary output still being written. Safe in a signal handler after
    /// ``prepare()``: it neither allocates nor locks.
    public static func removePending() {
        for i in 0..<PendingOutputs.capacity {
            if let p = PendingOutputs.slots[i] { unlink(p) }
        }
    }
}
