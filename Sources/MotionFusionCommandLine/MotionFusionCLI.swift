import Foundation
import MotionFusion

/// Where a command writes: standard output and standard error, replaceable in tests.
public struct ConsoleOutput {
    /// Writes to standard output.
    public var out: (String) -> Void
    /// Writes to standard error.
    public var err: (String) -> Void

    /// Creates an output from two writers.
    public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void) {
        self.out = out
        self.err = err
    }

    /// The process's standard output and standard error.
    public static let standard = ConsoleOutput(
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) })
}

/// A subcommand of `motionfusion`.
struct Subcommand {
    var name: String
    var summary: String
    var usage: String
    var run: ([String], ConsoleOutput) throws -> Void
}

/// The `motionfusion` command line.
public enum MotionFusionCLI {
    static var subcommands: [Subcommand] {
        [
            Subcommand(
                name: "info", summary: "Describe a recorded trace: format, rates, gaps, norms, units",
                usage: "motionfusion info TRACE [--format NAME] [--json]", run: InfoCommand.run),
            Subcommand(
                name: "simulate", summary: "Generate a trace with exact ground truth",
                usage:
                    "motionfusion simulate --scenario NAME --duration SECONDS --rate HZ [--seed N] --output FILE",
                run: SimulateCommand.run),
            Subcommand(
                name: "replay", summary: "Run a filter over a recorded trace and write the attitude per sample",
                usage: ReplayCommand.usage, run: ReplayCommand.run),
            Subcommand(
                name: "reconstruct", summary: "Best offline attitude of a whole recording (forward-backward smoother)",
                usage: ReconstructCommand.usage, run: ReconstructCommand.run),
            Subcommand(
                name: "evaluate", summary: "Score estimates against ground truth with the BROAD metric",
                usage: EvaluateCommand.usage, run: EvaluateCommand.run),
            Subcommand(
                name: "declination",
                summary: "Declination, inclination and field strength from the World Magnetic Model",
                usage: DeclinationCommand.usage, run: DeclinationCommand.run),
            Subcommand(
                name: "calibrate",
                summary: "Fit magnetometer hard/soft iron, gyroscope bias and accelerometer scale/bias",
                usage: CalibrateCommand.usage, run: CalibrateCommand.run),
            Subcommand(
                name: "events", summary: "Device-orientation changes and shakes, timestamped",
                usage: EventsCommand.usage, run: EventsCommand.run),
            Subcommand(
                name: "conventions", summary: "Print the frame, axis, unit and angle conventions",
                usage: "motionfusion conventions", run: ConventionsCommand.run),
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
    public static func run(_ arguments: [String], output: ConsoleOutput = .standard) -> Int32 {
        guard let first = arguments.first else {
            output.err(helpText)
            return 2
        }
        switch first {
        case "--help", "-h", "help":
            if arguments.count > 1, let c = subcommands.first(where: { $0.name == arguments[1] }) {
                output.out("USAGE: \(c.usage)\n\n\(c.summary).\n")
            } else {
                output.out(helpText)
            }
            return 0
        case "--version", "version":
            output.out("motionfusion \(motionFusionVersion)\n")
            return 0
        default:
            break
        }
        guard let command = subcommands.first(where: { $0.name == first }) else {
            output.err("motionfusion: error: unknown subcommand '\(first)'\n\n" + helpText)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            output.out("USAGE: \(command.usage)\n\n\(command.summary).\n")
            return 0
        }
        do {
            try command.run(rest, output)
            return 0
        } catch let e as CommandLineError {
            output.err("motionfusion \(command.name): error: \(e.message)\n")
            if e.exitCode == 2 { output.err("USAGE: \(command.usage)\n") }
            return e.exitCode
        } catch {
            output.err("motionfusion \(command.name): error: \(error)\n")
            return 1
        }
    }
}

extension CommandLine {
    /// Runs `motionfusion` with the given arguments and returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        MotionFusionCLI.run(arguments)
    }
}
