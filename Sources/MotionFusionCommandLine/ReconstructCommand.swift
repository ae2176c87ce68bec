import Foundation
import MotionFusion

/// `motionfusion reconstruct TRACE [--mode 6d|9d] [--output FILE|-] [--report FILE.html] [--score]`.
enum ReconstructCommand {
    static let usage =
        "motionfusion reconstruct TRACE [--mode 6d|9d] [--frame enu|ned|nwu] [--declination DEG | --lat DEG --lon DEG [--height-km KM] [--date YYYY-MM-DD]] [--calibration CAL.json] [--format NAME] [--output FILE|-] [--report FILE.html] [--score]"

    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(
            arguments, valueOptions: ["mode", "frame", "output", "declination", "format", "report"],
            flagOptions: ["score"])
        let path = try args.single("TRACE")
        var options = try ReplayCommand.parse(args)
        if !args.values.keys.contains("mode") { options.mode = .nineD }
        let inputs = try TraceInputs.expand(path, format: options.format)
        if inputs.count > 1 || inputs[0] != path {
            try FolderRunner.processFolder(inputs, format: options.format, outputFolder: args.values["output"], output)
            {
                try reconstruct($0, options: options, outputPath: $1)
            }
            return
        }
        let reportPath = args.values["report"]
        let score: AttitudeErrorMetric.Result?
        let format = options.format ?? (try? TraceFormat.detect(path: path)) ?? .native
        if format == .native {
            // Stream: constant memory whatever the trace length.
            let reader: NativeTraceReader
            do {
                reader = try NativeTraceReader(path: path)
            } catch let e as TraceError {
                throw CommandLineError.input(e.description)
            }
            do {
                let calibration = options.calibration
                score = try reconstruct(
                    next: { try reader.next().map { calibration?.apply($0) ?? $0 } }, title: path, options: options,
                    outputPath: args.values["output"] ?? "-",
                    reportPath: reportPath)
            } catch let e as TraceError {
                throw CommandLineError.input(e.description)
            }
            for w in reader.warnings { output.err("\(w)\n") }
        } else {
            var trace = try load(path, format)
            for w in trace.warnings { output.err("\(w)\n") }
            if let c = options.calibration { trace = c.apply(trace) }
            score = try reconstruct(
                trace, options: options, outputPath: args.values["output"] ?? "-", reportPath: reportPath)
        }
        if options.score || args.flags.contains("score") {
            if let s = score {
                output.err(
                    String(
                        format: "%@ reconstruct %@: total %.3f°, heading %.3f°, inclination %.3f° over %d samples\n",
                        path,
                        options.mode.rawValue, s.totalRMSE, s.headingRMSE, s.inclinationRMSE, s.samplesUsed))
            } else {
                output.err("\(path): no ground truth to score against\n")
            }
        }
        if let reportPath { output.err("report written to \(reportPath)\n") }
    }

    static func load(_ path: String, _ format: TraceFormat?) throws -> Trace {
        do {
            return try TraceFormat.load(path: path, format: format)
        } catch let e as TraceError {
            throw CommandLineError.input(e.description)
        }
    }

    /// Reconstructs an in-memory trace (see the streaming variant).
    static func reconstruct(
        _ trace: Trace, options: ReplayCommand.Options, outputPath: String, reportPath: String? = nil
    )
        throws -> AttitudeErrorMetric.Result?
    {
        var i = 0
        return try reconstruct(
            next: {
                guard i < trace.samples.count else { return nil }
                i += 1
                return trace.samples[i - 1]
            }, title: trace.source, options: options, outputPath: outputPath, reportPath: reportPath)
    }

    /// Reconstructs the samples `next` yields, writes the estimate file (and the HTML report), and
    /// scores against ground truth when present. Memory is bounded by the smoother's window.
    static func reconstruct(
        next: () throws -> SensorSample?, title: String, options: ReplayCommand.Options, outputPath: String,
        reportPath: String?
    ) throws -> AttitudeErrorMetric.Result? {
        var p = AttitudeSmoother.Parameters()
        p.filter.mode = options.mode
        if let f = options.expectedField {
            p.filter.expectedFieldNorm = f.strength
            p.filter.expectedDip = f.dip
        }
        var writer = try EstimateWriter(path: outputPath, options: options.writer)
        var metric = AttitudeErrorMetric.Accumulator(mode: options.mode)
        var sawTruth = false
        var report = reportPath.map { _ in
            HTMLReport(title: "MotionFusion reconstruction: \((title as NSString).lastPathComponent)")
        }
        do {
            try AttitudeSmoother(parameters: p).reconstruct(next: next) { s in
                let e = s.estimate
                try writer.write(e, used: !e.diagnostics.initialising)
                if s.input.truth != nil { sawTruth = true }
                metric.add(estimate: s.attitude, truth: s.input.truth, moving: s.input.moving)
                report?.add(e, truth: s.input.truth)
            }
            try writer.finish()
        } catch {
            writer.abandon()
            if let e = error as? TraceError { throw e }
            throw CommandLineError.input("\(error)")
        }
        let score = sawTruth ? metric.result : nil
        if let reportPath, let report {
            let html = report.html(
                metrics: score, mode: options.mode,
                notes: ["Offline reconstruction (forward–backward smoother) with default parameters."])
            do {
                try AtomicFile.write(Data(html.utf8), to: reportPath)
            } catch {
                throw CommandLineError.input("\(reportPath): cannot write report: \(error.localizedDescription)")
            }
        }
        return score
    }
}
