import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// The README's library example, compiled and run (paths relative to the package root).
final class ReadmeExampleTests: XCTestCase {
    func testLibraryExampleRuns() throws {
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(TestData.packageRoot))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }

        // Any supported format, streamed; the filter, its tuning and the outputs in one configuration.
        let reader = try TraceFormat.open(path: "data/sim_mixed_100hz.csv")
        var run = RunConfiguration(.ekf, mode: .nineD)
        run.declinationDegrees = 3.2  // true north in written outputs
        var rows = 0
        try run.run(next: reader.next) { estimate, sample in
            _ = (estimate.eulerAngles, estimate.magneticHeading, estimate.userAcceleration, sample.truth)
            rows += 1
        }
        XCTAssertEqual(rows, 6001)

        // Per sample from live data: any sensor may be nil (different rates).
        var ekf = KalmanFilter()
        ekf.update(
            gyroscope: Vector3(0, 0, 0.1), accelerometer: Vector3(0, 0, 9.81), magnetometer: Vector3(0, 20, -40),
            dt: 0.01)
        let heading = ekf.attitude.headingDegrees()  // degrees clockwise from magnetic north
        XCTAssertEqual(heading, 0, accuracy: 1e-9, "a level device with the field to the north")
        let saved = try ekf.savedState()  // exact snapshot; restoreState(_:) resumes
        var copy = KalmanFilter()
        try copy.restoreState(saved)
        XCTAssertEqual(copy.attitude, ekf.attitude)

        // Core-Motion-style replay: update interval, push or pull, reference frames.
        let trace = try TraceFormat.load(path: "data/sim_mixed_100hz.csv")
        let manager = MotionReplayManager(trace: trace)
        manager.deviceMotionUpdateInterval = 1.0 / 50
        var updates = 0
        manager.startDeviceMotionUpdates(using: .trueNorthZVertical(declinationDegrees: 3.2)) { motion in
            _ = motion.attitude
            updates += 1
        }
        let span = trace.samples.last!.t - trace.samples[0].t
        XCTAssertEqual(updates, Int((span * 50).rounded(.down)) + 1, "one update every 20 ms")

        // Offline: the best attitude of the whole recording, from past and future samples, with its
        // one-sigma uncertainty (the batch estimator; `method: .smoother` for the two-pass smoother).
        let recording = try TraceFormat.open(path: "data/sim_mixed_100hz.csv")
        var offline = [Quaternion]()
        try RunConfiguration(.ekf, mode: .nineD).reconstruct(next: recording.next) { sample in
            _ = (sample.estimate.attitude, sample.estimate.diagnostics.attitudeUncertainty)
            offline.append(sample.estimate.attitude)
        }
        XCTAssertEqual(offline.count, 6001)
        let score = AttitudeErrorMetric.evaluate(estimates: offline, trace: trace, mode: .nineD)!
        XCTAssertLessThan(score.totalRMSE, 1.0, "offline on the bundled trace")
    }
}
