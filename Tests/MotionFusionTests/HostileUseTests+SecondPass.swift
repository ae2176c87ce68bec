import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Inputs that can be read only once (a FIFO, a pipe named by path, a device), inputs without line
/// breaks, standard output redirected onto an input, several outputs on standard output,
/// `--columns` that give one column two meanings, recordings without an accelerometer, and times in
/// the wrong unit: findings of a second hostile pass over the command line.
extension HostileUseTests {
    /// Runs a shell command line in the test folder, `$MF` naming the executable; returns the exit
    /// status and standard error.
    func shell(_ script: String) throws -> (status: Int32, err: String) {
        let shell = try ChildProcess.run(
            "/bin/bash", ["-c", script], in: dir,
            environment: ["MF": try TestData.executable(), "PATH": "/usr/bin:/bin"],
            output: .discard)
        return (shell.process.terminationStatus, shell.errText)
    }

    func rows(_ path: String) throws -> Int {
        try String(contentsOfFile: PathText.join(dir, path), encoding: .utf8).split(separator: "\n").count
    }

    /// A FIFO, a pipe named by path (`<(…)`, `/dev/stdin`) and a regular file run sample by sample
    /// (`--look-ahead 0`) give the same rows: a stream is opened once and its format detected from
    /// the first line it holds.
    func testPipesAndFIFOsNamedByPathAreReadOnce() throws {
        XCTAssertEqual(try shell(#"$MF replay trace.csv --look-ahead 0 --output file.csv"#).status, 0)
        let fifo = try shell(#"mkfifo f && (cat trace.csv > f &) && timeout 60 $MF replay f --output fifo.csv"#)
        XCTAssertEqual(fifo.status, 0, fifo.err)
        let substituted = try shell(#"timeout 60 $MF replay <(cat trace.csv) --output sub.csv"#)
        XCTAssertEqual(substituted.status, 0, substituted.err)
        let stdin = try shell(#"cat trace.csv | timeout 60 $MF replay /dev/stdin --output stdin.csv"#)
        XCTAssertEqual(stdin.status, 0, stdin.err)
        let expected = try Data(contentsOf: URL(fileURLWithPath: dir + "/file.csv"))
        XCTAssertEqual(try rows("file.csv"), try rows("trace.csv"))
        for out in ["fifo.csv", "sub.csv", "stdin.csv"] {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: PathText.join(dir, out))), expected, out)
        }
    }

    /// Input without line breaks is refused at 16 MiB with the file and line, not buffered until
    /// memory runs out; carriage-return line breaks are named as such.
    func testEndlessLineIsRefused() throws {
        let r = try shell(#"timeout 60 $MF info /dev/zero"#)
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("/dev/zero:1: line longer than 16 MiB"), r.err)
        // After ten lines, at the eleventh (read ahead of the rows consumed, as the unit check does).
        let head =
            "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n" + (0..<9).map { "\(Double($0) / 100),0,0,0,0,0,9.8\n" }.joined()
        try (head + String(repeating: "1", count: 17 << 20) + "\n").write(
            toFile: dir + "/long.csv", atomically: true, encoding: .utf8)
        for command in ["info long.csv", "replay long.csv --output e.csv"] {
            let long = try shell("$MF " + command)
            XCTAssertEqual(long.status, 1, long.err)
            XCTAssert(long.err.contains("long.csv:11: line longer than 16 MiB"), "\(command): \(long.err)")
        }
        // Line breaks that are carriage returns only make one line of the whole file.
        try "t,acc_x,acc_y,acc_z\r0,0,0,9.8\r0.01,0,0,9.8\r".write(
            toFile: dir + "/cr.csv", atomically: true, encoding: .utf8)
        let cr = try shell(#"$MF info cr.csv"#)
        XCTAssertEqual(cr.status, 1, cr.err)
        XCTAssert(cr.err.contains("cr.csv:1:20: the line breaks are carriage returns only"), cr.err)
    }

    /// A folder run skips FIFOs, devices and folders that hold no recording, with a note for each,
    /// and runs the rest.
    func testFolderRunSkipsStreamsWithANote() throws {
        let r = try shell(
            #"mkdir -p in/sub out && cp trace.csv in/a.csv && cp trace.csv in/sub/y.csv && mkfifo in/b.csv && ln -s /dev/zero in/z.csv && timeout 120 $MF replay in --output out"#
        )
        XCTAssertEqual(r.status, 0, r.err)
        for skipped in ["in/b.csv: a FIFO or device", "in/z.csv: a FIFO or device", "in/sub: a folder that holds no"] {
            XCTAssert(r.err.contains("note: skipping \(skipped)"), r.err)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/out"), ["a.csv"])
        XCTAssertEqual(try rows("out/a.csv"), try rows("trace.csv"))
        // A FIFO inside a sub-folder, where format detection looks for member files.
        let nested = try shell(
            "mkdir -p deep/sub deep/rec deep-out && cp trace.csv deep/a.csv"
                + " && mkfifo deep/sub/data.csv deep/rec/Accelerometer.csv && timeout 60 $MF replay deep --output deep-out"
        )
        XCTAssertEqual(nested.status, 0, nested.err)
        XCTAssert(nested.err.contains("note: skipping deep/sub: a folder that holds no recording"), nested.err)
    }

    /// Standard output redirected onto the input (appending, or read-write) is refused before
    /// anything is written, and the input is unchanged.
    func testStandardOutputOntoTheInputIsRefused() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: trace))
        for script in [
            #"$MF replay trace.csv --output - >> trace.csv"#, #"$MF replay trace.csv >> trace.csv"#,
            #"$MF replay - < trace.csv 1<>trace.csv"#, #"$MF reconstruct trace.csv --output - >> trace.csv"#,
        ] {
            let r = try shell(script)
            XCTAssertEqual(r.status, 2, script)
            XCTAssert(r.err.contains("standard output is an input of this run"), r.err)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trace)), before, script)
        }
        // Commands that print their results refuse the same redirection.
        for script in [
            #"$MF info trace.csv 1<> trace.csv"#, #"$MF events trace.csv >> trace.csv"#,
            #"$MF evaluate trace.csv --truth trace.csv >> trace.csv"#,
        ] {
            let r = try shell(script)
            XCTAssertEqual(r.status, 2, "\(script): \(r.err)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: trace)), before, script)
        }
        // A link whose target merely looks like a pipe's name is followed, and kept.
        let link = try shell(
            #"ln -s 'res:[1].csv' lnk.csv && $MF replay trace.csv --output lnk.csv && test -L lnk.csv"#)
        XCTAssertEqual(link.status, 0, link.err)
        XCTAssertEqual(try rows("res:[1].csv"), try rows("trace.csv"))
        // Standard output that is a pipe, named by path, is written through.
        let piped = try shell(#"$MF replay trace.csv --output /dev/stdout | wc -l > count.txt"#)
        XCTAssertEqual(piped.status, 0, piped.err)
        let count = try String(contentsOfFile: dir + "/count.txt", encoding: .utf8)
        XCTAssertEqual(Int(count.trimmingCharacters(in: .whitespacesAndNewlines)), try rows("trace.csv"))
    }

    /// Only one output of a run may go to standard output: a report or a calibration there would
    /// be mixed into the estimate rows.
    func testOneOutputAtMostOnStandardOutput() throws {
        for args in [
            ["--report", "-"], ["--output", "-", "--report", "-"], ["--calibrate-mag", "-"],
            ["--output", "e.csv", "--report", "-", "--calibrate-mag", "-"],
        ] {
            let r = try CommandRunner.process(["reconstruct", trace] + args, in: dir)
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssert(r.err.contains("at most one of them '-'"), r.err)
        }
        // Standard output named by path is standard output too.
        for script in [
            #"$MF reconstruct trace.csv --report /dev/stdout > out.txt"#,
            #"set -o pipefail; $MF reconstruct trace.csv --output /dev/stdout --report - | cat > out.txt"#,
        ] {
            let r = try shell(script)
            XCTAssertNotEqual(r.status, 0, script)
            XCTAssert(r.err.contains("must name different files"), r.err)
        }
        let alone = try CommandRunner.process(["reconstruct", trace, "--output", "e.csv", "--report", "-"], in: dir)
        XCTAssertEqual(alone.status, 0, alone.err)
        XCTAssert(alone.out.hasPrefix("<!DOCTYPE html>"))
    }

    /// `--columns` giving one column two meanings, or one key twice, is a usage error (it used to
    /// read an unselected slot's field offset out of bounds).
    func testOverlappingColumnsAreRefused() throws {
        for (spec, message) in [
            ("t=2,gyr=2,acc=5", "'t' and 'gyr' both use column 2"),
            ("t=1,gyr=2,acc=2,mag=8", "'gyr' and 'acc' both use column 2"),
            ("t=1,gyr=2,acc=5,mag=8,acc=2", "'acc' is given twice"),
            ("t=1,time=1,gyr=2,acc=5", "'t' is given twice"),
        ] {
            for command in [["info"], ["replay", "--output", "o.csv"]] {
                let args = [command[0], trace, "--columns", spec] + command.dropFirst()
                let r = try CommandRunner.process(args, in: dir)
                XCTAssertEqual(r.status, 2, "\(command) \(spec): \(r.err)")
                XCTAssert(r.err.contains(message), r.err)
            }
        }
    }

    /// The trace's rows with a transformation of each field list (the header excluded).
    func rewritten(_ name: String, header: (([Substring]) -> [Substring])? = nil, row: ([Substring]) -> [Substring])
        throws -> String
    {
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        var out = [String]()
        for (i, line) in lines.enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            out.append((i == 0 ? (header ?? { $0 })(fields) : row(fields)).joined(separator: ","))
        }
        let path = PathText.join(dir, name)
        try (out.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Without accelerometer columns no filter can find the vertical: an error, not rows of the
    /// identity. Columns without a single value run, with a warning that nothing was estimated.
    func testRecordingWithoutAccelerometer() throws {
        let noColumns = try rewritten("gyro-mag.csv", header: { Array($0[0..<4] + $0[7...]) }) {
            Array($0[0..<4] + $0[7...])
        }
        for command in ["replay", "reconstruct"] {
            let r = try CommandRunner.process([command, noColumns, "--output", "o.csv"], in: dir)
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssert(r.err.contains("no accelerometer: every filter needs it"), r.err)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/o.csv"))
        let noValues = try rewritten("acc-nan.csv") { f in
            var f = f
            for k in 4..<7 { f[k] = "nan" }
            return f
        }
        let r = try CommandRunner.process(["replay", noValues, "--output", "o.csv"], in: dir)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("the accelerometer has no value in the whole recording"), r.err)
        let used = try String(contentsOfFile: dir + "/o.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",")[10] }
        XCTAssertEqual(Set(used), ["0"])
    }

    /// Times in milliseconds under a plain `t` header would make every step a gap: they are read as
    /// ms, announced with the flag that overrides it; under `--units t=s` every step is a gap,
    /// warned about. Times a million times too small make no sensor's rate in any unit: refused.
    func testTimesInTheWrongUnitAreReadOrRefused() throws {
        let ms = try rewritten("ms.csv") { f in
            var f = f
            f[0] = Substring(String(Double(f[0])! * 1000))
            return f
        }
        let r = try CommandRunner.process(["replay", ms, "--output", "o.csv"], in: dir)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("note: units from the readings: t=ms (the times step by"), r.err)
        XCTAssert(r.err.contains("--units t=… overrides"), r.err)
        XCTAssertFalse(r.err.contains("median time step"), r.err)
        let seconds = try CommandRunner.process(["replay", ms, "--units", "t=s", "--output", "o.csv"], in: dir)
        XCTAssert(seconds.err.contains("longer than the 1.0 s the filters integrate across"), seconds.err)
        let tiny = try rewritten("tiny.csv") { f in
            var f = f
            f[0] = Substring(String(Double(f[0])! * 1e-10))
            return f
        }
        let info = try CommandRunner.process(["info", tiny], in: dir)
        XCTAssertNotEqual(info.status, 0)
        XCTAssert(info.err.contains("no time unit gives the rate of an inertial sensor"), info.out + info.err)
    }

    /// A key given twice, a count given a fraction, an expected field no planet has, tuning outside
    /// its range (named with the value and the range), and an empty or repeated sensor list are
    /// usage errors naming the option (one said "DecodingError").
    func testRepeatedAndImpossibleOptionValuesAreUsageErrors() throws {
        // A header whose names say nothing: `--columns t=1` leaves no sensor to the names.
        let nameless = dir + "/nameless.csv"
        try "c1,c2,c3,c4\n0,1,2,3\n0.01,1,2,3\n".write(toFile: nameless, atomically: false, encoding: .utf8)
        let cases: [([String], String)] = [
            (["replay", trace, "--param", "integration.rateChangeSteps=2.5"], "is a count: a whole number"),
            (["replay", trace, "--param", "gyroscopeNoise=0.1,gyroscopeNoise=0.2"], "'gyroscopeNoise' is given twice"),
            (
                ["replay", trace, "--param", "expectedFieldNorm=-5"],
                "'expectedFieldNorm' must be within (0, 1000] (or nan to learn it); got -5.0"
            ),
            (
                ["replay", trace, "--param", "expectedDip=200"],
                "'expectedDip' must be within [-1.5707963267948966, 1.5707963267948966]"
            ),
            (
                ["replay", trace, "--filter", "mahony", "--param", "ki=1e308"],
                "'ki' must be within [0, 10]; got 1e+308"
            ),
            (
                ["replay", trace, "--param", "rest.gyroscopeThreshold=0"],
                "'rest.gyroscopeThreshold' must be within (0, 1]"
            ),
            (["replay", trace, "--units", "gyr=deg/s,gyr=rad/s"], "'gyr' is given twice"),
            (["calibrate", trace, "--sensors", "mag,mag", "--output", "c.json"], "'mag' is given twice"),
            (["replay", nameless, "--columns", "t=1"], "no sensor columns"),
            (["replay", trace, "--header-rows", "0"], "needs --columns"),
            (["calibrate", trace, "--sensors", "", "--output", "c.json"], "--sensors needs a value"),
            (
                [
                    "simulate", "--scenario", "mixed", "--duration", "1", "--rate", "50", "--seed", "1.5", "--output",
                    "s.csv",
                ],
                "--seed takes a whole number"
            ),
        ]
        for (args, message) in cases {
            let r = try CommandRunner.process(args + (args[0] == "replay" ? ["--output", "o.csv"] : []), in: dir)
            XCTAssertEqual(r.status, 2, "\(args): \(r.err)")
            XCTAssert(r.err.contains(message), r.err)
        }
        for fine in ["integration.rateChangeSteps=4", "expectedDip=-1.1,expectedFieldNorm=48"] {
            let r = try CommandRunner.process(["replay", trace, "--param", fine, "--output", "o.csv"], in: dir)
            XCTAssertEqual(r.status, 0, "\(fine): \(r.err)")
        }
    }

    /// Messages that named the wrong thing or hid a failure: a bad quaternion in an estimate file
    /// is the estimate's, not the ground truth's; a help page lost on a full disk fails; a forced
    /// `--format euroc` on another layout is refused instead of relabelled.
    func testMessagesNameTheRightThing() throws {
        XCTAssertEqual(try shell(#"$MF replay trace.csv --output e.csv"#).status, 0)
        let bad = try shell(
            #"awk -F, 'BEGIN{OFS=","} NR==6{$2="nan";$3="7"} {print}' e.csv > bad.csv && $MF evaluate bad.csv --truth trace.csv"#
        )
        XCTAssertEqual(bad.status, 0, bad.err)
        XCTAssert(bad.err.contains("bad.csv:6:") && bad.err.contains("invalid estimate quaternion once"), bad.err)
        XCTAssertFalse(bad.err.contains("ground-truth"), bad.err)
        for script in [#"$MF --help > /dev/full"#, #"$MF help replay > /dev/full"#, #"$MF replay --help > /dev/full"#] {
            let r = try shell(script)
            XCTAssertEqual(r.status, 1, script)
            XCTAssert(r.err.contains("write failed: No space left on device"), r.err)
        }
        let euroc = try shell(#"$MF info trace.csv --format euroc"#)
        XCTAssertEqual(euroc.status, 1, euroc.err)
        XCTAssert(euroc.err.contains("trace.csv:1:1: not an EuRoC IMU file"), euroc.err)
    }

    /// A native file with an extra column whose common name repeats a native quantity (`timestamp`
    /// beside `t`, `accel_x` beside `acc_x`) still loads: the extra column is ignored with a warning.
    func testNativeFileWithExtraCommonNamesStillLoads() throws {
        let extra = try rewritten("extra.csv", header: { $0 + ["timestamp", "accel_x", "accel_y", "accel_z"] }) {
            $0 + ["5", "0", "0", "1"]
        }
        let r = try CommandRunner.process(["replay", extra, "--output", "o.csv"], in: dir)
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("ignoring unknown column(s): timestamp, accel_x, accel_y, accel_z"), r.err)
        XCTAssertEqual(try rows("o.csv"), try rows("trace.csv"))
    }
}
