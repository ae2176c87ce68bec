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

    /// A steady 100 Hz clock with one 5 s gap: the jitter is the clock's (none), the gap is
    /// counted on its own.
    func testJitterLeavesTheGapsOut() throws {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for k in 0..<400 { text += "\(Double(k) / 100 + (k >= 200 ? 5 : 0)),0.001,0,-0.001,0.1,0.2,9.8\n" }
        let path = TestData.temporaryDirectory() + "/gap.csv"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let r = CommandRunner.run(["info", path, "--json"])
        XCTAssertEqual(r.status, 0, r.err)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let timing = try XCTUnwrap((json["sensors"] as? [String: Any])?["accelerometer"] as? [String: Any], r.out)
        XCTAssertEqual(timing["gaps"] as? Int, 1, r.out)
        XCTAssertLessThan(try XCTUnwrap(timing["jitter_s"] as? Double), 1e-6, r.out)
    }
}

/// `info`'s duration and rates cover the steps forward: a clock that goes back (a 32-bit `micros()`
/// counter wrapping at 2³² µs) is a time fault, not a negative duration or rate, and a clock that
/// never moves gives rate 0, not inf.
final class InfoTimingTests: XCTestCase {
    func testAWrappedClockGivesNoNegativeDurationOrRate() throws {
        let path = TestData.temporaryDirectory() + "/wrap.csv"
        var text = "t_us,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        // 100 Hz for 20 s, wrapping past 2³² µs after 5 s.
        for k in 0..<2000 {
            let t = (UInt64(4_290_000_000) + UInt64(k) * 10_000) % (UInt64(1) << 32)
            text += "\(t),0.001,0,-0.001,0,0,9.81\n"
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let r = CommandRunner.run(["info", path, "--json"])
        XCTAssertEqual(r.status, 0, r.err)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        // 1999 steps of 10 ms, one of them back: 19.98 s forward.
        XCTAssertEqual(try XCTUnwrap(json["duration_s"] as? Double), 19.98, accuracy: 0.02)
        let rates = try XCTUnwrap(json["rate_hz"] as? [String: Any])
        XCTAssertEqual(try XCTUnwrap(rates["gyroscope"] as? Double), 100, accuracy: 0.5)
        XCTAssert(r.err.contains("time goes backwards"), r.err)
        // A clock that never moves: rate 0, not inf.
        let stuck = TestData.temporaryDirectory() + "/stuck.csv"
        try (["t,acc_x,acc_y,acc_z"] + (0..<50).map { _ in "45.5,0,0,9.81" }).joined(separator: "\n")
            .write(toFile: stuck, atomically: false, encoding: .utf8)
        let s = CommandRunner.run(["info", stuck])
        XCTAssertFalse(s.out.contains("inf"), s.out)
    }
}
