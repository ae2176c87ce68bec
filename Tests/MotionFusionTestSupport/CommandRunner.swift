import Foundation
import MotionFusionCommandLine
import XCTest

/// Runs the command line, in process or as the built executable, and captures what it prints.
public struct CommandResult {
    /// Exit status (128 + n after signal n).
    public var status: Int32
    /// Standard output.
    public var out: String
    /// Standard error.
    public var err: String
}

public enum CommandRunner {
    /// The command line run in this process.
    public static func run(_ args: [String]) -> CommandResult {
        var out = ""
        var err = ""
        let status = MotionFusionCLI.run(args, output: ConsoleOutput(out: { out += $0 }, err: { err += $0 }))
        return CommandResult(status: status, out: out, err: err)
    }

    /// The built executable run in `directory` with `input` on its standard input and `environment`
    /// added to this process's; killed, and the test failed, if it has not ended within `timeout`
    /// seconds.
    public static func process(
        _ args: [String], in directory: String? = nil, input: Data? = nil, environment: [String: String] = [:],
        timeout: Double = ChildProcess.defaultTimeout
    ) throws -> CommandResult {
        let child = try ChildProcess.run(
            try TestData.executable(), args, in: directory,
            environment: environment.isEmpty
                ? nil : ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            input: input.map { .data($0) } ?? .none, timeout: timeout)
        return CommandResult(status: child.status, out: child.outText, err: child.errText)
    }
}

/// A value written by one thread and read by another after it signals (a semaphore or dispatch
/// group orders the two), so no lock is needed.
public final class HandedOver<Value>: @unchecked Sendable {
    /// The value.
    public var value: Value

    /// Holds `value`.
    public init(_ value: Value) { self.value = value }
}
