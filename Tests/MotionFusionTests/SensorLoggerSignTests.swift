import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Sensor Logger writes an iPhone's accelerations with the opposite sign to Android's unless
/// "Standardise Units & Frames" was on: a phone flat on a table must read +g along z (the specific
/// force) whichever platform recorded it.
final class SensorLoggerSignTests: XCTestCase {
    /// A 1 s recording of a phone flat on a table at 100 Hz: gravity as the platform writes it
    /// (`gravityZ`), the user acceleration zero, and the other files named in `extra`.
    func recording(gravityZ: Double, files extra: [String: String] = [:], gravityFile: String = "Gravity.csv")
        -> String
    {
        let dir = TestData.temporaryDirectory()
        func series(_ row: (Int) -> String) -> String {
            "time,seconds_elapsed,z,y,x\n"
                + (0..<100).map { i in "\(1_700_000_000_000_000_000 + i * 10_000_000),\(Double(i) * 0.01),\(row(i))" }
                .joined(separator: "\n") + "\n"
        }
        var files = extra
        files["Gyroscope.csv"] = series { _ in "0,0,0" }
        if gravityFile == "Gravity.csv" {
            files["Accelerometer.csv"] = series { _ in "0,0,0" }
        }
        files[gravityFile] = series { _ in "\(gravityZ),0,0" }
        for (name, text) in files {
            try? text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        return dir
    }

    func load(_ dir: String) throws -> Trace {
        XCTAssertEqual(try TraceFormat.detect(path: dir), .sensorLogger)
        return try TraceFormat.load(path: dir)
    }

    func metadata(platform: String, standardised: Bool?) -> String {
        let standardisation =
            standardised.map { ",standardisation\n3,Phone,\(platform),1.64,\($0)" } ?? "\n3,Phone,\(platform),1.11"
        return "version,device name,platform,appVersion" + standardisation + "\n"
    }

    func testAnIPhoneRecordingReadsRightWayUp() throws {
        let trace = try load(
            recording(gravityZ: -9.81, files: ["Metadata.csv": metadata(platform: "ios", standardised: nil)]))
        XCTAssertEqual(trace.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
        XCTAssert(trace.warnings.contains { $0.message.contains("iOS") })
        let standard = try load(
            recording(gravityZ: 9.81, files: ["Metadata.csv": metadata(platform: "ios", standardised: true)]))
        XCTAssertEqual(standard.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
        XCTAssertTrue(standard.warnings.isEmpty, "\(standard.warnings)")
        // A quoted device name with a comma, the platform capitalised.
        let quoted = "version,device name,platform,appVersion\r\n3,\"Tom, iPhone\",iOS,1.11\r\n"
        let named = try load(recording(gravityZ: -9.81, files: ["Metadata.csv": quoted]))
        XCTAssertEqual(named.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
    }

    func testAnAndroidRecordingIsReadAsItIs() throws {
        let trace = try load(
            recording(gravityZ: 9.81, files: ["Metadata.csv": metadata(platform: "android", standardised: false)]))
        XCTAssertEqual(trace.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
        XCTAssertTrue(trace.warnings.isEmpty, "\(trace.warnings)")
    }

    /// Without Metadata.csv the phone's own gravity against its own attitude tells the sign; with
    /// neither, Android's signs are assumed and said.
    func testWithoutMetadataThePhonesAttitudeTellsTheSign() throws {
        // Flat on the table: the attitude is level (any heading), so its up axis is the sensor's z.
        let orientation =
            "time,seconds_elapsed,qz,qy,qx,qw,roll,pitch,yaw\n1700000000000000000,0,0.3826834,0,0,0.9238795,0,0,0\n"
        let ios = try load(recording(gravityZ: -9.81, files: ["Orientation.csv": orientation]))
        XCTAssertEqual(ios.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
        XCTAssert(ios.warnings.contains { $0.message.contains("as iOS records it") })
        let android = try load(recording(gravityZ: 9.81, files: ["Orientation.csv": orientation]))
        XCTAssertEqual(android.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
        XCTAssertTrue(android.warnings.isEmpty, "\(android.warnings)")
        let unknown = try load(recording(gravityZ: 9.81))
        XCTAssertEqual(unknown.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
        XCTAssert(unknown.warnings.contains { $0.message.contains("Metadata.csv") && !$0.isNote })
    }

    /// A recording with the total acceleration and no gravity file reads the total acceleration.
    func testTotalAccelerationStandsInForAccelerometerAndGravity() throws {
        let trace = try load(
            recording(
                gravityZ: -9.81, files: ["Metadata.csv": metadata(platform: "ios", standardised: false)],
                gravityFile: "TotalAcceleration.csv"))
        XCTAssertEqual(trace.samples.compactMap(\.accelerometer).count, 100)
        XCTAssertEqual(trace.samples[0].accelerometer!.z, 9.81, accuracy: 1e-9)
        XCTAssertFalse(trace.warnings.contains { $0.message.contains("Gravity.csv missing") })
    }

    /// The shared Android-convention recording (no Metadata.csv, with the phone's attitude) reads
    /// as before, and its tilt agrees with the phone's gravity.
    func testTheSharedRecordingKeepsItsSigns() throws {
        let trace = try TraceFormat.load(path: try TestData.shared("formats/sensor-logger"))
        XCTAssertGreaterThan(trace.samples[0].accelerometer!.y, 9)
        XCTAssertFalse(trace.warnings.contains { $0.message.contains("Metadata.csv") })
    }
}
