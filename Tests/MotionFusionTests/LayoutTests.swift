import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionCommandLine
@testable import MotionFusionIO

/// Recordings as other projects write them (issue #24), read with no options: ROS exports,
/// VectorNav, Xsens MT Manager and DOT, the x-IMU GUI, flight and GNSS/INS logs, Arduino logs,
/// sensor headings over bare axes, units rows. Each fixture in `Fixtures/Layouts` holds one motion
/// (`reference.csv`, SI) written as its source writes it: the columns chosen, the units applied
/// and the samples must be the reference's, and `replay` must run. Where nothing is recognised,
/// the error proposes a call that reads the file.
final class LayoutTests: XCTestCase {
    static let folder = TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/Layouts"
    static func path(_ name: String) -> String { folder + "/" + name }

    /// The motion every fixture holds, in SI.
    static let reference: Trace = try! TraceFormat.load(path: path("reference.csv"))

    /// A fixture's trace, and the layout, column names and notes its reader chose.
    struct Read {
        var trace: Trace
        var layout: ColumnLayout
        var names: [String]
        var notes: [String] { trace.warnings.filter(\.isNote).map(\.message) }
        var unitNote: String? { notes.first { $0.hasPrefix(UnitEvidence.notePrefix) } }
        /// The name of the column chosen for `slot`, if any.
        func name(_ slot: ColumnLayout.Slot) -> String? { layout.columns[slot].map { names[$0] } }
    }

    func read(_ name: String, _ options: DelimitedReadOptions = .init()) throws -> Read {
        let reader = try TraceFormat.open(path: Self.path(name), options: options)
        let base = try XCTUnwrap((reader as? UnitCheckingReader)?.base as? DelimitedTraceReader, name)
        return Read(trace: try reader.readTrace(), layout: base.layout, names: base.rows.columnNames)
    }

    /// The names of the columns chosen for the time and each sensor's x (nil: none).
    func assertChosen(
        _ r: Read, time: String?, gyr: String?, acc: String?, mag: String?, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let slots: [(ColumnLayout.Slot, String?)] = [
            (.time, time), (.gyroscopeX, gyr), (.accelerometerX, acc), (.magnetometerX, mag),
        ]
        for (slot, name) in slots { XCTAssertEqual(r.name(slot), name, "\(slot)", file: file, line: line) }
    }

    /// The samples match the reference's: times from the first, each sensor present within
    /// `tolerance` (the printed digits, a unit's rounding); a magnetometer in arbitrary units by
    /// its direction.
    func assertReference(
        _ r: Read, sensors: Set<SensorKind>, tolerance: Double = 1e-6, direction: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let ref = Self.reference.samples
        let got = r.trace.samples
        XCTAssertEqual(got.count, ref.count, file: file, line: line)
        guard got.count == ref.count, let t0 = got.first?.t else { return }
        var worst = [SensorKind: Double]()
        var worstTime = 0.0
        for (g, e) in zip(got, ref) {
            worstTime = max(worstTime, abs((g.t - t0) - e.t))
            func gap(_ a: Vector3?, _ b: Vector3?, _ kind: SensorKind, normalise: Bool = false) {
                guard sensors.contains(kind) else {
                    XCTAssertNil(a, "\(kind) read", file: file, line: line)
                    return
                }
                guard let a, let b else {
                    XCTFail("\(kind) missing at t=\(e.t)", file: file, line: line)
                    return
                }
                let d = normalise ? (a.normalized! - b.normalized!).norm : (a - b).norm / max(1, b.norm)
                worst[kind] = max(worst[kind] ?? 0, d)
            }
            gap(g.gyroscope, e.gyroscope, .gyroscope)
            gap(g.accelerometer, e.accelerometer, .accelerometer)
            gap(g.magnetometer, e.magnetometer, .magnetometer, normalise: direction)
        }
        XCTAssertLessThan(worstTime, 1e-6, "time", file: file, line: line)
        for (kind, w) in worst { XCTAssertLessThan(w, tolerance, "\(kind)", file: file, line: line) }
    }

    /// `replay` runs on the fixture with no options (and `options`), exit 0, and returns its
    /// standard error.
    @discardableResult
    func assertReplays(_ name: String, _ options: [String] = [], file: StaticString = #filePath, line: UInt = #line)
        -> String
    {
        let out = TestData.temporaryDirectory() + "/e.csv"
        let r = CommandRunner.run(["replay", Self.path(name)] + options + ["--output", out])
        XCTAssertEqual(r.status, 0, "\(name): \(r.err)", file: file, line: line)
        let rows = (try? String(contentsOfFile: out, encoding: .utf8))?.split(separator: "\n").count ?? 0
        XCTAssertEqual(rows, Self.reference.samples.count + 1, name, file: file, line: line)
        return r.err
    }

    // MARK: ROS

    func testRostopicEchoImu() throws {
        let r = try read("ros_rostopic_imu.csv")
        // The message's stamp, not `%time` (when it was recorded); ns from the name.
        assertChosen(
            r, time: "field.header.stamp", gyr: "field.angular_velocity.x", acc: "field.linear_acceleration.x", mag: nil
        )
        XCTAssertEqual(r.layout.units.time, 1e-9)
        XCTAssertEqual(r.trace.samples[0].t, 1_700_000_000, accuracy: 1e-6)
        XCTAssertNil(r.unitNote)
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("ros_rostopic_imu.csv")
    }

    func testRostopicEchoMagneticFieldInTesla() throws {
        let r = try read("ros_rostopic_mag.csv")
        XCTAssertEqual(r.name(.time), "field.header.stamp")
        XCTAssertEqual(r.name(.magnetometerX), "field.magnetic_field.x")
        XCTAssertEqual(r.layout.units.magnetometer, 1e6)
        XCTAssert(r.unitNote?.contains("mag=T (the magnetometer's median norm is 4.") == true, "\(r.notes)")
        assertReference(r, sensors: [.magnetometer], tolerance: 1e-6)
    }

    func testPrefixedBagExportWithTeslaAndEpochSeconds() throws {
        let r = try read("ros_prefixed.csv")
        assertChosen(
            r, time: "timestamp", gyr: "imu.angular_velocity.x", acc: "imu.linear_acceleration.x",
            mag: "magnetic_field.x")
        XCTAssert(r.unitNote?.contains("mag=T") == true, "\(r.notes)")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer])
        let err = assertReplays("ros_prefixed.csv")
        XCTAssert(err.contains("note: units from the readings: mag=T"), err)
        XCTAssert(err.contains("--units mag=… overrides"), err)
    }

    func testBagpySecondsAndNanosecondsOverTheRecordingTime() throws {
        let r = try read("ros_bagpy_imu.csv")
        XCTAssertEqual(r.name(.time), "header.stamp.secs")
        XCTAssertEqual(r.name(.timeNanoseconds), "header.stamp.nsecs")
        XCTAssertEqual(r.name(.gyroscopeX), "angular_velocity.x")
        XCTAssertEqual(r.name(.accelerometerX), "linear_acceleration.x")
        XCTAssertEqual(r.trace.samples[1].t, 1_700_000_000.04, accuracy: 1e-6)
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("ros_bagpy_imu.csv")
    }

    /// A bag flattened with a message that nests an IMU message (each with a header): the outer
    /// header's stamp is the time, over the nested one's (a driver left it 0).
    func testTheOuterHeaderStampIsTheTime() throws {
        let header =
            "Time,header.seq,header.stamp.secs,header.stamp.nsecs,imu.header.seq,imu.header.stamp.secs,imu.header.stamp.nsecs,imu.angular_velocity.x,imu.angular_velocity.y,imu.angular_velocity.z,imu.linear_acceleration.x,imu.linear_acceleration.y,imu.linear_acceleration.z\n"
        let rows = (0..<50).map { k in
            let ns = 500_000_000 + k * 25_000_000
            return
                "\(1_711_483_461.52 + Double(k) * 0.025),\(k),\(1_711_483_461 + ns / 1_000_000_000),\(ns % 1_000_000_000),0,0,0,0.01,0,-0.25,0.3,-0.4,-9.7\n"
        }
        let trace = try TraceFormat.load(path: TestData.writeTemporary(header + rows.joined()))
        XCTAssertEqual(trace.samples[1].t - trace.samples[0].t, 0.025, accuracy: 1e-6)
        XCTAssertEqual(trace.samples[0].t, 1_711_483_461.5, accuracy: 1e-6)
    }

    func testRos2StampSecAndNanosec() throws {
        let r = try read("ros2_imu.csv")
        XCTAssertEqual(r.name(.time), "header.stamp.sec")
        XCTAssertEqual(r.name(.timeNanoseconds), "header.stamp.nanosec")
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("ros2_imu.csv")
    }

    // MARK: VectorNav and Xsens

    func testVectorNavExportInGauss() throws {
        let r = try read("vectornav.csv")
        assertChosen(r, time: "TimeStartup", gyr: "GyroX", acc: "AccelX", mag: "MagX")
        XCTAssertEqual(r.layout.units.time, 1e-9)
        XCTAssertEqual(r.layout.units.magnetometer, 100)
        XCTAssert(r.unitNote?.contains("mag=gauss") == true, "\(r.notes)")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer])
        assertReplays("vectornav.csv")
        let snake = try read("vectornav_snake.csv")
        XCTAssertEqual(snake.trace.format, "native")
        assertChosen(snake, time: "time_s", gyr: "gyro_x", acc: "accel_x", mag: "mag_x")
        assertReference(snake, sensors: [.gyroscope, .accelerometer, .magnetometer])
        assertReplays("vectornav_snake.csv")
    }

    /// An MTi's SampleTimeFine counts 10 kHz ticks (told from the steps) and wraps at 2³² in
    /// this file; the magnetometer is in arbitrary units.
    func testXsensMTManagerTicksWrapping() throws {
        let r = try read("xsens_mtmanager.txt")
        assertChosen(r, time: "SampleTimeFine", gyr: "Gyr_X", acc: "Acc_X", mag: "Mag_X")
        XCTAssertEqual(r.layout.units.time, 1e-4)
        XCTAssert(r.unitNote?.contains("t=100us (SampleTimeFine steps by 400.0 per sample") == true, "\(r.notes)")
        XCTAssert(r.notes.contains { $0.contains("skipped 5 lines before the header") })
        let times = r.trace.samples.map(\.t)
        XCTAssert(zip(times, times.dropFirst()).allSatisfy { $1 > $0 }, "the wrap is undone")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], direction: true)
        assertReplays("xsens_mtmanager.txt")
    }

    /// A DOT's SampleTimeFine counts µs (wrapping at 2³²), its gyroscope deg/s without saying so.
    func testXsensDotMicrosecondsAndDegreesPerSecond() throws {
        let r = try read("xsens_dot.csv")
        XCTAssertEqual(r.name(.time), "SampleTimeFine")
        XCTAssertEqual(r.layout.units.time, 1e-6)
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180)
        XCTAssert(r.unitNote?.contains("gyr=deg/s (the accelerometer turned by") == true, "\(r.notes)")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], direction: true)
        assertReplays("xsens_dot.csv")
    }

    /// A SampleTimeFine column re-exported in seconds (fractions of one per step, which no counter
    /// makes) is read as seconds, not as 10 kHz ticks.
    func testSampleTimeFineInSecondsIsReadAsSeconds() throws {
        var text = "PacketCounter,SampleTimeFine,Acc_X,Acc_Y,Acc_Z,Gyr_X,Gyr_Y,Gyr_Z\n"
        for i in 0..<200 { text += "\(i),\(12.5 + Double(i) * 0.01),0,0,9.81,0.01,0,0\n" }
        let trace = try TraceFormat.load(path: TestData.writeTemporary(text))
        XCTAssertEqual(trace.samples[1].t - trace.samples[0].t, 0.01, accuracy: 1e-9)
        XCTAssertEqual(trace.samples[0].t, 12.5, accuracy: 1e-9)
        let note = trace.warnings.first { $0.message.hasPrefix(UnitEvidence.notePrefix) }?.message ?? ""
        XCTAssert(note.contains("t=s (SampleTimeFine steps by 0.01 per sample: seconds"), note)
    }

    /// MT Manager rows exported without a time stamp (OpenSim's test data): the rate the lines
    /// before the header state times them.
    func testXsensExportWithAnEmptyTimeColumnIsTimedAtTheStatedRate() throws {
        let r = try read("xsens_mtmanager_opensim.txt")
        XCTAssertNil(r.name(.time))
        XCTAssertEqual(r.name(.accelerometerX), "Acc_X")
        XCTAssertEqual(r.name(.gyroscopeX), "Gyr_X")
        XCTAssertEqual(r.trace.samples.count, 40)
        XCTAssertEqual(r.trace.samples[39].t, 0.39, accuracy: 1e-12)
        XCTAssertEqual(r.trace.samples[0].accelerometer, Vector3(9.645108, 0.128211, -1.834658))
        XCTAssert(
            r.notes.contains {
                $0.contains("the time column 'SampleTimeFine' is empty: rows timed at 100.0 Hz")
                    && $0.contains("'// Update Rate: 100.0Hz'")
            }, "\(r.notes)")
        XCTAssertEqual(r.trace.warnings.filter { !$0.isNote && $0.message.contains("time") }, [])
    }

    /// HyperIMU without its timestamp: the rows are timed at the sampling period a line before the
    /// header states (`Sampling Time: 40ms`, 25 Hz), said in a note.
    func testHyperIMUIsTimedAtTheStatedSamplingPeriod() throws {
        let r = try read("hyperimu_no_time.csv")
        assertChosen(r, time: nil, gyr: "MPL_Gyroscope.x", acc: "MPL_Accelerometer.x", mag: nil)
        XCTAssertEqual(r.trace.samples[1].t - r.trace.samples[0].t, 0.04, accuracy: 1e-12)
        XCTAssert(
            r.notes.contains { $0.contains("rows timed at 25.0 Hz") && $0.contains("Sampling Time: 40ms") },
            "\(r.notes)")
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("hyperimu_no_time.csv")
    }

    /// AndroSensor: the raw accelerometer over gravity and the linear acceleration beside it, and
    /// the time since start in ms as its name says in words (`Time since start in ms `).
    func testAndroSensorTimeInMillisecondsNamedInWords() throws {
        let r = try read("androsensor.csv")
        assertChosen(
            r, time: "Time since start in ms", gyr: "GYROSCOPE X (rad/s)", acc: "ACCELEROMETER X (m/s²)",
            mag: "MAGNETIC FIELD X (μT)")
        XCTAssertEqual(r.layout.units.time, 1e-3)
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer])
        assertReplays("androsensor.csv")
    }

    // MARK: The x-IMU GUI, flight, GNSS/INS and Arduino logs

    /// The x-IMU GUI's CalInertialAndMag.csv has units in its names but no clock: the error says
    /// so and proposes the rate.
    func testXIMUGuiHasNoClock() throws {
        let p = Self.path("ximu_gui_calinertialandmag.csv")
        let r = CommandRunner.run(["replay", p, "--output", TestData.temporaryDirectory() + "/e.csv"])
        XCTAssertEqual(r.status, 1)
        XCTAssert(r.err.contains("\(p):1: no time column (the header names gyroscope 'Gyroscope X (deg/s)'…"), r.err)
        XCTAssert(r.err.contains("'Packet number' counts samples or packets, it is no clock"), r.err)
        XCTAssert(r.err.contains("give it: --sample-rate HZ"), r.err)
        XCTAssertFalse(r.err.contains("unrecognised header"), r.err)
        var options = DelimitedReadOptions()
        options.sampleRate = 25
        let read = try self.read("ximu_gui_calinertialandmag.csv", options)
        XCTAssertEqual(read.layout.units.gyroscope, .pi / 180)
        XCTAssertEqual(read.layout.units.accelerometer, standardGravity)
        XCTAssertEqual(read.layout.units.magnetometer, 100)
        XCTAssertNil(read.unitNote)
        assertReference(read, sensors: [.gyroscope, .accelerometer, .magnetometer])
        assertReplays("ximu_gui_calinertialandmag.csv", ["--sample-rate", "25"])
    }

    func testBodyRatesPQR() throws {
        let r = try read("pqr.csv")
        XCTAssertEqual(r.name(.gyroscopeX), "p")
        XCTAssertEqual(r.name(.gyroscopeZ), "r")
        XCTAssertEqual(r.name(.accelerometerX), "ax")
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("pqr.csv")
        // A lone `p` (a pressure, say) is no gyroscope, and no error.
        let lone = try TraceFormat.load(
            path: TestData.writeTemporary("t,p,ax,ay,az\n0,1013,0,0,9.8\n0.01,1013,0,0,9.8\n"))
        XCTAssertNil(lone.samples[0].gyroscope)
    }

    func testGPSTimeAndDegreesPerSecond() throws {
        let r = try read("gpst.csv")
        assertChosen(r, time: "GPST", gyr: "Gx", acc: "Ax", mag: nil)
        XCTAssert(r.unitNote?.contains("gyr=deg/s") == true, "\(r.notes)")
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("gpst.csv")
    }

    func testArduinoLogInGAndDegreesPerSecond() throws {
        let r = try read("arduino_ax_gz.csv")
        XCTAssertEqual(r.name(.time), "Time")
        XCTAssertEqual(r.layout.units.accelerometer, standardGravity)
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180)
        let note = try XCTUnwrap(r.unitNote)
        XCTAssert(note.contains("gyr=deg/s (the accelerometer turned by"), note)
        XCTAssert(note.contains("acc=g (the accelerometer reads 1.0"), note)
        XCTAssert(note.hasSuffix("--units gyr=…,acc=… overrides"), note)
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        let err = assertReplays("arduino_ax_gz.csv")
        XCTAssertFalse(err.contains("warning"), err)
        // --units overrides what the readings show.
        var asIs = DelimitedReadOptions()
        asIs.units = "acc=m/s2"
        let given = try read("arduino_ax_gz.csv", asIs)
        XCTAssertEqual(given.layout.units.accelerometer, 1)
        XCTAssertEqual(given.layout.units.gyroscope, .pi / 180)
        XCTAssertFalse(given.unitNote?.contains("acc=") ?? true)
    }

    /// SensorLog (iOS): the raw sensors over Core Motion's fused values beside them, the
    /// gyroscope's clock over the row's wall clock, and the raw accelerometer negated (iOS writes
    /// −1 g along z on a phone lying face up), said in a note; `--units acc=g`, `acc=-g` and
    /// `acc=m/s2` give its unit and keep Core Motion's minus, as for MotionSense's device motion
    /// (a phone face up still reads +1 g up, not upside down); only the accelerometer takes a sign.
    func testSensorLogRawColumnsClockAndSign() throws {
        let r = try read("sensorlog_ios.csv")
        assertChosen(
            r, time: "gyroTimestamp_sinceReboot(s)", gyr: "gyroRotationX(rad/s)", acc: "accelerometerAccelerationX(G)",
            mag: "magnetometerX(µT)")
        XCTAssertEqual(r.layout.units.accelerometerSign, -1)
        XCTAssert(r.notes.contains { $0.contains("Core Motion") && $0.contains("read negated") }, "\(r.notes)")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], tolerance: 1e-5)
        assertReplays("sensorlog_ios.csv")
        for (unit, scale) in [("g", standardGravity), ("-g", standardGravity), ("m/s2", 1.0)] {
            var stated = DelimitedReadOptions()
            stated.units = "acc=\(unit)"
            let given = try read("sensorlog_ios.csv", stated)
            XCTAssertEqual(given.layout.units.accelerometerSign, -1, unit)
            // Face up: z +1.002 in the unit stated (written -1.00203806).
            let first = try XCTUnwrap(given.trace.samples[0].accelerometer)
            XCTAssertEqual(first.z / scale, 1.00203806, accuracy: 1e-9, unit)
            XCTAssert(given.notes.contains { $0.contains("read negated") && $0.contains("kept whatever unit") }, unit)
        }
        var negated = DelimitedReadOptions()
        negated.units = "acc=-g"
        XCTAssertEqual(try read("arduino_ax_gz.csv", negated).layout.units.accelerometerSign, -1)
        negated.units = "gyr=-deg/s"
        XCTAssertThrowsError(try read("arduino_ax_gz.csv", negated)) {
            XCTAssert("\($0)".contains("only the accelerometer takes a minus sign"), "\($0)")
        }
    }

    /// MotionSense (iOS Core Motion device motion): no raw accelerometer, so the specific force is
    /// −(gravity + userAcceleration) × 9.80665 m/s², said in a note; no clock, so the rate is asked
    /// for as for any file without a time column.
    func testMotionSenseSpecificForceFromGravityAndUserAcceleration() throws {
        let p = Self.path("motionsense.csv")
        assertAsksForTheRate(p, "\(p):1: no time column (the header names gyroscope 'rotationRate.x'…")
        var options = DelimitedReadOptions()
        options.sampleRate = 25
        let r = try read("motionsense.csv", options)
        assertChosen(r, time: nil, gyr: "rotationRate.x", acc: "userAcceleration.x", mag: nil)
        XCTAssertEqual(r.name(.gravityX), "gravity.x")
        XCTAssertEqual(r.name(.gravityZ), "gravity.z")
        XCTAssertEqual(r.layout.units.accelerometer * r.layout.units.accelerometerSign, -standardGravity)
        XCTAssert(
            r.notes.contains { $0.contains("-('gravity.x' + 'userAcceleration.x')… × 9.80665 m/s²") }, "\(r.notes)")
        XCTAssertEqual(r.trace.samples[1].t - r.trace.samples[0].t, 0.04, accuracy: 1e-12)
        // Lying level face up at the start: +9.81 m/s² up, within 1° of the device's z.
        let first = try XCTUnwrap(r.trace.samples[0].accelerometer)
        XCTAssertEqual(first.norm, standardGravity, accuracy: 0.1)
        XCTAssertLessThan(acos(first.z / first.norm) * 180 / .pi, 1)
        assertReference(r, sensors: [.gyroscope, .accelerometer], tolerance: 1e-5)
        assertReplays("motionsense.csv", ["--sample-rate", "25"])
        // The user acceleration alone, chosen by name, is read as written.
        options.columns = "acc=userAcceleration.x"
        let alone = try read("motionsense.csv", options)
        XCTAssertNil(alone.name(.gravityX))
        XCTAssertEqual(alone.layout.units.accelerometerSign, 1)
    }

    /// MotionSense with the unit stated: `--units acc=g`, `acc=-g` and `acc=m/s2` give the unit of
    /// the gravity and user acceleration; Core Motion's minus stays, so the phone still reads
    /// +9.81 m/s² up face up (the note says so); an empty gravity cell is reported at its column.
    func testMotionSenseKeepsCoreMotionsSignWhateverUnitIsStated() throws {
        var options = DelimitedReadOptions()
        options.sampleRate = 25
        for (unit, scale) in [("g", standardGravity), ("-g", standardGravity), ("m/s2", 1.0)] {
            options.units = "acc=\(unit)"
            let r = try read("motionsense.csv", options)
            XCTAssertEqual(r.layout.units.accelerometerSign, -1, unit)
            // Read face up: acc z +1 in the unit stated, within 0.005.
            let first = try XCTUnwrap(r.trace.samples[0].accelerometer)
            XCTAssertEqual(first.z / scale, 1, accuracy: 0.005, unit)
            let note = try XCTUnwrap(r.notes.first { $0.contains("Core Motion's device motion") }, unit)
            XCTAssert(note.contains("-('gravity.x' + 'userAcceleration.x')"), note)
            XCTAssert(note.contains("as --units acc=\(unit) states"), note)
            XCTAssert(note.contains(unit == "-g" ? "is this sign, applied once" : "kept whatever unit"), note)
        }
        // The names stating m/s²: the note proposes no --units acc=m/s2.
        let text = try String(contentsOfFile: Self.path("motionsense.csv"), encoding: .utf8)
        let named = TestData.temporaryDirectory() + "/named.csv"
        let firstLine = text.prefix { $0 != "\n" }
        let suffixed =
            firstLine.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.hasPrefix("gravity.") || $0.hasPrefix("userAcceleration.") ? $0 + "(m/s^2)" : $0
            }.joined(separator: ",") + text.dropFirst(firstLine.count)
        try suffixed.write(toFile: named, atomically: true, encoding: .utf8)
        options.units = nil
        let stated = try TraceFormat.load(path: named, options: options).warnings.map(\.message)
        let note = try XCTUnwrap(stated.first { $0.contains("Core Motion's device motion") })
        XCTAssert(note.contains("as the names state, m/s^2"), note)
        XCTAssertFalse(note.contains("pass --units acc=m/s2"), note)
        // gravity.z left empty on the data's third row: the fault names its column, not userAcceleration.z's.
        var lines = try String(contentsOfFile: Self.path("motionsense.csv"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var fields = lines[3].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let original = fields
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let gravityZ = try XCTUnwrap(header.firstIndex(of: "gravity.z"))
        fields[gravityZ] = ""
        lines[3] = fields.joined(separator: ",")
        let gap = TestData.temporaryDirectory() + "/gap.csv"
        try lines.joined(separator: "\n").write(toFile: gap, atomically: true, encoding: .utf8)
        options.units = nil
        let reader = try TraceFormat.open(path: gap, options: options)
        _ = try reader.readTrace()
        let fault = try XCTUnwrap(reader.faults.tallies[.partialAxes])
        XCTAssertEqual(fault.first.line, 4)
        XCTAssertEqual(fault.first.column, fields[..<gravityZ].map { $0.count + 1 }.reduce(1, +))
        // All three gravity cells empty beside a user acceleration: a fault at gravity.x, not
        // silence; all three user acceleration cells empty beside gravity: one at userAcceleration.x.
        let userX = try XCTUnwrap(header.firstIndex(of: "userAcceleration.x"))
        for (x, said) in [(gravityZ - 2, "gravity is missing"), (userX, "user acceleration is missing")] {
            fields = original
            for c in x...x + 2 { fields[c] = "" }
            lines[3] = fields.joined(separator: ",")
            try lines.joined(separator: "\n").write(toFile: gap, atomically: true, encoding: .utf8)
            let none = try TraceFormat.open(path: gap, options: options)
            XCTAssertNil(try none.readTrace().samples[2].accelerometer, said)
            let missing = try XCTUnwrap(none.faults.tallies[.partialAxes], said)
            XCTAssertEqual(missing.count, 1, said)
            XCTAssertEqual(missing.first.line, 4, said)
            XCTAssertEqual(missing.first.column, fields[..<x].map { $0.count + 1 }.reduce(1, +), said)
            XCTAssert(missing.detail.contains(said), missing.detail)
        }
    }

    /// FIRM flight-computer packets: snake-case names ending in their unit (`raw_acceleration_x_gs`,
    /// `raw_angular_rate_x_deg_per_s`, `magnetic_field_x_microteslas`) are read in it; the
    /// temperature and pressure beside them and the board's estimates (`est_acceleration_x_gs`)
    /// are no sensor.
    func testFIRMUnitSuffixedNamesAndNoTemperatureAsASensor() throws {
        let r = try read("firm.csv")
        assertChosen(
            r, time: "timestamp_seconds", gyr: "raw_angular_rate_x_deg_per_s", acc: "raw_acceleration_x_gs",
            mag: "magnetic_field_x_microteslas")
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180)
        XCTAssertEqual(r.layout.units.accelerometer, standardGravity)
        XCTAssertEqual(r.layout.units.magnetometer, 1)
        XCTAssertNil(r.unitNote)
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], tolerance: 1e-5)
        assertReplays("firm.csv")
        for (name, unit) in [
            ("gyro_x_dps", "deg/s"), ("gyro_x_rad_per_s", "rad/s"), ("accel_x_gs", "g"), ("mag_x_ut", "uT"),
            ("mag_x_gauss", "gauss"),
        ] {
            XCTAssertEqual(ColumnLayout.match(name)?.unit, unit, name)
        }
        for name in ["temperature_celsius", "pressure_pascals", "altitude", "est_acceleration_x_gs", "temp_x"] {
            XCTAssertNil(ColumnLayout.match(name), name)
        }
    }

    /// PX4's `sensor_combined` as ulog2csv writes it: `gyro_rad[i]` (rad/s) and
    /// `accelerometer_m_s2[i]` (m/s²), `timestamp` in µs since boot, the axes forward-right-down,
    /// read as written with a note naming `--remap x,-y,-z`, which gives the reference's axes.
    func testPX4SensorCombinedArraysMicrosecondsAndFRDNote() throws {
        let r = try read("px4_sensor_combined.csv")
        assertChosen(r, time: "timestamp", gyr: "gyro_rad[0]", acc: "accelerometer_m_s2[0]", mag: nil)
        XCTAssertEqual(r.layout.units.time, 1e-6)
        XCTAssertEqual(r.layout.units.gyroscope, 1)
        XCTAssertEqual(r.layout.units.accelerometer, 1)
        XCTAssertEqual(r.trace.samples[0].t, 717.093622, accuracy: 1e-9)
        // Level at rest, FRD as written: -9.81 m/s² on z within 0.05.
        XCTAssertEqual(try XCTUnwrap(r.trace.samples[0].accelerometer).z, -9.81, accuracy: 0.05)
        let note = try XCTUnwrap(r.notes.first { $0.hasPrefix("PX4 columns") }, "\(r.notes)")
        XCTAssert(note.contains("'timestamp' read as µs since boot"), note)
        XCTAssert(note.contains("forward-right-down (FRD") && note.contains("pass --remap x,-y,-z"), note)
        XCTAssertFalse(r.notes.contains { $0.contains("ignoring") }, "\(r.notes)")
        var options = DelimitedReadOptions()
        options.remap = try SensorRemap(spec: "x,-y,-z")
        let turned = try read("px4_sensor_combined.csv", options)
        // Read face up after the remap: acc z +9.81 within 0.05.
        XCTAssertEqual(try XCTUnwrap(turned.trace.samples[0].accelerometer).z, 9.81, accuracy: 0.05)
        assertReference(turned, sensors: [.gyroscope, .accelerometer], tolerance: 1e-5)
        XCTAssert(turned.notes.contains { $0.contains("turned by --remap") }, "\(turned.notes)")
        assertReplays("px4_sensor_combined.csv", ["--remap", "x,-y,-z"])
        XCTAssertEqual(ColumnLayout.match("magnetometer_ga[2]")?.unit, "gauss")
        XCTAssertNil(ColumnLayout.match("delta_angle[0]"))
    }

    /// Physics Toolbox Sensor Suite: the g-force `gFx` (gravity included, in g) over the linear
    /// acceleration `ax` beside it.
    /// A millis() clock since boot under a plain `Timestamp` (whole numbers stepping by 40) would be
    /// 0.025 Hz as seconds: it is read as ms (25 Hz), announced, and the sensors' units are judged
    /// on that clock (g and deg/s, as in `arduino_ax_gz.csv`).
    func testMillisecondsSinceBootAreTheStepsUnit() throws {
        let r = try read("arduino_millis.csv")
        XCTAssertEqual(r.layout.units.time, 1e-3)
        XCTAssertEqual(r.layout.units.accelerometer, standardGravity)
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180)
        let note = try XCTUnwrap(r.unitNote)
        XCTAssert(
            note.contains("t=ms (the times step by 40 per sample in whole numbers: ms (25 Hz), not 0.025 Hz"), note)
        XCTAssert(note.hasSuffix("--units t=…,gyr=…,acc=… overrides"), note)
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        let err = assertReplays("arduino_millis.csv")
        XCTAssertFalse(err.contains("warning"), err)
    }

    func testPhysicsToolboxGForceOverLinearAcceleration() throws {
        let r = try read("physics_toolbox.csv")
        assertChosen(r, time: "time", gyr: "wx", acc: "gFx", mag: nil)
        XCTAssertEqual(r.layout.units.accelerometer, standardGravity)
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("physics_toolbox.csv")
    }

    func testEpochMillisecondsMilliGAndNanotesla() throws {
        let r = try read("epoch_ms_mg_nt.csv")
        XCTAssertEqual(r.layout.units.time, 1e-3)
        XCTAssertEqual(r.layout.units.accelerometer, standardGravity / 1000)
        XCTAssertEqual(r.layout.units.magnetometer, 1e-3)
        let note = try XCTUnwrap(r.unitNote)
        XCTAssert(note.contains("t=ms (the first time, 1700000000000, is an epoch in ms (year 2023))"), note)
        XCTAssert(note.contains("acc=mg") && note.contains("mag=nT"), note)
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer])
        assertReplays("epoch_ms_mg_nt.csv")
    }

    // MARK: Two header rows

    func testSensorHeadingsOverBareAxes() throws {
        let r = try read("sensor_headings.csv")
        XCTAssertEqual(r.name(.time), "Time (s)")
        XCTAssertEqual(r.name(.accelerometerX), "Accelerometer X")
        XCTAssertEqual(r.name(.gyroscopeY), "Gyroscope Y")
        XCTAssertEqual(r.name(.magnetometerZ), "Magnetometer Z")
        XCTAssert(r.notes.contains { $0.contains("read lines 1 and 2 as the header") }, "\(r.notes)")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer])
        assertReplays("sensor_headings.csv")
    }

    /// Shimmer3's Consensys export: `"sep=;"`, the signal names over their units (`ms`, `m/(s^2)`,
    /// `deg/s`, `local_flux`, no physical unit), the ms epoch in E notation, and a separator ending
    /// each line; battery and temperature are no sensors.
    func testShimmerConsensysExport() throws {
        let r = try read("shimmer_consensys.csv")
        XCTAssertEqual(r.name(.time), "Shimmer_40AC_Timestamp_Unix_CAL (ms)")
        XCTAssertEqual(r.name(.accelerometerX), "Shimmer_40AC_Accel_LN_X_CAL (m/(s^2))")
        XCTAssertEqual(r.name(.gyroscopeZ), "Shimmer_40AC_Gyro_Z_CAL (deg/s)")
        XCTAssertEqual(r.name(.magnetometerY), "Shimmer_40AC_Mag_Y_CAL (local_flux)")
        XCTAssertEqual(r.layout.units.time, 1e-3)
        XCTAssertEqual(r.layout.units.gyroscope, .pi / 180)
        XCTAssertTrue(r.layout.units.magnetometerArbitrary)
        XCTAssertEqual(r.trace.samples[0].t, 1_700_000_000, accuracy: 1e-6)
        XCTAssertFalse(r.trace.warnings.contains { !$0.isNote }, "\(r.trace.warnings)")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], direction: true)
        assertReplays("shimmer_consensys.csv")
        // With its wide-range accelerometer beside the low-noise one, the error names both and the
        // `--columns` that choose each; one key chooses, the other columns keep their names.
        let two = CommandRunner.run(["info", Self.path("shimmer_ln_wr.csv")])
        XCTAssertEqual(two.status, 1, two.err)
        XCTAssert(
            two.err.contains("both name the accelerometer x; choose one with --columns acc=2 or --columns acc=5"),
            two.err)
        var options = DelimitedReadOptions()
        options.columns = "acc=5"
        let chosen = try read("shimmer_ln_wr.csv", options)
        XCTAssertEqual(chosen.name(.accelerometerX), "Shimmer_40AC_Accel_WR_X_CAL (m/(s^2))")
        assertReference(chosen, sensors: [.gyroscope, .accelerometer, .magnetometer], direction: true)
    }

    /// WitMotion's PC software: the sensor's `Chip Time()` date-times over `Time`, the computer's
    /// time of day; `Acceleration X(g)`, `Angular velocity X(°/s)`, `Magnetic field X(ʯt)` read,
    /// its own angles, shift, speed and quaternion not.
    func testWitMotionChipTimeOverTheTimeOfDay() throws {
        let r = try read("witmotion.csv")
        XCTAssertEqual(r.name(.time), "Chip Time()")
        XCTAssertEqual(r.name(.accelerometerX), "Acceleration X(g)")
        XCTAssertEqual(r.name(.gyroscopeY), "Angular velocity Y(°/s)")
        XCTAssertEqual(r.name(.magnetometerZ), "Magnetic field Z(ʯt)")
        XCTAssertEqual(r.trace.samples[0].t, 1_700_000_000, accuracy: 1e-6)
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer])
        assertReplays("witmotion.csv")
        // The computer's clock chosen: seconds since midnight, and a note that says so.
        var options = DelimitedReadOptions()
        options.columns = "t=Time"
        let tod = try read("witmotion.csv", options)
        XCTAssertEqual(tod.trace.samples[0].t, 22 * 3600 + 13 * 60 + 20.012, accuracy: 1e-6)
        XCTAssert(tod.notes.contains { $0.contains("holds times of day without a date") }, "\(tod.notes)")
        // A `Chip Time()` left empty (a sensor without a clock): the rows are timed by `Time`.
        let chipless = try TraceFormat.load(
            path: TestData.writeTemporary(
                "Time,Device name,Chip Time(),Acceleration X(g),Acceleration Y(g),Acceleration Z(g)\n"
                    + " 10:00:00.00,WT901,,0,0,1\n 10:00:00.01,WT901,,0,0,1\n 10:00:00.02,WT901,,0,0,1\n"))
        XCTAssertEqual(chipless.samples.last?.t ?? 0, 36_000.02, accuracy: 1e-6)
        XCTAssert(
            chipless.warnings.contains { $0.message.contains("the rows are timed by 'Time'") }, "\(chipless.warnings)")
        // Past midnight the times go on into the next day.
        let midnight = try TraceFormat.load(
            path: TestData.writeTemporary(
                "Time,ax,ay,az\n23:59:59.98,0,0,9.8\n23:59:59.99,0,0,9.8\n00:00:00.00,0,0,9.8\n00:00:00.01,0,0,9.8\n"))
        XCTAssertEqual(midnight.samples.count, 4)
        for (got, want) in zip(midnight.samples.map(\.t), [86_399.98, 86_399.99, 86_400, 86_400.01]) {
            XCTAssertEqual(got, want, accuracy: 1e-6)
        }
        XCTAssertFalse(midnight.warnings.contains { !$0.isNote }, "\(midnight.warnings)")
        // Date-times with one-digit fields, and times of day; a time of day needs its seconds.
        XCTAssertEqual(try XCTUnwrap(DateTimeText.seconds("2023-3-10 9:05:40.5")), 1_678_439_140.5)
        XCTAssertEqual(try XCTUnwrap(DateTimeText.seconds("2023/03/10 09:05:40.5")), 1_678_439_140.5)
        XCTAssertNil(DateTimeText.seconds("2023/03-10 09:05:40"))
        XCTAssertEqual(try XCTUnwrap(DateTimeText.seconds(" 9:05:40.25")), 32_740.25)
        XCTAssertTrue(DateTimeText.isTimeOfDay("15:35:40.123"))
        XCTAssertFalse(DateTimeText.isTimeOfDay("2023-3-10 15:35:40"))
        for text in ["12:30", "9:5:40", "25:00:00", "15:35:40Z", "15:35:40+01:00", "2023-13-1 00:00"] {
            XCTAssertNil(DateTimeText.seconds(text), text)
        }
    }

    func testUnitsRowUnderTheNames() throws {
        let r = try read("units_row.csv")
        XCTAssertEqual(r.name(.accelerometerX), "AccX (g)")
        XCTAssertEqual(r.name(.gyroscopeX), "GyroX (dps)")
        XCTAssertEqual(r.layout.units.explicit, ["t", "acc", "gyr"])
        XCTAssertNil(r.unitNote)
        assertReference(r, sensors: [.gyroscope, .accelerometer])
        assertReplays("units_row.csv")
    }

    // MARK: Raw counts

    /// A gyroscope in counts of 1/16 °/s is neither rad/s nor °/s: nothing is applied, and the
    /// warning proposes the scale that predicts the accelerometer's turns (not `--units
    /// gyr=deg/s`, even once that is given).
    func testRawCountsGetTheirScaleProposed() throws {
        for options in [[String](), ["--units", "gyr=deg/s"]] {
            let out = TestData.temporaryDirectory() + "/e.csv"
            let r = CommandRunner.run(["replay", Self.path("bno055_raw.csv")] + options + ["--output", out])
            XCTAssert(r.err.contains("near a common count of 1/16 °/s: raw counts? pass --units gyr=1/16deg/s"), r.err)
            XCTAssertFalse(r.err.contains("which looks like deg/s"), r.err)
            XCTAssertFalse(r.err.contains("note: units from the readings"), r.err)
        }
        var sixteenth = DelimitedReadOptions()
        sixteenth.units = "gyr=1/16deg/s"
        let r = try read("bno055_raw.csv", sixteenth)
        XCTAssertEqual(r.layout.units.gyroscope, 0.0625 * .pi / 180, accuracy: 1e-15)
        // Counts of 1/16 °/s round the rates by up to 1/32 °/s.
        assertReference(r, sensors: [.gyroscope, .accelerometer], tolerance: 0.001)
        assertReplays("bno055_raw.csv", ["--units", "gyr=1/16deg/s"])
    }

    /// One turn about one axis is predicted by every scale that adds whole revolutions to it; the
    /// smallest is proposed: an MPU-6050's counts of 1/131 °/s with their zero offset (a 90° turn
    /// at 90 °/s between rests), beside an accelerometer in g, were proposed as 16.6 °/s per count.
    func testRawCountsOfOneTurnGetTheLeastRotation() throws {
        var rows = ["time,ax,ay,az,gx,gy,gz"]
        var angle = 0.0
        for k in 0..<600 {
            let t = Double(k) * 0.01
            let rate = (3..<4).contains(t) ? 90.0 : 0
            rows.append(
                String(
                    format: "%.2f,0,%.4f,%.4f,%d,45,-80", t, sin(angle.radians), cos(angle.radians),
                    Int((rate * 131 - 120).rounded())))
            angle += rate * 0.01
        }
        let path = TestData.writeTemporary(rows.joined(separator: "\n") + "\n")
        let r = CommandRunner.run(["info", path, "--units", "acc=g"])
        XCTAssert(r.err.contains("near a common count of 1/131 °/s: raw counts? pass --units gyr=1/131deg/s"), r.err)
        // Taken, the counts turn the attitude by the 90° the accelerometer shows.
        let out = TestData.temporaryDirectory() + "/e.csv"
        let run = CommandRunner.run(["replay", path, "--units", "acc=g,gyr=1/131deg/s", "--output", out])
        XCTAssertEqual(run.status, 0, run.err)
        let last = try XCTUnwrap(String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").last)
        let roll = try XCTUnwrap(Double(last.split(separator: ",")[5]))
        XCTAssertEqual(abs(roll), 90, accuracy: 2)
    }

    func testUnitsTakeScaleFactorsTeslaAndNanotesla() throws {
        var u = SensorUnits()
        try u.set(spec: "gyr=0.0625deg/s,acc=1e-3 g,mag=T,t=100us")
        XCTAssertEqual(u.gyroscope, 0.0625 * .pi / 180, accuracy: 1e-18)
        XCTAssertEqual(u.accelerometer, standardGravity / 1000, accuracy: 1e-15)
        XCTAssertEqual(u.magnetometer, 1e6)
        XCTAssertEqual(u.time, 1e-4, accuracy: 1e-20)
        try u.set(spec: "mag=nT,gyr=1/16deg/s")
        XCTAssertEqual(u.magnetometer, 1e-3)
        XCTAssertEqual(u.gyroscope, 0.0625 * .pi / 180, accuracy: 1e-18)
        for bad in ["gyr=0deg/s", "acc=-0g", "acc=2", "mag=3furlongs", "t=2count"] {
            XCTAssertThrowsError(try SensorUnits().with(spec: bad), bad) { e in
                XCTAssert("\(e)".contains("unknown unit"), "\(bad): \(e)")
            }
        }
        XCTAssertThrowsError(try SensorUnits().with(spec: "gyr=-2deg/s")) { e in
            XCTAssert("\(e)".contains("only the accelerometer takes a minus sign"), "\(e)")
        }
        let help = CommandRunner.run(["help", "replay"]).out
        XCTAssert(help.contains("gyr=rad/s|deg/s|mdps, acc=m/s2|g|mg, mag=uT|gauss|mgauss|nT|mT|T|au"), help)
    }

    // MARK: Names and --columns

    /// `--columns` for some quantities leaves the others to the names.
    func testColumnsForTheTimeLeaveTheSensorsToTheirNames() throws {
        let text = "Zeitstempel,gx,gy,gz,ax,ay,az\n0,0.1,0,0,0,0,9.8\n0.01,0.1,0,0,0,0,9.8\n"
        let path = TestData.writeTemporary(text)
        XCTAssertThrowsError(try TraceFormat.load(path: path))
        var options = DelimitedReadOptions()
        options.columns = "t=Zeitstempel"
        let trace = try TraceFormat.load(path: path, options: options)
        XCTAssertEqual(trace.samples[1].t, 0.01)
        XCTAssertEqual(trace.samples[0].gyroscope, Vector3(0.1, 0, 0))
        XCTAssertEqual(trace.samples[0].accelerometer, Vector3(0, 0, 9.8))
        // The GPST fixture with its time named: the same samples.
        options.columns = "t=GPST"
        let gpst = try read("gpst.csv", options)
        assertReference(gpst, sensors: [.gyroscope, .accelerometer])
        // A sensor given keeps its columns; a column given is not read again by name.
        options.columns = "t=1,acc=gx"
        let swapped = try TraceFormat.load(path: path, options: options)
        XCTAssertEqual(swapped.samples[0].accelerometer, Vector3(0.1, 0, 0))
        XCTAssertNil(swapped.samples[0].gyroscope)
    }

    /// Which name wins when several claim one quantity.
    func testTheSurestNameWins() throws {
        func layout(_ header: String) throws -> (ColumnLayout, [String]) {
            let names = header.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return (try ColumnLayout.fromHeader(names, file: "h"), names)
        }
        func chosen(_ header: String, _ slot: ColumnLayout.Slot) throws -> String? {
            let (l, names) = try layout(header)
            return l.columns[slot].map { names[$0] }
        }
        XCTAssertEqual(try chosen("UnCompGyroX,UnCompGyroY,UnCompGyroZ,GyroX,GyroY,GyroZ,t", .gyroscopeX), "GyroX")
        XCTAssertEqual(
            try chosen(
                "timestamp,accelerometer_lsm6ds3_c.x,accelerometer_lsm6ds3_c.y,accelerometer_lsm6ds3_c.z,linear_Acceleration.x,linear_Acceleration.y,linear_Acceleration.z,gravity.x,gravity.y,gravity.z",
                .accelerometerX), "accelerometer_lsm6ds3_c.x")
        XCTAssertNil(try chosen("t,FreeAcc_X,FreeAcc_Y,FreeAcc_Z", .accelerometerX))
        XCTAssertNil(try chosen("t,Quat_X,Quat_Y,Quat_Z,Euler_X,Euler_Y,Euler_Z", .gyroscopeX))
        XCTAssertEqual(
            try chosen(
                "Shimmer_8C3B_Timestamp_Unix_CAL,Shimmer_8C3B_Gyro_X_CAL,Shimmer_8C3B_Gyro_Y_CAL,Shimmer_8C3B_Gyro_Z_CAL",
                .gyroscopeX), "Shimmer_8C3B_Gyro_X_CAL")
        XCTAssertEqual(try chosen("%time,field.header.stamp,field.angular_velocity.x", .time), "field.header.stamp")
        for (header, unit) in [
            ("time_s", 1.0), ("time_ms", 1e-3), ("timestamp_us", 1e-6), ("t_ns", 1e-9), ("millis", 1e-3),
            ("Time (s)", 1.0), ("elapsed", 1.0), ("GPST", 1.0), ("TimeStartup", 1e-9), ("Timestamp (us)", 1e-6),
        ] {
            let (l, _) = try layout(header + ",ax,ay,az")
            XCTAssertEqual(l.columns[.time], 0, header)
            XCTAssertEqual(l.units.time, unit, header)
        }
        // Two equally sure names for one quantity are an error naming both.
        XCTAssertThrowsError(try layout("GyroX,GyroY,GyroZ,gyro_x,gyro_y,gyro_z")) { e in
            XCTAssert("\(e)".contains("'GyroX' and 'gyro_x' both name the gyroscope x"), "\(e)")
        }
    }

    // MARK: Proposals

    /// A header nothing here recognises: the error proposes a `--columns` call built from its
    /// names and first rows, and that call reads the file.
    func testUnknownNamesGetAConcreteColumnsProposal() throws {
        let p = Self.path("unknown_names.csv")
        let r = CommandRunner.run(["info", p])
        XCTAssertEqual(r.status, 1)
        XCTAssert(r.err.contains("\(p):1:1: unrecognised header 'Zeit,Drehrate X,"), r.err)
        XCTAssert(r.err.contains("the columns may be --columns 't=Zeit,gyr=Drehrate X,acc=Beschl X'"), r.err)
        var options = DelimitedReadOptions()
        options.columns = "t=Zeit,gyr=Drehrate X,acc=Beschl X"
        let read = try self.read("unknown_names.csv", options)
        assertReference(read, sensors: [.gyroscope, .accelerometer])
        assertReplays("unknown_names.csv", ["--columns", "t=Zeit,gyr=Drehrate X,acc=Beschl X"])
    }

    /// A proposal never takes a temperature, pressure or altitude for a sensor's axes, even when
    /// they are three columns of numbers side by side (a flight log's; it once proposed
    /// `gyr=temperature`).
    func testProposalTakesNoTemperaturePressureOrAltitude() throws {
        let names = [
            "t_s", "temperature", "pressure", "altitude", "dr_x_roh", "dr_y_roh", "dr_z_roh", "be_x_roh", "be_y_roh",
            "be_z_roh",
        ]
        let rows = (0..<3).map { k in
            ["0.0\(k)", "21.5", "101325", "120", "0.01", "-0.02", "0.03", "0.01", "0.02", "9.81"]
        }
        let proposal = try XCTUnwrap(ColumnLayout.proposal(names: names, rows: rows))
        XCTAssertEqual(proposal, "--columns t=t_s,gyr=dr_x_roh,acc=be_x_roh")
    }

    /// A file without a header: the error proposes `--header-rows 0` and the columns its rows
    /// show (the time rising, the accelerometer by gravity).
    func testHeaderlessFileGetsHeaderRowsZeroProposed() throws {
        let p = Self.path("headerless.txt")
        let r = CommandRunner.run(["info", p])
        XCTAssertEqual(r.status, 1)
        XCTAssert(
            r.err.contains(
                "\(p):1:1: the header line is numbers, not names of columns: read the file with --header-rows 0 --columns t=1,gyr=2,acc=5"
            ),
            r.err)
        assertReplays("headerless.txt", ["--header-rows", "0", "--columns", "t=1,gyr=2,acc=5"])
        // Columns in another order are proposed as the magnitudes show them.
        let swapped = "0,0,0,9.81,0.01,0,0\n0.01,0,0,9.8,0.02,0,0\n0.02,0,0.1,9.8,0.01,0,0\n"
        let s = CommandRunner.run(["info", TestData.writeTemporary(swapped)])
        XCTAssert(s.err.contains("--header-rows 0 --columns t=1,gyr=5,acc=2"), s.err)
        // A first column of date-times (a Garmin watch's accelerometer in mg) is the time, and the
        // proposal reads the file, its 2 s gap kept (a rate alone would have closed it).
        var garmin = ""
        for k in 0..<60 {
            let s = k < 30 ? Double(k) * 0.04 : 2 + Double(k) * 0.04
            garmin += "2019-10-16T12:09:\(String(format: "%06.3f", 1 + s))+02:00;-36;620;-824\n"
        }
        let g = TestData.writeTemporary(garmin, name: "acc.csv")
        let run = CommandRunner.run(["info", g])
        XCTAssert(run.err.contains("--header-rows 0 --columns t=1,acc=2 ("), run.err)
        var options = DelimitedReadOptions()
        options.headerRows = 0
        options.columns = "t=1,acc=2"
        let trace = try TraceFormat.load(path: g, options: options)
        XCTAssertEqual(trace.samples.last!.t - trace.samples[0].t, 0.04 * 59 + 2, accuracy: 1e-6)
    }

    /// A table of one sensor per row, tagged by name in a column (an Android GnssLogger export's
    /// `MessageType` of UncalAccel, UncalGyro and UncalMag rows), is refused naming the column and
    /// the split, not given a `--columns` guess that would read every row as one sensor; split as
    /// the message says, the folder reads all three sensors.
    func testRowsTaggedBySensorAreRefusedWithTheSplit() throws {
        let header =
            "MessageType,utcTimeMillis,MeasurementX,MeasurementY,MeasurementZ,BiasX,BiasY,BiasZ,elapsedRealtimeNanos"
        var rows = [String]()
        for k in 0..<200 {
            rows.append(
                "UncalAccel,\(1_681_929_000_000 + 10 * k),0.1,0.2,9.8,0,0,0,\(123_456_789_000 + 10_000_000 * k)")
            rows.append(
                "UncalGyro,\(1_681_929_000_002 + 10 * k),0.001,0.002,0.003,0,0,0,\(123_458_789_000 + 10_000_000 * k)")
            if k % 5 == 0 {
                rows.append("UncalMag,\(1_681_929_000_003 + 10 * k),20,5,-40,1,1,1,\(123_459_789_000 + 10_000_000 * k)")
            }
        }
        let p = TestData.writeTemporary(([header] + rows).joined(separator: "\n") + "\n", name: "device_imu.csv")
        let r = CommandRunner.run(["info", p])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(
            r.err.contains("tagged by sensor in column 'MessageType' ('UncalAccel', 'UncalGyro', 'UncalMag')"), r.err)
        XCTAssert(r.err.contains("f=$1\".csv\""), r.err)
        XCTAssertFalse(r.err.contains("--columns"), r.err)
        let dir = TestData.temporaryDirectory() + "/split"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for tag in ["UncalAccel", "UncalGyro", "UncalMag"] {
            let mine = rows.filter { $0.hasPrefix(tag + ",") }
            try ([header] + mine).joined(separator: "\n").appending("\n").write(
                toFile: dir + "/\(tag).csv", atomically: true, encoding: .utf8)
        }
        let trace = try TraceFormat.load(path: dir)
        XCTAssertEqual(trace.samples.filter { $0.gyroscope != nil }.count, 200)
        XCTAssertEqual(trace.samples.filter { $0.accelerometer != nil }.count, 200)
        XCTAssertEqual(trace.samples.filter { $0.magnetometer != nil }.count, 40)
    }

    /// Without a time column the error says so (not "unrecognised header") and proposes the rate.
    func testNoTimeColumnProposesTheRate() throws {
        let p = TestData.writeTemporary("AccX,AccY,AccZ\n0,0,9.8\n0,0,9.8\n")
        assertAsksForTheRate(p, "no time column (the header names accelerometer 'AccX'…)")
        XCTAssertEqual(CommandRunner.run(["info", p, "--sample-rate", "100"]).status, 0)
    }

    /// `info` on `path` exits 1 with an error containing `saying` that proposes `--sample-rate HZ`.
    func assertAsksForTheRate(_ path: String, _ saying: String, file: StaticString = #filePath, line: UInt = #line) {
        let r = CommandRunner.run(["info", path])
        XCTAssertEqual(r.status, 1, file: file, line: line)
        XCTAssert(r.err.contains(saying), r.err, file: file, line: line)
        XCTAssert(r.err.contains("--sample-rate HZ"), r.err, file: file, line: line)
    }

    /// Times scaled to a time unit the readings found: a unit `--units t=` does not accept is an
    /// error, not times left unscaled under a note saying they were scaled.
    func testScalingTimesToAFoundUnitThrowsOnAnUnknownUnit() throws {
        var samples = [SensorSample(t: 1000), SensorSample(t: 2000)]
        try UnitEvidence.scaleTimes(&samples, to: .init(key: "t", unit: "ms", reason: ""), from: SensorUnits())
        XCTAssertEqual(samples.map(\.t), [1, 2])
        XCTAssertThrowsError(
            try UnitEvidence.scaleTimes(
                &samples, to: .init(key: "t", unit: "fortnights", reason: ""), from: SensorUnits()))
        XCTAssertEqual(samples.map(\.t), [1, 2], "left as they were")
    }
}

extension SensorUnits {
    /// A copy with `spec` applied (tests).
    func with(spec: String) throws -> SensorUnits {
        var u = self
        try u.set(spec: spec)
        return u
    }
}
