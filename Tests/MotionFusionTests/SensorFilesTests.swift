import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionIO

/// Folders (and `.zip`s) of one file per sensor, named for it, merged on time; date-time clocks.
final class SensorFilesTests: XCTestCase {
    let fixtures = TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/SensorFiles"
    let epoch = 1_700_000_000.0
    var reference: Trace {
        get throws {
            try TraceFormat.load(path: TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/Layouts/reference.csv")
        }
    }

    /// A folder's trace holds the reference's accelerometer and gyroscope at its instants after
    /// the epoch (within the printed digits).
    func assertSensorFilesMatch(_ trace: Trace, _ truth: Trace, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(trace.format, "sensor-files", file: file, line: line)
        XCTAssertEqual(trace.samples.count, truth.samples.count, file: file, line: line)
        for (got, want) in zip(trace.samples, truth.samples) {
            XCTAssertEqual(got.t, epoch + want.t, accuracy: 1e-6, file: file, line: line)
            XCTAssertLessThan((got.accelerometer! - want.accelerometer!).norm, 1e-6, file: file, line: line)
            XCTAssertLessThan((got.gyroscope! - want.gyroscope!).norm, 1e-7, file: file, line: line)
        }
    }

    func testISOTimesAndNamesMapToSensors() throws {
        let truth = try reference
        let trace = try TraceFormat.load(path: fixtures + "/iso")
        XCTAssertEqual(trace.format, "sensor-files")
        XCTAssertEqual(trace.samples.count, truth.samples.count)
        for (got, want) in zip(trace.samples, truth.samples) {
            XCTAssertEqual(got.t, epoch + want.t, accuracy: 1e-6)
            XCTAssertEqual(got.accelerometer, want.accelerometer)
            XCTAssertEqual(got.gyroscope, want.gyroscope)
        }
        // The compass at a fifth of the rate: every fifth instant.
        XCTAssertEqual(
            trace.samples.indices.filter { trace.samples[$0].magnetometer != nil },
            Array(stride(from: 0, to: 75, by: 5)))
        XCTAssertEqual(trace.samples[5].magnetometer, truth.samples[5].magnetometer)
        let note = trace.warnings.map(\.message).first { $0.contains("read as per-sensor files") }
        XCTAssertNotNil(note, "\(trace.warnings)")
        XCTAssert(note?.contains("Compass.csv (magnetometer)") == true, note ?? "")
        XCTAssert(note?.contains("not read: Orientation.csv") == true, note ?? "")

        // The same files in a .zip read the same.
        let dir = TestData.temporaryDirectory()
        let names = ["Accelerometer.csv", "Compass.csv", "Gyroscope.csv", "Orientation.csv"]
        try ZipWriter.write(folder: fixtures + "/iso", names: names, to: dir + "/iso.zip")
        let zipped = try TraceFormat.load(path: dir + "/iso.zip")
        XCTAssertEqual(zipped.format, "sensor-files")
        XCTAssertEqual(zipped.samples, trace.samples)
    }

    /// Short names, a space-separated file, units only the readings give (g, °/s), and
    /// spreadsheet date-times with an offset.
    func testShortNamesWithUnitsFromTheReadings() throws {
        let truth = try reference
        let reader = try TraceFormat.open(path: fixtures + "/short")
        let trace = try reader.readTrace()
        assertSensorFilesMatch(trace, truth)
        XCTAssertEqual(trace.samples[10].magnetometer, truth.samples[10].magnetometer)
        let messages = trace.warnings.map(\.message).joined(separator: "\n")
        XCTAssert(messages.contains("units from the readings"), messages)
        XCTAssert(messages.contains("gyr=deg/s") && messages.contains("acc=g"), messages)
        XCTAssert(messages.contains("holds date-times"), messages)
    }

    /// MetaWear MetaBase: `epoch (ms)` is the time over `time (-07:00)` (a local wall clock whose
    /// UTC offset is no unit) and `elapsed (s)`; `x-axis (g)`, `(deg/s)`, `(T)` are the axes of
    /// the sensor the file's name gives; without the epoch, `elapsed (s)` times the rows.
    func testMetaBaseEpochOverLocalTimeAndAxesNamedFirst() throws {
        let truth = try reference
        let folder = fixtures + "/metabase"
        let trace = try TraceFormat.load(path: folder)
        assertSensorFilesMatch(trace, truth)
        // Read face up: acc z +9.81 within 0.05.
        XCTAssertEqual(trace.samples[0].accelerometer!.z, 9.81, accuracy: 0.05)
        XCTAssertLessThan((trace.samples[10].magnetometer! - truth.samples[10].magnetometer!).norm, 1e-5)
        XCTAssertFalse(trace.warnings.contains { !$0.isNote }, "\(trace.warnings)")
        // One file alone, and without its epoch column.
        let gyroscope = "MetaWear_2023-11-14T15.13.20.000_C8D2F1A1B2C3_Gyroscope_1.4.5.csv"
        let alone = try TraceFormat.load(path: folder + "/" + gyroscope)
        XCTAssertEqual(alone.samples[1].t, epoch + 0.04, accuracy: 1e-6)
        XCTAssertLessThan((alone.samples[1].gyroscope! - truth.samples[1].gyroscope!).norm, 1e-7)
        let text = try String(contentsOfFile: folder + "/" + gyroscope, encoding: .utf8)
        let dir = TestData.temporaryDirectory() + "/elapsed"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let noEpoch = text.split(separator: "\n").map { $0.split(separator: ",").dropFirst().joined(separator: ",") }
        try (noEpoch.joined(separator: "\n") + "\n").write(
            toFile: dir + "/" + gyroscope, atomically: true, encoding: .utf8)
        let elapsed = try TraceFormat.load(path: dir)
        XCTAssertEqual(elapsed.samples[0].t, 0)
        XCTAssertEqual(elapsed.samples[1].t, 0.04, accuracy: 1e-9)
    }

    /// MetaBase's gravity and linear acceleration, `x-axis (g)` as its accelerometer's, read as a
    /// single file: refused, naming what the file holds, not read as the accelerometer; the
    /// accelerometer's own file is still read alone.
    func testMetaBaseGravityOrLinearAccelerationAloneIsNoAccelerometer() throws {
        let folder = fixtures + "/metabase"
        let accelerometer = "MetaWear_2023-11-14T15.13.20.000_C8D2F1A1B2C3_Accelerometer_1.4.5.csv"
        let text = try String(contentsOfFile: folder + "/" + accelerometer, encoding: .utf8)
        XCTAssertNotNil(try TraceFormat.load(path: folder + "/" + accelerometer).samples.first?.accelerometer)
        let dir = TestData.temporaryDirectory() + "/fusion"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (kind, said) in [("Gravity", "holds gravity"), ("Linear Acceleration", "holds linear acceleration")] {
            let path = dir + "/MetaWear_2023-11-14T15.13.20.000_C8D2F1A1B2C3_\(kind)_1.4.5.csv"
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try TraceFormat.load(path: path), kind) {
                let message = "\($0)"
                XCTAssert(message.contains("the file's name says it \(said)"), message)
                XCTAssert(message.contains("not the accelerometer"), message)
            }
        }
    }

    /// Whole traces whose names hold a sensor's word (BROAD's `29_disturbed_stationary_magnet_B.csv`
    /// and `31_…magnet_D.csv`) make a folder of traces, each run on its own, not per-sensor files.
    func testTracesNamedForASensorAreAFolderOfTraces() throws {
        let dir = TestData.temporaryDirectory() + "/trials"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let names = ["29_disturbed_stationary_magnet_B.csv", "31_disturbed_stationary_magnet_D.csv", "gyro_test.csv"]
        for name in names {
            let made = CommandRunner.run([
                "simulate", "--scenario", "rest", "--duration", "2", "--rate", "50", "--output", dir + "/" + name,
            ])
            XCTAssertEqual(made.status, 0, made.err)
        }
        let out = TestData.temporaryDirectory() + "/estimates"
        let r = CommandRunner.run(["replay", dir, "--output", out])
        XCTAssertEqual(r.status, 0, r.err)
        for name in names { XCTAssert(FileManager.default.fileExists(atPath: out + "/" + name), "\(name): \(r.err)") }
        // A folder of one sensor's readings per file still reads as one recording.
        XCTAssertEqual(try TraceFormat.detect(path: fixtures + "/iso"), .sensorFiles)
    }

    func testTwoFilesForOneSensor() throws {
        let dir = TestData.temporaryDirectory()
        let text = "time,x,y,z\n0,0,0,9.8\n0.01,0,0,9.8\n"
        try FileManager.default.createDirectory(atPath: dir + "/two", withIntermediateDirectories: true)
        try text.write(toFile: dir + "/two/Accelerometer.csv", atomically: true, encoding: .utf8)
        try text.write(toFile: dir + "/two/accel.csv", atomically: true, encoding: .utf8)
        let r = CommandRunner.run(["info", dir + "/two"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("'Accelerometer.csv' and 'accel.csv' both hold the accelerometer"), r.err)
        // An uncalibrated file gives way to the calibrated one.
        try FileManager.default.removeItem(atPath: dir + "/two/accel.csv")
        try "time,x,y,z\n0,1,1,1\n".write(
            toFile: dir + "/two/AccelerometerUncalibrated.csv", atomically: true, encoding: .utf8)
        let trace = try TraceFormat.load(path: dir + "/two")
        XCTAssertEqual(trace.samples.map(\.accelerometer), [Vector3(0, 0, 9.8), Vector3(0, 0, 9.8)])
        // A file named for a sensor without x, y, z (a compass heading) is left out, with a warning.
        try "time,heading\n0,90\n".write(toFile: dir + "/two/Compass.csv", atomically: true, encoding: .utf8)
        let reader = try TraceFormat.open(path: dir + "/two")
        XCTAssertEqual(try reader.readTrace().samples.count, 2)
        let left = reader.allWarnings.map(\.message).joined(separator: "\n")
        XCTAssert(
            left.contains("no x, y and z columns of the magnetometer") && left.contains("this file is not read"), left)
        XCTAssertFalse(reader.description.sensors.contains(.magnetometer))
        // --columns cannot describe several files: a usage error, not ignored.
        let columns = CommandRunner.run(["info", dir + "/two", "--columns", "t=1,acc=2"])
        XCTAssertEqual(columns.status, 2, columns.err)
        XCTAssert(columns.err.contains("leave --columns out"), columns.err)
    }

    /// An Android logger of the RoNIN kind: headerless `acce.txt`, `gyro.txt`, `magnet.txt` after a
    /// comment line, times in ns since boot, read with no options; the uncalibrated streams, bias
    /// estimates, calibration parameters and rotation vectors beside them are not read.
    func testHeaderlessAndroidLoggerFolder() throws {
        let truth = try reference
        let boot = 4240.911748748
        let reader = try TraceFormat.open(path: fixtures + "/android")
        let trace = try reader.readTrace()
        XCTAssertEqual(trace.format, "sensor-files")
        XCTAssertEqual(trace.samples.count, truth.samples.count)
        for (got, want) in zip(trace.samples, truth.samples) {
            XCTAssertEqual(got.t, boot + want.t, accuracy: 1e-6)
            XCTAssertLessThan((got.accelerometer! - want.accelerometer!).norm, 1e-5)
            XCTAssertLessThan((got.gyroscope! - want.gyroscope!).norm, 1e-5)
        }
        XCTAssertEqual(
            trace.samples.indices.filter { trace.samples[$0].magnetometer != nil },
            Array(stride(from: 0, to: 75, by: 5)))
        XCTAssertLessThan((trace.samples[10].magnetometer! - truth.samples[10].magnetometer!).norm, 1e-5)
        let messages = reader.allWarnings.map(\.message).joined(separator: "\n")
        XCTAssert(messages.contains("t=ns"), messages)
        XCTAssert(messages.contains("acce.txt (accelerometer; no header: time, x, y, z)"), messages)
        XCTAssert(messages.contains("magnet.txt (magnetometer; no header"), messages)
        XCTAssert(messages.contains("skipped 1 line before the rows, which have no header"), messages)
        for other in ["acce_calib.txt", "acce_uncalib.txt", "gyro_bias.txt", "gyro_uncalib.txt", "game_rv.txt"] {
            XCTAssert(messages.contains(other), "\(other) not named as not read: \(messages)")
        }
        XCTAssertEqual(reader.allWarnings.filter { !$0.isNote }.map(\.message), [])
        // A header line given by the user is theirs: the first line is then the header.
        let given = CommandRunner.run(["info", fixtures + "/android", "--header-rows", "1"])
        XCTAssertEqual(given.status, 1, given.err)
        XCTAssert(given.err.contains("no x, y and z columns"), given.err)
    }

    /// Headerless members in other layouts read the same samples as the Android fixture's: the
    /// clock last (OpenCamera-Sensors' `x,y,z,timestamp`), pandas' column numbers over the rows
    /// (with a row index, not read), semicolons with decimal commas, and a header written as a
    /// comment (EuRoC's `#timestamp [ns],…`) read as the header it is. Files no rule reads are left
    /// out with a warning that says why, and a calibrated file without rows gives way to the
    /// uncalibrated one.
    func testHeaderlessLayoutsAndFilesLeftOut() throws {
        func rows(_ file: String) throws -> [[String]] {
            try String(contentsOfFile: fixtures + "/android/" + file, encoding: .utf8).split(separator: "\n")
                .dropFirst().map { $0.split(separator: " ").map(String.init) }
        }
        let acc = try rows("acce.txt")
        let gyr = try rows("gyro.txt")
        var count = 0
        func folder(_ files: [String: String]) throws -> String {
            count += 1
            let dir = TestData.temporaryDirectory() + "/rec\(count)"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
            return dir
        }
        func lines(_ rows: [[String]], _ line: ([String]) -> String) -> String {
            rows.map(line).joined(separator: "\n") + "\n"
        }
        let plain = { (r: [String]) in r.joined(separator: " ") }
        let truth = try TraceFormat.load(path: folder(["acce.txt": lines(acc, plain), "gyro.txt": lines(gyr, plain)]))
        XCTAssertEqual(truth.samples.count, 75)
        let layouts: [(String, ([String]) -> String, String)] = [
            ("clock last", { "\($0[1]),\($0[2]),\($0[3]),\($0[0])" }, ""),
            ("pandas numbers", { $0.joined(separator: ",") }, "0,1,2,3\n"),
            ("semicolons", { $0.joined(separator: ";").replacing(".", with: ",") }, ""),
            ("comment header", { "\($0[0]),\($0[3]),\($0[2]),\($0[1])" }, "#timestamp [ns],z,y,x\n"),
        ]
        for (what, line, header) in layouts {
            let trace = try TraceFormat.load(
                path: folder(["acc.csv": header + lines(acc, line), "gyro.csv": header + lines(gyr, line)]))
            XCTAssertEqual(trace.samples, truth.samples, what)
        }
        let index = { (rows: [[String]]) in
            ",0,1,2,3\n" + rows.enumerated().map { "\($0.offset),\($0.element.joined(separator: ","))\n" }.joined()
        }
        let indexed = try TraceFormat.load(path: folder(["acc.csv": index(acc), "gyro.csv": index(gyr)]))
        XCTAssertEqual(indexed.samples, truth.samples)
        // The calibrated magnetometer file without rows gives way to the uncalibrated one.
        let uncalibrated = try TraceFormat.open(
            path: folder([
                "acce.txt": lines(acc, plain), "gyro.txt": lines(gyr, plain), "magnet.txt": "# Created at Mon\n",
                "magnet_uncalib.txt": lines(acc, plain),
            ]))
        XCTAssertNotNil(try uncalibrated.readTrace().samples.first { $0.magnetometer != nil })
        // Five numbers a row, three, none: the file is left out, saying why; the others read.
        for (text, why) in [
            ("1 2 3 4 5\n2 3 4 5 6\n", "rows of 5 numbers and no header"),
            ("1 2 3\n2 3 4\n", "rows of 3 numbers and no header"), ("", "no rows (an empty file)"),
            ("# Created at Mon\n", "no rows (only comment lines)"),
        ] {
            let reader = try TraceFormat.open(
                path: folder(["acce.txt": lines(acc, plain), "gyro.txt": lines(gyr, plain), "magnet.txt": text]))
            XCTAssertEqual(try reader.readTrace().samples, truth.samples, why)
            let messages = reader.allWarnings.map(\.message).joined(separator: "\n")
            XCTAssert(messages.contains(why) && messages.contains("this file is not read, the others are"), messages)
        }
        // The clock is the column that counts whole ns even when an axis rises through the first
        // rows (a slow tilt) and the clock has jitter; two columns that both could be seconds are
        // refused; files that disagree on where the time is are refused; `# t x y z` is a header.
        var tilt = [String]()
        var clock = [String]()
        for k in 0..<50 {
            let t = 4_240_911_748_748 + k * 20_000_000 + (k % 3 - 1) * 3_000_000
            tilt.append("\(t) 0.01 -0.02 \(9.0 + 0.004 * Double(k))")
            clock.append("\(t) 0 0 0.1")
        }
        let tilted = try TraceFormat.load(
            path: folder(["acce.txt": tilt.joined(separator: "\n"), "gyro.txt": clock.joined(separator: "\n")]))
        XCTAssertEqual(tilted.samples.first?.t ?? 0, 4240.911748748 - 0.003, accuracy: 1e-6)
        XCTAssertEqual(tilted.samples.last?.accelerometer?.z ?? 0, 9.196, accuracy: 1e-9)
        let seconds = tilt.enumerated().map {
            "\(12 + 0.01 * Double($0.offset)) 0.01 -0.02 \(9.0 + 0.004 * Double($0.offset))"
        }
        let both = try TraceFormat.open(
            path: folder(["acce.txt": seconds.joined(separator: "\n"), "gyro.txt": lines(gyr, plain)]))
        _ = try both.readTrace()
        XCTAssert(both.allWarnings.contains { $0.message.contains("both rise: which is the time is not known") })
        let last = clock.map { l in
            let f = l.split(separator: " ")
            return "\(f[1]) \(f[2]) \(f[3]) \(f[0])"
        }
        XCTAssertThrowsError(
            try TraceFormat.load(
                path: folder(["acce.txt": tilt.joined(separator: "\n"), "gyro.txt": last.joined(separator: "\n")]))
        ) { XCTAssert("\($0)".contains("disagree on where the time is"), "\($0)") }
        let commented = try TraceFormat.load(
            path: folder(["acce.txt": "# t x y z\n" + lines(acc, plain), "gyro.txt": "# t x y z\n" + lines(gyr, plain)])
        )
        XCTAssertEqual(commented.samples, truth.samples)
        // Axes numbered under any name in a file named for its sensor (Android's `values[0]`).
        for (x, y, z) in [("values[0]", "values[1]", "values[2]"), ("value_1", "value_2", "value_3")] {
            let numbered = { (rows: [[String]]) in
                "timestamp,\(x),\(y),\(z)\n" + rows.map { $0.joined(separator: ",") + "\n" }.joined()
            }
            let trace = try TraceFormat.load(path: folder(["acce.csv": numbered(acc), "gyro.csv": numbered(gyr)]))
            XCTAssertEqual(trace.samples, truth.samples, x)
        }
        // A bias removed is still a reading; linear acceleration is none.
        XCTAssertEqual(SensorFilesImporter.sensor(ofFile: "bias_corrected_gyro.csv"), .gyroscope)
        XCTAssertNil(SensorFilesImporter.sensor(ofFile: "gyro_bias.csv"))
        XCTAssertNil(SensorFilesImporter.sensor(ofFile: "lin_acc.txt"))
    }

    /// A date-time clock in a single file: UTC unless an offset is given; a row whose time is not
    /// one is an error at its line and column.
    func testDateTimeColumn() throws {
        let text = """
            time,acc_x,acc_y,acc_z
            2024-03-01T12:00:00Z,0,0,9.8
            2024-03-01T12:00:00.5,0,0,9.8
            "2024-03-01 13:00:01.25+01:00",0,0,9.8
            2024-03-01T11:00:01.750-0100,0,0,9.8

            """
        let trace = try TraceFormat.load(path: TestData.writeTemporary(text))
        let start = 1_709_294_400.0  // 2024-03-01T12:00:00Z
        XCTAssertEqual(trace.samples.map(\.t), [start, start + 0.5, start + 1.25, start + 1.75])
        let bad = TestData.writeTemporary(
            "time,acc_x,acc_y,acc_z\n2024-03-01T12:00:00Z,0,0,9.8\n2024-03-01T12:00:61Z,0,0,9.8\n")
        let r = CommandRunner.run(["info", bad])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("trace.csv:3:1:") && r.err.contains("not a date-time"), r.err)
        // Days a month does not have are not dates (they used to roll over into the next month);
        // a leap day is one.
        for (day, valid) in [("2024-02-29", true), ("2024-02-30", false), ("2023-02-29", false), ("2024-04-31", false)]
        {
            let file = TestData.writeTemporary(
                "time,acc_x,acc_y,acc_z\n2024-02-01T12:00:00Z,0,0,9.8\n\(day)T12:00:00Z,0,0,9.8\n")
            let result = CommandRunner.run(["info", file])
            XCTAssertEqual(result.status, valid ? 0 : 1, "\(day): \(result.err)")
        }
    }

    /// Files of one recording on different clocks (one with ISO-8601 epoch times, one in seconds
    /// since its start) cannot be merged: an error naming both, not a recording of 54 years.
    func testFilesOnDifferentClocksAreRefused() throws {
        let dir = TestData.temporaryDirectory()
        var accelerometer = "time,x,y,z\n"
        var gyroscope = "time,x,y,z\n"
        for i in 0..<100 {
            let t = Double(i) * 0.01
            accelerometer += "2024-03-01T12:00:\(String(format: "%05.2f", t))Z,0,0,9.8\n"
            gyroscope += "\(t),0,0,0\n"
        }
        try accelerometer.write(toFile: dir + "/Accelerometer.csv", atomically: false, encoding: .utf8)
        try gyroscope.write(toFile: dir + "/Gyroscope.csv", atomically: false, encoding: .utf8)
        let r = CommandRunner.run(["replay", dir, "--output", dir + "/../out.csv"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("do not share one clock") && r.err.contains("Accelerometer.csv"), r.err)
    }

    /// Writes 2 s of per-sensor files with a plain `time` column, all at `rate` Hz (the compass at
    /// half of it): the accelerometer's and compass's times in seconds, the gyroscope's
    /// multiplied by `gyroscopeScale`.
    func writeFolder(_ dir: String, rate: Double, gyroscopeScale: Double) throws {
        var accelerometer = "time,x,y,z\n"
        var compass = "time,x,y,z\n"
        var gyroscope = "time,x,y,z\n"
        for i in 0..<Int(2 * rate) {
            let t = Double(i) / rate
            accelerometer += "\(t),0,0,9.8\n"
            if i % 2 == 0 { compass += "\(t),20,0,-40\n" }
            gyroscope += "\(t * gyroscopeScale),0,0,0.1\n"
        }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try accelerometer.write(toFile: dir + "/Accelerometer.csv", atomically: false, encoding: .utf8)
        try compass.write(toFile: dir + "/Compass.csv", atomically: false, encoding: .utf8)
        try gyroscope.write(toFile: dir + "/Gyroscope.csv", atomically: false, encoding: .utf8)
    }

    /// A file whose plain `time` holds milliseconds beside files in seconds: its samples step
    /// 1000 times as far as the others', slower than any sensor records. The unit is applied to
    /// that file alone and announced with the file's name; `--units t=s` overrides.
    func testFileInMillisecondsBesideSecondsIsScaledAndAnnounced() throws {
        let dir = TestData.temporaryDirectory() + "/ms"
        try writeFolder(dir, rate: 100, gyroscopeScale: 1000)
        let trace = try TraceFormat.load(path: dir)
        // One clock: the gyroscope's instants are the accelerometer's.
        XCTAssertEqual(trace.samples.count, 200)
        XCTAssertEqual(trace.samples.last?.t ?? 0, 1.99, accuracy: 1e-9)
        XCTAssert(trace.samples.allSatisfy { $0.gyroscope != nil && $0.accelerometer != nil })
        let note = trace.warnings.map(\.message).first { $0.hasPrefix(UnitEvidence.notePrefix) } ?? ""
        XCTAssert(note.contains("t=ms (Gyroscope.csv's times step by 10 per sample, 1000×"), note)
        // Said otherwise, seconds they are: the gyroscope spans 2000 s.
        var options = DelimitedReadOptions()
        options.units = "t=s"
        let told = try TraceFormat.load(path: dir, options: options)
        XCTAssertEqual(told.samples.last?.t ?? 0, 1990, accuracy: 1e-9)
    }

    /// A 2 kHz gyroscope in ms beside 2 kHz files in seconds steps by 0.5 "s": a sensor that could
    /// be recording at 2 Hz, so its times stay seconds, with a warning naming the file and how to
    /// give its unit.
    func testFastFileInMillisecondsIsWarnedAbout() throws {
        let dir = TestData.temporaryDirectory() + "/fast"
        try writeFolder(dir, rate: 2000, gyroscopeScale: 1000)
        let trace = try TraceFormat.load(path: dir)
        let warning = trace.warnings.map(\.message).first { $0.contains("Gyroscope.csv's times step") } ?? ""
        XCTAssert(warning.contains("read as seconds") && warning.contains("'time (ms)'"), warning)
        // The same files in seconds (no clock 250 times slower than another) read without it.
        let plain = TestData.temporaryDirectory() + "/plain"
        try writeFolder(plain, rate: 100, gyroscopeScale: 1)
        let messages = try TraceFormat.load(path: plain).warnings.map(\.message).joined(separator: "\n")
        XCTAssertFalse(messages.contains("times step"), messages)
        XCTAssertFalse(messages.contains("t=ms"), messages)
    }

    /// Two recordings zipped together (folders holding files of one name) are refused naming
    /// every such entry, as are two files of one sensor in an archive (by their paths in it) and
    /// archives inside the archive.
    func testArchiveOfSeveralRecordingsNamesTheirFiles() throws {
        let dir = TestData.temporaryDirectory()
        let text = Array("time,x,y,z\n0,0,0,9.8\n0.01,0,0,9.8\n".utf8)
        func refused(
            _ entries: [(String, [UInt8])], _ says: [String], file: StaticString = #filePath, line: UInt = #line
        )
            throws
        {
            let zip = dir + "/x.zip"
            try Data(ZipWriter.archive(entries)).write(to: URL(fileURLWithPath: zip))
            let r = CommandRunner.run(["info", zip])
            XCTAssertEqual(r.status, 1, r.err, file: file, line: line)
            for s in says { XCTAssert(r.err.contains(s), r.err, file: file, line: line) }
        }
        try refused(
            [("run1/Accelerometer.csv", text), ("run1/Gyroscope.csv", text), ("run2/Accelerometer.csv", text)],
            [
                "x.zip: the archive holds 2 files named Accelerometer.csv ('run1/Accelerometer.csv', 'run2/Accelerometer.csv')",
                "unzip it and pass the folder of one recording",
            ])
        try refused(
            [("a/Inertial.csv", text), ("b/Inertial.csv", text)], ["('a/Inertial.csv', 'b/Inertial.csv')"])
        try refused(
            [("a/accel.csv", text), ("b/Accelerometer.csv", text)],
            ["files 'b/Accelerometer.csv' and 'a/accel.csv' both hold the accelerometer, so neither is read"])
        try refused([("inner.zip", ZipWriter.archive([("Accelerometer.csv", text)]))], ["holds archives (inner.zip)"])
    }

    /// `--format sensor-files` names a folder: given one file, the error names the file and its
    /// folder (`.` for a file in the working directory), not an empty path.
    func testSensorFilesFormatGivenAFile() throws {
        let dir = TestData.temporaryDirectory()
        try writeFolder(dir, rate: 100, gyroscopeScale: 1)
        let r = CommandRunner.run(["info", dir + "/Gyroscope.csv", "--format", "sensor-files"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(
            r.err.contains(
                "\(dir)/Gyroscope.csv: --format sensor-files reads a folder (or a .zip) of per-sensor files, and this is one file: pass its folder ('\(dir)')"
            ), r.err)
        let here = try CommandRunner.process(["info", "Gyroscope.csv", "--format", "sensor-files"], in: dir)
        XCTAssertEqual(here.status, 1, here.err)
        XCTAssert(here.err.contains("error: Gyroscope.csv: --format sensor-files reads a folder"), here.err)
        XCTAssert(here.err.contains("pass its folder ('.')"), here.err)
        XCTAssertEqual(CommandRunner.run(["info", dir, "--format", "sensor-files"]).status, 0)
    }

    /// A folder of whole traces holding one file named for a sensor (the layout fixtures'
    /// `ros_rostopic_mag.csv` beside IMU exports) is a folder of traces, not a per-sensor recording
    /// of that one file: each trace runs, and a note names the odd file.
    func testOneSensorFileAmongWholeTracesIsAFolderOfTraces() throws {
        let layouts = TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/Layouts"
        XCTAssertThrowsError(try TraceFormat.detect(path: layouts))
        XCTAssertEqual(TraceFormat.oddSensorFiles(inFolder: layouts).map(\.name), ["ros_rostopic_mag.csv"])
        let dir = TestData.temporaryDirectory() + "/traces"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["a.csv", "b.csv"] {
            let made = CommandRunner.run([
                "simulate", "--scenario", "rest", "--duration", "2", "--rate", "50", "--output", dir + "/" + name,
            ])
            XCTAssertEqual(made.status, 0, made.err)
        }
        try FileManager.default.copyItem(
            atPath: layouts + "/ros_rostopic_mag.csv", toPath: dir + "/ros_rostopic_mag.csv")
        XCTAssertThrowsError(try TraceFormat.detect(path: dir))
        let out = TestData.temporaryDirectory() + "/estimates"
        let r = CommandRunner.run(["replay", dir, "--output", out])
        XCTAssert(
            r.err.contains(
                "note: \(dir)/ros_rostopic_mag.csv is named for one sensor (magnetometer) but read as a trace of its own"
            ),
            r.err)
        for name in ["a.csv", "b.csv"] { XCTAssert(FileManager.default.fileExists(atPath: out + "/" + name), r.err) }
        // Per-sensor files alone, or beside files that are no traces, are still one recording.
        XCTAssertEqual(TraceFormat.oddSensorFiles(inFolder: fixtures + "/iso").count, 0)
        XCTAssertEqual(try TraceFormat.detect(path: fixtures + "/iso"), .sensorFiles)
        try FileManager.default.removeItem(atPath: dir + "/a.csv")
        try FileManager.default.removeItem(atPath: dir + "/b.csv")
        try "notes\n".write(toFile: dir + "/README.txt", atomically: true, encoding: .utf8)
        XCTAssertEqual(try TraceFormat.detect(path: dir), .sensorFiles)
    }

    /// One file of a Sensor Logger recording (`time,seconds_elapsed,z,y,x`, one sensor per file)
    /// given alone: the error says it is one sensor's file of a per-sensor recording, and the
    /// command it prints (the folder) runs.
    func testOneSensorLoggerFileNamesItsFolderWithACommandThatWorks() throws {
        let dir = TestData.temporaryDirectory() + "/logger"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func write(_ name: String, _ z: Double) throws {
            var text = "time,seconds_elapsed,z,y,x\n"
            for k in 0..<300 { text += "\(1_700_000_000_000_000_000 + k * 10_000_000),\(Double(k) * 0.01),\(z),0,0\n" }
            try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        try write("Accelerometer.csv", 0)
        try write("Gravity.csv", 9.81)
        try write("Gyroscope.csv", 0.01)
        let out = TestData.temporaryDirectory() + "/out.csv"
        let r = CommandRunner.run(["replay", dir + "/Gyroscope.csv", "--output", out])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(
            r.err.contains(
                "Gyroscope.csv is one sensor's file of a per-sensor recording: its folder is a recording (sensor-logger) of the gyroscope and accelerometer"
            ), r.err)
        let command = try XCTUnwrap(r.err.components(separatedBy: "e.g. ").last?.trimmingCharacters(in: .newlines))
        XCTAssertEqual(command, "motionfusion replay \(dir) --output \(out)")
        let again = CommandRunner.run(Array(command.split(separator: " ").dropFirst().map(String.init)))
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out))
        // The app's own orientation (`Orientation.csv`): no sensor columns guessed from its
        // quaternion and angles; said to be an orientation, with the folder that has the sensors.
        var orientation = "time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw\n"
        for k in 0..<300 {
            orientation += "\(1_700_000_000_000_000_000 + k * 10_000_000),\(Double(k) * 0.01),0,0,0,1,0,0,0\n"
        }
        try orientation.write(toFile: dir + "/Orientation.csv", atomically: true, encoding: .utf8)
        let info = CommandRunner.run(["info", dir + "/Orientation.csv"])
        XCTAssertEqual(info.status, 1, info.err)
        XCTAssertFalse(info.err.contains("--columns"), info.err)
        XCTAssert(info.err.contains("are an orientation (an app's own attitude"), info.err)
        XCTAssert(info.err.contains("e.g. motionfusion info \(dir)"), info.err)
        // x-IMU3's quaternion file: bare w, x, y and z.
        try "Timestamp (us),W,X,Y,Z\n1000,1,0,0,0\n2000,1,0,0,0\n".write(
            toFile: dir + "/Quaternion.csv", atomically: true, encoding: .utf8)
        let quaternion = CommandRunner.run(["info", dir + "/Quaternion.csv"])
        XCTAssertEqual(quaternion.status, 1, quaternion.err)
        XCTAssert(quaternion.err.contains("are an orientation (an app's own attitude"), quaternion.err)
        // Other spellings of a quaternion or of Euler angles: refused as an orientation, never read
        // as a sensor (`q_w` was offered as `--columns gyr=q_w`, `phi` as `mag=phi`).
        for header in [
            "time,quat_w,quat_x,quat_y,quat_z", "t,Quaternion W,Quaternion X,Quaternion Y,Quaternion Z",
            "t,q0,q1,q2,q3", "t,orientation.w,orientation.x,orientation.y,orientation.z",
            "t,q_w,q_x,q_y,q_z", "t,q_ned_w,q_ned_x,q_ned_y,q_ned_z,temperature", "t,att_w,att_x,att_y,att_z",
            "t,phi,theta,psi", "t,roll_deg,pitch_deg,yaw_deg", "time,Euler X (deg),Euler Y (deg),Euler Z (deg)",
        ] {
            let fields = header.split(separator: ",").count
            let row = (0..<fields).map { $0 == 0 ? "0.01" : "0.5" }.joined(separator: ",")
            let path = TestData.writeTemporary(
                header + "\n" + row + "\n" + row.replacingOccurrences(of: "0.01", with: "0.02") + "\n")
            let r = CommandRunner.run(["replay", path, "--output", dir + "/o.csv"])
            XCTAssertEqual(r.status, 1, "\(header): \(r.err)")
            XCTAssert(r.err.contains("are an orientation (an app's own attitude"), "\(header): \(r.err)")
            XCTAssertFalse(r.err.contains("--columns"), "\(header): \(r.err)")
        }
        // A rate about an attitude's axis is a gyroscope's: never refused as an orientation.
        for header in ["t,roll_dot,pitch_dot,yaw_dot,ax,ay,az", "t,roll_speed,pitch_speed,yaw_speed,ax,ay,az"] {
            let path = TestData.writeTemporary(header + "\n0.01,0,0,0,0,0,9.8\n0.02,0,0,0,0,0,9.8\n")
            let r = CommandRunner.run(["replay", path, "--output", dir + "/o.csv"])
            XCTAssertFalse(r.err.contains("are an orientation"), "\(header): \(r.err)")
        }
        let rates = TestData.writeTemporary(
            "t,roll_rate,pitch_rate,yaw_rate,acc_x,acc_y,acc_z\n0.01,0,0,0,0,0,9.8\n0.02,0,0,0,0,0,9.8\n")
        let read = CommandRunner.run(["replay", rates, "--output", dir + "/r.csv"])
        XCTAssertEqual(read.status, 0, read.err)
    }
}
