import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings of the commands that turn traces into estimate files: `replay` and `reconstruct`.
struct TraceRunSettings {
    var input = InputSettings()
    var run = RunSettings()
    var output: String?
    var report: String?
    var score = false
    var trace = ""
    /// The command's name (`replay`, `reconstruct`), for commands proposed in messages.
    var command = ""
    /// `reconstruct --method`.
    var method: ReconstructionMethod?
    /// `reconstruct --calibrate-mag FILE`.
    var calibrateMagnetometer: String?
    /// Where the fitted magnetometer calibration goes (resolved before the run).
    var calibrationTarget: OutputTarget?
}

/// What running one trace gave.
struct TraceOutcome {
    /// Input samples read.
    var samples: Int
    /// The mode actually run (9D falls back to 6D without a magnetometer).
    var mode: FusionMode
    /// The score against ground truth, when asked for and the trace has it.
    var score: AttitudeErrorMetric.Result?
}

/// Everything one estimate row goes to: the writer, the score, the report, and the count of a
/// filter's magnetometer rejections (for the calibration warning).
final class EstimateSink {
    let writer: EstimateWriter
    @exclusivity(unchecked) var metric: AttitudeErrorMetric.Accumulator?
    /// The 6D score of a 9D run, for a recording whose magnetometer turns out to have no value.
    @exclusivity(unchecked) var sixDMetric: AttitudeErrorMetric.Accumulator?
    @exclusivity(unchecked) var report: HTMLReport?
    @exclusivity(unchecked) var sawTruth = false
    /// How a filter used the magnetometer, from every input sample's own estimate (for the
    /// rejection warning; `replay` and `reconstruct` fill it, the latter with ``offline`` set: its
    /// robust weights under one half count as rejections).
    @exclusivity(unchecked) var magnetometerUse = MagnetometerUse()
    @exclusivity(unchecked) var offline = false
    /// Estimates whose gyroscope reading sat at the end of its range, and the time of the first.
    @exclusivity(unchecked) var clippedSamples = 0
    @exclusivity(unchecked) var firstClipped = Double.nan
    /// Estimates whose magnetometer reading had an axis at the end of its range (not used), and
    /// the time of the first.
    @exclusivity(unchecked) var magnetometerClippedSamples = 0
    @exclusivity(unchecked) var firstMagnetometerClipped = Double.nan
    /// A failure that leaves the estimates good (a calibration file that could not be written):
    /// the estimates are written, then the run fails with it.
    var failureAfterOutput: Error?

    init(writer: EstimateWriter, mode: FusionMode, score: Bool, report: HTMLReport?) {
        self.writer = writer
        metric = score ? AttitudeErrorMetric.Accumulator(mode: mode) : nil
        sixDMetric = score && mode == .nineD ? AttitudeErrorMetric.Accumulator(mode: .sixD) : nil
        self.report = report
    }

    func add(_ e: MotionEstimate, _ input: SensorSample) throws {
        try add(e, input, accelerometerWeight: nil, magnetometerWeight: nil)
    }

    /// Adds an estimate with the robust weights its sensors got (offline), for the report.
    func add(_ e: MotionEstimate, _ input: SensorSample, accelerometerWeight: Double?, magnetometerWeight: Double?)
        throws
    {
        try writer.write(e)
        if input.truth != nil { sawTruth = true }
        metric?.add(estimate: e.attitude, truth: input.truth, moving: input.moving)
        sixDMetric?.add(estimate: e.attitude, truth: input.truth, moving: input.moving)
        if e.diagnostics.gyroscopeClipped {
            if clippedSamples == 0 { firstClipped = e.t }
            clippedSamples += 1
        }
        if e.diagnostics.magnetometerClipped {
            if magnetometerClippedSamples == 0 { firstMagnetometerClipped = e.t }
            magnetometerClippedSamples += 1
        }
        report?.add(
            e, truth: input.truth, accelerometerWeight: accelerometerWeight, magnetometerWeight: magnetometerWeight)
    }

    var score: AttitudeErrorMetric.Result? { sawTruth ? metric?.result : nil }

    /// A 9D run over a recording whose magnetometer never had a value is 6D in effect: its score
    /// is the 6D one from here on.
    func fallBackToSixD() {
        metric = sixDMetric
        sixDMetric = nil
    }
}

/// A reader that notes which sensors had a value in the samples read through it: the sensors a
/// run had, whatever rows it wrote (resampled rows carry no sensor values).
final class SensorTallyReader: SampleReader {
    let base: SampleReader
    /// The sensors with a value in some sample read so far.
    @exclusivity(unchecked) private(set) var seen = Set<SensorKind>()

    init(_ base: SampleReader) { self.base = base }

    var description: TraceDescription { base.description }
    var faults: ValueFaults { base.faults }
    var warnings: [TraceWarning] { base.warnings }
    var progress: Double? { base.progress }

    func next() throws -> SensorSample? {
        // The sample is looked at in place: unwrapping it and wrapping it again copied it twice.
        let s = try base.next()
        if seen.count < 3 {
            if case .some = s?.gyroscope { seen.insert(.gyroscope) }
            if case .some = s?.accelerometer { seen.insert(.accelerometer) }
            if case .some = s?.magnetometer { seen.insert(.magnetometer) }
        }
        return s
    }
}

/// How one trace is run into a sink: `replay` filters it, `reconstruct` reconstructs it. Returns
/// the number of input samples read.
typealias TraceJob = (
    _ reader: SampleReader, _ run: RunConfiguration, _ settings: TraceRunSettings, _ sink: EstimateSink,
    _ console: ConsoleOutput
) throws -> Int

/// `replay` and `reconstruct`: one trace (or a folder of traces) through a job into estimate files,
/// with the same options, safety checks, warnings and score.
enum TraceRunCommand {
    /// The command: input and run options, `--output`, `--score`, and `extra` options.
    static func command(
        name: String, summary: String, filters: Bool, extra: [Option<TraceRunSettings>],
        uncertainty: @escaping (RunConfiguration) -> Bool,
        job: @escaping TraceJob
    ) -> Command<TraceRunSettings> {
        Command(
            name: name, summary: summary,
            arguments: [
                (
                    "TRACE",
                    "a trace file, a recording folder or .zip, a folder of traces (run in parallel), or - for standard input"
                )
            ],
            options: InputSettings.options.map { $0.lifted(\.input) }
                + RunSettings.options(filters: filters).map { $0.lifted(\.run) }
                + [
                    Option(
                        "output", value: "FILE|-",
                        "where to write the estimates: a file (written atomically), - for standard output (default), or a folder when TRACE is a folder"
                    ) { s, v in s.output = v },
                    .flag(
                        "score", "print the error against the trace's ground truth (BROAD metric) on stderr", \.score),
                ] + extra,
            sections: [("OUTPUT COLUMNS", EstimateWriter.columnHelp)],
            initial: TraceRunSettings(),
            finish: { s, positionals in
                try expectArguments(positionals, ["TRACE"])
                s.trace = positionals[0]
                s.command = name
                // reconstruct (no --filter) also tunes its batch estimator.
                try s.run.build(batchParameters: !filters)
                if s.run.batchTuned, let method = s.method, method != .batch {
                    throw CommandLineError.usage(
                        "--param \(BatchAttitudeEstimator.Parameters.namePrefix)…: the batch estimator's parameters need the batch method, not --method \(method.rawValue)"
                    )
                }
            },
            run: { s, console in try execute(s, console, name: name, uncertainty: uncertainty, job: job) })
    }

    static func execute(
        _ s: TraceRunSettings, _ console: ConsoleOutput, name: String,
        uncertainty: @escaping (RunConfiguration) -> Bool, job: @escaping TraceJob
    ) throws {
        for w in s.run.modelWarnings { console.err("warning: \(w)\n") }
        let (inputs, notes) = try TraceInputs.select(s.trace, format: s.input.format)
        for note in notes { console.err(note + "\n") }
        let extra = [s.run.calibrationPath].compactMap { $0 }
        let what = name == "replay" ? s.run.configuration.filter.kind.rawValue : name
        if TraceInputs.isFolder(inputs, source: s.trace) {
            guard s.report == nil, s.calibrateMagnetometer == nil else {
                throw CommandLineError.usage("--report and --calibrate-mag work on one trace, not a folder")
            }
            try FolderRunner.process(
                inputs, from: s.trace, outputFolder: s.output, input: s.input, extraInputs: extra, console
            ) {
                reader, target, console in
                try runOne(
                    reader, s, target, report: nil, liveInput: false, score: true, uncertainty: uncertainty, console,
                    job)
            }
            return
        }
        let protected = InputFiles([s.trace] + extra)
        let target = try OutputTarget.resolve(s.output ?? "-", protecting: protected)
        let report = try s.report.map {
            try OutputTarget.resolve($0, protecting: protected, option: "--report")
        }
        var settings = s
        settings.calibrationTarget = try s.calibrateMagnetometer.map {
            try OutputTarget.resolve($0, protecting: protected, option: "--calibrate-mag")
        }
        let outputs = [target, report, settings.calibrationTarget].compactMap { $0 }
        let files = outputs.compactMap(\.canonicalPath)
        let identities = outputs.compactMap(\.identity)
        guard Set(files).count == files.count, Set(identities).count == identities.count,
            outputs.filter({ $0.kind == .standardOutput }).count <= 1
        else {
            throw CommandLineError.usage(
                "--output, --report and --calibrate-mag must name different files (at most one of them '-', standard output; --output is '-' when not given)"
            )
        }
        let reader = try s.input.open(
            s.trace, command: s.command, arguments: settings.output.map { ["--output", $0] } ?? [])
        let outcome = try runOne(
            reader, settings, target, report: report, liveInput: s.trace == "-" || TraceFormat.isStream(s.trace),
            score: s.score,
            uncertainty: uncertainty, console, job)
        if s.score { console.err(scoreLine(s.trace, what, outcome)) }
        if let r = s.report { console.err("report written to \(r)\n") }
    }

    /// One trace into one output (and report): warnings first (units, columns), the rows, then the
    /// value-fault summary.
    static func runOne(
        _ reader: SampleReader, _ s: TraceRunSettings, _ target: OutputTarget, report reportTarget: OutputTarget?,
        liveInput: Bool, score: Bool, uncertainty: (RunConfiguration) -> Bool, _ console: ConsoleOutput, _ job: TraceJob
    ) throws -> TraceOutcome {
        // A calibration file with a gyroscope bias corrects the offset the unit check names.
        let calibratedGyroscope = s.run.configuration.calibration?.gyroscopeBias != nil
        let printed = printWarnings(reader, from: 0, console, calibratedGyroscope: calibratedGyroscope)
        var run = try adjusted(s.run.configuration, for: reader, s, console)
        // Live input runs strictly sample by sample: each estimate goes out as its row arrives.
        if liveInput { run.magnetometerLookAhead = 0 }
        let output = try target.open()
        let writer = EstimateWriter(output: output, configuration: run, uncertainty: uncertainty(run))
        // Rows go out as they are computed to a terminal, and to a pipe when the input is live
        // (a logger piped in, or a FIFO); otherwise in large blocks.
        writer.flushEachRow = output.isTerminal || (liveInput && output.isInteractive)
        let report = reportTarget.map { _ in
            HTMLReport(title: "MotionFusion: \(PathText.name(reader.description.source))")
        }
        let sink = EstimateSink(writer: writer, mode: run.mode, score: score || reportTarget != nil, report: report)
        let samples: Int
        var mode = run.mode
        do {
            // The sensors are judged on the samples read, not on the rows written: a resampled
            // row carries none.
            let tally = SensorTallyReader(reader)
            samples = try job(tally, run, s, sink, console)
            if samples > 0 && !tally.seen.contains(.accelerometer) {
                console.err(
                    "\(reader.description.source): warning: the accelerometer has no value in the whole recording: the tilt cannot be observed, so the attitude written means nothing (replay marks every row used = 0)\n"
                )
            }
            if samples > 0 && reader.description.sensors.contains(.gyroscope) && !tally.seen.contains(.gyroscope) {
                switch run.filter.withoutGyroscope {
                case .followsOtherSensors:
                    console.err(
                        "\(reader.description.source): warning: the gyroscope has no value in the whole recording: \(withoutGyroscope(run.mode))\n"
                    )
                case .unused: break
                }
            }
            if mode == .nineD && samples > 0 && !tally.seen.contains(.magnetometer) {
                // Magnetometer columns without a single value: as if there were none.
                if run.filter.needsMagnetometer {
                    throw CommandLineError.input(
                        "\(reader.description.source): the magnetometer has no value in the whole recording: the e-compass needs one (try the tilt filter)"
                    )
                }
                console.err(
                    "\(reader.description.source): warning: \(s.run.mode == .nineD ? "--mode 9d but " : "")the magnetometer has no value in the whole recording: the run is 6D in effect (heading not referenced to north) and is scored and reported as 6D\n"
                )
                mode = .sixD
                sink.fallBackToSixD()
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw CommandLineError.from(error)
        }
        _ = printWarnings(reader, from: printed, console, calibratedGyroscope: calibratedGyroscope)
        for w in reader.faults.warnings { console.err("\(w)\n") }
        if sink.clippedSamples > 0 {
            console.err(
                "\(reader.description.source): warning: the gyroscope read the end of its range on \(sink.clippedSamples) samples (from t = \(sink.firstClipped) s): the device turned faster than it measures, so those turns are short by an unknown angle and the attitude after them is off until the accelerometer and magnetometer pull it back. Set the sensor to a wider range if it has one\n"
            )
        }
        if sink.magnetometerClippedSamples > 0 {
            console.err(
                "\(reader.description.source): warning: the magnetometer read the end of its range on \(sink.magnetometerClippedSamples) samples (from t = \(sink.firstMagnetometerClipped) s): an axis sat at its extreme value while the device turned, so those readings were not used and the heading there is the gyroscope's. Keep magnets away from the sensor, or set it to a wider range if it has one\n"
            )
        }
        if run.mode == .nineD, sink.magnetometerUse.mostlyRejected {
            console.err(
                sink.magnetometerUse.warning(
                    source: reader.description.source, calibrated: run.calibration?.magnetometer != nil,
                    arbitraryUnits: reader.description.magnetometerArbitrary, offline: sink.offline) + "\n")
        }
        if let reportTarget, let report = sink.report {
            let html = report.html(metrics: sink.score, mode: mode, notes: ["\(s.trace), default parameters."])
            try CommandLineError.rethrowing {
                let file = try reportTarget.open()
                try file.write(html)
                try file.commit()
            }
        }
        if let failure = sink.failureAfterOutput { throw CommandLineError.from(failure) }
        return TraceOutcome(samples: samples, mode: mode, score: sink.score)
    }

    /// The `--score` line.
    static func scoreLine(_ path: String, _ what: String, _ outcome: TraceOutcome) -> String {
        guard let r = outcome.score else { return "\(path): no ground truth to score against\n" }
        return String(
            printf: "%@ %@ %@: total %.3f°, heading %.3f°, inclination %.3f° over %d samples\n", path, what,
            outcome.mode.rawValue, r.totalRMSE, r.headingRMSE, r.inclinationRMSE, r.samplesUsed)
    }

    /// Prints a reader's warnings not printed yet.
    static func printWarnings(
        _ reader: SampleReader, from start: Int, _ console: ConsoleOutput, calibratedGyroscope: Bool
    ) -> Int {
        let all = reader.warnings
        for w in all.dropFirst(start) where !(calibratedGyroscope && UnitCheck.isGyroscopeOffsetWarning(w.message)) {
            console.err("\(w)\n")
        }
        return all.count
    }

    /// What a run without a gyroscope does instead (a filter that follows the other sensors).
    static func withoutGyroscope(_ mode: FusionMode) -> String {
        "with no turn rate to integrate, the attitude follows the accelerometer's tilt\(mode == .nineD ? " and the magnetometer's heading" : "") alone, and every linear acceleration throws it"
    }

    /// The configuration adjusted to what the trace has (see ``RunConfiguration/adjusted(toSensors:)``),
    /// with a warning when the run has no gyroscope, or 9D was asked for and the run falls back to
    /// 6D; when the trace is one file of a recording of several whose folder has the missing
    /// sensors, the last warning (or the error) says so, with the command that reads the folder.
    static func adjusted(
        _ configuration: RunConfiguration, for reader: SampleReader, _ s: TraceRunSettings, _ console: ConsoleOutput
    ) throws -> RunConfiguration {
        let d = reader.description
        let missing = [SensorKind.gyroscope, .magnetometer].filter { !d.sensors.contains($0) }
        // The folder is looked at only when a sensor is missing from a file of one sensor (a file
        // of two or more is a whole trace, even beside files of one).
        let besides = missing.isEmpty || d.sensors.count > 1 ? nil : TraceFormat.recording(besides: d.source)
        let inFolder = besides.map { r in missing.filter(r.sensors.contains) } ?? []
        var folderHint = ""
        if let r = besides, !inFolder.isEmpty {
            let example = (["motionfusion", s.command, r.folder] + (s.output.map { ["--output", $0] } ?? []))
                .map(\.shellWord).joined(separator: " ")
            folderHint =
                "; its folder is a recording (\(r.format.rawValue)) that has the \(inFolder.map(\.rawValue).joined(separator: " and ")) too: pass the folder to read its files together, e.g. \(example)"
        }
        let c: RunConfiguration
        let fellBack: Bool
        do {
            (c, fellBack) = try configuration.adjusted(toSensors: d.sensors)
        } catch {
            throw CommandLineError.input("\(d.source): \(error)\(folderHint)")
        }
        var warnings = [String]()
        // Falling back from the default 9D is said when the folder has the magnetometer.
        if fellBack && (s.run.mode == .nineD || inFolder.contains(.magnetometer)) {
            warnings.append(
                "\(s.run.mode == .nineD ? "--mode 9d but " : "")the recording has no magnetometer: running 6D (heading not referenced to north)"
            )
        }
        if !d.sensors.contains(.gyroscope) && c.filter.withoutGyroscope == .followsOtherSensors {
            warnings.append("the recording has no gyroscope: \(withoutGyroscope(c.mode))")
        }
        for (i, w) in warnings.enumerated() {
            console.err("\(d.source): warning: \(w)\(i == warnings.count - 1 ? folderHint : "")\n")
        }
        return c
    }
}
