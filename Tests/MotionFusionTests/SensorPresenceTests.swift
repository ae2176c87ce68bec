import Foundation
import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

/// What a run says about the sensors a recording has: judged on every sample read, whatever rows
/// are written, and said when a sensor is missing.
final class SensorPresenceTests: XCTestCase {
    /// A simulated 9D trace with ground truth, at 100 Hz.
    func simulated() throws -> Trace {
        var s = MotionSimulator.Settings()
        s.scenario = .slowRotation
        s.duration = 20
        s.rate = 100
        s.seed = 5
        return try MotionSimulator(settings: s).run()
    }

    /// The trace with every column, missing values written as nan.
    func write(_ trace: Trace, _ name: String) throws -> String {
        let path = TestData.temporaryDirectory() + "/" + name
        let columns = TraceWriter.Columns.all
        let text = ([columns.header] + trace.samples.map(columns.row)).joined(separator: "\n") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The first row without a magnetometer (sensors at mixed rates start that way), or without an
    /// accelerometer: a resampled run is still 9D, scored as 9D, with the same score line mode as
    /// the run without `--rate`, and no warning that a sensor never had a value.
    func testResampledRunJudgesSensorsOnEverySample() throws {
        var trace = try simulated()
        trace.samples[0].magnetometer = nil
        trace.samples[0].accelerometer = nil
        let path = try write(trace, "first-row.csv")
        let dir = TestData.temporaryDirectory()
        for rate in [[], ["--rate", "50"]] {
            let r = CommandRunner.run(["replay", path, "--score", "--output", dir + "/e.csv"] + rate)
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssert(r.err.contains(" ekf 9d: total "), "\(rate): \(r.err)")
            XCTAssertFalse(r.err.contains("no value in the whole recording"), "\(rate): \(r.err)")
            XCTAssertFalse(r.err.contains("6D in effect"), "\(rate): \(r.err)")
        }
        // Magnetometer columns without a single value: the 6D fallback is still said, resampled too.
        for i in trace.samples.indices { trace.samples[i].magnetometer = nil }
        let none = try write(trace, "no-mag.csv")
        let r = CommandRunner.run(["replay", none, "--score", "--rate", "50", "--output", dir + "/e.csv"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("the magnetometer has no value in the whole recording"), r.err)
        XCTAssert(r.err.contains(" ekf 6d: total "), r.err)
    }

    /// Real recordings whose first merged row lacks a sensor (x-IMU3's starts with a magnetometer
    /// reading alone, phyphox's with an accelerometer reading alone): most rows are used, and no
    /// sensor is said to have no value.
    func testResampledRecordingsGiveNoFalseWarnings() throws {
        let dir = TestData.temporaryDirectory()
        for name in ["x-imu3", "phyphox"] {
            let folder = try TestData.shared("formats/" + name)
            let r = CommandRunner.run(["replay", folder, "--rate", "50", "--output", dir + "/" + name + ".csv"])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertFalse(r.err.contains("no value in the whole recording"), "\(name): \(r.err)")
            let rows = try String(contentsOfFile: dir + "/" + name + ".csv", encoding: .utf8).split(separator: "\n")
            let used = rows.dropFirst().filter { $0.split(separator: ",")[10] == "1" }.count
            XCTAssertGreaterThan(used, (rows.count - 1) * 9 / 10, name)
        }
    }
}
