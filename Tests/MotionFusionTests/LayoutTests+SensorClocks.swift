import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionCommandLine
@testable import MotionFusionIO

/// One file whose sensors each have a time column of their own (ImuCollector's `Acc Timestamp`
/// beside `Gyro Timestamp`): each reading is timed by its own sensor's clock.
extension LayoutTests {
    /// `imucollector.csv` holds the reference's gyroscope on every row and its accelerometer at
    /// half the rate, 5 rows (0.2 s) behind, each reading on two rows; no accelerometer on the
    /// first 5 rows, no gyroscope on the last 6. Each reading is timed by its own sensor's clock:
    /// the merged timeline has 75 gyroscope readings at the reference's 75 instants and 38
    /// accelerometer readings at the even instants, each the reference's value at its instant.
    func testImuCollectorTimesEachSensorByItsOwnClock() throws {
        var options = DelimitedReadOptions()
        options.units = "t=ns"
        let r = try read("imucollector.csv", options)
        XCTAssertEqual(r.name(.gyroscopeTime), "Gyro Timestamp")
        XCTAssertEqual(r.name(.accelerometerTime), "Acc Timestamp")
        assertChosen(r, time: nil, gyr: "GyroX", acc: "AccX", mag: nil)
        let boot = 141_746.359_051_845
        let ref = Self.reference.samples
        let gyroscope = r.trace.samples.filter { $0.gyroscope != nil }
        let accelerometer = r.trace.samples.filter { $0.accelerometer != nil }
        XCTAssertEqual(gyroscope.count, 75)
        XCTAssertEqual(accelerometer.count, 38)
        XCTAssertEqual(r.trace.samples.count, 75, "the accelerometer's instants are gyroscope instants")
        for (k, s) in gyroscope.enumerated() {
            XCTAssertEqual(s.t - boot, ref[k].t, accuracy: 1e-6)
            XCTAssertLessThan((s.gyroscope! - ref[k].gyroscope!).norm, 1e-6)
        }
        for (i, s) in accelerometer.enumerated() {
            XCTAssertEqual(s.t - boot, ref[2 * i].t, accuracy: 1e-6)
            XCTAssertLessThan((s.accelerometer! - ref[2 * i].accelerometer!).norm, 1e-6)
        }
        XCTAssertFalse(r.trace.warnings.contains { !$0.isNote }, "\(r.trace.warnings)")
        XCTAssert(r.notes.contains { $0.contains("read once") && $0.contains("38 accelerometer") }, "\(r.notes)")
        XCTAssert(
            r.notes.contains {
                $0.contains("timed by its own clock (gyroscope 'Gyro Timestamp', accelerometer 'Acc Timestamp')")
            }, "\(r.notes)")
        // Standard input is read once, to the same samples.
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.path("imucollector.csv"))))
        let piped = try TraceFormat.open(stream: ByteLineReader(bytes: bytes, name: "stdin"), options: options)
            .readTrace()
        XCTAssertEqual(piped.samples.map(\.t), r.trace.samples.map(\.t))
        XCTAssertEqual(piped.samples.map(\.accelerometer), r.trace.samples.map(\.accelerometer))
        assertReplays("imucollector.csv", ["--units", "t=ns"])
    }

    /// Sensor clocks are named `acc_timestamp` and the like; a unit in the name or its hint
    /// applies to that clock; SensorLog's `gyroTimestamp_sinceReboot(s)` stays the row's time.
    func testSensorClockNames() {
        for (name, group, unit) in [
            ("Acc Timestamp", 1, nil), ("gyro_timestamp", 0, nil), ("Mag Timestamp (ms)", 2, "ms"),
            ("accel_time_ns", 1, "ns"), ("GyroscopeTimestamp", 0, nil),
        ] as [(String, Int, String?)] {
            XCTAssertEqual(ColumnLayout.match(name)?.quantity, .sensorTime(group: group), name)
            XCTAssertEqual(ColumnLayout.match(name)?.unit, unit, name)
        }
        XCTAssertEqual(ColumnLayout.match("gyroTimestamp_sinceReboot(s)")?.quantity, .time)
        XCTAssertNil(ColumnLayout.match("acc_timestamp_offset"))
    }

    /// Clocks on different time bases (the accelerometer's in ns since boot, the gyroscope's in
    /// ms since the epoch) are refused at the row that shows it, naming `--columns t=`, which
    /// then times every reading by the clock it names. Clocks in units the names state read.
    func testSensorClocksOnDifferentTimeBasesAreRefused() throws {
        func file(_ accName: String, _ gyroName: String, acc: (Int) -> Int, gyro: (Int) -> Int) -> String {
            var text = "\(accName),acc_x,acc_y,acc_z,\(gyroName),gyro_x,gyro_y,gyro_z\n"
            for k in 0..<30 { text += "\(acc(k)),0,0,9.81,\(gyro(k)),0.01,0,0\n" }
            return TestData.writeTemporary(text)
        }
        let mixed = file(
            "acc_timestamp", "gyro_timestamp", acc: { 141_746_359_051_845 + $0 * 10_000_000 },
            gyro: { 1_700_000_000_000 + $0 * 10 })
        XCTAssertThrowsError(try TraceFormat.load(path: mixed)) {
            let e = $0 as? TraceError
            XCTAssertEqual(e?.kind, .inconsistentClocks)
            XCTAssertEqual(e?.location.line, 2)
            XCTAssert(e?.message.contains("not on one time base") == true, "\($0)")
            XCTAssert(e?.message.contains("--columns t=") == true, "\($0)")
        }
        let r = CommandRunner.run(["info", mixed])
        XCTAssertEqual(r.status, 1)
        XCTAssert(r.err.contains("\(mixed):2:1: the sensors' clocks are not on one time base"), r.err)
        // One clock for every reading, chosen.
        var one = DelimitedReadOptions()
        one.columns = "t=gyro_timestamp"
        let single = try TraceFormat.load(path: mixed, options: one)
        XCTAssertEqual(single.samples.count, 30)
        XCTAssertEqual(single.samples[1].t - single.samples[0].t, 0.01, accuracy: 1e-6)
        // ms beside ns since the same boot, 60 s ago: refused; with their units named, read.
        let units = file(
            "acc_timestamp", "gyro_timestamp", acc: { 60_000_000_000 + $0 * 10_000_000 }, gyro: { 60_000 + $0 * 10 })
        XCTAssertThrowsError(try TraceFormat.load(path: units)) {
            XCTAssertEqual(($0 as? TraceError)?.kind, .inconsistentClocks)
        }
        let named = file(
            "acc_timestamp_ns", "gyro_timestamp (ms)", acc: { 60_000_000_000 + $0 * 10_000_000 + 4_000_000 },
            gyro: { 60_000 + $0 * 10 })
        let trace = try TraceFormat.load(path: named)
        XCTAssertEqual(trace.samples.count, 60, "30 gyroscope and 30 accelerometer readings 4 ms apart")
        XCTAssertEqual(trace.samples[0].t, 60, accuracy: 1e-9)
        XCTAssertNotNil(trace.samples[0].gyroscope)
        XCTAssertEqual(trace.samples[1].t, 60.004, accuracy: 1e-9)
        XCTAssertNotNil(trace.samples[1].accelerometer)
    }
}

extension LayoutTests {
    /// `--columns` naming a sensor keeps the sensor's own clock, found by its name as without
    /// `--columns` (it once dropped it: "the accelerometer has no time column of its own");
    /// `--columns acc_t=NAME` gives a clock whose name says nothing; a clock given without its
    /// sensor is a usage error.
    func testColumnsNamingASensorKeepsItsClock() throws {
        var text = "acc_timestamp,ax1,ay1,az1,gyro_timestamp,gyro_x,gyro_y,gyro_z\n"
        for k in 0..<30 { text += "\(Double(k) * 0.01 + 0.003),0,0,9.81,\(Double(k) * 0.01),0.01,0,0\n" }
        let path = TestData.writeTemporary(text)
        var options = DelimitedReadOptions()
        options.columns = "acc=ax1"
        let named = try TraceFormat.load(path: path, options: options)
        XCTAssertEqual(named.samples.count, 60, "30 gyroscope and 30 accelerometer readings, 3 ms apart")
        XCTAssertEqual(named.samples[0].t, 0, accuracy: 1e-12)
        XCTAssertNotNil(named.samples[0].gyroscope)
        XCTAssertEqual(named.samples[1].t, 0.003, accuracy: 1e-12)
        XCTAssertNotNil(named.samples[1].accelerometer)
        // Clocks whose names say nothing, given with their sensors.
        var plain = "ta,ax1,ay1,az1,tg,gx1,gy1,gz1\n"
        for k in 0..<30 { plain += "\(Double(k) * 0.01 + 0.003),0,0,9.81,\(Double(k) * 0.01),0.01,0,0\n" }
        let unnamed = TestData.writeTemporary(plain)
        options.columns = "acc=ax1,acc_t=ta,gyr=gx1,gyr_t=tg"
        let given = try TraceFormat.load(path: unnamed, options: options)
        XCTAssertEqual(given.samples.map(\.t), named.samples.map(\.t))
        XCTAssertEqual(given.samples.map { $0.accelerometer != nil }, named.samples.map { $0.accelerometer != nil })
        // A clock without its sensor times nothing: a usage error.
        options.columns = "gyr=gx1,gyr_t=tg,acc_t=ta"
        XCTAssertThrowsError(try TraceFormat.load(path: unnamed, options: options)) {
            XCTAssertEqual(($0 as? TraceError)?.kind, .columnSpecification, "\($0)")
            XCTAssert("\($0)".contains("--columns acc_t=…: the accelerometer it would time is not read"), "\($0)")
        }
        let r = CommandRunner.run(["info", unnamed, "--columns", "gyr=gx1,gyr_t=tg,acc_t=ta"])
        XCTAssertEqual(r.status, 2, r.err)
        options.columns = "acc=ax1,accx_t=ta"
        XCTAssertThrowsError(try TraceFormat.load(path: unnamed, options: options)) {
            XCTAssertEqual(($0 as? TraceError)?.kind, .columnSpecification, "\($0)")
        }
    }
}
