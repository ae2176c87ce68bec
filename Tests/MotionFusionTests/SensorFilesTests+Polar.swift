import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionIO

/// Polar Sensor Logger's per-sensor files, and what a folder's errors propose.
extension SensorFilesTests {
    /// Polar Sensor Logger (`…_ACC.txt`, `…_GYRO.txt`, `…_MAGN.txt`, `Phone timestamp;sensor
    /// timestamp [ns];X [mg];…`) reads with no options, timed by the sensor's clock (the phone's
    /// stamps whole batches), as a folder and one file alone (the folder stopped with "no time
    /// column" and proposed --columns, which folders refuse).
    func testPolarSensorLoggerReadsByTheSensorClock() throws {
        let truth = try reference
        let folder = fixtures + "/polar"
        let trace = try TraceFormat.load(path: folder)
        XCTAssertEqual(trace.format, "sensor-files")
        XCTAssertEqual(trace.samples.count, truth.samples.count)
        // ns since 2000-01-01: the epoch's instants less 946 684 800 s.
        let start = epoch - 946_684_800
        for (got, want) in zip(trace.samples, truth.samples) {
            XCTAssertEqual(got.t, start + want.t, accuracy: 1e-6)
            XCTAssertLessThan((try XCTUnwrap(got.accelerometer) - want.accelerometer!).norm, 1e-5)
            XCTAssertLessThan((try XCTUnwrap(got.gyroscope) - want.gyroscope!).norm, 1e-5)
        }
        // 25 Hz: the sensor's steps, not the phone's batches (5 rows alike).
        let steps = zip(trace.samples, trace.samples.dropFirst()).map { $1.t - $0.t }
        XCTAssertEqual(steps.min() ?? 0, 0.04, accuracy: 1e-6)
        XCTAssertEqual(steps.max() ?? 0, 0.04, accuracy: 1e-6)
        // The magnetometer in gauss at 5 Hz.
        XCTAssertEqual(
            trace.samples.indices.filter { trace.samples[$0].magnetometer != nil },
            Array(stride(from: 0, to: 75, by: 5)))
        XCTAssertLessThan((trace.samples[10].magnetometer! - truth.samples[10].magnetometer!).norm, 0.01)
        XCTAssertFalse(trace.warnings.contains { !$0.isNote }, "\(trace.warnings)")
        // One file alone reads the same clock.
        let name = "Polar_Sense_B36B5B2A_20231114_221320_GYRO.txt"
        let alone = try TraceFormat.load(path: folder + "/" + name)
        XCTAssertEqual(alone.samples.count, truth.samples.count)
        XCTAssertEqual(alone.samples[1].t - alone.samples[0].t, 0.04, accuracy: 1e-6)
        XCTAssertEqual(CommandRunner.run(["info", folder]).status, 0)
        // The magnetometer's file alone: `X [G]` is its gauss there too, not an accelerometer in g.
        let magnetometer = try TraceFormat.load(path: folder + "/Polar_Sense_B36B5B2A_20231114_221320_MAGN.txt")
        XCTAssertNil(magnetometer.samples.first { $0.accelerometer != nil })
        XCTAssertEqual(magnetometer.samples.count, 15)
        XCTAssertLessThan((magnetometer.samples[2].magnetometer! - truth.samples[10].magnetometer!).norm, 0.01)
        XCTAssert(
            magnetometer.warnings.contains { $0.message.contains("name says magnetometer") }, "\(magnetometer.warnings)"
        )
        // A lower-case `mg` stays an acceleration whatever the file's name.
        var accel = "t,x [mg],y [mg],z [mg]\n"
        for k in 0..<100 { accel += "\(Double(k) / 50),10,20,990\n" }
        let lower = try TraceFormat.load(path: TestData.writeTemporary(accel, name: "mag.csv"))
        XCTAssertNotNil(lower.samples[0].accelerometer)
        XCTAssertNil(lower.samples[0].magnetometer)
        // Another logger's `sensor_timestamp` without a unit takes the readings' unit (µs here),
        // not ns: the sensor's clock outranks `time` but says nothing of its unit.
        var text = "time,sensor_timestamp,gyr_x,gyr_y,gyr_z\n"
        for k in 0..<200 { text += "\(Double(k) / 100),\(123_456_789 + 10_000 * k),0,0,0.7854\n" }
        let micro = try TraceFormat.load(path: TestData.writeTemporary(text, name: "st.csv"))
        XCTAssertEqual(micro.samples[1].t - micro.samples[0].t, 0.01, accuracy: 1e-9)
    }

    /// A folder whose file has no time column, or two equally sure ones, is refused without
    /// proposing --columns (which folders refuse); --sample-rate, which they take, is proposed.
    func testFolderWithoutAClockProposesNoColumnsOption() throws {
        for (header, named) in [("X [mg],Y [mg],Z [mg]", nil), ("time,timestamp,x,y,z", "'time' and 'timestamp'")] {
            let dir = TestData.temporaryDirectory() + "/noclock"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let zeros = header.split(separator: ",").count - 3
            var text = header + "\n"
            for k in 0..<50 { text += Array(repeating: "\(k)", count: zeros).map { $0 + "," }.joined() + "0,0,1000\n" }
            try text.write(toFile: dir + "/accel.csv", atomically: true, encoding: .utf8)
            let r = CommandRunner.run(["info", dir])
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssert(r.err.contains("no time column"), r.err)
            XCTAssert(r.err.contains("--sample-rate HZ"), r.err)
            XCTAssertFalse(r.err.contains("--columns"), r.err)
            if let named { XCTAssert(r.err.contains(named), r.err) }
            XCTAssertEqual(CommandRunner.run(["info", dir, "--sample-rate", "50"]).status, 0)
        }
    }
}
