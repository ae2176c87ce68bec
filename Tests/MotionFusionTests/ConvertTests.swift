import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// `convert` writes what was read as a native trace.
final class ConvertTests: XCTestCase {
    let fixtures = TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/SensorFiles"

    /// `convert` writes what was read; replaying that native file equals replaying the
    /// original. Outputs are as safe as replay's.
    func testConvertThenReplayEqualsReplay() throws {
        let dir = TestData.temporaryDirectory()
        for (input, options) in [
            (fixtures + "/short", [String]()),
            (TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/Layouts/arduino_ax_gz.csv", []),
            (
                TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/Layouts/headerless.txt",
                ["--header-rows", "0", "--columns", "t=1,gyr=2,acc=5", "--remap", "x,-z,y,mag=+Y+X-Z"]
            ),
        ] {
            let native = dir + "/native.csv"
            let c = CommandRunner.run(["convert", input, "--output", native] + options)
            XCTAssertEqual(c.status, 0, c.err)
            XCTAssert(c.err.contains("rows written to"), c.err)
            XCTAssertEqual(try TraceFormat.detect(path: native), .native)
            let direct = CommandRunner.run(["replay", input, "--output", dir + "/direct.csv"] + options)
            let converted = CommandRunner.run(["replay", native, "--output", dir + "/converted.csv"])
            XCTAssertEqual(direct.status, 0, direct.err)
            XCTAssertEqual(converted.status, 0, converted.err)
            let estimates = try String(contentsOfFile: dir + "/direct.csv", encoding: .utf8)
            XCTAssertGreaterThan(estimates.count, 1000)
            XCTAssertEqual(try String(contentsOfFile: dir + "/converted.csv", encoding: .utf8), estimates, input)
            let streamed = try CommandRunner.process(["convert", input, "--output", "-"] + options)
            XCTAssertEqual(streamed.status, 0, streamed.err)
            XCTAssertEqual(streamed.out, try String(contentsOfFile: native, encoding: .utf8))
            for file in [native, dir + "/direct.csv", dir + "/converted.csv"] {
                try FileManager.default.removeItem(atPath: file)
            }
        }
        // Never onto the input; a value fault is repaired and reported.
        let input = TestData.writeTemporary("t,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,nan,9.8\n0.02,0,0,9.8\n")
        let before = try String(contentsOfFile: input, encoding: .utf8)
        let onto = CommandRunner.run(["convert", input, "--output", input])
        XCTAssertEqual(onto.status, 2, onto.err)
        XCTAssertEqual(try String(contentsOfFile: input, encoding: .utf8), before)
        let repaired = try CommandRunner.process(["convert", input, "--output", "-"])
        XCTAssertEqual(repaired.status, 0, repaired.err)
        XCTAssertEqual(repaired.out, "t,acc_x,acc_y,acc_z\n0.0,0.0,0.0,9.8\n0.01,nan,nan,nan\n0.02,0.0,0.0,9.8\n")
        XCTAssert(repaired.err.contains("some axes missing once"), repaired.err)
        XCTAssertEqual(CommandRunner.run(["convert", input]).status, 2)
    }
}
