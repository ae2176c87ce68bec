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

    /// A magnetometer logged on rows of its own, 3 ms after each gyroscope and accelerometer row
    /// (phyphox, x-IMU3): Mahony and Madgwick pair each reading with the next accelerometer
    /// reading, so they run as 9D (heading within 1° of the run with both on one row, where they
    /// ran as 6D with every reading rejected), and the e-compass, which holds it for the next
    /// accelerometer reading, does not count it rejected.
    func testAMagnetometerOnRowsOfItsOwnIsUsed() throws {
        let trace = try simulated()
        var split = [SensorSample]()
        for sample in trace.samples {
            var imu = sample
            imu.magnetometer = nil
            var mag = SensorSample(
                t: sample.t + 0.003, gyroscope: nil, accelerometer: nil, magnetometer: sample.magnetometer)
            mag.truth = sample.truth
            mag.moving = sample.moving
            split += [imu, mag]
        }
        let separate = Trace(samples: split)
        for kind in [FilterKind.mahony, .madgwick, .ecompass] {
            let run = RunConfiguration(kind, mode: .nineD)
            let estimates = run.estimates(split)
            for (e, sample) in zip(estimates, split) where sample.magnetometer != nil && !e.diagnostics.initialising {
                XCTAssertFalse(e.diagnostics.magnetometerRejected, "\(kind): reading at \(sample.t) s rejected")
            }
            let apart = AttitudeErrorMetric.evaluate(
                estimates: estimates.map(\.attitude), trace: separate, mode: .nineD)!
            let together = AttitudeErrorMetric.evaluate(
                estimates: run.attitudes(trace.samples), trace: trace, mode: .nineD)!
            XCTAssertLessThan(
                abs(apart.headingRMSE - together.headingRMSE), 1,
                "\(kind): heading RMSE (°) \(apart.headingRMSE) apart, \(together.headingRMSE) on one row")
        }
    }

    /// An accelerometer logged on rows of its own just after each magnetometer row (an interleaved
    /// logger: each accelerometer row 0.1 ms after a magnetometer row), or on one row in ten, and a
    /// magnetometer on one row in ten: the runner holds the accelerometer's last reading, turned as
    /// the gyroscope turns, for the rows without one, and a magnetometer reading's correction
    /// covers the time since the one before (``ReadingInterval``), so every filter's inclination
    /// stays within 0.3° RMS of its run with every sensor on each row, and its 9D heading within 1°
    /// (each correction weighed its own row's step: 14–34° off on the interleaved rows, and a
    /// tenth of the heading correction for Mahony and Madgwick, 25° off, before).
    func testAnAccelerometerOnOtherRowsOrSlowerCorrectsTheTiltAsOnEveryRow() throws {
        let trace = try simulated()
        var interleaved = [SensorSample]()
        for sample in trace.samples {
            var mag = SensorSample(
                t: sample.t - 0.0001, gyroscope: nil, accelerometer: nil, magnetometer: sample.magnetometer)
            mag.truth = sample.truth
            mag.moving = sample.moving
            var imu = sample
            imu.magnetometer = nil
            interleaved += [mag, imu]
        }
        var tenth = trace.samples
        for i in tenth.indices where i % 10 != 0 { tenth[i].accelerometer = nil }
        var slowField = trace.samples
        for i in slowField.indices where i % 10 != 0 { slowField[i].magnetometer = nil }
        // A magnetometer on rows of its own after the gyroscope's, with its time (rows of no length).
        var sameTime = [SensorSample]()
        for sample in trace.samples {
            var imu = sample
            imu.magnetometer = nil
            var mag = SensorSample(t: sample.t, gyroscope: nil, accelerometer: nil, magnetometer: sample.magnetometer)
            mag.truth = sample.truth
            mag.moving = sample.moving
            sameTime += [imu, mag]
        }
        for kind in [FilterKind.ekf, .complementary, .mahony, .madgwick] {
            for (mode, samples) in [
                (FusionMode.nineD, interleaved), (.sixD, tenth), (.nineD, slowField), (.nineD, sameTime),
            ] {
                let run = RunConfiguration(kind, mode: mode)
                let layout = AttitudeErrorMetric.evaluate(
                    estimates: run.attitudes(samples), trace: Trace(samples: samples), mode: mode)!
                let oneRow = AttitudeErrorMetric.evaluate(
                    estimates: run.attitudes(trace.samples), trace: trace, mode: mode)!
                XCTAssertLessThan(
                    layout.inclinationRMSE, oneRow.inclinationRMSE + 0.3,
                    "\(kind) \(mode.rawValue): inclination RMSE (°), \(oneRow.inclinationRMSE) on every row")
                if mode == .nineD {
                    XCTAssertLessThan(
                        layout.headingRMSE, oneRow.headingRMSE + 1,
                        "\(kind): heading RMSE (°), \(oneRow.headingRMSE) on every row")
                }
            }
        }
    }

    /// A magnetometer at 1 Hz beside a 100 Hz gyroscope and accelerometer, in a disturbed field:
    /// each reading's correction and the EKF's disturbance clocks cover at most 0.1 s, not the whole
    /// second since the one before (which held the EKF's heading 30° off), so the EKF's and the
    /// complementary filter's heading stay within 3° RMS of their runs with a reading on every row.
    /// (Mahony and Madgwick, whose gains are rates, follow such a magnetometer a tenth as strongly.)
    func testAReadingAfterAnOutageDoesNotStandForAllOfIt() {
        let trace = ScenarioSuiteTests.simulated(
            .magneticDisturbance, duration: 60, errors: .calibrated, rate: 100, seed: 1)
        var slow = trace.samples
        for i in slow.indices where i % 100 != 0 { slow[i].magnetometer = nil }
        for kind in [FilterKind.ekf, .complementary] {
            let run = RunConfiguration(kind, mode: .nineD)
            let second = AttitudeErrorMetric.evaluate(
                estimates: run.attitudes(slow), trace: Trace(samples: slow), mode: .nineD)!
            let every = AttitudeErrorMetric.evaluate(
                estimates: run.attitudes(trace.samples), trace: trace, mode: .nineD)!
            XCTAssertLessThan(
                second.headingRMSE, every.headingRMSE + 3, "\(kind): heading RMSE (°), \(every.headingRMSE) every row")
        }
    }

    /// The e-compass holds a magnetometer reading for the accelerometer readings after it, at most
    /// ``ECompass/longestHold`` (0.1 s): through a 10 s magnetometer outage while the device turns
    /// it flags the magnetometer rejected once the hold is over and keeps the heading it had (each
    /// estimate differs from the one before by a turn about a horizontal axis alone: the
    /// accelerometer's tilt), where an old reading taken for the heading now put it 56° off; a
    /// magnetometer at 10 Hz is followed on every accelerometer reading.
    func testTheECompassHoldsAMagnetometerReadingOnlySoLong() throws {
        let trace = try simulated()
        var outage = trace.samples
        for i in outage.indices where outage[i].t >= 5 && outage[i].t < 15 { outage[i].magnetometer = nil }
        let run = RunConfiguration(.ecompass, mode: .nineD)
        let estimates = run.estimates(outage)
        for i in outage.indices.dropFirst() where outage[i].t >= 5.15 && outage[i].t < 15 {
            XCTAssertTrue(estimates[i].diagnostics.magnetometerRejected, "at \(outage[i].t) s")
            let twist = (estimates[i].attitude * estimates[i - 1].attitude.conjugate).verticalTwist
            XCTAssertLessThan(abs(twist.z), 1e-9, "turn about the vertical at \(outage[i].t) s")
        }
        var slow = trace.samples
        for i in slow.indices where i % 10 != 0 { slow[i].magnetometer = nil }
        for e in run.estimates(slow).dropFirst() { XCTAssertFalse(e.diagnostics.magnetometerRejected) }
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
        // The flag is named only when it was given.
        XCTAssertFalse(r.err.contains("--mode 9d"), r.err)
        let asked = CommandRunner.run(["replay", none, "--mode", "9d", "--output", dir + "/e.csv"])
        XCTAssertEqual(asked.status, 0, asked.err)
        XCTAssert(asked.err.contains("--mode 9d but the magnetometer has no value"), asked.err)
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

extension SensorPresenceTests {
    /// Writes the sensors of `trace` named in `columns` as one CSV file per sensor in `folder`
    /// (`Accelerometer.csv`, `Gyroscope.csv`, `Magnetometer.csv`): a recording of several files.
    func writeSensorFiles(_ trace: Trace, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let files: [(String, String, KeyPath<SensorSample, Vector3?>)] = [
            ("Accelerometer.csv", "acc", \.accelerometer), ("Gyroscope.csv", "gyr", \.gyroscope),
            ("Magnetometer.csv", "mag", \.magnetometer),
        ]
        for (name, key, path) in files {
            var text = "t,\(key)_x,\(key)_y,\(key)_z\n"
            for s in trace.samples { if let v = s[keyPath: path] { text += "\(s.t),\(v.x),\(v.y),\(v.z)\n" } }
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
        }
    }

    /// One file of a recording of several, read alone: a run without a gyroscope says what it does
    /// instead, and that the folder has the other sensors, with a command that reads the folder and
    /// runs when pasted. Mahony and Madgwick follow the accelerometer too; the tilt filter, which
    /// uses no gyroscope, says nothing of it.
    func testRunWithoutGyroscopeSaysSoAndNamesTheFolder() throws {
        let folder = TestData.temporaryDirectory() + "/my recording"
        try writeSensorFiles(try simulated(), to: folder)
        let file = folder + "/Accelerometer.csv"
        let work = TestData.temporaryDirectory()
        for mode in [[], ["--mode", "9d"]] {
            let r = try CommandRunner.process(["replay", file, "--output", "o.csv"] + mode, in: work)
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssert(r.err.contains("warning: the recording has no gyroscope: with no turn rate to integrate"), r.err)
            XCTAssert(r.err.contains("the recording has no magnetometer: running 6D"), r.err)
            XCTAssert(r.err.contains("has the gyroscope and magnetometer too: pass the folder"), r.err)
            // The EKF follows the accelerometer: the attitude written changes.
            let rows = try String(contentsOfFile: work + "/o.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            XCTAssertGreaterThan(Set(rows.map { $0.split(separator: ",")[5] }).count, rows.count / 2)
            let command = try XCTUnwrap(r.err.components(separatedBy: "e.g. ").last).trimmingCharacters(
                in: .whitespacesAndNewlines)
            XCTAssertEqual(command, "motionfusion replay '\(folder)' --output o.csv")
            let binary = try TestData.executable()
            let path = (binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
            let pasted = try ChildProcess.run("/bin/sh", ["-c", command], in: work, environment: ["PATH": path])
            XCTAssertEqual(pasted.status, 0, pasted.errText)
            XCTAssertFalse(pasted.errText.contains("no gyroscope"), pasted.errText)
        }
        for filter in ["mahony", "madgwick"] {
            let r = CommandRunner.run(["replay", file, "--filter", filter, "--output", work + "/m.csv"])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssert(r.err.contains("warning: the recording has no gyroscope: with no turn rate to integrate"), r.err)
            XCTAssert(r.err.contains("pass the folder"), r.err)
            // The attitude follows the accelerometer: the roll written changes from row to row.
            let rows = try String(contentsOfFile: work + "/m.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            XCTAssertGreaterThan(Set(rows.map { $0.split(separator: ",")[5] }).count, rows.count / 2, filter)
        }
        let tilt = CommandRunner.run(["replay", file, "--filter", "tilt", "--output", work + "/t.csv"])
        XCTAssertEqual(tilt.status, 0, tilt.err)
        XCTAssertFalse(tilt.err.contains("gyroscope"), tilt.err)
        // A file of two sensors beside them is a whole trace: no folder is proposed for it.
        var whole = "t,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n"
        for s in try simulated().samples {
            guard let a = s.accelerometer, let m = s.magnetometer else { continue }
            whole += "\(s.t),\(a.x),\(a.y),\(a.z),\(m.x),\(m.y),\(m.z)\n"
        }
        try whole.write(toFile: folder + "/whole.csv", atomically: true, encoding: .utf8)
        let r = CommandRunner.run(["replay", folder + "/whole.csv", "--output", work + "/w.csv"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("the recording has no gyroscope"), r.err)
        XCTAssertFalse(r.err.contains("folder"), r.err)
    }

    /// A 5 s gyroscope outage in a slow rotation that hides a 54° change of tilt: every filter's
    /// tilt is pulled along by the accelerometer, at its own correction rate, so at the outage's end
    /// its error is well below the hidden turn (Mahony and Madgwick held the attitude of the
    /// outage's start, an error of the whole turn, every row marked used).
    func testGyroscopeOutageFollowsTheAccelerometer() throws {
        var s = MotionSimulator.Settings()
        s.scenario = .slowRotation
        s.duration = 20
        s.rate = 100
        s.errors = .calibrated
        s.seed = 5
        var trace = MotionSimulator(settings: s).run()
        for i in trace.samples.indices where (8..<13).contains(trace.samples[i].t) { trace.samples[i].gyroscope = nil }
        let end = trace.samples.lastIndex { $0.t < 13 }!
        let start = trace.samples.firstIndex { $0.t >= 8 }!
        let turned = ScenarioSuiteTests.tiltError(trace.samples[start].truth!, trace.samples[end].truth!)
        XCTAssertGreaterThan(turned, 10, "the outage must hide a real turn")
        for kind in [FilterKind.ekf, .complementary, .mahony, .madgwick] {
            let attitudes = RunConfiguration(kind, mode: .sixD).attitudes(trace.samples)
            let error = ScenarioSuiteTests.tiltError(attitudes[end], trace.samples[end].truth!)
            XCTAssertLessThan(
                error, 0.8 * turned, "\(kind): tilt error at the outage's end, degrees (the device tilted \(turned)°)")
        }
    }

    /// Gyroscope columns without a single value: said after the run, for the filters that use it.
    func testGyroscopeWithoutValuesIsSaid() throws {
        var trace = try simulated()
        for i in trace.samples.indices { trace.samples[i].gyroscope = nil }
        let path = try write(trace, "no-gyro-values.csv")
        let dir = TestData.temporaryDirectory()
        let ekf = CommandRunner.run(["replay", path, "--rate", "50", "--output", dir + "/e.csv"])
        XCTAssertEqual(ekf.status, 0, ekf.err)
        XCTAssert(ekf.err.contains("warning: the gyroscope has no value in the whole recording: with no turn"), ekf.err)
        let mahony = CommandRunner.run(["replay", path, "--filter", "mahony", "--output", dir + "/m.csv"])
        XCTAssertEqual(mahony.status, 0, mahony.err)
        XCTAssert(
            mahony.err.contains("warning: the gyroscope has no value in the whole recording: with no turn"), mahony.err)
        let tilt = CommandRunner.run(["replay", path, "--filter", "tilt", "--output", dir + "/t.csv"])
        XCTAssertFalse(tilt.err.contains("gyroscope"), tilt.err)
    }
}
