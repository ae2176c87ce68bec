import Foundation
import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

/// `evaluate` scores an estimate file against the truth it belongs to: in the frame and north
/// reference the file was written with, and with a warning when the two timelines do not match.
final class EvaluateReferenceTests: XCTestCase {
    func simulated(seed: Int, duration: Double) -> String {
        let path = TestData.temporaryDirectory() + "/sim\(seed).csv"
        let r = CommandRunner.run([
            "simulate", "--scenario", "mixed", "--duration", "\(duration)", "--rate", "100", "--seed", "\(seed)",
            "--output", path,
        ])
        XCTAssertEqual(r.status, 0, r.err)
        return path
    }

    func score(_ args: [String]) throws -> (total: Double, err: String) {
        let r = CommandRunner.run(["evaluate"] + args + ["--json"])
        XCTAssertEqual(r.status, 0, r.err)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], r.out)
        return (try XCTUnwrap(json["total_rmse_deg"] as? Double), r.err)
    }

    /// Estimates written in NED or NWU, or referenced to true north, score as the ENU magnetic one
    /// does without repeating the flags: the heading columns show the frame and the declination.
    /// A flag the file contradicts is an error; a file without those columns is read as ENU,
    /// magnetic, with a warning saying which flags to give.
    func testFrameAndDeclinationComeFromTheFile() throws {
        let trace = simulated(seed: 3, duration: 20)
        let dir = TestData.temporaryDirectory()
        XCTAssertEqual(CommandRunner.run(["replay", trace, "--output", dir + "/enu.csv"]).status, 0)
        let reference = try score([dir + "/enu.csv", "--truth", trace])
        XCTAssertEqual(reference.err, "")
        XCTAssertLessThan(reference.total, 10)
        for (name, flags) in [
            ("ned", ["--frame", "ned"]), ("nwu", ["--frame", "nwu"]), ("true", ["--declination", "-12.5"]),
            ("both", ["--frame", "ned", "--declination", "175"]),
        ] {
            let path = dir + "/\(name).csv"
            let r = CommandRunner.run(["replay", trace, "--output", path] + flags)
            XCTAssertEqual(r.status, 0, r.err)
            let estimates = try EstimateReader.read(path: path)
            XCTAssertEqual(
                estimates.writtenFrame,
                flags.firstIndex(of: "--frame").map { EarthFrame(rawValue: flags[$0 + 1])! } ?? .enu, name)
            let plain = try score([path, "--truth", trace])
            XCTAssertEqual(plain.total, reference.total, accuracy: 1e-3, name)
            XCTAssertEqual(plain.err, "", name)
            // The same flags repeated agree; others are refused.
            XCTAssertEqual(try score([path, "--truth", trace] + flags).total, reference.total, accuracy: 1e-3)
        }
        let wrongFrame = CommandRunner.run(["evaluate", dir + "/ned.csv", "--truth", trace, "--frame", "enu"])
        XCTAssertEqual(wrongFrame.status, 1, wrongFrame.err)
        XCTAssert(wrongFrame.err.contains("in the ned frame, not in enu as --frame says"), wrongFrame.err)
        let wrongNorth = CommandRunner.run(["evaluate", dir + "/true.csv", "--truth", trace, "--declination", "3"])
        XCTAssertEqual(wrongNorth.status, 1, wrongNorth.err)
        XCTAssert(wrongNorth.err.contains("a declination of -12.5000°"), wrongNorth.err)
        // Only t and the quaternion: read as ENU, magnetic north, with a warning naming the flags.
        let lines = try String(contentsOfFile: dir + "/enu.csv", encoding: .utf8).split(separator: "\n")
        let bare = lines.map { $0.split(separator: ",").prefix(5).joined(separator: ",") }.joined(separator: "\n")
        try (bare + "\n").write(toFile: dir + "/bare.csv", atomically: true, encoding: .utf8)
        let minimal = try score([dir + "/bare.csv", "--truth", trace])
        XCTAssertEqual(minimal.total, reference.total, accuracy: 1e-3)
        XCTAssert(minimal.err.contains("warning: the file has no heading"), minimal.err)
        XCTAssert(minimal.err.contains("--frame") && minimal.err.contains("--declination"), minimal.err)
        XCTAssertEqual(
            try score([dir + "/bare.csv", "--truth", trace, "--frame", "enu", "--declination", "0"]).err, "")
    }

    /// An estimate of another trace (longer, or shorter) is scored with a warning giving both time
    /// ranges and how many rows were compared; the trace's own estimate, resampled too, is not.
    func testMismatchedTimelinesAreSaid() throws {
        let short = simulated(seed: 1, duration: 20)
        let long = simulated(seed: 2, duration: 30)
        let dir = TestData.temporaryDirectory()
        for (name, trace, rate) in [("short", short, []), ("long", long, []), ("rated", short, ["--rate", "30"])] {
            let r = CommandRunner.run(["replay", trace, "--output", dir + "/\(name).csv"] + rate)
            XCTAssertEqual(r.status, 0, r.err)
        }
        XCTAssertEqual(try score([dir + "/short.csv", "--truth", short]).err, "")
        XCTAssertEqual(try score([dir + "/rated.csv", "--truth", short]).err, "")
        let longer = try score([dir + "/long.csv", "--truth", short]).err
        XCTAssert(
            longer.contains("warning: its rows span t = 0.000…30.000 s and the truth's samples t = 0.000…20.000 s"),
            longer)
        XCTAssert(longer.contains("2001 of its 3001 rows fall on a ground-truth sample"), longer)
        XCTAssert(longer.contains("samples were scored: is it the estimate of \(short)?"), longer)
        let shorter = try score([dir + "/short.csv", "--truth", long]).err
        XCTAssert(
            shorter.contains("warning: its rows span t = 0.000…20.000 s and the truth's samples t = 0.000…30.000 s"),
            shorter)
    }
}
