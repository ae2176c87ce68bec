import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// A magnetometer axis at the end of its range (``MagnetometerClipping``): its readings are not
/// given to the filters or to `reconstruct`, so the heading holds; an axis that honestly keeps its
/// value (along a turntable's axis, at rest, a held reading) is never taken for clipped.
final class MagnetometerClippingTests: XCTestCase {
    /// The trace with each magnetometer reading's x axis held within ±`range`.
    static func clamped(_ trace: Trace, x range: Double) -> Trace {
        var t = trace
        for i in t.samples.indices {
            t.samples[i].magnetometer = t.samples[i].magnetometer.map {
                Vector3(min(range, max(-range, $0.x)), $0.y, $0.z)
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

    /// Free rotation with the x axis clipped at 60 % of its peak: only readings at the clip are
    /// flagged, nearly all of them, and the heading over the last 30 s stays within 3° RMS online
    /// and offline (the clipped readings are off by up to 40 % of the field).
    func testAClippedAxisIsDroppedAndTheHeadingHolds() throws {
        let trace = ScenarioSuiteTests.simulated(.mixed, duration: 60)
        let peak = trace.samples.compactMap { $0.magnetometer.map { abs($0.x) } }.max()!
        let range = 0.6 * peak
        let clipped = Self.clamped(trace, x: range)
        let estimates = RunConfiguration(.ekf, mode: .nineD).estimates(clipped.samples)
        var atRange = 0
        var flagged = 0
        for (e, s) in zip(estimates, clipped.samples) {
            guard let m = s.magnetometer else { continue }
            if abs(m.x) == range { atRange += 1 }
            if e.diagnostics.magnetometerClipped {
                flagged += 1
                XCTAssertEqual(abs(m.x), range, "a reading below the range flagged at t = \(s.t)")
            }
        }
        XCTAssertGreaterThan(atRange, 200, "the clip must bite")
        XCTAssertGreaterThan(Double(flagged), 0.8 * Double(atRange), "\(flagged) of \(atRange) clipped readings found")
        let online = GyroscopeAidedCalibrationTests.rmsHeadingError(estimates.map(\.attitude), clipped, from: 30)
        XCTAssertLessThan(online, 3, "replay 9d: RMS heading error (°) over the last 30 s")
        XCTAssertLessThan(
            try GyroscopeAidedCalibrationTests.reconstructedHeadingError(clipped, from: 30), 3,
            "reconstruct 9d: RMS heading error (°) over the last 30 s")
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
