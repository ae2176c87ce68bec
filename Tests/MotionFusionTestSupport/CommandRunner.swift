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
    /// added to this process's.
    public static func process(
        _ args: [String], in directory: String? = nil, input: Data? = nil, environment: [String: String] = [:]
    ) throws -> CommandResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try TestData.executable())
        p.arguments = args
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let stdin = Pipe()
        p.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try p.run()
        if let input {
            DispatchQueue.global().async {
                stdin.fileHandleForWriting.write(input)
                try? stdin.fileHandleForWriting.close()
            }
        }
        let outData = HandedOver<Data>(Data())
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            outData.value = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        let status = p.terminationReason == .uncaughtSignal ? 128 + p.terminationStatus : p.terminationStatus
        return CommandResult(
            status: status, out: String(decoding: outData.value, as: UTF8.self),
            err: String(decoding: errData, as: UTF8.self)
        )
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
