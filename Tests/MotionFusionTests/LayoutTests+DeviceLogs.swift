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
}
