import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

/// No silent fallback: a 9D replay that could not use its magnetometer says so.
final class MagnetometerWarningTests: XCTestCase {
    func replay(_ trace: Trace, command: String = "replay") throws -> String {
        let path = TestData.temporaryDirectory() + "/iron.csv"
        try TraceWriter.write(trace, to: path)
        var err = ""
        let status = MotionFusionCLI.run(
            [command, path, "--mode", "9d", "--output", TestData.temporaryDirectory() + "/est.csv"],
            output: ConsoleOutput(out: { _ in }, err: { err += $0 }))
        XCTAssertEqual(status, 0, err)
        return err
    }

    /// Hard iron as large as the earth's field, and a device rocked about its rest attitude (too few
    /// directions for a calibration): the magnetometer is rejected for most samples, and the
    /// warning gives the share, the calibration level and both fixes. Without iron, no warning.
    func testRejectedMagnetometerIsAnnounced() throws {
        var s = MotionSimulator.Settings()
        s.scenario = .slowRotation
        s.duration = 60
        s.rate = 50
        s.seed = 23
        var e = ScenarioSuiteTests.errors()
        s.errors = e
        XCTAssertFalse(try replay(MotionSimulator(settings: s).run()).contains("magnetometer was rejected"))
        e.fixedHardIron = Vector3(30, -25, 31)
        s.errors = e
        let err = try replay(MotionSimulator(settings: s).run())
        XCTAssert(err.contains("warning: the magnetometer was rejected on"), err)
        XCTAssert(err.contains(" %)"), err)
        XCTAssert(err.contains("calibration reached uncalibrated"), err)
        XCTAssert(err.contains("--calibrate-mag") && err.contains("--calibration"), err)
        // Reconstruction fits the hard iron itself and only down-weights: no such warning.
        let offline = try replay(MotionSimulator(settings: s).run(), command: "reconstruct")
        XCTAssertFalse(offline.contains("magnetometer was rejected"), offline)
    }
}
