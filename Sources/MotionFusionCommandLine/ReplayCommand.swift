import Foundation
import MotionFusion

/// The settings of `replay`.
struct ReplaySettings {
    var input = InputSettings()
    var run = RunSettings()
    var output: String?
    var score = false
    var trace = ""
}

/// What running one trace gave.
struct TraceOutcome {
    /// Input samples read.
    var samples: Int
    /// The mode actually run (9D falls back to 6D without a magnetometer).
    var mode: FusionMode
    /// The score against ground truth, when the trace has it.
    var score: AttitudeErrorMetric.Result?
}

/// `motionfusion replay`: a filter over a recorded trace, one output row per input row.
enum ReplayCommand {
    static let outputOption = Option<ReplaySettings>(
        "output", value: "FILE|-",
        "where to write the estimates: a file (written atomically), - for standard output (default), or a folder when TRACE is a folder"
    ) { s, v in s.output = v }

    static let command = Command<ReplaySettings>(
        name: "replay", summary: "Run a filter over a recorded trace and write the attitude per sample",
        arguments: [
            (
                "TRACE",
                "a trace file, a recording folder or .zip, a folder of traces (run in parallel), or - for standard input"
            )
        ],
        options: InputSettings.options.map { $0.lifted(\.input) }
            + RunSettings.options(filters: true).map { $0.lifted(\.run) }
            + [
                outputOption,
                .flag("score", "print the error against the trace's ground truth (BROAD metric) on stderr", \.score),
            ],
        sections: [("OUTPUT COLUMNS", EstimateWriter.columnHelp)],
        initial: ReplaySettings(),
        finish: { s, positionals in
            try expectArguments(positionals, ["TRACE"])
            s.trace = positionals[0]
            try s.run.build()
        },
        run: run)

    static func run(_ s: ReplaySettings, _ console: ConsoleOutput) throws {
        for w in s.run.modelWarnings { console.err("warning: \(w)\n") }
        let inputs = try TraceInputs.expand(s.trace, format: s.input.format)
        if inputs.count > 1 || inputs[0] != s.trace {
            try FolderRunner.process(
                inputs, from: s.trace, outputFolder: s.output, input: s.input,
                extraInputs: [s.run.calibrationPath].compactMap { $0 },
                console
            ) { reader, target, console in
                try replay(
                    reader, s.run.configuration, target, liveInput: false, askedFor9D: s.run.mode == .nineD,
                    console: console)
            }
            return
        }
        let protected = InputFiles([s.trace] + [s.run.calibrationPath].compactMap { $0 })
        let target = try OutputTarget.resolve(s.output ?? "-", protecting: protected)
        let reader = try s.input.open(s.trace)
        let outcome = try replay(
            reader, s.run.configuration, target, liveInput: s.trace == "-", askedFor9D: s.run.mode == .nineD,
            console: console)
        if s.score {
            console.err(scoreLine(s.trace, s.run.configuration.filter.kind.rawValue, outcome))
        }
    }

    /// The `--score` line.
    static func scoreLine(_ path: String, _ what: String, _ outcome: TraceOutcome) -> String {
        guard let r = outcome.score else { return "\(path): no ground truth to score against\n" }
        return String(
            format: "%@ %@ %@: total %.3f°, heading %.3f°, inclination %.3f° over %d samples\n", path, what,
            outcome.mode.rawValue, r.totalRMSE, r.headingRMSE, r.inclinationRMSE, r.samplesUsed)
    }

    /// Prints a reader's warnings not printed yet.
    static func printWarnings(_ reader: SampleReader, from start: Int, _ console: ConsoleOutput?) -> Int {
        let all = reader.warnings
        if let console { for w in all.dropFirst(start) { console.err("\(w)\n") } }
        return all.count
    }

    /// The configuration adjusted to what the trace has: 9D without a magnetometer runs (and is
    /// scored, and reported) as 6D, with a warning when 9D was asked for; the e-compass without one
    /// is an error.
    static func adjusted(
        _ configuration: RunConfiguration, for reader: SampleReader, askedFor9D: Bool, _ console: ConsoleOutput?
    ) throws -> RunConfiguration {
        var c = configuration
        let d = reader.description
        if c.mode == .nineD && !d.sensors.contains(.magnetometer) {
            if c.filter.kind == .ecompass {
                throw CommandLineError.input(
                    "\(d.source): no magnetometer: the e-compass needs one (try --filter tilt)")
            }
            if askedFor9D {
                console?.err(
                    "\(d.source): warning: --mode 9d but the recording has no magnetometer: running 6D (heading not referenced to north)\n"
                )
            }
            c.mode = .sixD
        }
        return c
    }

    /// Runs one trace into one output: warnings first (units, columns), the rows, then the
    /// value-fault summary. Returns what it gave.
    static func replay(
        _ reader: SampleReader, _ configuration: RunConfiguration, _ target: OutputTarget, liveInput: Bool,
        askedFor9D: Bool, console: ConsoleOutput?
    ) throws -> TraceOutcome {
        let printed = printWarnings(reader, from: 0, console)
        let run = try adjusted(configuration, for: reader, askedFor9D: askedFor9D, console)
        let output = try target.open()
        let writer = EstimateWriter(output: output, configuration: run, uncertainty: run.filter.kind == .ekf)
        writer.flushEachRow = liveInput && output.isInteractive
        var metric = AttitudeErrorMetric.Accumulator(mode: run.mode)
        var samples = 0
        var sawTruth = false
        var magnetometerSamples = 0
        var magnetometerRejected = 0
        do {
            try run.run(next: {
                let s = try reader.next()
                if s != nil { samples += 1 }
                return s
            }) { e, input in
                try writer.write(e)
                if input.truth != nil { sawTruth = true }
                metric.add(estimate: e.attitude, truth: input.truth, moving: input.moving)
                if input.magnetometer != nil && !e.diagnostics.initialising {
                    magnetometerSamples += 1
                    if e.diagnostics.magnetometerRejected { magnetometerRejected += 1 }
                }
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw CommandLineError.from(error)
        }
        _ = printWarnings(reader, from: printed, console)
        if let console { for w in reader.faults.warnings { console.err("\(w)\n") } }
        if run.calibration?.magnetometer != nil, run.mode == .nineD, magnetometerRejected * 2 > magnetometerSamples {
            console?.err(
                "\(reader.description.source): warning: the calibrated magnetometer was rejected on \(magnetometerRejected) of \(magnetometerSamples) samples: the calibration does not fit this recording (wrong sensor, units, or a disturbed fit)\n"
            )
        }
        return TraceOutcome(samples: samples, mode: run.mode, score: sawTruth ? metric.result : nil)
    }
}
