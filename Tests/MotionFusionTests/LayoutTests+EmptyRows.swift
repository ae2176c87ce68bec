import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionC
@testable import MotionFusionCommandLine
@testable import MotionFusionIO

/// Rows that hold no sensor value (a MicroStrain export's estimation-filter rows between its IMU
/// rows, each with its own time) are skipped without a time check, and counted.
extension LayoutTests {
    /// `microstrain_sensorconnect.csv` interleaves the reference's 75 IMU rows with 75 filter rows
    /// timed at or 2 ms before the IMU row above them: the trace is the reference's 75 samples,
    /// with no duplicate or backward time reported, and a note counts the 75 rows skipped from
    /// the first (line 4).
    func testMicroStrainFilterRowsAreSkippedWithoutTimeFaults() throws {
        let r = try read("microstrain_sensorconnect.csv")
        assertChosen(
            r, time: "Time", gyr: "inertial-6253.76535:scaledGyroX", acc: "inertial-6253.76535:scaledAccelX",
            mag: "inertial-6253.76535:scaledMagX")
        assertReference(r, sensors: [.gyroscope, .accelerometer, .magnetometer], tolerance: 1e-5)
        XCTAssertFalse(r.trace.warnings.contains { !$0.isNote }, "\(r.trace.warnings)")
        let skipped = try XCTUnwrap(
            r.trace.warnings.first { $0.message.hasPrefix("skipped 75 row(s) holding no sensor value") })
        XCTAssertEqual(skipped.location.line, 4)
        assertReplays("microstrain_sensorconnect.csv")
        let info = CommandRunner.run(["info", Self.path("microstrain_sensorconnect.csv")])
        XCTAssertEqual(info.status, 0, info.err)
        XCTAssert(info.out.contains("value faults  none"), info.out)
        XCTAssert(info.err.contains("skipped 75 row(s) holding no sensor value"), info.err)
    }

    /// A reading beyond its sensor's range is a fault whose message proposes the likely unit: the
    /// flag for a unit the header does not state, the scale of raw counts under `--units`. (The
    /// proposal is built only for a fault, not for every reading.)
    func testOutOfRangeFaultsProposeAUnit() throws {
        var rows = ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"]
        for k in 0..<20 { rows.append("\(Double(k) / 100),0.01,0,0,0,0,9.81") }
        rows[11] = "0.1,150,0,0,0,0,9.81"
        let path = try TestData.writeTemporary(rows.joined(separator: "\n") + "\n")
        let reader = try TraceFormat.open(path: path)
        XCTAssertNil(try reader.readTrace().samples[10].gyroscope)
        let fault = try XCTUnwrap(reader.faults.tallies[.outOfRange])
        XCTAssertEqual(fault.count, 1)
        XCTAssert(fault.detail.contains("(deg/s read as rad/s? pass --units gyr=deg/s)"), fault.detail)
        var options = DelimitedReadOptions()
        options.units = "gyr=0.5deg/s"
        rows[11] = "0.1,20000,0,0,0,0,9.81"
        let scaled = try TraceFormat.open(
            path: TestData.writeTemporary(rows.joined(separator: "\n") + "\n"), options: options)
        _ = try scaled.readTrace()
        let counts = try XCTUnwrap(scaled.faults.tallies[.outOfRange])
        XCTAssert(counts.detail.contains("(raw counts? give their scale, e.g. --units gyr=0.0625deg/s"), counts.detail)
    }

    /// A row with some sensor value is still checked: a partly missing sensor and a backward time
    /// are value faults as before, while the empty row between them is skipped. Rows timed by a
    /// rate keep the instant of an empty row. A file whose rows all hold no value is an error.
    func testRowsWithSomeValueAreStillChecked() throws {
        let text = "Time,acc_x,acc_y,acc_z,est_roll\n1.00,0,0,9.81,\n0.99,,,,0.1\n1.01,0.1,,,\n1.005,0,0,9.81,\n"
        let reader = try TraceFormat.open(path: TestData.writeTemporary(text))
        let trace = try reader.readTrace()
        XCTAssertEqual(trace.samples.map(\.t), [1.00, 1.01, 1.005])
        XCTAssertNil(trace.samples[1].accelerometer)
        XCTAssertEqual(reader.faults.tallies[.partialAxes]?.count, 1)
        XCTAssertEqual(reader.faults.tallies[.backwardTime]?.count, 1)
        XCTAssertEqual(reader.faults.tallies[.backwardTime]?.first.line, 5)
        XCTAssertNil(reader.faults.tallies[.duplicateTime])
        var rate = DelimitedReadOptions()
        rate.sampleRate = 10
        let timed = try TraceFormat.load(
            path: TestData.writeTemporary("acc_x,acc_y,acc_z\n0,0,9.8\n,,\n0,0,9.8\n"), options: rate)
        XCTAssertEqual(timed.samples.map(\.t), [0, 0.2])
        // Every row so: nothing to read, an error at the first.
        let empty = TestData.writeTemporary("t,acc_x,acc_y,acc_z\n0,,,\n0.01,,,\n")
        XCTAssertThrowsError(try TraceFormat.load(path: empty)) {
            XCTAssertEqual(($0 as? TraceError)?.kind, .empty)
            XCTAssertEqual(($0 as? TraceError)?.location.line, 2)
        }
        // A row of `nan` is a sample, not an empty row (testRowOfExplicitNaNIsASampleNotAnEmptyRow).
        let nan = try TraceFormat.load(path: TestData.writeTemporary("t,acc_x,acc_y,acc_z\n0,,,\n0.01,nan,nan,nan\n"))
        XCTAssertEqual(nan.samples.map(\.t), [0.01])
        XCTAssertNil(nan.samples[0].accelerometer)
    }

    /// A merged timeline that logs the magnetometer on rows of its own with the gyroscope row's time:
    /// the repeated time reads another sensor, so it is no duplicate timestamp (6001 were reported,
    /// `--strict` refused the file, and every magnetometer row was a time fault); a row that reads a
    /// sensor already read at that time still is one, in the reader, the runner and the Python/C
    /// arrays alike.
    func testAnotherSensorsRowWithTheSameTimeIsNoDuplicate() throws {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n"
        for k in 0..<300 {
            let t = Double(k) * 0.01
            text += "\(t),0.01,0,0,0,0,9.8,,,\n\(t),,,,,,,20,0,-40\n"
        }
        text += "3,0.01,0,0,0,0,9.8,,,\n3,0.01,0,0,0,0,9.8,,,\n"
        let path = TestData.writeTemporary(text)
        let reader = try TraceFormat.open(path: path)
        let trace = try reader.readTrace()
        XCTAssertEqual(reader.faults.tallies[.duplicateTime]?.count, 1, "only the repeated gyroscope row")
        XCTAssertEqual(reader.faults.tallies[.duplicateTime]?.first.line, 603)
        let estimates = RunConfiguration(.ekf, mode: .nineD).estimates(trace.samples)
        XCTAssertEqual(estimates.filter(\.diagnostics.timeFault).count, 1)
        XCTAssertTrue(estimates.last!.diagnostics.timeFault)
        var screen = SampleScreen(unit: "row", window: (samples: 1000, seconds: 10))
        var duplicates = 0
        for s in trace.samples {
            func triple(_ v: Vector3?) -> (Double, Double, Double) {
                v.map { ($0.x, $0.y, $0.z) } ?? (.nan, .nan, .nan)
            }
            _ = screen.screen(s.t, triple(s.gyroscope), triple(s.accelerometer), triple(s.magnetometer))
            duplicates = screen.faults.tallies[.duplicateTime]?.count ?? 0
        }
        XCTAssertEqual(duplicates, 1)
        let strict = CommandRunner.run(["info", path, "--strict"])
        XCTAssert(strict.err.contains("\(path):603:1: time 3.0 s repeats the previous row's"), strict.err)
        // The other sensors' cells written as `nan` (numpy, MATLAB) are no reading either.
        let filled = TestData.writeTemporary(text.replacingOccurrences(of: ",,,", with: ",nan,nan,nan"))
        let again = try TraceFormat.open(path: filled)
        _ = try again.readTrace()
        XCTAssertEqual(again.faults.tallies[.duplicateTime]?.count, 1, "only the repeated gyroscope row")
    }

    /// A row whose sensor cells read `nan` holds values written as not a number, not empty
    /// cells: it is a sample, checked as every row is (it was skipped as a row holding no value,
    /// so its backward time went unreported and `--strict` let it pass), and the file `convert`
    /// writes with a repaired fault as `nan,nan,nan` reads back to as many samples. A row of
    /// empty cells is still skipped and counted.
    func testRowOfExplicitNaNIsASampleNotAnEmptyRow() throws {
        let text =
            "t,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,0,9.8\n0.005,nan,NaN,nan\n0.02,0,0,9.8\n0.02,,,\n0.03,0,0,9.8\n"
        let path = TestData.writeTemporary(text)
        let reader = try TraceFormat.open(path: path)
        let trace = try reader.readTrace()
        XCTAssertEqual(trace.samples.map(\.t), [0, 0.01, 0.005, 0.02, 0.03])
        XCTAssertNil(trace.samples[2].accelerometer)
        XCTAssertEqual(reader.faults.tallies[.backwardTime]?.count, 1)
        XCTAssertEqual(reader.faults.tallies[.backwardTime]?.first.line, 4)
        XCTAssert(
            trace.warnings.contains {
                $0.message.hasPrefix("skipped 1 row(s) holding no sensor value") && $0.location.line == 6
            }, "\(trace.warnings)")
        let strict = CommandRunner.run(["info", path, "--strict"])
        XCTAssertEqual(strict.status, 1, strict.err)
        XCTAssert(strict.err.contains("\(path):4:1: time 0.005 s is earlier than the previous row's"), strict.err)
        // What convert writes for a repaired fault reads back as one sample per row.
        let faulty = TestData.writeTemporary("t,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,inf,9.8\n0.02,0,0,9.8\n")
        let converted = try CommandRunner.process(["convert", faulty, "--output", "-"])
        XCTAssertEqual(converted.status, 0, converted.err)
        XCTAssert(converted.out.contains("0.01,nan,nan,nan"), converted.out)
        let again = try TraceFormat.load(path: TestData.writeTemporary(converted.out))
        XCTAssertEqual(again.samples.map(\.t), try TraceFormat.load(path: faulty).samples.map(\.t))
    }
}
