import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionIO

/// Device makers' logs a reviewer ran on real recordings, read with no options.
extension LayoutTests {
    /// ST SensorTile: `GyroX [mdps]` is millidegrees per second (every gyroscope value was
    /// dropped as beyond range, with a raw-counts proposal); `--units` takes `mdps` and `mdeg/s`,
    /// and the magnetometer's milligauss as `mgauss` or `mG`.
    func testSTSensorTileMillidegreesPerSecond() throws {
        let r = try read("st_sensortile.csv")
        assertChosen(r, time: "T [ms]", gyr: "GyroX [mdps]", acc: "AccX [mg]", mag: nil)
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180_000, accuracy: 1e-18)
        XCTAssertEqual(r.layout.units.accelerometer, standardGravity / 1000, accuracy: 1e-15)
        XCTAssertEqual(r.trace.samples[0].t, 9.807, accuracy: 1e-9)
        // Whole mg and tens of mdps: the reference within their rounding.
        assertReference(r, sensors: [.gyroscope, .accelerometer], tolerance: 1e-3)
        XCTAssertFalse(r.trace.warnings.contains { !$0.isNote }, "\(r.trace.warnings)")
        let err = assertReplays("st_sensortile.csv")
        XCTAssertFalse(err.contains("warning"), err)
        for spelling in ["mdps", "mdeg/s", "mdeg/sec"] {
            var units = SensorUnits()
            try units.set(spec: "gyr=\(spelling)")
            XCTAssertEqual(units.gyroscope, .pi / 180_000, accuracy: 1e-18, spelling)
        }
        for spelling in ["mgauss", "mG"] {
            var units = SensorUnits()
            try units.set(spec: "mag=\(spelling)")
            XCTAssertEqual(units.magnetometer, 0.1, spelling)
        }
        // The unit after an underscore, as `gyro_x_dps` is read.
        var underscored = "t,gyro_x_mdps,gyro_y_mdps,gyro_z_mdps\n"
        for k in 0..<100 { underscored += "\(Double(k) / 50),1000,0,-2000\n" }
        let u = try TraceFormat.load(path: TestData.writeTemporary(underscored, name: "mdps.csv"))
        XCTAssertEqual(try XCTUnwrap(u.samples[5].gyroscope).z, -2 * .pi / 180, accuracy: 1e-12)
        // The same rows under names without units read with --units gyr=mdps.
        let text = try String(contentsOfFile: Self.path("st_sensortile.csv"), encoding: .utf8)
        let bare = text.replacingOccurrences(of: " [mdps]", with: "")
        let p = TestData.writeTemporary(bare, name: "st.csv")
        XCTAssertEqual(CommandRunner.run(["info", p, "--units", "gyr=mdps"]).status, 0)
        var options = DelimitedReadOptions()
        options.units = "gyr=mdps"
        let reader = try TraceFormat.open(path: p, options: options)
        let given = try reader.readTrace()
        XCTAssertEqual(given.samples.count, Self.reference.samples.count)
        XCTAssertLessThan((given.samples[25].gyroscope! - Self.reference.samples[25].gyroscope!).norm, 1e-3)
    }

    /// LP-Research LPMS (OpenMAT/LpmsControl CSV): the accelerometer is written with gravity's sign
    /// (−1 g along z lying level), so it is read negated with a note, as Core Motion's raw one; the
    /// level device reads roll and pitch near 0 (it read upside down, roll 180°, exit 0) and the
    /// replayed roll and pitch follow the file's own Euler angles; `--units acc=…` keeps the
    /// minus; the same names without `SensorId` and `FrameNumber` are read as written.
    func testLPMSAccelerometerWithGravitysSign() throws {
        let r = try read("lpms_b2.csv")
        assertChosen(r, time: "TimeStamp (s)", gyr: "GyroX (deg/s)", acc: "AccX (g)", mag: "MagX (uT)")
        XCTAssertEqual(r.layout.units.accelerometerSign, -1)
        let note = try XCTUnwrap(r.notes.first { $0.contains("LPMS") }, "\(r.notes)")
        XCTAssert(note.contains("read negated") && note.contains("kept whatever unit"), note)
        let first = try XCTUnwrap(r.trace.samples[0].accelerometer)
        XCTAssertEqual(first.z, 9.81, accuracy: 0.05)
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], tolerance: 1e-6)
        // Replayed: roll and pitch near the file's EulerX and EulerY (the first rows, level,
        // within 1°; through the turns within 3°).
        let out = TestData.temporaryDirectory() + "/lpms.csv"
        let run = CommandRunner.run(["replay", Self.path("lpms_b2.csv"), "--output", out])
        XCTAssertEqual(run.status, 0, run.err)
        let estimates = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").dropFirst()
        let file = try String(contentsOfFile: Self.path("lpms_b2.csv"), encoding: .utf8).split(separator: "\n")
            .dropFirst()
        XCTAssertEqual(estimates.count, file.count)
        for (k, (e, f)) in zip(estimates, file).enumerated() {
            let got = e.split(separator: ",").map { Double($0) }
            let stated = f.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
            let limit = k < 10 ? 1.0 : 3.0
            XCTAssertEqual(try XCTUnwrap(got[5]), try XCTUnwrap(stated[12]), accuracy: limit, "roll, row \(k)")
            XCTAssertEqual(try XCTUnwrap(got[6]), try XCTUnwrap(stated[13]), accuracy: limit, "pitch, row \(k)")
        }
        for unit in ["g", "-g", "m/s2"] {
            var stated = DelimitedReadOptions()
            stated.units = "acc=\(unit)"
            XCTAssertEqual(try read("lpms_b2.csv", stated).layout.units.accelerometerSign, -1, unit)
        }
        // Another maker's `AccX (g)` (no SensorId, no FrameNumber) keeps its sign.
        let text = try String(contentsOfFile: Self.path("lpms_b2.csv"), encoding: .utf8)
        let other = TestData.writeTemporary(
            text.replacingOccurrences(of: "SensorId", with: "Device").replacingOccurrences(
                of: "FrameNumber", with: "Counter"), name: "other.csv")
        let plain = try TraceFormat.open(path: other, options: .init())
        let base = try XCTUnwrap((plain as? UnitCheckingReader)?.base as? DelimitedTraceReader)
        XCTAssertEqual(base.layout.units.accelerometerSign, 1)
        // An LPMS writing fewer outputs (no quaternion, no linear acceleration) is one still.
        let fewer = TestData.writeTemporary(
            text.replacingOccurrences(of: "QuatW", with: "Other").replacingOccurrences(
                of: "LinAccX (g)", with: "Spare"),
            name: "fewer.csv")
        let fewerReader = try TraceFormat.open(path: fewer, options: .init())
        let fewerBase = try XCTUnwrap((fewerReader as? UnitCheckingReader)?.base as? DelimitedTraceReader)
        XCTAssertEqual(fewerBase.layout.units.accelerometerSign, -1)
        // Nor do another logger's generic `sensor_id,frame_number,…,acc_x` (the specific force,
        // +1 g along z lying level), read as written: roll near 0, not 180°.
        var generic = "timestamp,sensor_id,frame_number,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z\n"
        for k in 0..<200 { generic += "\(Double(k) / 100),1,\(k),0.01,-0.02,9.81,0,0,0\n" }
        let g = TestData.writeTemporary(generic, name: "generic.csv")
        let genericReader = try TraceFormat.open(path: g, options: .init())
        let genericBase = try XCTUnwrap((genericReader as? UnitCheckingReader)?.base as? DelimitedTraceReader)
        XCTAssertEqual(genericBase.layout.units.accelerometerSign, 1)
        XCTAssertEqual(try XCTUnwrap(genericReader.readTrace().samples[0].accelerometer).z, 9.81, accuracy: 1e-9)
    }

    /// An Arduino Nano 33 BLE's IMU_Capture output (`aX,…,gZ`, no clock) of a gesture that never
    /// rests: the gyroscope's peaks prove °/s and the accelerometer's norms, steady near 1 through
    /// the motion, prove g (it stayed m/s² with a warning, every sample rejected); accelerations
    /// with gravity removed, spread from 0 with a median near 1, stay m/s² with the warning.
    func testGestureNeverAtRestIsReadInG() throws {
        var options = DelimitedReadOptions()
        options.sampleRate = 119
        let r = try read("arduino_imu_capture.csv", options)
        XCTAssertEqual(r.layout.units.accelerometer, standardGravity)
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180)
        let note = try XCTUnwrap(r.unitNote, "\(r.notes)")
        XCTAssert(note.contains("gyr=deg/s"), note)
        XCTAssert(note.contains("acc=g (the accelerometer's median norm is 1.0"), note)
        let norms = r.trace.samples.compactMap { $0.accelerometer?.norm }
        XCTAssertEqual(UnitCheck.median(norms) ?? 0, standardGravity, accuracy: 0.2)
        XCTAssertFalse(r.trace.warnings.contains { !$0.isNote }, "\(r.trace.warnings)")
        let run = CommandRunner.run([
            "replay", Self.path("arduino_imu_capture.csv"), "--sample-rate", "119", "--output",
            TestData.temporaryDirectory() + "/g.csv",
        ])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(run.err.contains("warning"), run.err)

        // Gravity removed (a hand's acceleration alone, m/s²): the median norm is near 1 too, but
        // fewer than two thirds of the norms are near it: no unit applied, the warning stays.
        let rows = try String(contentsOfFile: Self.path("arduino_imu_capture.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst()
        var text = "aX,aY,aZ,gX,gY,gZ\n"
        var linear = [Double]()
        for (k, row) in rows.enumerated() {
            let t = Double(k) / 119
            let a = Vector3(
                1.2 * sin(2 * .pi * 2 * t), 0.9 * cos(2 * .pi * 3 * t), 0.6 * sin(2 * .pi * 5 * t + 0.5))
            linear.append(a.norm)
            text += "\(a.x),\(a.y),\(a.z),\(row.split(separator: ",").suffix(3).joined(separator: ","))\n"
        }
        XCTAssert((0.8...1.2).contains(UnitCheck.median(linear) ?? 0))
        let p = TestData.writeTemporary(text, name: "linear.csv")
        let reader = try TraceFormat.open(path: p, options: options)
        let base = try XCTUnwrap((reader as? UnitCheckingReader)?.base as? DelimitedTraceReader)
        let trace = try reader.readTrace()
        XCTAssertEqual(base.layout.units.accelerometer, 1)
        XCTAssertEqual(base.layout.units.gyroscope, .pi / 180)
        XCTAssert(trace.warnings.contains { $0.message.contains("looks like g") }, "\(trace.warnings)")
    }

    /// ActiGraph exports (ActiLife): the rate stated in the first line before the header
    /// (`… at 25 Hz`) times rows without a clock; `Accelerometer X`, `Gyroscope X` and
    /// `Magnetometer X` without units are g, °/s and µT, with a note (the gyroscope of a device at
    /// rest cannot show its unit); the `Timestamp` column's `11/14/2023 22:13:20.000` is month first,
    /// as the preamble's `date format M/d/yyyy` states, and read as seconds since 1970; `--units`
    /// still overrides.
    func testActiGraphExportRateUnitsAndMonthFirstDates() throws {
        for name in ["actigraph_imu.csv", "actigraph_imu_timestamp.csv"] {
            let r = try read(name)
            assertChosen(
                r, time: name.contains("timestamp") ? "Timestamp" : nil, gyr: "Gyroscope X", acc: "Accelerometer X",
                mag: "Magnetometer X")
            XCTAssertEqual(r.layout.units.accelerometer, standardGravity, name)
            XCTAssertEqual(r.layout.units.gyroscope, .pi / 180, name)
            XCTAssertEqual(r.layout.units.magnetometer, 1, name)
            XCTAssert(r.notes.contains { $0.contains("ActiGraph export") }, "\(r.notes)")
            assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], tolerance: 1e-5)
            let err = assertReplays(name)
            XCTAssertFalse(err.contains("warning"), err)
        }
        let stamped = try read("actigraph_imu_timestamp.csv")
        XCTAssertEqual(stamped.trace.samples[0].t, 1_700_000_000, accuracy: 1e-6)
        XCTAssert(stamped.notes.contains { $0.contains("month first") }, "\(stamped.notes)")
        var options = DelimitedReadOptions()
        options.units = "gyr=rad/s"
        let overridden = try read("actigraph_imu.csv", options)
        XCTAssertEqual(overridden.layout.units.gyroscope, 1)
        let note = try XCTUnwrap(overridden.notes.first { $0.contains("ActiGraph export") })
        XCTAssert(note.contains("acc in g") && !note.contains("gyr"), note)
        // Choosing the columns keeps ActiLife's units; so does a line above its preamble (Excel's
        // `sep=,`).
        var columns = DelimitedReadOptions()
        columns.columns = "t=Timestamp"
        XCTAssertEqual(try read("actigraph_imu_timestamp.csv", columns).layout.units.gyroscope, .pi / 180)
        let text = try String(contentsOfFile: Self.path("actigraph_imu.csv"), encoding: .utf8)
        let sep = try TraceFormat.open(
            path: TestData.writeTemporary("sep=,\n" + text, name: "ag.csv"), options: .init())
        XCTAssertEqual(
            try XCTUnwrap((sep as? UnitCheckingReader)?.base as? DelimitedTraceReader).layout.units.gyroscope, .pi / 180
        )
        // The rate is the one `at N Hz` gives, not another number of Hz in the line.
        XCTAssertEqual(
            Preamble.statedRate(["--- Data File Created By ActiGraph (0.5 Hz high-pass off) ActiLife at 25 Hz ---"])?
                .rate, 25)
        // A stated month-first format still reads dates with their year first.
        XCTAssertEqual(try XCTUnwrap(DateTimeText.seconds("2024-03-01 10:00:00.5", monthFirst: true)), 1_709_287_200.5)

        // The date format and the rate are the preamble's: month first only where it is stated.
        XCTAssertEqual(try XCTUnwrap(DateTimeText.seconds("3/1/2024 10:00:00.5", monthFirst: true)), 1_709_287_200.5)
        XCTAssertNil(DateTimeText.seconds("3/1/2024 10:00:00.5"))
        XCTAssertNil(DateTimeText.seconds("14/11/2023 22:13:20", monthFirst: true))
        XCTAssertTrue(Preamble.statesMonthFirstDates(["Created By ActiGraph … date format M/d/yyyy at 100 Hz"]))
        XCTAssertFalse(Preamble.statesMonthFirstDates(["date format d/M/yyyy"]))
        XCTAssertEqual(
            Preamble.statedRate(["------------ Data File Created By ActiGraph GT9X ActiLife v6 at 100 Hz  ---"])?.rate,
            100)
        XCTAssertNil(Preamble.statedRate(["Recorded by a phone at 100 Hz"]))
    }
}
