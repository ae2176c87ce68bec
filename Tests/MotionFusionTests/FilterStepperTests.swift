import Foundation
import MotionFusion
import XCTest

@testable import MotionFusionEstimation

/// ``FilterStepper`` (the C ABI's per-sample filter) gives, sample for sample and bit for bit, what
/// a run of the same filter gives, and resumes from its saved state.
final class FilterStepperTests: XCTestCase {
    /// A simulated trace with a lost gyroscope value, a non-finite one, a repeated and a backward
    /// timestamp, and a gap that re-initialises.
    func trace() -> [SensorSample] {
        var s = MotionSimulator.Settings()
        s.duration = 12
        s.rate = 100
        s.seed = 7
        var samples = MotionSimulator(settings: s).run().samples
        samples[100].gyroscope = nil
        samples[200].gyroscope = Vector3(.nan, 0, 0)
        samples[300].t = samples[299].t
        samples[400].t -= 0.5
        for i in 800..<samples.count { samples[i].t += 3 }
        return samples
    }

    func bits(_ q: Quaternion) -> [UInt64] { [q.w, q.x, q.y, q.z].map(\.bitPattern) }
    func bits(_ v: Vector3) -> [UInt64] { [v.x, v.y, v.z].map(\.bitPattern) }

    func testEveryFilterStepsAsARun() {
        let samples = trace()
        for kind in FilterKind.allCases {
            for mode in kind.modes {
                var run = RunConfiguration(kind, mode: mode)
                run.runner.maximumGap = 0.5
                // Live: no look-ahead over the opening stretch.
                run.magnetometerLookAhead = 0
                let estimates = run.estimates(samples)
                let stepper = FilterStepper(run.filter, settings: run.runner)
                XCTAssertEqual(stepper.mode, mode)
                var differing = 0
                XCTAssertTrue(stepper.lastTime.isNaN, "no sample yet")
                for (s, e) in zip(samples, estimates) {
                    stepper.step(s)
                    // The filter's own diagnostics: the run adds the runner's flags.
                    var d = e.diagnostics
                    (d.timeFault, d.gyroscopeClipped, d.magnetometerClipped) = (false, false, false)
                    let same =
                        bits(stepper.attitude) == bits(e.attitude)
                        && bits(stepper.gyroscopeBias) == bits(e.gyroscopeBias) && stepper.diagnostics == d
                    if !same { differing += 1 }
                }
                XCTAssertEqual(estimates.count, samples.count)
                XCTAssertEqual(differing, 0, "\(kind) \(mode): samples whose estimate differs from the run's")
                XCTAssertEqual(stepper.lastTime, samples.last!.t)
            }
        }
    }

    func testASavedStepperResumesAsIfNeverStopped() throws {
        let samples = trace()
        // The 6D EKF is saved at 1 s, while its low-pass delay model is still in use.
        let cases: [(FilterKind, FusionMode, Int)] = [
            (.ekf, .nineD, 500), (.ekf, .sixD, 100), (.complementary, .sixD, 500), (.mahony, .nineD, 500),
        ]
        for (kind, mode, at) in cases {
            let setup = FilterSetup(kind, mode: mode)
            let whole = FilterStepper(setup)
            let first = FilterStepper(setup)
            for s in samples.prefix(at) {
                whole.step(s)
                first.step(s)
            }
            let saved = try first.savedState()
            if mode == .sixD && kind == .ekf {
                XCTAssertTrue(String(decoding: saved, as: UTF8.self).contains("accelerationDelay"))
            }
            let resumed = FilterStepper(setup)
            try resumed.restoreState(saved)
            var differing = 0
            for s in samples.dropFirst(at) {
                whole.step(s)
                resumed.step(s)
                let same =
                    bits(whole.attitude) == bits(resumed.attitude)
                    && bits(whole.gyroscopeBias) == bits(resumed.gyroscopeBias)
                if !same { differing += 1 }
            }
            XCTAssertEqual(differing, 0, "\(kind) \(mode): samples after the resume that differ")
            XCTAssertEqual(try whole.savedState(), try resumed.savedState(), "\(kind) \(mode): the states at the end")
        }
    }
}
