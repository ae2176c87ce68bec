import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// `info`'s summary of the units says "suspect", with the reason, whenever a unit warning was given,
/// also one that proposes no flag (an accelerometer norm of 64 m/s² at rest, or of 1.8 in a
/// recording never at rest).
final class InfoUnitSummaryTests: XCTestCase {
    func unitsLine(_ path: String, _ options: [String] = []) -> String {
        let r = CommandRunner.run(["info", path] + options)
        XCTAssertEqual(r.status, 0, r.err)
        return r.out.split(separator: "\n").first { $0.hasPrefix("units ") }.map(String.init) ?? ""
    }

    func testAnAccelerometerNormWarningMakesTheUnitsSuspect() throws {
        // At rest, the accelerometer reading 6.5 times gravity.
        let rest = TestData.temporaryDirectory() + "/rest64.csv"
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for k in 0..<200 { text += "\(Double(k) / 100),0.001,0,-0.001,0.1,0.2,63.7\n" }
        try text.write(toFile: rest, atomically: false, encoding: .utf8)
        let line = unitsLine(rest)
        XCTAssert(line.hasPrefix("units         suspect (the accelerometer's norm is 63.7"), line)
        XCTAssert(line.contains("at rest, not about 9.81; see warnings)"), line)
        // Never at rest: the median of all the norms, said so.
        let (gesture, _) = try GyroscopeInMotionTests.write()
        let moving = unitsLine(gesture, ["--sample-rate", "119"])
        XCTAssert(moving.contains("suspect (the accelerometer's norm is 1.5 m/s²"), moving)
        XCTAssert(moving.contains("(median; never at rest)"), moving)
        // Plausible units stay plausible.
        var plain = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for k in 0..<200 { plain += "\(Double(k) / 100),0.001,0,-0.001,0.1,0.2,9.8\n" }
        let path = TestData.temporaryDirectory() + "/plain.csv"
        try plain.write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertEqual(unitsLine(path), "units         plausible")
    }
}
