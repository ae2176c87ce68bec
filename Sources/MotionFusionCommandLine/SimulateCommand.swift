import MotionFusion

/// `motionfusion simulate --scenario NAME --duration SECONDS --rate HZ [--seed N] [--errors MODEL] --output FILE`.
enum SimulateCommand {
    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(
            arguments, valueOptions: ["scenario", "duration", "rate", "seed", "output", "errors"], flagOptions: [])
        guard args.positionals.isEmpty else {
            throw CommandLineError.usage("unexpected argument '\(args.positionals[0])'")
        }
        var s = MotionSimulator.Settings()
        guard let scenario = try args.choice("scenario", MotionSimulator.Scenario.allCases.map(\.rawValue)) else {
            throw CommandLineError.usage(
                "missing --scenario (one of \(MotionSimulator.Scenario.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        s.scenario = MotionSimulator.Scenario(rawValue: scenario)!
        guard let duration = try args.double("duration"), duration > 0, duration <= 1e6 else {
            throw CommandLineError.usage("--duration must be a number of seconds in (0, 1e6]")
        }
        guard let rate = try args.double("rate"), rate >= 1, rate <= 100_000 else {
            throw CommandLineError.usage("--rate must be a number of Hz in [1, 100000]")
        }
        s.duration = duration
        s.rate = rate
        if let seed = try args.int("seed") { s.seed = UInt64(truncatingIfNeeded: seed) }
        switch try args.choice("errors", ["consumer", "calibrated", "ideal"]) ?? "consumer" {
        case "ideal": s.errors = .ideal
        case "calibrated": s.errors = .calibrated
        default: s.errors = SensorErrorModel()
        }
        guard let path = args.values["output"] else { throw CommandLineError.usage("missing --output FILE") }
        let trace = MotionSimulator(settings: s).run()
        if path == "-" {
            output.out(TraceWriter.csv(trace))
        } else {
            try TraceWriter.write(trace, to: path)
            output.err(
                "wrote \(trace.samples.count) samples (\(scenario), \(duration) s at \(rate) Hz, seed \(s.seed)) to \(path)\n"
            )
        }
    }
}
