import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionCommandLine

/// Every option that `help SUB` lists is accepted, runs, and is explained on its own line. The
/// table below must name every option of every subcommand: a new option without an entry fails.
final class OptionCoverageTests: XCTestCase {
    func testEveryAdvertisedOptionIsExplainedAndWorks() throws {
        let dir = TestData.temporaryDirectory()
        let trace = TestData.projectData + "/sim_mixed_100hz.csv"
        let orientations = TestData.projectData + "/sim_orientations_100hz.csv"
        let estimate = dir + "/estimate.csv"
        XCTAssertEqual(CommandRunner.run(["replay", trace, "--output", estimate]).status, 0)
        let calibration = dir + "/cal.json"
        try "{\"gyroscope\": {\"bias\": [0.001, 0, 0]}}".write(toFile: calibration, atomically: true, encoding: .utf8)
        let out = dir + "/out.csv"
        let location = ["--lat", "52.5", "--lon", "13.4"]
        // The arguments each option is tried with (with whatever it needs beside it).
        let input: [String: [String]] = [
            "format": ["--format", "native"], "columns": ["--columns", "t=1,gyr=2,acc=5,mag=8,gt=11"],
            "units": ["--units", "gyr=rad/s,acc=m/s2,mag=uT,t=s"], "remap": ["--remap", "x,y,z"],
            "header-rows": ["--header-rows", "1"], "skip-lines": ["--skip-lines", "0"],
            "sample-rate": ["--units", "t=count", "--sample-rate", "100"],
            "delimiter": ["--delimiter", "comma"], "strict": ["--strict"],
        ]
        let run: [String: [String]] = [
            "filter": ["--filter", "mahony"], "mode": ["--mode", "6d"], "param": ["--param", "gyroscopeNoise=0.003"],
            "frame": ["--frame", "ned"], "rate": ["--rate", "50"], "declination": ["--declination", "3.5"],
            "lat": location, "lon": location, "height-km": location + ["--height-km", "0.1"],
            "date": location + ["--date", "2026-06-01"], "calibration": ["--calibration", calibration],
        ]
        let cases: [String: (base: [String], options: [String: [String]])] = [
            "info": ([trace], input.merging(["json": ["--json"]]) { a, _ in a }),
            "replay": (
                [trace, "--output", out],
                input.merging(run) { a, _ in a }.merging([
                    "output": ["--output", out], "score": ["--score"], "look-ahead": ["--look-ahead", "0"],
                ]) { a, _ in
                    a
                }
            ),
            // On the orientations trace, whose turns determine the magnetometer calibration
            // `--calibrate-mag` writes (the mixed one covers too few directions).
            "reconstruct": (
                [orientations, "--output", out],
                input.merging(run.filter { $0.key != "filter" }) { a, _ in a }.merging([
                    "output": ["--output", out], "score": ["--score"], "report": ["--report", dir + "/r.html"],
                    "method": ["--method", "smoother"], "calibrate-mag": ["--calibrate-mag", dir + "/mag.json"],
                ]) { a, _ in a }
            ),
            "evaluate": (
                [estimate, "--truth", trace],
                input.merging([
                    "truth": ["--truth", trace], "mode": ["--mode", "9d"], "frame": ["--frame", "enu"],
                    "json": ["--json"], "declination": ["--declination", "0"],
                ]) { a, _ in a }
            ),
            "declination": (
                location,
                [
                    "lat": location, "lon": location, "height-km": ["--height-km", "2"],
                    "date": ["--date", "2026-01-01"],
                    "json": ["--json"],
                ]
            ),
            "calibrate": (
                [orientations, "--output", dir + "/c.json"],
                input.merging(["output": ["--output", dir + "/c.json"], "sensors": ["--sensors", "mag,gyr"]]) { a, _ in
                    a
                }
            ),
            "events": (
                [trace],
                input.merging(["json": ["--json"], "shake-threshold": ["--shake-threshold", "10"]]) { a, _ in a }
            ),
            "simulate": (
                ["--scenario", "rest", "--duration", "1", "--rate", "50", "--output", dir + "/s.csv"],
                [
                    "scenario": ["--scenario", "shaking"], "duration": ["--duration", "2"], "rate": ["--rate", "100"],
                    "seed": ["--seed", "9"], "errors": ["--errors", "ideal"], "output": ["--output", dir + "/t.csv"],
                    "turn-rate": ["--scenario", "steady-turn", "--turn-rate", "100"],
                    "axis": ["--scenario", "steady-turn", "--axis", "x"],
                    "rest": ["--scenario", "steady-turn", "--rest", "0"],
                    "speed": ["--scenario", "vehicle", "--speed", "20"],
                    "radius": ["--scenario", "vehicle", "--radius", "30"],
                ]
            ),
            "convert": (
                [trace, "--output", dir + "/native.csv"],
                input.merging(["output": ["--output", dir + "/native.csv"]]) { a, _ in a }
            ),
            "conventions": ([], [:]),
        ]
        XCTAssertEqual(Set(cases.keys), Set(MotionFusionCLI.subcommands.map(\.name)), "every subcommand is covered")
        for command in MotionFusionCLI.subcommands {
            let help = CommandRunner.run(["help", command.name])
            XCTAssertEqual(help.status, 0)
            let pattern = try Regex("--([a-z][a-z0-9-]+)")
            let advertised = Set(help.out.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) })
                .subtracting(["help"])
            guard let (base, table) = cases[command.name] else { continue }
            XCTAssertEqual(advertised, Set(table.keys), "\(command.name): options advertised vs tested")
            for option in advertised {
                // Explained on its own line: "  --name VALUE  sentence".
                let line = help.out.split(separator: "\n").first { $0.hasPrefix("  --\(option)") }
                XCTAssertNotNil(line, "\(command.name) --\(option) has a help line")
                guard let args = table[option] else { continue }
                // The option replaces any base argument of the same name.
                var combined = base
                for (i, a) in args.enumerated() where a.hasPrefix("--") {
                    if let j = combined.firstIndex(of: a) {
                        combined.removeSubrange(j...(j + (i + 1 < args.count && !args[i + 1].hasPrefix("--") ? 1 : 0)))
                    }
                }
                let r = CommandRunner.run([command.name] + combined + args)
                XCTAssertEqual(r.status, 0, "\(command.name) \(args.joined(separator: " ")): \(r.err)")
            }
        }
    }

    /// `reconstruct --lat/--lon/--calibration` and `replay --rate --score` work (they were once
    /// advertised and rejected): the location turns the written heading to true north, and the
    /// resampled score uses the interpolated truth.
    func testLocationCalibrationAndRateOptionsWork() throws {
        let trace = TestData.projectData + "/sim_mixed_100hz.csv"
        let dir = TestData.temporaryDirectory()
        let magnetic = CommandRunner.run(["reconstruct", trace, "--output", dir + "/m.csv"])
        XCTAssertEqual(magnetic.status, 0, magnetic.err)
        let geographic = CommandRunner.run([
            "reconstruct", trace, "--lat", "52.5", "--lon", "13.4", "--date", "2026-06-01", "--output", dir + "/t.csv",
        ])
        XCTAssertEqual(geographic.status, 0, geographic.err)
        let declination = WorldMagneticModel.wmm2025.evaluate(
            latitude: 52.5, longitude: 13.4, heightKm: 0,
            decimalYear: WorldMagneticModel.decimalYear(year: 2026, month: 6, day: 1)!
        ).field.declination
        func heading(_ path: String, _ row: Int) throws -> Double {
            let line = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")[row]
            return Double(line.split(separator: ",")[8])!
        }
        func delta(_ a: String, _ b: String) throws -> Double {
            (try heading(a, 3000) - heading(b, 3000) + 540).truncatingRemainder(dividingBy: 360) - 180
        }
        // The location also sets the expected field, which nudges the estimate by hundredths of a degree.
        XCTAssertEqual(try delta(dir + "/t.csv", dir + "/m.csv"), declination, accuracy: 0.05)
        let d = CommandRunner.run(["reconstruct", trace, "--declination", "\(declination)", "--output", dir + "/d.csv"])
        XCTAssertEqual(d.status, 0, d.err)
        XCTAssertEqual(try delta(dir + "/d.csv", dir + "/m.csv"), declination, accuracy: 1e-4)
        // evaluate turns a true-north estimate back with the same declination: the score of the
        // magnetic estimate, not one off by the declination.
        func total(_ args: [String]) throws -> Double {
            let r = CommandRunner.run(["evaluate"] + args + ["--truth", trace, "--json"])
            XCTAssertEqual(r.status, 0, r.err)
            let row = try XCTUnwrap(r.out.range(of: "\"total_rmse_deg\":"))
            return Double(r.out[row.upperBound...].prefix { "0123456789.eE-".contains($0) })!
        }
        let reference = try total([dir + "/m.csv"])
        XCTAssertEqual(try total([dir + "/d.csv", "--declination", "\(declination)"]), reference, accuracy: 0.01)
        // Without the flag the declination comes from the file's heading and magnetic_heading.
        XCTAssertEqual(try total([dir + "/d.csv"]), reference, accuracy: 0.01)
        let cal = dir + "/cal.json"
        try "{\"gyroscope\": {\"bias\": [0.01, 0, 0]}}".write(toFile: cal, atomically: true, encoding: .utf8)
        let calibrated = CommandRunner.run(["reconstruct", trace, "--calibration", cal, "--output", dir + "/c.csv"])
        XCTAssertEqual(calibrated.status, 0, calibrated.err)
        XCTAssertNotEqual(
            try String(contentsOfFile: dir + "/c.csv", encoding: .utf8),
            try String(contentsOfFile: dir + "/m.csv", encoding: .utf8))
        let rate = CommandRunner.run(["replay", trace, "--rate", "25", "--score", "--output", dir + "/r.csv"])
        XCTAssertEqual(rate.status, 0, rate.err)
        XCTAssert(rate.err.contains("total"), "scored against the interpolated truth: \(rate.err)")
        let rows = try String(contentsOfFile: dir + "/r.csv", encoding: .utf8).split(separator: "\n").count - 1
        let samples = try TraceFormat.load(path: trace).samples
        XCTAssertEqual(rows, Int(((samples.last!.t - samples[0].t) * 25).rounded(.down)) + 1, "one row per 40 ms")
    }
}
