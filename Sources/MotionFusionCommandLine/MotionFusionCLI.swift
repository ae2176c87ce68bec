import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a command writes its messages: standard output and standard error, replaceable in tests.
/// Estimates written to `-` go to the process's standard output (descriptor 1) whatever `out` is.
public struct ConsoleOutput {
    /// Writes to standard output.
    public var out: (String) -> Void
    /// Writes to standard error.
    public var err: (String) -> Void
    /// Writes a progress line to standard error as is (carriage returns and erase sequences);
    /// nil when standard error is not a terminal, so nothing is drawn.
    public var progress: ((String) -> Void)?
    /// The first failed write to standard output by `out`, for writers that can fail (``standard``).
    var writeFailure: FirstError?

    /// Creates an output from two writers (and an optional progress writer).
    public init(
        out: @escaping (String) -> Void, err: @escaping (String) -> Void, progress: ((String) -> Void)? = nil
    ) {
        self.out = out
        self.err = err
        self.progress = progress
    }

    /// The process's standard output and standard error; progress only on a terminal. Writes go
    /// straight to the descriptors: a closed or full standard error loses the message but never
    /// stops the run, and a failed write to standard output is remembered, for this output only,
    /// so the command exits 1 instead of reporting success.
    public static var standard: ConsoleOutput {
        let failure = FirstError()
        var output = ConsoleOutput(
            out: { if !write(1, $0) { failure.set(errno) } },
            err: { _ = write(2, $0) },
            progress: isatty(2) != 0 ? { _ = write(2, $0) } : nil)
        output.writeFailure = failure
        return output
    }

    /// The first error recorded, shared safely between threads (folder runs write from workers).
    final class FirstError: @unchecked Sendable {
        let lock = Lock()
        var error: Int32?
        var value: Int32? { lock.withLock { error } }
        func set(_ e: Int32) { lock.withLock { if error == nil { error = e } } }
    }

    /// The same output with `out` and `err` replaced (progress and the write-failure record kept).
    func with(out: @escaping (String) -> Void, err: @escaping (String) -> Void) -> ConsoleOutput {
        var copy = self
        copy.out = out
        copy.err = err
        return copy
    }

    /// Writes all of `text` to descriptor `fd`, retrying after interruptions; false on an error.
    static func write(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += n
            }
            return true
        }
    }

    /// The same output with control characters other than newlines and tabs escaped, so no file
    /// content or path can drive the terminal.
    var sanitized: ConsoleOutput {
        let out = self.out
        let err = self.err
        return with(out: { out(Self.escape($0)) }, err: { err(Self.escape($0)) })
    }

    static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F })
        else {
            return text
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0).escapedForMessage.replacing("\\t", with: "\t")
        }.joined(separator: "\n")
    }
}

/// The `motionfusion` command line.
public enum MotionFusionCLI {
    static var subcommands: [Subcommand] {
        [
            InfoCommand.command.erased, SimulateCommand.command.erased, ReplayCommand.command.erased,
            ReconstructCommand.command.erased, EvaluateCommand.command.erased, DeclinationCommand.command.erased,
            CalibrateCommand.command.erased, EventsCommand.command.erased, ConvertCommand.command.erased,
            ConventionsCommand.command.erased,
        ]
    }

    /// The help text listing every subcommand.
    static var helpText: String {
        var s = """
            motionfusion \(motionFusionVersion): attitude estimation from accelerometer, gyroscope and magnetometer

            USAGE: motionfusion <subcommand> [options]

            SUBCOMMANDS:

            """
        let width = subcommands.map(\.name.count).max() ?? 0
        for c in subcommands {
            s += "  " + c.name + String(repeating: " ", count: width - c.name.count + 2) + c.summary + "\n"
        }
        s += "\nRun 'motionfusion help <subcommand>' for a subcommand's options.\n"
        return s
    }

    /// Runs the command line with `arguments` (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], output raw: ConsoleOutput = .standard) -> Int32 {
        let output = raw.sanitized
        guard let first = arguments.first else {
            output.err(helpText)
            return 2
        }
        switch first {
        case "--help", "-h", "help":
            if arguments.count > 1 {
                guard let c = subcommands.first(where: { $0.name == arguments[1] }) else {
                    output.err("motionfusion: error: unknown subcommand '\(arguments[1])'\n\n" + helpText)
                    return 2
                }
                output.out(c.help)
            } else {
                output.out(helpText)
            }
            return written(output, "motionfusion")
        case "--version", "version":
            output.out("motionfusion \(motionFusionVersion)\n")
            return written(output, "motionfusion")
        default:
            break
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            output.err("motionfusion: error: unknown subcommand '\(first)'\n\n" + helpText)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            output.out(command.help)
            return written(output, "motionfusion \(command.name)")
        }
        do {
            try command.execute(rest, output)
            return written(output, "motionfusion \(command.name)")
        } catch {
            let e = CommandLineError.from(error)
            output.err("motionfusion \(command.name): error: \(e.message)\n")
            if e.status == 2 { output.err("USAGE: \(command.usage)\n") }
            return e.status
        }
    }
}

extension MotionFusionCLI {
    /// 0 when everything written to standard output arrived, else 1 with the reason (a full disk,
    /// a closed pipe): a help page lost on `/dev/full` is a failure too.
    static func written(_ output: ConsoleOutput, _ program: String) -> Int32 {
        guard let e = output.writeFailure?.value else { return 0 }
        output.err("\(program): error: write failed: \(String(cString: strerror(e)))\n")
        return 1
    }
}

extension CommandLine {
    /// Runs `motionfusion` with the given arguments and returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        MotionFusionCLI.run(arguments)
    }
}
