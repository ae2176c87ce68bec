import Foundation
import MotionFusion

/// `motionfusion reconstruct TRACE [--mode 6d|9d] [--output FILE|-] [--report FILE.html] [--score]`.
enum ReconstructCommand {
    static let usage =
        "motionfusion reconstruct TRACE [--mode 6d|9d] [--frame enu|ned|nwu] [--declination DEG] [--format NAME] [--output FILE|-] [--report FILE.html] [--score]"

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
        let trace = try load(path, options.format)
        for w in trace.warnings { output.err("\(w)\n") }
        let score = try reconstruct(trace, options: options, outputPath: args.values["output"] ?? "-")
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
    }

    static func load(_ path: String, _ format: TraceFormat?) throws -> Trace {
        do {
            return try TraceFormat.load(path: path, format: format)
        } catch let e as TraceError {
            throw CommandLineError.input(e.description)
        }
    }

    /// Reconstructs, writes the estimate file, and scores against ground truth when present.
    static func reconstruct(_ trace: Trace, options: ReplayCommand.Options, outputPath: String) throws
        -> AttitudeErrorMetric.Result?
    {
        var p = AttitudeSmoother.Parameters()
        p.mode = options.mode
        let smoothed = AttitudeSmoother(parameters: p).reconstruct(trace)
        var writer = try EstimateWriter(path: outputPath, options: options.writer)
        do {
            for (k, s) in smoothed.enumerated() {
                var d = s.diagnostics
                d.attitudeUncertainty = s.attitudeUncertainty
                d.headingUncertainty = s.headingUncertainty
                let g = s.attitude.inverseRotate(Vector3(0, 0, -9.81))
                let e = MotionEstimate(
                    t: s.t, attitude: s.attitude, gravity: g,
                    userAcceleration: (trace.samples[k].accelerometer ?? .zero) + g,
                    rotationRate: trace.samples[k].gyroscope.map { $0 - s.gyroscopeBias },
                    gyroscopeBias: s.gyroscopeBias,
                    magneticField: trace.samples[k].magnetometer, diagnostics: d)
                try writer.write(e, used: !d.initialising)
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw CommandLineError.input("\(error)")
        }
        guard trace.hasGroundTruth else { return nil }
        return AttitudeErrorMetric.evaluate(estimates: smoothed.map(\.attitude), trace: trace, mode: options.mode)
    }
}
