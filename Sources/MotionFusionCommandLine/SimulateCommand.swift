import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings of `simulate`.
struct SimulateSettings {
    var scenario: MotionSimulator.Scenario?
    var duration: Double?
    var rate: Double?
    var seed: Double?
    var errors: ErrorGrade?
    var output: String?
    var turnRate: Double?
    var axis: MotionSimulator.Axis?
    var rest: Double?
    var speed: Double?
    var radius: Double?

    /// The simulator's sensor grades.
    enum ErrorGrade: String, CaseIterable {
        case consumer, calibrated, ideal
        var model: SensorErrorModel {
            switch self {
            case .consumer: return SensorErrorModel()
            case .calibrated: return .calibrated
            case .ideal: return .ideal
            }
        }
    }
}

/// `motionfusion simulate`: a trace with exact ground truth, streamed in constant memory.
enum SimulateCommand {
    static let command = Command<SimulateSettings>(
        name: "simulate", summary: "Generate a trace with exact ground truth", arguments: [],
        options: [
            .choice("scenario", "motion script (required)", \.scenario),
            .number("duration", value: "SECONDS", "length (required)", \.duration, in: 0.001...1e6),
            .number("rate", value: "HZ", "sample rate (required)", \.rate, in: 1...100_000),
            .number(
                "seed", value: "N", "random seed; the same seed gives the same bytes (default 1)", \.seed, in: 0...9e15),
            .choice("errors", "sensor grade: consumer (default), calibrated, or ideal", \.errors),
            .number(
                "turn-rate", value: "DEG/S", "steady-turn: rotation rate (default 10)", \.turnRate,
                in: -2000...2000),
            .choice("axis", "steady-turn: body axis of the rotation (default z)", \.axis),
            .number(
                "rest", value: "SECONDS", "steady-turn and vehicle: rest before the motion starts (default 2)",
                \.rest, in: 0...1e6),
            .number(
                "speed", value: "M/S", "vehicle: speed on its circle, turning left (default 10)", \.speed, in: 0...100),
            .number("radius", value: "M", "vehicle: radius of its circle (default 50)", \.radius, in: 1...1e6),
            Option(
                "output", value: "FILE|-",
                "where to write the trace (written atomically), or - for standard output; required"
            ) {
                s, v in s.output = v
            },
        ],
        initial: SimulateSettings(),
        finish: { s, positionals in
            try expectArguments(positionals, [])
            guard s.scenario != nil else {
                throw CommandLineError.usage(
                    "missing --scenario (one of \(MotionSimulator.Scenario.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            guard s.duration != nil else { throw CommandLineError.usage("missing --duration SECONDS") }
            guard s.rate != nil else { throw CommandLineError.usage("missing --rate HZ") }
            guard s.output != nil else { throw CommandLineError.usage("missing --output FILE") }
            let used: [(String, Bool, [MotionSimulator.Scenario])] = [
                ("turn-rate", s.turnRate != nil, [.steadyTurn]), ("axis", s.axis != nil, [.steadyTurn]),
                ("rest", s.rest != nil, [.steadyTurn, .vehicle]), ("speed", s.speed != nil, [.vehicle]),
                ("radius", s.radius != nil, [.vehicle]),
            ]
            for (name, given, scenarios) in used where given && !scenarios.contains(s.scenario!) {
                throw CommandLineError.usage(
                    "--\(name) applies to --scenario \(scenarios.map(\.rawValue).joined(separator: " or ")) only")
            }
        },
        run: run)

    static func run(_ s: SimulateSettings, _ output: ConsoleOutput) throws {
        var settings = MotionSimulator.Settings()
        settings.scenario = s.scenario!
        settings.duration = s.duration!
        settings.rate = s.rate!
        if let seed = s.seed {
            guard seed == seed.rounded() else {
                throw CommandLineError.usage("--seed takes a whole number, got \(seed)")
            }
            settings.seed = UInt64(seed)
        }
        settings.errors = (s.errors ?? .consumer).model
        if let v = s.turnRate { settings.turn.rateDegrees = v }
        if let v = s.axis { settings.turn.axis = v }
        if let v = s.rest {
            settings.turn.rest = v
            settings.vehicle.rest = v
        }
        if let v = s.speed { settings.vehicle.speed = v }
        if let v = s.radius { settings.vehicle.radius = v }
        let simulator = MotionSimulator(settings: settings)
        let target = try CommandLineError.rethrowing {
            try OutputTarget.resolve(s.output!, protecting: InputFiles())
        }
        // The trace is streamed, so memory stays constant; a file must fit on its disk.
        let bytes = Double(simulator.sampleCount) * Double(TraceWriter.typicalRowBytes)
        if case .file(let path, _) = target.kind {
            var fs = statvfs()
            let folder = PathText.folder(path)
            if statvfs(folder.isEmpty ? "." : folder, &fs) == 0 {
                let free = Double(fs.f_bavail) * Double(fs.f_frsize)
                guard bytes < 0.9 * free else {
                    throw CommandLineError.usage(
                        "\(simulator.sampleCount) samples need about \(sizeText(bytes)), but \(folder.isEmpty ? "." : folder) has \(sizeText(free)) free; shorten --duration or lower --rate"
                    )
                }
            }
        }
        try CommandLineError.rethrowing {
            let file = try target.open()
            let writer = TraceWriter(output: file, columns: .all)
            do {
                try simulator.generate { try writer.write($0) }
                try writer.finish()
            } catch {
                file.abandon()
                throw error
            }
        }
        if target.kind != .standardOutput {
            output.err(
                "wrote \(simulator.sampleCount) samples (\(settings.scenario.rawValue), \(fmt(settings.duration)) s at \(fmt(settings.rate)) Hz, seed \(settings.seed)) to \(s.output!)\n"
            )
        }
    }

    static func sizeText(_ bytes: Double) -> String {
        bytes >= 1e12
            ? String(printf: "%.1f TB", bytes / 1e12)
            : bytes >= 1e9 ? String(printf: "%.1f GB", bytes / 1e9) : String(printf: "%.0f MB", bytes / 1e6)
    }
}
