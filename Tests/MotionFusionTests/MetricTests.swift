import MotionFusion
import MotionFusionTestSupport
import XCTest

/// The BROAD metric on analytic cases.
final class MetricTests: XCTestCase {
    func testPureHeadingAndInclinationErrors() {
        var rng = SeededRandom(seed: 41)
        let truth = (0..<100).map { _ in rng.rotation() }
        // A 5° earth-frame heading error on every sample.
        let heading = truth.map { Quaternion(axis: .unitZ, angle: 5.0.radians) * $0 }
        let r = AttitudeErrorMetric.evaluate(estimates: heading, truth: truth, mode: .nineD)!
        XCTAssertEqual(r.totalRMSE, 5, accuracy: 1e-9)
        XCTAssertEqual(r.headingRMSE, 5, accuracy: 1e-9)
        XCTAssertEqual(r.inclinationRMSE, 0, accuracy: 1e-5)
        // In 6D a constant heading offset is removed.
        let r6 = AttitudeErrorMetric.evaluate(estimates: heading, truth: truth, mode: .sixD)!
        XCTAssertEqual(r6.totalRMSE, 0, accuracy: 1e-5)
        XCTAssertEqual(r6.headingOffset, 5, accuracy: 1e-9)
        // A 3° earth-frame tilt error about east.
        let tilt = truth.map { Quaternion(axis: .unitX, angle: 3.0.radians) * $0 }
        let t = AttitudeErrorMetric.evaluate(estimates: tilt, truth: truth, mode: .nineD)!
        XCTAssertEqual(t.inclinationRMSE, 3, accuracy: 1e-9)
        XCTAssertEqual(t.headingRMSE, 0, accuracy: 1e-9)
    }

    func testMovingMaskAndMissingTruth() {
        let truth: [Quaternion?] = [.identity, nil, .identity, .identity]
        let est: [Quaternion?] = [Quaternion(axis: .unitZ, angle: 0.1), .identity, .identity, nil]
        let r = AttitudeErrorMetric.evaluate(
            estimates: est, truth: truth, moving: [true, true, false, true], mode: .nineD)!
        XCTAssertEqual(r.samplesUsed, 1)
        XCTAssertEqual(r.totalRMSE, 0.1.degrees, accuracy: 1e-9)
        XCTAssertNil(AttitudeErrorMetric.evaluate(estimates: [nil], truth: [.identity], mode: .nineD))
    }

    func testRMSEOverMixedErrors() {
        // Errors of 3° and 4° about up: RMSE = √((9 + 16)/2).
        let truth = [Quaternion.identity, .identity]
        let est = [Quaternion(axis: .unitZ, angle: 3.0.radians), Quaternion(axis: .unitZ, angle: -4.0.radians)]
        let r = AttitudeErrorMetric.evaluate(estimates: est, truth: truth, mode: .nineD)!
        XCTAssertEqual(r.totalRMSE, (12.5).squareRoot(), accuracy: 1e-9)
    }
}
