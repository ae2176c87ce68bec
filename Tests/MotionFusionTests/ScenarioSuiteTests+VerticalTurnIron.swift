import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Turns about the vertical calibrate a hard iron across it by the readings' part across the axis.
extension ScenarioSuiteTests {
    /// A car on a 50 m circle at 10 m/s (11.5 °/s) after a 2 s rest, with a 5 µT hard iron across
    /// the vertical and 20 µT along the field's vertical part: north is up to 13° off, but the
    /// readings' whole strength, the vertical part added, scatters by under 5 %, which alone once
    /// decided that the readings needed no calibration: the hard iron was never fitted, and over
    /// the last minute the heading was 4.8° (EKF) and 6.2° (complementary) RMS off. Judged by the
    /// readings' part across the turn axis, both calibrating filters fit it (low level) within
    /// 30 s, once the turns have gone about 230° round the circle, and over the last minute the
    /// heading is within 2.5° RMS.
    func testAHardIronAcrossTheVerticalIsFittedFromTheCircle() {
        var errors = Self.errors()
        errors.fixedHardIron = Vector3(5, 0, -20)
        let trace = Self.vehicle(speed: 10, radius: 50, rate: 50, seed: 23, errors: errors)
        let norms = trace.samples.compactMap { $0.magnetometer?.norm }
        let mean = norms.reduce(0, +) / Double(norms.count)
        let spread = (norms.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(norms.count)).squareRoot()
        XCTAssertLessThan(spread / mean, 0.05, "the raw strength's relative scatter")
        for kind in Self.biasKinds {
            let estimates = RunConfiguration(kind, mode: .nineD).estimates(trace.samples)
            let fitted = zip(estimates, trace.samples).first { $0.0.diagnostics.magnetometerAccuracy >= .low }?.1.t
            XCTAssertLessThan(fitted ?? .infinity, 30, "\(kind): time (s) when the hard iron was fitted")
            XCTAssertLessThan(
                Self.rmsHeadingError(estimates, trace, from: 60, to: 120), 2.5,
                "\(kind): RMS heading error (°), 60–120 s")
        }
    }
}
