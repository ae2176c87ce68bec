import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Importers against the real recordings in `../shared/data/formats` (skipped when absent) and
/// against small synthetic files that exercise merging and units.
final class ImporterTests: XCTestCase {
    func testXioFusionConvertsUnits() throws {
        let p = try TestData.shared("formats/xio-fusion/sensor_data.csv")
        XCTAssertEqual(try TraceFormat.detect(path: p), .xioFusion)
        let trace = try TraceFormat.load(path: p)
        XCTAssertEqual(trace.samples.count, 13514)
        // First row: 0.01644619 deg/s, 0.001015204 g, 15.3017 µT.
        let s = trace.samples[0]
        XCTAssertEqual(s.gyroscope!.x, 0.01644619 * .pi / 180, accuracy: 1e-15)
        XCTAssertEqual(s.accelerometer!.z, 0.9970807 * 9.80665, accuracy: 1e-12)
        XCTAssertEqual(s.magnetometer!.x, 15.3017)
        XCTAssertFalse(trace.warnings.contains { $0.message.contains("looks like") })
    }

    func testEuRoCWithInterpolatedGroundTruth() throws {
        let p = try TestData.shared("formats/euroc/V1_02_medium")
        XCTAssertEqual(try TraceFormat.detect(path: p), .euroc)
        let trace = try TraceFormat.load(path: p)
        XCTAssertEqual(trace.samples.count, 17100)
        // The dataset's own clock: nanoseconds since the epoch, in seconds, not re-zeroed.
        XCTAssertEqual(trace.samples[0].t, 1_403_715_523.912143104, accuracy: 1e-6)
        XCTAssertEqual(trace.samples[1].t - trace.samples[0].t, 0.005, accuracy: 1e-6)
        XCTAssertEqual(trace.samples[0].accelerometer!.x, 9.2182509999999986)
        XCTAssertFalse(trace.has(.magnetometer))
        // Ground truth exists and agrees with gravity: at the first truth sample, R · acc ≈ +z.
        let withTruth = trace.samples.filter { $0.truth != nil }
        XCTAssertGreaterThan(withTruth.count, 16000)
        // Averaged over the flight, specific force in the world frame is gravity: straight up.
        let mean = withTruth.reduce(Vector3.zero) { $0 + $1.truth!.rotate($1.accelerometer!) } / Double(withTruth.count)
        XCTAssertLessThan(mean.normalized!.dot(.unitZ).acosClamped.degrees, 2, "truth maps gravity to up")
        XCTAssertEqual(mean.norm, 9.81, accuracy: 0.3)
    }

    func testXIMU3MergesInertialAndMagnetometerRates() throws {
        let p = try TestData.shared("formats/x-imu3")
        XCTAssertEqual(try TraceFormat.detect(path: p), .ximu3)
        let trace = try TraceFormat.load(path: p)
        let gyro = trace.samples.filter { $0.gyroscope != nil }.count
        let mag = trace.samples.filter { $0.magnetometer != nil }.count
        XCTAssertEqual(gyro, 362, "every Inertial.csv row kept")
        XCTAssertEqual(mag, 147, "every Magnetometer.csv row kept")
        XCTAssert(trace.samples.contains { $0.magnetometer != nil && $0.gyroscope == nil })
        XCTAssert(trace.warnings.contains { $0.message.contains("arbitrary units") })
    }

    func testPhyphoxKeepsEverySample() throws {
        let p = try TestData.shared("formats/phyphox")
        XCTAssertEqual(try TraceFormat.detect(path: p), .phyphox)
        let trace = try TraceFormat.load(path: p)
        XCTAssertEqual(trace.samples.filter { $0.accelerometer != nil }.count, 10577)
        XCTAssertEqual(trace.samples.filter { $0.gyroscope != nil }.count, 10575)
        XCTAssertEqual(trace.samples.filter { $0.magnetometer != nil }.count, 10575)
        XCTAssertEqual(trace.samples.first { $0.magnetometer != nil }!.magnetometer!.x, 18.39072609)
    }

    func testSensorLoggerReordersAxesAndAddsGravity() throws {
        let p = try TestData.shared("formats/sensor-logger")
        XCTAssertEqual(try TraceFormat.detect(path: p), .sensorLogger)
        let trace = try TraceFormat.load(path: p)
        XCTAssertEqual(trace.samples.count, 9720)
        let a = trace.samples[0].accelerometer!
        // x = -0.0214361548423767 + 0.5577373504638672, z = 0.0233552455902099 - 0.607540488243103.
        XCTAssertEqual(a.x, -0.0214361548423767 + 0.5577373504638672, accuracy: 1e-12)
        XCTAssertEqual(a.z, 0.0233552455902099 - 0.607540488243103, accuracy: 1e-12)
        XCTAssertEqual(trace.samples[0].magnetometer!.x, 7.619999885559082)
        XCTAssertEqual(a.norm, 9.8, accuracy: 0.1)
    }

    func testMergerKeepsEverySampleOfEveryStream() {
        let a = TimelineMerger.Stream(sensor: .gyroscope, times: [0, 0.02, 0.04], values: [.unitX, .unitY, .unitZ])
        let b = TimelineMerger.Stream(sensor: .magnetometer, times: [0.01, 0.04, 0.07], values: [.unitX, nil, .unitZ])
        let merged = TimelineMerger().merge([a, b])
        XCTAssertEqual(merged.map(\.t), [0, 0.01, 0.02, 0.04, 0.07])
        XCTAssertEqual(merged[3].gyroscope, .unitZ)
        XCTAssertNil(merged[3].magnetometer)
        XCTAssertEqual(merged[4].magnetometer, .unitZ)
        XCTAssertNil(merged[4].gyroscope)
    }

    func testUnknownHeaderIsAClearError() {
        let p = TestData.writeTemporary("foo,bar\n1,2\n")
        XCTAssertThrowsError(try TraceFormat.load(path: p)) { e in
            XCTAssertEqual((e as? TraceError)?.kind, .unknownFormat)
            XCTAssert("\(e)".contains("--format"))
        }
        XCTAssertThrowsError(try TraceFormat.load(path: "/nonexistent/trace.csv")) { e in
            XCTAssertEqual((e as? TraceError)?.kind, .unreadable)
        }
    }

    func testImporterErrorsCarryLineAndColumn() {
        let p = TestData.writeTemporary(
            "Time (s),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g)\n0,1,2,3,0,0,1\n0.01,1,zz,3,0,0,1\n"
        )
        XCTAssertThrowsError(try TraceFormat.load(path: p)) { e in
            let err = e as! TraceError
            XCTAssertEqual(err.kind, .malformedNumber)
            XCTAssertEqual(err.location.line, 3)
            XCTAssertEqual(err.location.column, 8)
        }
    }
}
