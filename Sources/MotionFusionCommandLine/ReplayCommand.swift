import Foundation
import MotionFusion

/// `motionfusion replay TRACE [--filter NAME] [--mode 6d|9d] [--frame enu|ned|nwu] [--rate HZ]
/// [--declination DEG] [--output FILE|-] [--score]`.
enum ReplayCommand {
    static let usage =
        "motionfusion replay TRACE [--filter ekf|complementary|mahony|madgwick|ecompass|tilt] [--mode 6d|9d] [--frame enu|ned|nwu] [--rate HZ] [--declination DEG | --lat DEG --lon DEG [--height-km KM] [--date YYYY-MM-DD]] [--calibration CAL.json] [--format NAME] [--output FILE|-] [--score]"

    struct Options {
        var filter = FilterKind.default
        var mode = FusionMode.nineD
        var writer = EstimateWriter.Options()
        var rate: Double?
        var score = false
        var format: TraceFormat?
        /// The field expected where the trace was recorded (World Magnetic Model, from --lat/--lon).
        var expectedField: ExpectedField?
        /// Sensor calibration applied before filtering (--calibration FILE).
        var calibration: SensorCalibration?
    }

    static func parse(_ args: ParsedArguments) throws -> Options {
        var o = Options()
        if let f = try args.choice("filter", FilterKind.allCases.map(\.rawValue)) {
            o.filter = FilterKind(rawValue: f)!
        }
        if let m = try args.choice("mode", ["6d", "9d"]) { o.mode = FusionMode(rawValue: m)! }
        if !args.values.keys.contains("mode") { o.mode = o.filter.modes.last! }
        guard o.filter.modes.contains(o.mode) else {
            throw CommandLineError.usage(
                "filter \(o.filter.rawValue) supports only --mode \(o.filter.modes.map(\.rawValue).joined(separator: "|"))"
            )
        }
        if let fr = try args.choice("frame", EarthFrame.allCases.map(\.rawValue)) {
            o.writer.frame = EarthFrame(rawValue: fr)!
        }
        if let d = try args.double("declination") {
            guard abs(d) <= 180 else { throw CommandLineError.usage("--declination must be in [-180, 180] degrees") }
            o.writer.declinationDegrees = d
        }
        if let r = try args.double("rate") {
            guard r > 0, r <= 100_000 else { throw CommandLineError.usage("--rate must be in (0, 100000] Hz") }
            o.rate = r
        }
        o.score = args.flags.contains("score")
        if let path = args.values["calibration"] {
            do {
                o.calibration = try SensorCalibration(contentsOf: path)
            } catch {
                throw CommandLineError.input("\(error)")
            }
        }
        if let location = try LocationOptions.parse(args) {
            let r = location.evaluate()
            if o.writer.declinationDegrees == nil { o.writer.declinationDegrees = r.field.declination }
            o.expectedField = ExpectedField(r.field)
        }
        o.format = try args.choice("format", TraceFormat.allCases.map(\.rawValue)).flatMap(TraceFormat.init(rawValue:))
        return o
    }

    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(
            arguments,
            valueOptions: Set(["filter", "mode", "frame", "rate", "output", "declination", "format", "calibration"])
                .union(
                    LocationOptions.names),
            flagOptions: ["score"])
        let path = try args.single("TRACE")
        let options = try parse(args)
        let outputPath = args.values["output"] ?? "-"
        let inputs = try TraceInputs.expand(path, format: options.format)
        if inputs.count > 1 || inputs[0] != path {
            try runFolder(inputs, options: options, outputFolder: args.values["output"], output)
            return
        }
        let trace: Trace
        do {
            trace = try TraceFormat.load(path: path, format: options.format)
        } catch let e as TraceError {
            throw CommandLineError.input(e.description)
        }
        for w in trace.warnings { output.err("\(w)\n") }
        let scores = try replay(trace, options: options, outputPath: outputPath)
        if options.score {
            if let s = scores {
                output.err(
                    String(
                        format: "%@ %@ %@: total %.3f°, heading %.3f°, inclination %.3f° over %d samples\n", path,
                        options.filter.rawValue, options.mode.rawValue, s.totalRMSE, s.headingRMSE, s.inclinationRMSE,
                        s.samplesUsed))
            } else {
                output.err("\(path): no ground truth to score against\n")
            }
        }
    }

    /// Replays every trace of a folder in parallel into `outputFolder/<name>.csv`, then prints the
    /// summary table (scores for traces with ground truth).
    static func runFolder(_ inputs: [String], options: Options, outputFolder: String?, _ output: ConsoleOutput) throws {
        var scored = options
        scored.score = true
        try FolderRunner.processFolder(inputs, format: options.format, outputFolder: outputFolder, output) {
            try replay($0, options: scored, outputPath: $1)
        }
    }

    /// Runs the trace through the filter, writes the output, and scores it when the trace has truth.
    static func replay(_ input: Trace, options: Options, outputPath: String) throws -> AttitudeErrorMetric.Result? {
        var run = RunConfiguration(options.filter, mode: options.mode)
        if let f = options.expectedField { run.filter.setExpectedField(f) }
        run.calibration = options.calibration
        run.outputRate = options.rate
        var writer = try EstimateWriter(path: outputPath, options: options.writer)
        var metric = AttitudeErrorMetric.Accumulator(mode: options.mode)
        var sawTruth = false
        var i = 0
        do {
            try run.run(next: {
                guard i < input.samples.count else { return nil }
                i += 1
                return input.samples[i - 1]
            }) { e, s in
                try writer.write(e, used: e.used)
                if s.truth != nil { sawTruth = true }
                metric.add(estimate: e.attitude, truth: s.truth, moving: s.moving)
            }
            try writer.finish()
        } catch {
            writer.abandon()
            throw CommandLineError.input("\(error)")
        }
        guard options.score, sawTruth else { return nil }
        return metric.result
    }
}
