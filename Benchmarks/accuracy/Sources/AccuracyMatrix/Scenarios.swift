import Foundation
import MotionFusion

/// The scenario suite (issue 23): `MotionSimulator` runs with exact truth and an exactly known
/// gyroscope bias, one trial each, 60 s. Selected with `--scenarios` (`scenarios.sh`); not part of
/// the default matrix.
extension Datasets {
    /// Calibrated consumer-grade errors without bias walk, so the drawn bias is the true bias
    /// throughout.
    static var scenarioErrors: SensorErrorModel {
        var e = SensorErrorModel.calibrated
        e.gyroscopeBiasRandomWalk = 0
        return e
    }

    /// One simulated trial, its true gyroscope bias recorded; `transform` changes the trace
    /// afterwards (magnetometer units).
    static func scenario(
        _ name: String, _ scenario: MotionSimulator.Scenario, rate: Double = 100,
        configure: (inout MotionSimulator.Settings) -> Void = { _ in },
        transform: (Trace) -> Trace = { $0 }
    ) -> [Trial] {
        var s = MotionSimulator.Settings()
        s.scenario = scenario
        s.duration = 60
        s.rate = rate
        s.errors = scenarioErrors
        s.seed = 1
        configure(&s)
        let simulator = MotionSimulator(settings: s)
        return [
            Trial(
                name: name, group: "scenario", trace: transform(simulator.run()),
                gyroscopeBias: simulator.drawErrors().gyroscopeBias)
        ]
    }

    static func turn(_ axis: MotionSimulator.Axis, _ rate: Double, rest: Double) -> Condition {
        let name = "turn-\(axis.rawValue)-\(Int(rate))" + (rest == 0 ? "-rest0" : "")
        return Condition(
            name: name,
            description: "steady turn about body \(axis.rawValue) at \(Int(rate)) °/s after \(Int(rest)) s rest",
            broadVariant: false
        ) {
            scenario(name, .steadyTurn) {
                $0.turn.axis = axis
                $0.turn.rateDegrees = rate
                $0.turn.rest = rest
            }
        }
    }

    static func mixed(
        _ name: String, _ description: String, rate: Double = 100,
        configure: @escaping (inout MotionSimulator.Settings) -> Void = { _ in },
        transform: @escaping (Trace) -> Trace = { $0 }
    ) -> Condition {
        Condition(name: name, description: description, broadVariant: false) {
            scenario(name, .mixed, rate: rate, configure: configure, transform: transform)
        }
    }

    static let scenarioConditions: [Condition] =
        MotionSimulator.Axis.allCases.flatMap { axis in [1.0, 10, 100, 500].map { turn(axis, $0, rest: 2) } }
        + [1.0, 10, 100, 500].map { turn(.z, $0, rest: 0) }
        + [5.0, 20, 60, 200].flatMap { [turn(.z, $0, rest: 2), turn(.z, $0, rest: 0)] } + [
            Condition(
                name: "vehicle", description: "level device in a car on a circle, 10 m/s, radius 50 m, after 2 s rest",
                broadVariant: false
            ) { scenario("vehicle", .vehicle) },
            Condition(
                name: "long-rest", description: "3 s rest, 6 s fast rotation, 51 s rest", broadVariant: false
            ) { scenario("long-rest", .longRest) },
            mixed("mixed", "mixed motion, 100 Hz (the reference for the rows below)"),
            mixed("mixed-iron", "hard iron of 50 µT and soft iron ±10 % (uncorrected)") {
                $0.errors.fixedHardIron = Vector3(30, -40, 0)
                $0.errors.softIron = 0.1
            },
            mixed("mixed-bias-10", "gyroscope bias of 10 °/s") {
                $0.errors.fixedGyroscopeBias = Vector3(1, -2, 2) * (10.0.radians / 3)
            },
            mixed("mixed-25Hz", "sampled at 25 Hz", rate: 25),
            mixed("mixed-1000Hz", "sampled at 1000 Hz", rate: 1000),
            mixed("mixed-gauss", "magnetometer in gauss", transform: { Transform.scaleMagnetometer($0, by: 0.01) }),
            mixed(
                "mixed-unit", "magnetometer in units of its median strength (|m| ≈ 1)",
                transform: Transform.unitMagnetometer),
            mixed(
                "mixed-counts", "magnetometer in raw counts of 0.15 µT",
                transform: { trace in
                    var t = trace
                    for i in t.samples.indices {
                        t.samples[i].magnetometer = t.samples[i].magnetometer.map {
                            Vector3(($0.x / 0.15).rounded(), ($0.y / 0.15).rounded(), ($0.z / 0.15).rounded())
                        }
                    }
                    return t
                }),
        ]
}

/// The offline reconstruction (`motionfusion reconstruct`, default method) of a trace, one attitude
/// per sample; empty when it fails.
func reconstruction(_ trace: Trace, mode: FusionMode) -> [Quaternion?] {
    ((try? reconstructedEstimates(trace, mode: mode)) ?? []).map(\.attitude)
}

/// The same reconstruction as estimates (attitude, bias, diagnostics), one per sample. Throws what
/// the reconstruction throws, or when it gives another number of estimates than samples.
func reconstructedEstimates(_ trace: Trace, mode: FusionMode) throws -> [MotionEstimate] {
    var out = [MotionEstimate]()
    var i = 0
    try RunConfiguration(.ekf, mode: mode).reconstruct(next: {
        guard i < trace.samples.count else { return nil }
        i += 1
        return trace.samples[i - 1]
    }) { out.append($0.estimate) }
    guard out.count == trace.samples.count else {
        throw ReconstructionMismatch(samples: trace.samples.count, estimates: out.count)
    }
    return out
}

/// A reconstruction that gave another number of estimates than samples.
struct ReconstructionMismatch: Error, CustomStringConvertible {
    var samples: Int, estimates: Int
    var description: String { "the reconstruction gave \(estimates) estimates for \(samples) samples" }
}
