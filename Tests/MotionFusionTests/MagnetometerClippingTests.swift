import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// A magnetometer axis at the end of its range (``MagnetometerClipping``): its readings are not
/// given to the filters or to `reconstruct`, so the heading holds; an axis that honestly keeps its
/// value (along a turntable's axis, at rest, a held reading) is never taken for clipped.
final class MagnetometerClippingTests: XCTestCase {
    /// The trace with each magnetometer reading's x axis held within `low`…`high`.
    static func clamped(_ trace: Trace, x high: Double, _ low: Double) -> Trace {
        var t = trace
        for i in t.samples.indices {
            t.samples[i].magnetometer = t.samples[i].magnetometer.map {
                Vector3(min(high, max(low, $0.x)), $0.y, $0.z)
            }
        }
        return t
    }

    /// The trace with every magnetometer reading rounded to `step` (a coarse sensor: values repeat).
    static func quantised(_ trace: Trace, step: Double) -> Trace {
        var t = trace
        for i in t.samples.indices {
            t.samples[i].magnetometer = t.samples[i].magnetometer.map {
                Vector3(($0.x / step).rounded() * step, ($0.y / step).rounded() * step, ($0.z / step).rounded() * step)
            }
        }
        return t
    }

    /// Free rotation with the x axis clipped unevenly, at 60 % of its peak above and 40 % below
    /// (ends of a range need not match): only readings at the clips are flagged, nearly all of
    /// them, and the heading over the last 30 s stays within 3° RMS online and offline (the
    /// clipped readings are off by up to 60 % of the field).
    func testAClippedAxisIsDroppedAndTheHeadingHolds() throws {
        let trace = ScenarioSuiteTests.simulated(.mixed, duration: 60)
        let peak = trace.samples.compactMap { $0.magnetometer.map { abs($0.x) } }.max()!
        let (high, low) = (0.6 * peak, -0.4 * peak)
        let clipped = Self.clamped(trace, x: high, low)
        let estimates = RunConfiguration(.ekf, mode: .nineD).estimates(clipped.samples)
        var atRange = 0
        var flagged = 0
        var flaggedLow = 0
        for (e, s) in zip(estimates, clipped.samples) {
            guard let m = s.magnetometer else { continue }
            if m.x == high || m.x == low { atRange += 1 }
            if e.diagnostics.magnetometerClipped {
                flagged += 1
                if m.x == low { flaggedLow += 1 }
                XCTAssert(m.x == high || m.x == low, "a reading within the range flagged at t = \(s.t)")
            }
        }
        XCTAssertGreaterThan(flaggedLow, 50, "the lower end")
        XCTAssertGreaterThan(atRange, 200, "the clip must bite")
        XCTAssertGreaterThan(Double(flagged), 0.8 * Double(atRange), "\(flagged) of \(atRange) clipped readings found")
        let online = GyroscopeAidedCalibrationTests.rmsHeadingError(estimates.map(\.attitude), clipped, from: 30)
        XCTAssertLessThan(online, 3, "replay 9d: RMS heading error (°) over the last 30 s")
        XCTAssertLessThan(
            try GyroscopeAidedCalibrationTests.reconstructedHeadingError(clipped, from: 30), 3,
            "reconstruct 9d: RMS heading error (°) over the last 30 s")
    }

    /// The detector alone, at 100 Hz with gyroscope noise of 0.003 rad/s: a field (20, 0, −45) µT
    /// read in 0.5 µT steps.
    struct Bench {
        var clipping = MagnetometerClipping()
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        mutating func noise(_ size: Double) -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return size * (Double(state >> 11) / Double(1 << 53) * 2 - 1)
        }
        /// Feeds the field turned by `q` through a 0.5 µT sensor that reads at most `limit` per
        /// axis, with the true rate `rate` plus noise and a `bias`; true when flagged.
        mutating func feed(_ q: Quaternion, rate: Vector3, bias: Vector3 = .zero, limit: Double = .infinity) -> Bool {
            let f = q.inverseRotate(Vector3(20, 0, -45))
            func read(_ v: Double) -> Double { (min(limit, max(-limit, v)) / 0.5).rounded() * 0.5 }
            let g = rate + bias + Vector3(noise(0.003), noise(0.003), noise(0.003))
            return clipping.observe(Vector3(read(f.x), read(f.y), read(f.z)), rate: g, dt: 0.01)
        }
    }

    /// A still device whose gyroscope has a bias of 0.6 °/s and noise, and a hand-held one turning
    /// about the vertical at 5 °/s with a 3 Hz tremor of ±6° about x, for 60 s: the vertical axis
    /// keeps its value for long runs (still, or along the turn), and nothing is flagged. A sensor of
    /// ±30 µT range (the field's −45 µT along z beyond it) turning across that axis is.
    func testNoiseBiasAndTremorAreNoSaturation() {
        var still = Bench()
        for _ in 0..<6000 { XCTAssertFalse(still.feed(.identity, rate: .zero, bias: Vector3(0.01, -0.01, 0.005))) }
        var tremor = Bench()
        var flagged = 0
        for k in 0..<6000 {
            let t = Double(k) * 0.01
            let wobble = 6.0.radians * sin(2 * .pi * 3 * t)
            let q = Quaternion(axis: .unitZ, angle: 5.0.radians * t) * Quaternion(axis: .unitX, angle: wobble)
            let rate =
                Vector3(6.0.radians * 2 * .pi * 3 * cos(2 * .pi * 3 * t), 0, 0)
                + q.inverseRotate(Vector3(0, 0, 5.0.radians))
            if tremor.feed(q, rate: rate) { flagged += 1 }
        }
        XCTAssertEqual(flagged, 0, "tremor about a slow turn")
        var magnet = Bench()
        flagged = 0
        for k in 0..<300 {
            let t = Double(k) * 0.01
            let q = Quaternion(axis: Vector3(1, 1, 0).normalized!, angle: 1.0 * t)
            if magnet.feed(q, rate: Vector3(1, 1, 0).normalized! * 1.0, bias: .zero, limit: 30) { flagged += 1 }
        }
        XCTAssertGreaterThan(flagged, 100, "a field beyond the range")
    }

    /// A coarse magnetometer (0.5 µT steps) whose axes repeat their values honestly: along the axis
    /// of a steady turn about z, at rest for 51 s, and with each reading held for four rows while
    /// the device turns freely. Nothing is flagged.
    func testHonestlySteadyAxesAreNotClipped() {
        let held: Trace = {
            var t = Self.quantised(ScenarioSuiteTests.simulated(.mixed, duration: 30), step: 0.5)
            var last: Vector3?
            for i in t.samples.indices {
                if i % 4 == 0 { last = t.samples[i].magnetometer } else { t.samples[i].magnetometer = last }
            }
            return t
        }()
        for (name, trace) in [
            ("steady turn about z", Self.quantised(ScenarioSuiteTests.steadyTurn(rate: 10, axis: .z), step: 0.5)),
            ("long rest", Self.quantised(ScenarioSuiteTests.simulated(.longRest, duration: 60), step: 0.5)),
            ("held readings", held),
        ] {
            let flagged = RunConfiguration(.ekf, mode: .nineD).estimates(trace.samples).filter {
                $0.diagnostics.magnetometerClipped
            }
            XCTAssertEqual(flagged.count, 0, "\(name): \(flagged.first.map { "first at t = \($0.t)" } ?? "")")
        }
    }
}
