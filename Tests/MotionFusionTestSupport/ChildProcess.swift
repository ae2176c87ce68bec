import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A child process whose pipes are read, and whose exit is awaited, with a deadline: a test that
/// uses it can fail, never hang. Standard output and error are read without blocking (`poll` with
/// the time left), input is written without blocking, and a child still running at the deadline is
/// killed (SIGKILL) and reported as a test failure.
public final class ChildProcess {
    /// What the child reads.
    public enum Input {
        /// Nothing (`/dev/null`).
        case none
        /// These bytes through a pipe, closed after the last one.
        case data(Data)
        /// A pipe left open for ``write(_:timeout:)`` until ``closeInput()``.
        case open
        /// A file handle as it is.
        case handle(FileHandle)
    }

    /// Where the child's standard output or standard error goes.
    public enum Output {
        /// A pipe read into ``out`` or ``err``.
        case capture
        /// `/dev/null`.
        case discard
        /// A file handle as it is.
        case handle(FileHandle)
    }

    /// The deadline of a whole run unless a caller states its own, s: far beyond any command in the
    /// tests on a loaded machine, so only a hang reaches it.
    public static let defaultTimeout = 600.0

    /// What standard output has delivered so far.
    public private(set) var out = Data()
    /// What standard error has delivered so far.
    public private(set) var err = Data()
    /// Whether the child was killed at a deadline.
    public private(set) var timedOut = false
    /// The process.
    public let process = Process()

    private var outHandle: FileHandle?
    private var errHandle: FileHandle?
    private var inputHandle: FileHandle?
    private var pendingInput = Data()
    private var closeInputWhenWritten = false
    private let commandLine: String

    /// Starts `executable` with `arguments` in `directory` (this process's when nil) with exactly
    /// `environment` when given.
    public init(
        _ executable: String, _ arguments: [String], in directory: String? = nil,
        environment: [String: String]? = nil, input: Input = .none, output: Output = .capture,
        error: Output = .capture
    ) throws {
        // A write to a pipe whose reader is gone must fail with EPIPE, not end the test process.
        signal(SIGPIPE, SIG_IGN)
        commandLine = ([executable] + arguments).joined(separator: " ")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if let environment { process.environment = environment }
        switch input {
        case .none: process.standardInput = FileHandle.nullDevice
        case .handle(let h): process.standardInput = h
        case .data(let data):
            let pipe = Pipe()
            process.standardInput = pipe
            inputHandle = pipe.fileHandleForWriting
            pendingInput = data
            closeInputWhenWritten = true
        case .open:
            let pipe = Pipe()
            process.standardInput = pipe
            inputHandle = pipe.fileHandleForWriting
        }
        func attach(_ output: Output, _ set: (Any) -> Void) -> FileHandle? {
            switch output {
            case .discard:
                set(FileHandle.nullDevice)
                return nil
            case .handle(let h):
                set(h)
                return nil
            case .capture:
                let pipe = Pipe()
                set(pipe)
                return pipe.fileHandleForReading
            }
        }
        outHandle = attach(output) { process.standardOutput = $0 }
        errHandle = attach(error) { process.standardError = $0 }
        try process.run()
        for handle in [outHandle, errHandle, inputHandle].compactMap({ $0 }) {
            let fd = handle.fileDescriptor
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        if closeInputWhenWritten && pendingInput.isEmpty { closeInput() }
    }

    /// Runs a command to its end (see ``finish(timeout:)``).
    public static func run(
        _ executable: String, _ arguments: [String], in directory: String? = nil,
        environment: [String: String]? = nil, input: Input = .none, output: Output = .capture,
        error: Output = .capture, timeout: Double = defaultTimeout
    ) throws -> ChildProcess {
        let child = try ChildProcess(
            executable, arguments, in: directory, environment: environment, input: input, output: output,
            error: error)
        child.finish(timeout: timeout)
        return child
    }

    /// The exit status: the child's own, or 128 + n after signal n.
    public var status: Int32 {
        process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Standard output as text.
    public var outText: String { String(decoding: out, as: UTF8.self) }
    /// Standard error as text.
    public var errText: String { String(decoding: err, as: UTF8.self) }

    /// Queues `data` for the child's standard input (opened with ``Input/open``) and writes what the
    /// child accepts within `timeout` seconds; returns whether all of it was written.
    @discardableResult
    public func write(_ data: Data, timeout: Double = defaultTimeout) -> Bool {
        pendingInput.append(data)
        return pump(deadline: Self.now() + timeout) { self.pendingInput.isEmpty || self.inputHandle == nil }
            && pendingInput.isEmpty
    }

    /// Closes the child's standard input (it reads end of file after what was written).
    public func closeInput() {
        pendingInput = Data()
        try? inputHandle?.close()
        inputHandle = nil
    }

    /// Reads the child's output until `condition` holds or `timeout` seconds pass (the child keeps
    /// running either way); returns whether it holds.
    @discardableResult
    public func read(timeout: Double, until condition: @escaping (ChildProcess) -> Bool) -> Bool {
        pump(deadline: Self.now() + timeout) { condition(self) }
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Closes standard input once what is queued is written, reads standard output and error to
    /// their ends and waits for the exit, all within `timeout` seconds; a child still running then
    /// is killed, and the test fails saying so.
    public func finish(timeout: Double = defaultTimeout, file: StaticString = #filePath, line: UInt = #line) {
        closeInputWhenWritten = true
        if pendingInput.isEmpty { closeInput() }
        let done = pump(deadline: Self.now() + timeout) {
            self.outHandle == nil && self.errHandle == nil && !self.process.isRunning
        }
        if !done {
            timedOut = true
            if process.isRunning { send(SIGKILL) }
            closeInput()
            for handle in [outHandle, errHandle].compactMap({ $0 }) { try? handle.close() }
            outHandle = nil
            errHandle = nil
            XCTFail("killed after \(timeout) s without finishing: \(commandLine)", file: file, line: line)
        }
        // After its exit, or SIGKILL, the child is reaped at once.
        process.waitUntilExit()
    }

    /// Moves bytes between the pipes and this object until `done` holds or the deadline passes;
    /// returns whether `done` holds. Never blocks longer than 50 ms at a time, so a child's exit
    /// is seen even when a grandchild keeps its pipes open.
    private func pump(deadline: Double, until done: () -> Bool) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !done() {
            let left = deadline - Self.now()
            if left <= 0 { return false }
            var fds = [pollfd]()
            for handle in [outHandle, errHandle].compactMap({ $0 }) {
                fds.append(pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0))
            }
            if let input = inputHandle, !pendingInput.isEmpty {
                fds.append(pollfd(fd: input.fileDescriptor, events: Int16(POLLOUT), revents: 0))
            }
            _ = poll(&fds, nfds_t(fds.count), Int32(min(left, 0.05) * 1000) + 1)
            for p in fds where p.revents != 0 {
                if p.fd == inputHandle?.fileDescriptor {
                    let written = pendingInput.withUnsafeBytes { Glibc.write(p.fd, $0.baseAddress, $0.count) }
                    if written > 0 {
                        pendingInput.removeFirst(written)
                        if pendingInput.isEmpty && closeInputWhenWritten { closeInput() }
                    } else if written < 0 && errno != EAGAIN && errno != EINTR {
                        closeInput()  // the child closed its end (EPIPE)
                    }
                    continue
                }
                let count = Glibc.read(p.fd, &buffer, buffer.count)
                if count > 0 {
                    if p.fd == outHandle?.fileDescriptor {
                        out.append(contentsOf: buffer[0..<count])
                    } else {
                        err.append(contentsOf: buffer[0..<count])
                    }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    if p.fd == outHandle?.fileDescriptor {
                        try? outHandle?.close()
                        outHandle = nil
                    } else {
                        try? errHandle?.close()
                        errHandle = nil
                    }
                }
            }
        }
        return true
    }

    private static func now() -> Double { ProcessInfo.processInfo.systemUptime }
}
