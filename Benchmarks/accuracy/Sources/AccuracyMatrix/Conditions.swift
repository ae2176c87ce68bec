import Foundation
import MotionFusion

/// One recording scored in a condition.
struct Trial {
    var name: String
    /// Motion group (BROAD: rotation, translation, combined, disturbed).
    var group: String
    var trace: Trace
    /// The true gyroscope bias, rad/s, when known exactly (simulated scenarios).
    var gyroscopeBias: Vector3? = nil
    /// Whether the recording has a magnetometer (else 6D only).
    var hasMagnetometer: Bool { trace.samples.contains { $0.magnetometer != nil } }
}

/// A condition of the matrix: a set of trials, and, for variants of the BROAD dev trials, the
/// transformation applied to each.
struct Condition {
    var name: String
    var description: String
    /// Whether the trials are variants of the BROAD trials (compared trial by trial with the original).
    var broadVariant: Bool
    var make: () throws -> [Trial]
}

enum Datasets {
    static var sharedRoot: String {
        ProcessInfo.processInfo.environment["MOTIONFUSION_SHARED_DATA"] ?? "/work/shared/data"
    }

    static func broadGroup(_ name: String) -> String {
        if name.contains("disturbed_") && !name.contains("undisturbed") { return "disturbed" }
        if name.contains("rotation") { return "rotation" }
        if name.contains("translation") { return "translation" }
        return "combined"
    }

    nonisolated(unsafe) static var broadCache: [Trial]?

    /// The BROAD dev trials, read once.
    static func broad() throws -> [Trial] {
        if let c = broadCache { return c }
        let dir = sharedRoot + "/broad"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
        var out = [Trial?](repeating: nil, count: files.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: files.count) { i in
            let name = String(files[i].dropLast(4))
            let trace = try! TraceFormat.load(path: dir + "/" + files[i])
            lock.lock()
            out[i] = Trial(name: name, group: broadGroup(name), trace: trace)
            lock.unlock()
        }
        broadCache = out.map { $0! }
        return broadCache!
    }

    static func euroc() throws -> [Trial] {
        let dir = sharedRoot + "/formats/euroc"
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        return try names.map { Trial(name: $0, group: "euroc", trace: try TraceFormat.load(path: dir + "/" + $0)) }
    }

    /// `MotionSimulator` traces: the mixed scenario, 120 s at 100 Hz, three seeds.
    static func simulated(_ errors: SensorErrorModel, scenario: MotionSimulator.Scenario = .mixed) -> [Trial] {
        (1...3).map { seed in
            var s = MotionSimulator.Settings()
            s.scenario = scenario
            s.duration = 120
            s.rate = 100
            s.errors = errors
            s.seed = UInt64(seed)
            return Trial(
                name: "\(scenario.rawValue)-seed\(seed)", group: "sim", trace: MotionSimulator(settings: s).run())
        }
    }

    /// An Xsens-class IMU: low noise, small bias, calibrated, no dropouts, exact timestamps.
    static var xsensClass: SensorErrorModel {
        var e = SensorErrorModel.calibrated
        e.gyroscopeNoiseDensity = 0.0002
        e.gyroscopeBias = 0.2.radians
        e.gyroscopeBiasRandomWalk = 0.00002
        e.accelerometerNoiseDensity = 0.0008
        e.accelerometerBias = 0.02
        e.scaleError = 0.002
        e.misalignment = 0.001
        e.magnetometerNoise = 0.1
        e.timestampJitter = 0
        return e
    }

    static func variants(_ f: @escaping (Trial) -> Trace) throws -> [Trial] {
        let base = try broad()
        var out = [Trial?](repeating: nil, count: base.count)
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: base.count) { i in
            var t = base[i]
            t.trace = f(base[i])
            lock.lock()
            out[i] = t
            lock.unlock()
        }
        return out.map { $0! }
    }

    static func seed(_ name: String) -> UInt64 { UInt64(name.prefix(2)) ?? 1 }

    /// Irregular timestamps: steps of 3–9 ms (166 Hz on average), nothing lost.
    static let jitter: (Trial) -> Trace = { t in
        SignalSource(t.trace).irregular(
            nominal: 0.006, spread: 0.5, gapInterval: .infinity, gapRange: 0.02...0.2, lost: true, seed: seed(t.name))
    }

    /// Steps of 3–9 ms and a lost stretch of 0.02–0.2 s every 20 s on average.
    static let lostSamples: (Trial) -> Trace = { t in
        SignalSource(t.trace).irregular(
            nominal: 0.006, spread: 0.5, gapInterval: 20, gapRange: 0.02...0.2, lost: true, seed: seed(t.name))
    }

    static let conditions: [Condition] = [
        Condition(name: "broad", description: "BROAD dev trials as recorded (285.7 Hz, µT)", broadVariant: true) {
            try broad()
        },
        Condition(name: "broad-200Hz", description: "resampled to 200 Hz", broadVariant: true) {
            try variants { SignalSource($0.trace).resampled(rate: 200) }
        },
        Condition(name: "broad-100Hz", description: "resampled to 100 Hz", broadVariant: true) {
            try variants { SignalSource($0.trace).resampled(rate: 100) }
        },
        Condition(name: "broad-50Hz", description: "resampled to 50 Hz", broadVariant: true) {
            try variants { SignalSource($0.trace).resampled(rate: 50) }
        },
        Condition(
            name: "broad-jitter", description: "irregular timestamps: steps of 3–9 ms (166 Hz on average)",
            broadVariant: true
        ) { try variants(jitter) },
        Condition(
            name: "broad-lost-samples",
            description: "steps of 3–9 ms and a lost stretch of 0.02–0.2 s every 20 s on average", broadVariant: true
        ) { try variants(lostSamples) },
        Condition(
            name: "broad-mag-unit", description: "magnetometer in units of its median strength (|m| ≈ 1)",
            broadVariant: true
        ) {
            try variants { Transform.unitMagnetometer($0.trace) }
        },
        Condition(
            name: "broad-mag-normalised", description: "every magnetometer sample scaled to unit norm",
            broadVariant: true
        ) {
            try variants { Transform.normalisedMagnetometer($0.trace) }
        },
        Condition(name: "broad-mag-gauss", description: "magnetometer in gauss", broadVariant: true) {
            try variants { Transform.scaleMagnetometer($0.trace, by: 0.01) }
        },
        Condition(name: "broad-bias-1", description: "constant gyroscope bias 1 °/s added", broadVariant: true) {
            try variants { Transform.addGyroscopeBias($0.trace, degreesPerSecond: 1, seed: seed($0.name)) }
        },
        Condition(name: "broad-bias-3", description: "constant gyroscope bias 3 °/s added", broadVariant: true) {
            try variants { Transform.addGyroscopeBias($0.trace, degreesPerSecond: 3, seed: seed($0.name)) }
        },
        Condition(name: "broad-bias-5", description: "constant gyroscope bias 5 °/s added", broadVariant: true) {
            try variants { Transform.addGyroscopeBias($0.trace, degreesPerSecond: 5, seed: seed($0.name)) }
        },
        Condition(name: "broad-late-mag", description: "no magnetometer for the first 3 s", broadVariant: true) {
            try variants { Transform.lateMagnetometer($0.trace, seconds: 3) }
        },
        Condition(
            name: "broad-pendulum-like", description: "lost samples as above, |m| ≈ 1, 0.5 °/s bias",
            broadVariant: true
        ) {
            try variants {
                Transform.addGyroscopeBias(
                    Transform.unitMagnetometer(lostSamples($0)), degreesPerSecond: 0.5, seed: seed($0.name) + 7)
            }
        },
        Condition(
            name: "euroc", description: "EuRoC MAV sequences (200 Hz, no magnetometer, large z bias)",
            broadVariant: false
        ) {
            try euroc()
        },
        Condition(name: "sim-ideal", description: "simulator, mixed motion, ideal sensors", broadVariant: false) {
            simulated(.ideal)
        },
        Condition(
            name: "sim-calibrated", description: "simulator, mixed motion, calibrated consumer IMU", broadVariant: false
        ) {
            simulated(.calibrated)
        },
        Condition(
            name: "sim-consumer",
            description: "simulator, mixed motion, uncalibrated consumer IMU (hard/soft iron, dropouts)",
            broadVariant: false
        ) {
            simulated(SensorErrorModel())
        },
        Condition(
            name: "sim-xsens", description: "simulator, mixed motion, Xsens-class IMU (stick-like)", broadVariant: false
        ) {
            simulated(xsensClass)
        },
        Condition(
            name: "pendulum",
            description: "simulated 3-segment pendulum, 166 Hz irregular with lost samples, |m| ≈ 1 near steel",
            broadVariant: false
        ) {
            Pendulum.trials().map { Trial(name: $0.0, group: "pendulum", trace: $0.1) }
        },
    ]
}

/// Plain gyroscope integration from the true initial attitude: each sample's rate over its step,
/// except that across lost samples (a step over twice the median) the rate is interpolated
/// linearly from the previous sample; steps over `maximumGap` are skipped. The reference any aided
/// filter should beat. `bias` (rad/s) is removed from every reading.
func gyroscopeIntegration(_ trace: Trace, maximumGap: Double = 1, bias: Vector3 = .zero) -> [Quaternion?] {
    var q: Quaternion?
    var last = Double.nan
    var lastRate: Vector3?
    let steps = zip(trace.samples.dropFirst(), trace.samples).map { $0.t - $1.t }.sorted()
    let nominal = steps.isEmpty ? 0 : steps[steps.count / 2]
    var out = [Quaternion?]()
    out.reserveCapacity(trace.samples.count)
    for s in trace.samples {
        if q == nil, let t = s.truth { q = t }
        let dt = s.t - last
        if var qq = q, let g = s.gyroscope.map({ $0 - bias }), dt > 0, dt <= maximumGap {
            var turn = g * dt
            if dt > 2 * nominal, let p = lastRate { turn = g * nominal + (p + g) * (0.5 * (dt - nominal)) }
            qq = (qq * Quaternion(rotationVector: turn)).normalized
            q = qq
        }
        lastRate = s.gyroscope.map { $0 - bias }
        last = s.t
        out.append(q)
    }
    return out
}
