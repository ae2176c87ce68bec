import Foundation
import MotionFusion

/// The settings of `reconstruct`.
struct ReconstructSettings {
    var input = InputSettings()
    var run = RunSettings()
    var output: String?
    var report: String?
    var score = false
    var trace = ""
}

/// `motionfusion reconstruct`: the best attitude a whole recording allows, offline.
enum ReconstructCommand {
    static let command = Command<ReconstructSettings>(
        name: "reconstruct",
        summary: "Best offline attitude of a whole recording, using past and future samples",
        arguments: [("TRACE", "a trace file, a recording folder or .zip, a folder of traces, or - for standard input")],
        options: InputSettings.options.map { $0.lifted(\.input) }
            + RunSettings.options(filters: false).map { $0.lifted(\.run) }
            + [
                Option(
                    "output", value: "FILE|-",
                    "where to write the estimates: a file (written atomically), - for standard output (default), or a folder when TRACE is a folder"
                ) { s, v in s.output = v },
                Option("report", value: "FILE.html", "also write a self-contained HTML report with charts") { s, v in
                    s.report = v
                },
                .flag("score", "print the error against the trace's ground truth (BROAD metric) on stderr", \.score),
            ],
        sections: [("OUTPUT COLUMNS", EstimateWriter.columnHelp)],
        initial: ReconstructSettings(),
        finish: { s, positionals in
            try expectArguments(positionals, ["TRACE"])
            s.trace = positionals[0]
            try s.run.build()
        },
        run: run)

    static func run(_ s: ReconstructSettings, _ console: ConsoleOutput) throws {
        for w in s.run.modelWarnings { console.err("warning: \(w)\n") }
        let inputs = try TraceInputs.expand(s.trace, format: s.input.format)
        let extra = [s.run.calibrationPath].compactMap { $0 }
        if inputs.count > 1 || inputs[0] != s.trace {
            guard s.report == nil else { throw CommandLineError.usage("--report works on one trace, not a folder") }
            try FolderRunner.process(
                inputs, from: s.trace, outputFolder: s.output, input: s.input, extraInputs: extra, console
            ) {
                reader, target, console in
                try reconstruct(
                    reader, s.run.configuration, target, report: nil, askedFor9D: s.run.mode == .nineD, console: console
                )
            }
            return
        }
        let protected = InputFiles([s.trace] + extra)
        let target = try OutputTarget.resolve(s.output ?? "-", protecting: protected)
        let report = try s.report.map { try OutputTarget.resolve($0, protecting: protected) }
        if case .file(let a, _) = target.kind, case .file(let b, _)? = report?.kind, a == b {
            throw CommandLineError.usage("--output and --report name the same file")
        }
        let reader = try s.input.open(s.trace)
        let outcome = try reconstruct(
            reader, s.run.configuration, target, report: report, askedFor9D: s.run.mode == .nineD, console: console)
        if s.score { console.err(ReplayCommand.scoreLine(s.trace, "reconstruct", outcome)) }
        if let r = s.report { console.err("report written to \(r)\n") }
    }

    /// Reconstructs one trace into one output (and report). Memory is bounded by the smoother's
    /// window, whatever the trace length.
    static func reconstruct(
        _ reader: SampleReader, _ configuration: RunConfiguration, _ target: OutputTarget,
        report reportTarget: OutputTarget?,
        askedFor9D: Bool, console: ConsoleOutput?
    ) throws -> TraceOutcome {
        let printed = ReplayCommand.printWarnings(reader, from: 0, console)
        let run = try ReplayCommand.adjusted(configuration, for: reader, askedFor9D: askedFor9D, console)
        guard case .ekf(let filter) = run.filter else { throw CommandLineError.usage("reconstruct runs the EKF") }
        var p = AttitudeSmoother.Parameters()
        p.filter = filter
        let output = try target.open()
        let writer = EstimateWriter(output: output, configuration: run, uncertainty: true)
        var metric = AttitudeErrorMetric.Accumulator(mode: run.mode)
        var sawTruth = false
        var samples = 0
        var report = reportTarget.map { _ in
            HTMLReport(
                title: "MotionFusion reconstruction: \(PathText.name(reader.description.source))")
        }
        var resampler = run.outputRate.map { Resampler(rate: $0, maximumGap: run.runner.maximumGap) }
        let calibration = run.calibration
        do {
            try AttitudeSmoother(parameters: p).reconstruct(next: {
                guard let s = try reader.next() else { return nil }
                samples += 1
                return calibration?.apply(s) ?? s
            }) { s in
                func emit(_ e: MotionEstimate, _ input: SensorSample) throws {
                    try writer.write(e)
                    if input.truth != nil { sawTruth = true }
                    metric.add(estimate: e.attitude, truth: input.truth, moving: input.moving)
                    report?.add(e, truth: input.truth)
                }
                if resampler != nil {
                    try resampler!.push(s.estimate, s.input, emit: emit)
                } else {
                    try emit(s.estimate, s.input)
                }
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw CommandLineError.from(error)
        }
        _ = ReplayCommand.printWarnings(reader, from: printed, console)
        if let console { for w in reader.faults.warnings { console.err("\(w)\n") } }
        let score = sawTruth ? metric.result : nil
        if let reportTarget, let report {
            let html = report.html(
                metrics: score, mode: run.mode,
                notes: ["Offline reconstruction (forward–backward smoother) with default parameters."])
            do {
                let file = try reportTarget.open()
                try file.write(html)
                try file.commit()
            } catch {
                throw CommandLineError.from(error)
            }
        }
        return TraceOutcome(samples: samples, mode: run.mode, score: score)
    }
}
