import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Findings of a hostile pass over the command line, each kept as a regression test: a broken
/// standard error, an input arriving on standard input, outputs that are one file under two
/// spellings, long names, a magnetometer without values, and tuning or calibration no sensor
/// could have.
final class HostileUseTests: XCTestCase {
    var dir = ""
    var trace = ""

    override func setUpWithError() throws {
        dir = TestData.temporaryDirectory()
        trace = dir + "/trace.csv"
        try FileManager.default.copyItem(atPath: TestData.projectData + "/sim_mixed_100hz.csv", toPath: trace)
    }

    /// Runs the executable with standard input and standard error on the given files.
    func run(_ args: [String], stdin: String? = nil, stderr: String) throws -> Int32 {
        let input = stdin.flatMap { FileHandle(forReadingAtPath: $0) }
        let error = try XCTUnwrap(FileHandle(forWritingAtPath: stderr))
        return try ChildProcess.run(
            try TestData.executable(), args, in: dir, input: input.map { .handle($0) } ?? .none, output: .discard,
            error: .handle(error)
        ).status
    }

    /// A full or closed standard error loses the message, never the run: the exit status stays the
    /// command's own.
    func testUnwritableStandardErrorDoesNotCrash() throws {
        XCTAssertEqual(try run(["replay", "missing.csv"], stderr: "/dev/full"), 1)
        XCTAssertEqual(try run(["replay", trace, "--output", trace], stderr: "/dev/full"), 2)
        XCTAssertEqual(try run(["replay", trace, "--output", "out.csv", "--score"], stderr: "/dev/full"), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out.csv"))
    }

    /// `replay - < FILE --output FILE` would destroy the input it is reading.
    func testInputOnStandardInputIsProtected() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: trace))
        XCTAssertEqual(try run(["replay", "-", "--output", trace], stdin: trace, stderr: "/dev/null"), 2)
        XCTAssertEqual(try run(["reconstruct", "-", "--output", "trace.csv"], stdin: trace, stderr: "/dev/null"), 2)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trace)), before, "input unchanged")
        XCTAssertEqual(try run(["replay", "-", "--output", "other.csv"], stdin: trace, stderr: "/dev/null"), 0)
    }

    /// `reconstruct` of a recording all at rest on one timestamp (360 000 identical rows), of
    /// 370 000 samples 0.1 µs apart (stated as seconds, `--units t=s`: unstated, a 10 MHz clock is
    /// refused), or of two rows, ends normally with one finite row per sample
    /// (it used to crash on an index out of range, leaving its temporary file behind), and
    /// `--calibrate-mag` on them is an error that still writes the attitude; no temporary file is
    /// left in the folder.
    func testReconstructOfRecordingsWithinOneKnot() throws {
        let header = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n"
        let cases: [(String, Int, (Int) -> String)] = [
            ("identical", 360_000, { _ in "0" }), ("dense", 370_000, { "\(Double($0) * 1e-7)" }),
            ("short", 2, { "\(Double($0) * 0.01)" }),
        ]
        for (name, rows, time) in cases {
            var text = header
            for i in 0..<rows { text += time(i) + ",0,0,0,0,0,9.81,20,0,-40\n" }
            try text.write(toFile: dir + "/\(name).csv", atomically: false, encoding: .utf8)
            let seconds = name == "dense" ? ["--units", "t=s"] : []
            let status = try run(
                ["reconstruct", "\(name).csv", "--output", "\(name).out.csv"] + seconds, stderr: "/dev/null")
            XCTAssertEqual(status, 0, name)
            let lines = try String(contentsOfFile: dir + "/\(name).out.csv", encoding: .utf8).split(separator: "\n")
            XCTAssertEqual(lines.count, rows + 1, name)
            let columns = lines[0].split(separator: ",")
            let qw = try XCTUnwrap(columns.firstIndex(of: "qw"))
            for line in [lines[1], lines[rows / 2 + 1], lines[rows]] {
                let cells = line.split(separator: ",")
                // Flat, sensor x to magnetic north: yaw 90° (ENU), no tilt.
                XCTAssertEqual(Double(cells[qw]) ?? .nan, 0.5.squareRoot(), accuracy: 1e-3, "\(name): \(line)")
                XCTAssertEqual(Double(cells[qw + 3]) ?? .nan, 0.5.squareRoot(), accuracy: 1e-3, "\(name): \(line)")
            }
        }
        // Two readings in one direction do not determine a magnetometer calibration: an error, not
        // the priors written as a fit; the attitude is still written.
        let status = try run(
            ["reconstruct", "short.csv", "--output", "s.csv", "--calibrate-mag", "cal.json"], stderr: "/dev/null")
        XCTAssertEqual(status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cal.json"))
        let written = try String(contentsOfFile: dir + "/s.csv", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(written.count, 3, "the attitude of both rows, under its header")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }
        XCTAssertEqual(left, [], "no temporary file left behind")
    }

    /// Two outputs of one run that are one file under two spellings are a usage error.
    func testOutputsThatAreOneFileAreRefused() throws {
        for (a, b) in [("same.csv", "./same.csv"), (dir + "/same.csv", "same.csv")] {
            let r = try CommandRunner.process(["reconstruct", trace, "--output", a, "--report", b], in: dir)
            XCTAssertEqual(r.status, 2, r.err)
            XCTAssert(r.err.contains("different files"), r.err)
            let c = try CommandRunner.process(["reconstruct", trace, "--output", a, "--calibrate-mag", b], in: dir)
            XCTAssertEqual(c.status, 2, c.err)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/same.csv"))
    }

    /// A trailing slash names a folder: refused before anything is read, whether or not it exists.
    func testOutputWithTrailingSlashIsRefusedUpFront() throws {
        for output in ["missing/", "trace.csv/", "./"] {
            let r = try CommandRunner.process(["replay", trace, "--output", output], in: dir)
            XCTAssertEqual(r.status, 2, r.err)
            XCTAssert(r.err.contains("folder"), r.err)
        }
        // Whole-file warnings name the file, not a line 0.
        let zip = dir + "/empty.zip"
        try Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)).write(to: URL(fileURLWithPath: zip))
        let r = try CommandRunner.process(["info", zip], in: dir)
        XCTAssertEqual(r.status, 1)
        XCTAssertFalse(r.err.contains(":0"), r.err)
    }

    /// An output name of up to 255 bytes is written (the temporary name beside it is shortened).
    func testLongOutputNames() throws {
        for name in [String(repeating: "L", count: 251) + ".csv", String(repeating: "é", count: 125) + ".csv"] {
            let r = try CommandRunner.process(["replay", trace, "--output", name], in: dir)
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertTrue(FileManager.default.fileExists(atPath: PathText.join(dir, name)))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: dir)
        XCTAssertFalse(names.contains { $0.hasSuffix(".tmp") }, "no temporary file left")
    }

    /// Magnetometer columns without a single value are no magnetometer: 9D runs, scores and reports
    /// as 6D with a warning, the e-compass refuses, and `evaluate` scores 6D unless told otherwise.
    func testMagnetometerColumnsWithoutValues() throws {
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        var lines = text.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let magnetometer = ["mag_x", "mag_y", "mag_z"].compactMap { name in lines[0].firstIndex { $0 == name } }
        XCTAssertEqual(magnetometer.count, 3)
        for i in 1..<lines.count { for j in magnetometer { lines[i][j] = "nan" } }
        let empty = dir + "/nomag.csv"
        try (lines.map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n").write(
            toFile: empty, atomically: true, encoding: .utf8)

        for command in ["replay", "reconstruct"] {
            let r = try CommandRunner.process(
                [command, empty, "--mode", "9d", "--score", "--output", "\(command).csv"], in: dir)
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssert(r.err.contains("the magnetometer has no value"), r.err)
            XCTAssert(r.err.contains(" 6d: total"), "scored 6D: \(r.err)")
        }
        let ecompass = try CommandRunner.process(
            ["replay", empty, "--filter", "ecompass", "--output", "e.csv"], in: dir)
        XCTAssertEqual(ecompass.status, 1, ecompass.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/e.csv"), "nothing written")

        let sixD = try CommandRunner.process(["evaluate", "replay.csv", "--truth", empty, "--json"], in: dir)
        XCTAssert(sixD.out.contains("\"mode\":\"6d\""), sixD.out)
        let nineD = try CommandRunner.process(["evaluate", "replay.csv", "--truth", empty, "--mode", "9d"], in: dir)
        XCTAssertEqual(nineD.status, 0)
        XCTAssert(nineD.err.contains("no magnetometer value"), nineD.err)
    }

    /// Tuning must be physical, and a calibration must calibrate something a sensor could need.
    func testImpossibleTuningAndCalibrationAreRefused() throws {
        for bad in ["gyroscopeNoise=nan", "gyroscopeNoise=-1", "gyroscopeNoise=inf", "rest.minimumDuration=-0.5"] {
            let r = CommandRunner.run(["replay", trace, "--param", bad, "--output", "/dev/null"])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssert(r.err.contains("must be"), r.err)
        }
        let tilt = CommandRunner.run(["replay", trace, "--filter", "tilt", "--param", "x=1", "--output", "/dev/null"])
        XCTAssertEqual(tilt.status, 2)
        XCTAssert(tilt.err.contains("tilt has no parameters"), tilt.err)
        // The expected field may be negative (a southern dip) or learnt again (nan).
        for fine in ["expectedDip=-1.1", "expectedDip=nan", "expectedFieldNorm=48"] {
            XCTAssertEqual(
                CommandRunner.run(["replay", trace, "--param", fine, "--output", "/dev/null"]).status, 0, fine)
        }

        let cases = [
            ("{}", "calibrates nothing"),
            (#"{"gyroscope":{"bias":[1e308,0,0]}}"#, "gyroscope.bias"),
            (#"{"magnetometer":{"hard_iron":[0,0,0],"soft_iron":[[1,0,0],[0,1,0],[0,0,0]]}}"#, "singular"),
            (#"{"accelerometer":{"bias":[0,0,0],"scale":[1,-1,1]}}"#, "accelerometer.scale"),
        ]
        for (json, message) in cases {
            let path = dir + "/cal.json"
            try json.write(toFile: path, atomically: true, encoding: .utf8)
            let r = CommandRunner.run(["replay", trace, "--calibration", path, "--output", "/dev/null"])
            XCTAssertEqual(r.status, 1, json)
            XCTAssert(r.err.contains(message), r.err)
        }
    }
}
