import Foundation
import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

/// The command line run in process: exit codes, messages with file, line and column, outputs.
final class CommandLineTests: XCTestCase {
    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    func run(_ args: [String]) -> Run {
        var out = ""
        var err = ""
        let status = MotionFusionCLI.run(args, output: ConsoleOutput(out: { out += $0 }, err: { err += $0 }))
        return Run(status: status, out: out, err: err)
    }

    func simulated(duration: Double = 10, errors: String = "consumer") -> String {
        let path = TestData.temporaryDirectory() + "/sim.csv"
        let r = run([
            "simulate", "--scenario", "mixed", "--duration", "\(duration)", "--rate", "100", "--seed", "3", "--errors",
            errors,
            "--output", path,
        ])
        XCTAssertEqual(r.status, 0, r.err)
        return path
    }

    func testHelpListsSubcommands() {
        let r = run(["--help"])
        XCTAssertEqual(r.status, 0)
        for name in ["info", "simulate", "replay", "evaluate"] { XCTAssert(r.out.contains("  \(name) "), name) }
        XCTAssertEqual(run([]).status, 2)
        let bad = run(["frobnicate"])
        XCTAssertEqual(bad.status, 2)
        XCTAssert(bad.err.contains("unknown subcommand 'frobnicate'"))
    }

    func testReplayWritesOneRowPerSampleWithTheContractColumns() throws {
        let trace = simulated()
        let out = TestData.temporaryDirectory() + "/est.csv"
        let r = run(["replay", trace, "--output", out, "--score"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("total"), r.err)
        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssert(lines[0].hasPrefix("t,qw,qx,qy,qz,roll,pitch,yaw,heading,"))
        XCTAssertEqual(lines.count - 1, try TraceFormat.load(path: trace).samples.count)
        XCTAssertFalse(
            lines.contains {
                $0.contains("nan") && !$0.contains("sigma") && $0.split(separator: ",").prefix(9).contains("nan")
            })
        // Frames: NED output converts back to the same attitude.
        let ned = TestData.temporaryDirectory() + "/ned.csv"
        XCTAssertEqual(run(["replay", trace, "--frame", "ned", "--output", ned]).status, 0)
        let a = try EstimateReader.read(path: out)
        let b = try EstimateReader.read(path: ned, frame: .ned)
        assertSameRotation(a.attitudes[500]!, b.attitudes[500]!, tolerance: 1e-7)
    }

    func testEvaluateMatchesReplayScore() throws {
        let trace = simulated()
        let out = TestData.temporaryDirectory() + "/est.csv"
        XCTAssertEqual(run(["replay", trace, "--filter", "mahony", "--output", out]).status, 0)
        let r = run(["evaluate", out, "--truth", trace, "--json"])
        XCTAssertEqual(r.status, 0, r.err)
        let json = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        let total = json["total_rmse_deg"] as! Double
        let t = try TraceFormat.load(path: trace)
        let direct = AttitudeErrorMetric.evaluate(
            estimates: RunConfiguration(FilterKind.mahony, mode: .nineD).attitudes(t.samples), trace: t, mode: .nineD)!
        XCTAssertEqual(total, direct.totalRMSE, accuracy: 1e-4, "written with 9 decimals")
        XCTAssertEqual(json["samples_used"] as? Int, direct.samplesUsed)
        for key in ["heading_rmse_deg", "inclination_rmse_deg"] { XCTAssertNotNil(json[key]) }
    }

    /// An empty option value (an unset shell variable) is a usage error naming the option, never a
    /// run as if the option were absent (`--date ''` would have used today).
    func testEmptyOptionValuesAreUsageErrors() {
        let trace = TestData.projectData + "/sim_mixed_100hz.csv"
        let out = TestData.temporaryDirectory() + "/e.csv"
        for (command, option) in [
            ("replay", "param"), ("replay", "units"), ("replay", "date"), ("replay", "columns"),
            ("replay", "calibration"), ("reconstruct", "method"), ("info", "format"), ("declination", "date"),
        ] {
            for form in [["--\(option)", ""], ["--\(option)="], ["--\(option)", "  "]] {
                let rest =
                    command == "info"
                    ? [trace]
                    : command == "declination"
                        ? ["--lat", "52", "--lon", "13"]
                        : [
                            trace, "--output", out,
                        ]
                let r = CommandRunner.run([command] + form + rest)
                let args = form.joined(separator: " ")
                XCTAssertEqual(r.status, 2, "\(command) \(args)")
                XCTAssert(r.err.contains("--\(option) needs a value"), "\(command) \(args): \(r.err)")
            }
        }
    }

    /// Line counts are whole numbers: `--skip-lines 1.5` is a usage error, not two lines.
    func testLineCountsAreWholeNumbers() {
        let trace = TestData.projectData + "/sim_mixed_100hz.csv"
        for (option, value) in [("skip-lines", "1.5"), ("skip-lines", "0.4"), ("header-rows", "1.5")] {
            let r = CommandRunner.run(["info", trace, "--\(option)", value])
            XCTAssertEqual(r.status, 2, "--\(option) \(value)")
            XCTAssert(r.err.contains("--\(option) takes a whole number"), r.err)
        }
        let emptyList = CommandRunner.run(["replay", trace, "--param", ",", "--output", "-"])
        XCTAssertEqual(emptyList.status, 2, "an empty list")
        XCTAssert(emptyList.err.contains("--param needs a value"), emptyList.err)
    }

    func testBadInputExitsNonZeroWithLocation() {
        let bad = TestData.writeTemporary("t,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,zz,9.8\n")
        for cmd in ["info", "replay"] {
            let r = run([cmd, bad])
            XCTAssertEqual(r.status, 1, cmd)
            XCTAssert(r.err.contains("\(bad):3:8"), r.err)
            XCTAssert(r.err.contains("not a number"), r.err)
        }
        let missing = run(["replay", "/nonexistent.csv"])
        XCTAssertEqual(missing.status, 1)
        XCTAssert(missing.err.contains("/nonexistent.csv"))
        let usage = run(["replay", bad, "--filter", "kalman"])
        XCTAssertEqual(usage.status, 2)
        XCTAssert(usage.err.contains("--filter must be one of"))
        XCTAssertEqual(run(["replay", bad, "--bogus"]).status, 2)
        XCTAssertEqual(
            run(["simulate", "--scenario", "mixed", "--duration", "-1", "--rate", "100", "--output", "x"]).status, 2)
    }

    /// Every subcommand that reads a trace reports each class of bad structure with file, line
    /// and column and exits 1, writing nothing; value faults are errors there only with --strict.
    func testEveryCommandReportsBadInputWithLocation() {
        let h = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        let cases: [(String, String, String, Bool)] = [
            (h + "0,0,0,0,0,0,9.8\n0.01,0,0,0,0,zz,9.8\n", ":3:", "not a number", false),
            (h + "0,0,0,0,0,0,9.8\n0.01,0,0,0,0,9.8\n", ":3:", "fields", false),
            ("t,acc_x,acc_y\n0,0,0\n", ":1", "acc_z", false),
            ("", ":1", "empty", false),
            (h + "0,0,0,0,0,0,9.8\n0,0,0,0,0,0,9.8\n", ":3:1", "repeats", true),
            (h + "1,0,0,0,0,0,9.8\n0.5,0,0,0,0,0,9.8\n", ":3:1", "earlier", true),
            (h + "0,0,0,0,0,inf,9.8\n", ":2:", "inf", true),
            (h + "0,0,0,0,nan,0,9.8\n", ":2:", "missing", true),
        ]
        for (text, location, message, strict) in cases {
            let path = TestData.writeTemporary(text)
            let out = TestData.temporaryDirectory()
            let flag = strict ? ["--strict"] : []
            for args in [
                ["info", path], ["replay", path, "--output", out + "/r.csv"],
                ["reconstruct", path, "--output", out + "/c.csv"],
                ["events", path], ["calibrate", path, "--output", out + "/cal.json", "--sensors", "gyr"],
            ] {
                let r = run(args + flag)
                XCTAssertEqual(r.status, 1, "\(args[0]) on \(message): \(r.err)")
                XCTAssert(r.err.contains(path + location), "\(args[0]) names the location \(location): \(r.err)")
                XCTAssert(r.err.contains(message), "\(args[0]) says \(message): \(r.err)")
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out), [], "no output files")
        }
        let estimate = TestData.writeTemporary("t,qw,qx,qy,qz\n0,1,0,0,0\n0.01,1,x,0,0\n")
        let e = run(["evaluate", estimate, "--truth", TestData.projectData + "/sim_mixed_100hz.csv"])
        XCTAssertEqual(e.status, 1)
        XCTAssert(e.err.contains(estimate + ":3:"), e.err)
        // An empty estimate file is asked for an estimate's header, not a trace's.
        let empty = TestData.writeTemporary("", name: "estimate.csv")
        let none = run(["evaluate", empty, "--truth", TestData.projectData + "/sim_mixed_100hz.csv"])
        XCTAssertEqual(none.status, 1)
        XCTAssert(
            none.err.contains(
                empty + ":1: file is empty; expected an estimate file's header line such as 't,qw,qx,qy,qz'"), none.err)
    }

    func testFailedReplayLeavesNoPartialOutput() {
        let bad = TestData.writeTemporary("t,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,zz,9.8\n")
        let dir = TestData.temporaryDirectory()
        let out = dir + "/est.csv"
        XCTAssertEqual(run(["replay", bad, "--output", out]).status, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }

    func testReplayFolderContinuesPastABadFile() throws {
        let dir = TestData.temporaryDirectory()
        for seed in 1...3 {
            let r = run([
                "simulate", "--scenario", "slow-rotation", "--duration", "10", "--rate", "50", "--seed", "\(seed)",
                "--output", dir + "/trace\(seed).csv",
            ])
            XCTAssertEqual(r.status, 0)
        }
        try "t,acc_x,acc_y,acc_z\n0,0,0,9.8\n0.01,0,x,9.8\n".write(
            toFile: dir + "/broken.csv", atomically: true, encoding: .utf8)
        let out = TestData.temporaryDirectory() + "/estimates"
        let r = run(["replay", dir, "--output", out])
        XCTAssertEqual(r.status, 1, "one trace failed")
        XCTAssert(r.err.contains("broken.csv:3:8"), r.err)
        for seed in 1...3 {
            XCTAssert(r.out.contains("trace\(seed) "), r.out)
            XCTAssert(FileManager.default.fileExists(atPath: out + "/trace\(seed).csv"))
        }
        XCTAssert(r.out.contains("mean"))
        XCTAssert(r.out.contains("FAILED"))
        // Evaluate matches the folders by name.
        let e = run(["evaluate", out, "--truth", dir])
        XCTAssert(e.out.contains("trace2") && e.out.contains("mean"), e.out + e.err)
        XCTAssertEqual(run(["replay", dir]).status, 2, "a folder needs --output")
    }

    /// `events`, `calibrate` and `convert` read one trace: given a folder of traces they say so,
    /// with the count and one of them, and the command they propose runs when pasted into a shell.
    func testOneTraceCommandsRefuseAFolderOfTraces() throws {
        let dir = TestData.temporaryDirectory() + "/two traces"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["it's one.csv", "two.csv"] {
            let r = run([
                "simulate", "--scenario", "orientations", "--duration", "20", "--rate", "50", "--output",
                dir + "/" + name,
            ])
            XCTAssertEqual(r.status, 0, r.err)
        }
        let work = TestData.temporaryDirectory()
        for args in [
            ["events", dir], ["calibrate", dir, "--output", "cal.json"], ["convert", dir, "--output", "o.csv"],
        ] {
            let r = try CommandRunner.process(args, in: work)
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssert(r.err.contains("\(args[0]) reads one trace at a time, and this folder holds 2 traces"), r.err)
            XCTAssertFalse(r.err.contains("no recognised recording"), r.err)
            let command = try XCTUnwrap(r.err.components(separatedBy: "e.g. ").last).trimmingCharacters(
                in: .whitespacesAndNewlines)
            XCTAssert(command.hasPrefix("motionfusion \(args[0]) "), command)
            // Pasted into a shell, with motionfusion on the path, the proposal runs.
            let binary = try TestData.executable()
            let path = (binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"
            let pasted = try ChildProcess.run("/bin/sh", ["-c", command], in: work, environment: ["PATH": path])
            XCTAssertEqual(pasted.status, 0, command + "\n" + pasted.errText)
        }
    }

    func testReconstructWritesEveryRowAndAReport() throws {
        let trace = simulated(duration: 30, errors: "calibrated")
        let dir = TestData.temporaryDirectory()
        let r = run(["reconstruct", trace, "--output", dir + "/est.csv", "--report", dir + "/report.html", "--score"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("reconstruct 9d: total"), r.err)
        let lines = try String(contentsOfFile: dir + "/est.csv", encoding: .utf8).split(separator: "\n")
        XCTAssert(lines[0].hasPrefix("t,qw,qx,qy,qz,roll,pitch,yaw,heading,"))
        XCTAssert(lines[0].contains("sigma_attitude_deg"))
        XCTAssertEqual(lines.count - 1, try TraceFormat.load(path: trace).samples.count)
        let html = try String(contentsOfFile: dir + "/report.html", encoding: .utf8)
        XCTAssert(html.hasPrefix("<!DOCTYPE html>") && html.contains("<svg"))
        // Offline is at least as accurate as online on this trace.
        let online = run(["replay", trace, "--output", "/dev/null", "--score"])
        func total(_ text: String) -> Double {
            let part = text.components(separatedBy: "total ")[1]
            return Double(part.prefix { $0 != "°" })!
        }
        XCTAssertLessThanOrEqual(total(r.err), total(online.err))
    }

    func testInfoJSON() throws {
        let trace = simulated()
        let r = run(["info", trace, "--json"])
        XCTAssertEqual(r.status, 0, r.err)
        let json = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        XCTAssertEqual(json["format"] as? String, "native")
        XCTAssertEqual(json["samples"] as? Int, 1001)
        XCTAssertEqual(json["duration_s"] as! Double, 10, accuracy: 0.01)
        XCTAssertEqual(json["has_ground_truth"] as? Bool, true)
        let rates = json["rate_hz"] as! [String: Double]
        XCTAssertEqual(rates["gyroscope"]!, 100, accuracy: 0.5)
    }

    func testInfoOnBroadTrial() throws {
        let p = try TestData.shared("broad/05_undisturbed_slow_rotation_with_breaks_B.csv")
        let r = run(["info", p, "--json"])
        XCTAssertEqual(r.status, 0, r.err)
        let json = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as! [String: Any]
        XCTAssertEqual(json["samples"] as? Int, 59212)
        XCTAssertEqual((json["rate_hz"] as! [String: Double])["accelerometer"]!, 285.714, accuracy: 0.01)
    }
}

/// The README quick start: the bundled trace replays through the default filter with a small error.
final class BundledDataTests: XCTestCase {
    func testQuickStartTraceReplays() throws {
        for (name, bound9, bound6) in [
            ("sim_mixed_100hz.csv", 1.5, 1.3), ("sim_magnetic_disturbance_50hz.csv", 3.5, 2.0),
            ("sim_translation_ideal_100hz.csv", 0.8, 0.9),
        ] {
            let trace = try TraceFormat.load(path: TestData.projectData + "/" + name)
            XCTAssertTrue(trace.hasGroundTruth)
            for (mode, bound) in [(FusionMode.nineD, bound9), (.sixD, bound6)] {
                let q = RunConfiguration(FilterKind.default, mode: mode).attitudes(trace.samples)
                let r = AttitudeErrorMetric.evaluate(estimates: q, trace: trace, mode: mode)!
                XCTAssertLessThan(r.totalRMSE, bound, "\(name) \(mode.rawValue)")
            }
        }
    }

    func testSimulatorReproducesBundledTraceByteForByte() throws {
        var s = MotionSimulator.Settings()
        s.scenario = .mixed
        s.duration = 60
        s.rate = 100
        s.seed = 1
        s.errors = .calibrated
        let text = TraceWriter.csv(MotionSimulator(settings: s).run())
        let bundled = try String(contentsOfFile: TestData.projectData + "/sim_mixed_100hz.csv", encoding: .utf8)
        XCTAssert(text == bundled, "data/sim_mixed_100hz.csv is the simulator's output")
    }
}
