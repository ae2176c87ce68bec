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

extension LayoutTests {
    /// A file of the accelerometer's clock (`acc_timestamp`, ns since boot) and the gyroscope's
    /// (`gyro_timestamp`, s since the epoch), each sensor's cells filled on the rows `acc(k)` and
    /// `gyro(k)` say.
    func mixedClocks(rows: Int = 60, acc: (Int) -> Bool, gyro: (Int) -> Bool) -> String {
        var text = "gyro_timestamp,gyro_x,gyro_y,gyro_z,acc_timestamp,acc_x,acc_y,acc_z\n"
        for k in 0..<rows {
            let g = gyro(k) ? String(format: "%.3f,0.01,0,0", 1.7e9 + Double(k) * 0.01) : ",,,"
            let a = acc(k) ? "\(5_000_000_000_000 + k * 10_000_000),0,0,9.81" : ",,,"
            text += g + "," + a + "\n"
        }
        return TestData.writeTemporary(text)
    }

    /// Clocks on different time bases are refused where it shows, however they share rows: one
    /// clock starting after the first rows looked at (its cells empty on 25 rows), clocks read on
    /// alternate rows (no row holds both), and the rows' time column (ms since the epoch) timing
    /// the gyroscope beside the accelerometer's own clock (ns since boot). Each was read to a
    /// timeline thousands of years long with exit 0. The message names the cell and the fix,
    /// which reads the file.
    func testClocksOnDifferentTimeBasesAreRefusedAcrossRows() throws {
        func refused(
            _ path: String, line: Int, column: Int, _ options: DelimitedReadOptions = .init(),
            file: StaticString = #filePath, at: UInt = #line
        ) {
            XCTAssertThrowsError(try TraceFormat.load(path: path, options: options), file: file, line: at) {
                let e = $0 as? TraceError
                XCTAssertEqual(e?.kind, .inconsistentClocks, "\($0)", file: file, line: at)
                XCTAssertEqual(e?.location.line, line, "\($0)", file: file, line: at)
                XCTAssertEqual(e?.location.column, column, "\($0)", file: file, line: at)
                XCTAssert(e?.message.contains("not on one time base") == true, "\($0)", file: file, line: at)
                XCTAssert(e?.message.contains("--columns t=") == true, "\($0)", file: file, line: at)
            }
        }
        // The accelerometer from row 26 (line 27), its clock's column starting at byte 25.
        let late = mixedClocks(acc: { $0 >= 25 }, gyro: { _ in true })
        refused(late, line: 27, column: 25)
        let out = TestData.temporaryDirectory() + "/late.csv"
        let r = CommandRunner.run(["replay", late, "--output", out])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("\(late):27:25: the sensors' clocks are not on one time base"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        // Alternate rows: the accelerometer's first reading, on line 3, beside the gyroscope's on line 2.
        let alternate = mixedClocks(acc: { $0 % 2 == 1 }, gyro: { $0 % 2 == 0 })
        refused(alternate, line: 3, column: 5)
        // The late clock is also caught beyond the rows looked at first when they alternate.
        refused(mixedClocks(acc: { $0 >= 25 && $0 % 2 == 1 }, gyro: { $0 % 2 == 0 }), line: 27, column: 5)
        // The rows' time column beside a sensor's own clock.
        var text = "t,gyr_x,gyr_y,gyr_z,acc_timestamp,acc_x,acc_y,acc_z\n"
        for k in 0..<60 {
            text += "\(1_700_000_000_000 + k * 10),0.01,0,0,\(5_000_000_000_000 + k * 10_000_000),0,0,9.81\n"
        }
        let rowClock = TestData.writeTemporary(text)
        refused(rowClock, line: 2, column: 24)
        var one = DelimitedReadOptions()
        one.columns = "t=t"
        one.units = "t=ms"
        let timed = try TraceFormat.load(path: rowClock, options: one)
        XCTAssertEqual(timed.samples.count, 60)
        XCTAssertEqual(timed.samples[0].t, 1.7e9, accuracy: 1e-3)
    }

    /// What the check leaves alone: a clock on the others' base starting late reads, and one
    /// glitched time (a reading at 0 among readings since boot) stays the value fault it is.
    func testClocksOnOneTimeBaseStartingLateOrGlitchingRead() throws {
        func file(acc: @escaping (Int) -> String?) -> String {
            var text = "gyro_timestamp,gyro_x,gyro_y,gyro_z,acc_timestamp,acc_x,acc_y,acc_z\n"
            for k in 0..<60 {
                let a = acc(k).map { "\($0),0,0,9.81" } ?? ",,,"
                text += String(format: "%.3f,0.01,0,0,", 1000 + Double(k) * 0.01) + a + "\n"
            }
            return TestData.writeTemporary(text)
        }
        let late = try TraceFormat.load(
            path: file { $0 >= 25 ? String(format: "%.3f", 1000.004 + Double($0) * 0.01) : nil })
        XCTAssertEqual(late.samples.filter { $0.accelerometer != nil }.count, 35)
        let reader = try TraceFormat.open(
            path: file { String(format: "%.3f", $0 == 40 ? 0 : 1000.004 + Double($0) * 0.01) })
        let glitched = try reader.readTrace()
        XCTAssertEqual(glitched.samples.filter { $0.accelerometer != nil }.count, 60)
        XCTAssertEqual(reader.faults.tallies[.backwardTime]?.first.line, 42)
    }

    /// A location in the first rows after a quoted line break names the file's own line and
    /// column: the clocks' cells of a row whose note spans lines 2 and 3 are on line 3.
    func testTimeBaseErrorAfterAQuotedLineBreakIsAtItsLine() {
        var text = "note,gyro_timestamp,gyro_x,gyro_y,gyro_z,acc_timestamp,acc_x,acc_y,acc_z\n"
        for k in 0..<30 {
            let note = k == 0 ? "\"first\nrow\"" : ""
            text += "\(note),\(1_700_000_000 + k),0.01,0,0,\(5_000_000_000_000 + k * 1_000_000_000),0,0,9.81\n"
        }
        XCTAssertThrowsError(try TraceFormat.load(path: TestData.writeTemporary(text))) {
            let e = $0 as? TraceError
            XCTAssertEqual(e?.kind, .inconsistentClocks, "\($0)")
            XCTAssertEqual(e?.location.line, 3, "\($0)")
            // 'row",1700000000,0.01,0,0,' comes before the accelerometer's clock.
            XCTAssertEqual(e?.location.column, 26, "\($0)")
        }
    }

    /// A sensor's own clock of date-times is refused at its first cell, naming `--columns t=`,
    /// which reads the file (it said only "not a number").
    func testDateTimesInASensorClockNameTheFix() throws {
        var text = "gyro_timestamp,gyro_x,gyro_y,gyro_z,acc_timestamp,acc_x,acc_y,acc_z\n"
        for k in 0..<30 {
            text += String(format: "2024-03-01T12:00:%02d.000Z,0.01,0,0,2024-03-01T12:00:%02d.003Z,0,0,9.81\n", k, k)
        }
        let path = TestData.writeTemporary(text)
        XCTAssertThrowsError(try TraceFormat.load(path: path)) {
            let e = $0 as? TraceError
            XCTAssertEqual(e?.kind, .malformedNumber, "\($0)")
            XCTAssertEqual(e?.location.line, 2)
            XCTAssertEqual(e?.location.column, 1)
            XCTAssert(e?.message.contains("is a date-time") == true, "\($0)")
            XCTAssert(e?.message.contains("--columns t='gyro_timestamp'") == true, "\($0)")
        }
        var options = DelimitedReadOptions()
        options.columns = "t=gyro_timestamp"
        let trace = try TraceFormat.load(path: path, options: options)
        XCTAssertEqual(trace.samples.count, 30)
        XCTAssertEqual(trace.samples[1].t - trace.samples[0].t, 1, accuracy: 1e-6)
    }
}
