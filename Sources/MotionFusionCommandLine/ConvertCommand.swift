import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings of `convert`.
struct ConvertSettings {
    var input = InputSettings()
    var output: String?
    var trace = ""
}

/// `motionfusion convert`: what a recording reads as — SI units, the recording's clock in
/// seconds, axes remapped, value faults repaired — written as a native trace (docs/TraceFormat.md),
/// for pipelines and for checking a reading. The output is as safe as `replay`'s.
enum ConvertCommand {
    static let command = Command<ConvertSettings>(
        name: "convert",
        summary: "Write a recording as it reads (SI units, remapped, faults repaired) as a native CSV trace",
        arguments: [("TRACE", "a trace file, a recording folder or .zip, or - for standard input")],
        options: InputSettings.options.map { $0.lifted(\.input) } + [
            Option(
                "output", value: "FILE|-",
                "where to write the native trace (never onto the input; written atomically; - streams to standard output); required"
            ) { s, v in s.output = v }
        ],
        initial: ConvertSettings(),
        finish: { s, positionals in
            s.trace = try traceWithOutput(
                positionals, output: s.output, missing: "missing --output FILE.csv (- for standard output)")
        },
        run: run)

    static func run(_ s: ConvertSettings, _ console: ConsoleOutput) throws {
        let target = try outputTarget(s.output!, reading: s.trace, console)
        let reader = try s.input.openOne(s.trace, command: "convert", arguments: ["--output", s.output!])
        let printed = TraceRunCommand.printWarnings(reader, from: 0, console, calibratedGyroscope: false)
        let output = try CommandLineError.rethrowing { try target.open() }
        var rows = 0
        do {
            // The first sample tells whether the trace has a moving flag.
            let first = try reader.next()
            var columns = TraceWriter.Columns()
            let d = reader.description
            columns.gyroscope = d.sensors.contains(.gyroscope)
            columns.accelerometer = d.sensors.contains(.accelerometer)
            columns.magnetometer = d.sensors.contains(.magnetometer)
            columns.truth = d.hasTruth
            columns.moving = first?.moving != nil
            let writer = TraceWriter(output: output, columns: columns)
            // Rows go out as they are read to a terminal, and to a pipe when the input is live.
            let live = s.trace == "-" || TraceFormat.isStream(s.trace)
            writer.flushEachRow = output.isTerminal || (live && output.isInteractive)
            var next = first
            while let sample = next {
                try writer.write(sample)
                rows += 1
                next = try reader.next()
            }
            try writer.finish()
        } catch {
            output.abandon()
            throw CommandLineError.from(error)
        }
        _ = TraceRunCommand.printWarnings(reader, from: printed, console, calibratedGyroscope: false)
        for w in reader.faults.warnings { console.err("\(w)\n") }
        if target.kind != .standardOutput { console.err("\(rows) rows written to \(s.output!)\n") }
    }
}
