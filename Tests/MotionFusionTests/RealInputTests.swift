import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Recordings as they come: value faults repaired and reported, any delimited layout read through
/// `--columns`/`--units`/`--remap`, standard input, the recording's own clock, archives, honest
/// fallbacks. Equivalence checks compare estimates row by row against the same data in native form.
final class RealInputTests: XCTestCase {
    let native = TestData.projectData + "/sim_mixed_100hz.csv"

    func run(_ args: [String]) -> CommandResult { CommandRunner.run(args) }

    /// The rows of an estimate file (header dropped).
    func rows(_ path: String) throws -> [Substring] {
        Array(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst())
    }

    /// Replays `path` with `options` and returns the estimate rows.
    func replay(_ path: String, _ options: [String] = []) throws -> [Substring] {
        let out = TestData.temporaryDirectory() + "/est.csv"
        let r = run(["replay", path, "--output", out] + options)
        XCTAssertEqual(r.status, 0, r.err)
        return try rows(out)
    }

    // MARK: Value faults

    /// xio's NGIMU gait example repeats timestamps; such a file runs, one row per input row, with
    /// one warning counting the repeats.
    func testRepeatedTimestampsAreProcessed() throws {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        var n = 0
        for k in 0..<1000 {
            let t = Double(k / 2 * 2) * 0.01  // every timestamp twice, as a 50 Hz clock stamping 100 Hz data
            text += "\(t),0,0,0.2,0,0,9.81\n"
            n += 1
        }
        let path = TestData.writeTemporary(text)
        let out = TestData.temporaryDirectory() + "/e.csv"
        let r = run(["replay", path, "--output", out])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(try rows(out).count, n)
        XCTAssert(r.err.contains("duplicate timestamp 500 times"), r.err)
        XCTAssertEqual(run(["replay", path, "--strict", "--output", out]).status, 1)
    }

    /// A real trial damaged with NaN bursts, infinities, a value beyond range, repeated and
    /// backward times, a forward clock jump and zeroed sensors still gives one finite row per input
    /// row, and reports each kind once.
    func testDamagedTrialGivesOneFiniteRowPerInputRow() throws {
        var lines = try String(contentsOfFile: native, encoding: .utf8).split(separator: "\n").map(String.init)
        func setField(_ row: Int, _ column: Int, _ value: String) {
            var f = lines[row].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            f[column] = value
            lines[row] = f.joined(separator: ",")
        }
        for r in 1000..<1100 { for c in 1...3 { setField(r, c, "nan") } }  // gyroscope burst
        for r in 2000..<2020 { setField(r, 5, "nan") }  // one accelerometer axis
        setField(2500, 8, "inf")
        setField(2600, 2, "1e9")  // beyond any gyroscope
        setField(3000, 0, lines[2999].split(separator: ",")[0].description)  // repeated time
        setField(3500, 0, "1.0")  // backwards
        for r in 4000..<6001 {
            let t = Double(lines[r].split(separator: ",")[0])! + 7200
            setField(r, 0, "\(t)")  // two-hour clock jump
        }
        for r in 4500..<4700 { for c in 4...6 { setField(r, c, "0") } }  // zeroed accelerometer
        let path = TestData.writeTemporary(lines.joined(separator: "\n") + "\n")
        for filter in ["ekf", "complementary", "mahony", "madgwick"] {
            let out = TestData.temporaryDirectory() + "/e.csv"
            let r = run(["replay", path, "--filter", filter, "--output", out])
            XCTAssertEqual(r.status, 0, r.err)
            let estimates = try rows(out)
            XCTAssertEqual(estimates.count, 6001, filter)
            XCTAssertFalse(estimates.contains { $0.contains("nan") || $0.contains("inf") }, "\(filter): finite rows")
            for kind in [
                "some axes missing", "infinite value", "beyond any sensor's range", "duplicate timestamp",
                "time goes backwards",
            ] {
                XCTAssert(r.err.contains(kind), "\(filter): reports \(kind): \(r.err)")
            }
        }
    }

    // MARK: Any delimited layout

    /// The same data written as RepoIMU does — `;`-separated, two header rows, three-digit
    /// exponents, other column order — read with `--columns` and `--header-rows` gives exactly the
    /// native estimates.
    func testRepoIMUStyleFileMatchesNative() throws {
        let trace = try TraceFormat.load(path: native)
        var text = "Time;Quat1;Quat2;Quat3;Quat4;Acc X;Acc Y;Acc Z;Gyr X;Gyr Y;Gyr Z;Mag X;Mag Y;Mag Z\n"
        text += "[s];[];[];[];[];[m/s^2];[m/s^2];[m/s^2];[rad/s];[rad/s];[rad/s];[uT];[uT];[uT]\n"
        func e(_ v: Double) -> String {
            // C-style exponent with three digits, as Windows printf writes it.
            let s = String(format: "%.17e", v)
            guard let i = s.firstIndex(of: "e") else { return s }
            let sign = s[s.index(after: i)]
            let digits = s[s.index(i, offsetBy: 2)...]
            return s[..<i] + "e" + String(sign) + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        }
        for s in trace.samples {
            let a = s.accelerometer!, g = s.gyroscope!, m = s.magnetometer!, q = s.truth!
            text +=
                ([s.t, q.w, q.x, q.y, q.z, a.x, a.y, a.z, g.x, g.y, g.z, m.x, m.y, m.z].map(e)).joined(separator: ";")
                + "\n"
        }
        let repo = TestData.writeTemporary(text, name: "repoimu.csv")
        let a = try replay(native)
        let b = try replay(repo, ["--columns", "t=1,acc=6,gyr=9,mag=12,gt=2", "--header-rows", "2"])
        XCTAssertEqual(a, b, "identical estimates")
        // Columns may also be named.
        let c = try replay(repo, ["--columns", "t=Time,acc=Acc X,gyr=Gyr X,mag=Mag X", "--header-rows", "2"])
        XCTAssertEqual(a, c)
    }

    /// Tab separation with decimal commas, and space separation, detected; units converted and
    /// axes remapped back: the same estimates as the native file to the last written digit.
    func testUnitsRemapAndDialectsMatchNative() throws {
        let trace = try TraceFormat.load(path: native)
        // Sensor axes written as raw = (x, -z, y) of the body axes, in deg/s, g, gauss and ms.
        func raw(_ v: Vector3) -> Vector3 { Vector3(v.x, v.z, -v.y) }
        var tab = "time (ms)\tgx\tgy\tgz\tax\tay\taz\tmx\tmy\tmz\n"
        var space = "ms gx gy gz ax ay az mx my mz\n"
        for s in trace.samples {
            let g = raw(s.gyroscope!) * (180 / .pi)
            let a = raw(s.accelerometer!) * (1 / standardGravity)
            let m = raw(s.magnetometer!) * 0.01
            let fields = [s.t * 1000, g.x, g.y, g.z, a.x, a.y, a.z, m.x, m.y, m.z].map { "\($0)" }
            tab += fields.map { $0.replacingOccurrences(of: ".", with: ",") }.joined(separator: "\t") + "\n"
            space += fields.joined(separator: "  ") + "\n"
        }
        let expected = try replay(native, ["--mode", "9d"]).map {
            $0.split(separator: ",").prefix(5).map { Double($0)! }
        }
        let options = ["--units", "t=ms,gyr=deg/s,acc=g,mag=gauss", "--remap", "x,-z,y"]
        for (text, name) in [(tab, "tab.tsv"), (space, "space.txt")] {
            let path = TestData.writeTemporary(text, name: name)
            let got = try replay(path, ["--columns", "t=1,gyr=2,acc=5,mag=8"] + options).map {
                $0.split(separator: ",").prefix(5).map { Double($0)! }
            }
            XCTAssertEqual(got.count, expected.count, name)
            // Unit conversion rounds in the last bit: compare the quaternions to 1e-7.
            let worst = zip(got, expected).map { zip($0, $1).map { abs($0 - $1) }.max()! }.max()!
            XCTAssertLessThan(worst, 1e-7, name)
        }
    }

    /// Common header names are recognised without `--columns`, with units from their hints; the
    /// unit warnings name the exact flag.
    func testNamedColumnsAndUnitHints() throws {
        let text =
            "timestamp (ms),accel_x (g),accel_y (g),accel_z (g),gyro_x (deg/s),gyro_y (deg/s),gyro_z (deg/s)\n0,0,0,1,0,0,10\n10,0,0,1,0,0,10\n"
        let trace = try TraceFormat.load(path: TestData.writeTemporary(text))
        XCTAssertEqual(trace.format, "delimited")
        XCTAssertEqual(trace.samples[1].t, 0.01, accuracy: 1e-15)
        XCTAssertEqual(trace.samples[0].accelerometer!.z, standardGravity, accuracy: 1e-12)
        XCTAssertEqual(trace.samples[0].gyroscope!.z, 10 * .pi / 180, accuracy: 1e-15)
        let bad = try TraceFormat.load(path: TestData.writeTemporary("t,acc_x,acc_y,acc_z\n0,0,0,1\n0.01,0,0,1\n"))
        XCTAssert(bad.warnings.contains { $0.message.contains("--units acc=g") }, "\(bad.warnings)")
        // Native and common names mixed in one header, and the short g/a/m axis names.
        for header in [
            "timestamp,gyro_x,gyro_y,gyro_z,accel_x,accel_y,accel_z,mag_x,mag_y,mag_z",
            "t,gyr_x,gyr_y,gyr_z,accel_x,accel_y,accel_z,mx,my,mz", "time,gx,gy,gz,ax,ay,az,mx,my,mz",
        ] {
            let mixed = try TraceFormat.load(path: TestData.writeTemporary(header + "\n0,1,2,3,0,0,9.81,20,0,-40\n"))
            XCTAssertEqual(mixed.samples[0].gyroscope, Vector3(1, 2, 3), header)
            XCTAssertEqual(mixed.samples[0].accelerometer, Vector3(0, 0, 9.81), header)
            XCTAssertEqual(mixed.samples[0].magnetometer, Vector3(20, 0, -40), header)
        }
        // Two columns that both name the time are ambiguous: choose one with --columns.
        let twoClocks = TestData.writeTemporary("Time (s),timestamp,ax,ay,az\n0,5,0,0,9.81\n")
        XCTAssertThrowsError(try TraceFormat.load(path: twoClocks)) { error in
            XCTAssert("\(error)".contains("both name the time; choose one with --columns"), "\(error)")
        }
        // ArduPilot's IMU messages (mavlogdump): `T` is the temperature beside `TimeUS`, never
        // the time a named one is surer than; the two named times are the user's choice.
        let arduPilot = TestData.writeTemporary(
            "timestamp,TimeUS,I,GyrX,GyrY,GyrZ,AccX,AccY,AccZ,EG,EA,T\n"
                + "1700000123.456789,123456789,0,0,0,0,0,0,-9.8,0,0,45.5\n"
                + "1700000123.459289,123459289,0,0,0,0,0,0,-9.8,0,0,45.5\n")
        XCTAssertThrowsError(try TraceFormat.load(path: arduPilot)) { error in
            XCTAssert("\(error)".contains("'timestamp' and 'TimeUS' both name the time"), "\(error)")
        }
        // Alone, a capital `T` is still the time.
        let alone = try TraceFormat.load(path: TestData.writeTemporary("T,ax,ay,az\n0,0,0,9.81\n0.01,0,0,9.81\n"))
        XCTAssertEqual(alone.samples.map(\.t), [0, 0.01])
    }

    // MARK: Streams and clocks

    /// Standard input gives exactly the output of the same file.
    /// A `--columns` or `--units` that does not fit the file is a mistake in the call: usage
    /// error (exit 2), located at the header, as the policy table says.
    func testColumnAndUnitMistakesAreUsageErrors() throws {
        let trace = TestData.projectData + "/sim_mixed_100hz.csv"
        let out = TestData.temporaryDirectory() + "/e.csv"
        for options in [
            ["--columns", "t=99,gyr=2,acc=5"], ["--columns", "t=nosuch,gyr=2,acc=5"], ["--columns", "bogus"],
            ["--units", "t=fortnights"],
        ] {
            let r = run(["replay", trace] + options + ["--output", out])
            XCTAssertEqual(r.status, 2, "\(options): \(r.err)")
            XCTAssert(r.err.contains(options[1].split(separator: "=")[0]), r.err)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
        let located = run(["replay", trace, "--columns", "t=99,gyr=2,acc=5", "--output", out])
        XCTAssert(located.err.contains("sim_mixed_100hz.csv:1: --columns t=99"), located.err)
        // A file that lacks what its own header promises stays an input error (exit 1).
        let bad = TestData.writeTemporary("foo,bar\n1,2\n")
        XCTAssertEqual(run(["replay", bad, "--output", out]).status, 1)
    }

    /// Standard input runs sample by sample, as the file does with `--look-ahead 0`.
    func testStandardInputEqualsFile() throws {
        let out = TestData.temporaryDirectory()
        let a = try CommandRunner.process(["replay", native, "--look-ahead", "0", "--output", out + "/file.csv"])
        XCTAssertEqual(a.status, 0, a.err)
        let b = try CommandRunner.process(
            ["replay", "-", "--output", "-"], input: try Data(contentsOf: URL(fileURLWithPath: native)))
        XCTAssertEqual(b.status, 0, b.err)
        XCTAssertEqual(try String(contentsOfFile: out + "/file.csv", encoding: .utf8), b.out)
        let info = try CommandRunner.process(["info", "-"], input: try Data(contentsOf: URL(fileURLWithPath: native)))
        XCTAssert(info.out.contains("samples       6001"), info.out)
    }

    /// Plain headers on standard input (`t,gx,…,mz`, gyroscope in °/s, accelerometer in g): a
    /// stream is not read ahead, so the units its first rows prove cannot be applied to rows
    /// already handed on, but they are judged on the rows a file's look ahead reads and named in
    /// a warning with the `--units` that applies them. With that flag, standard input gives the
    /// file's estimates, where the file's own first rows set the units.
    func testStandardInputNamesTheUnitsItsFirstRowsProve() throws {
        let trace = MotionSimulator(settings: MotionSimulator.Settings()).run()
        func text(_ v: Vector3?, _ scale: Double) -> String {
            v.map { "\($0.x * scale),\($0.y * scale),\($0.z * scale)" } ?? "nan,nan,nan"
        }
        var rows = "t,gx,gy,gz,ax,ay,az,mx,my,mz\n"
        for s in trace.samples {
            rows +=
                "\(s.t),\(text(s.gyroscope, 180 / .pi)),\(text(s.accelerometer, 1 / 9.80665)),\(text(s.magnetometer, 1))\n"
        }
        let path = TestData.writeTemporary(rows, name: "plain.csv")
        let out = TestData.temporaryDirectory() + "/file.csv"
        let file = try CommandRunner.process(["replay", path, "--output", out])
        XCTAssertEqual(file.status, 0, file.err)
        XCTAssert(file.err.contains("note: units from the readings: gyr=deg/s"), file.err)
        let piped = try CommandRunner.process(["replay", "-", "--output", "-"], input: Data(rows.utf8))
        XCTAssert(piped.err.contains("stdin: warning: units from the readings: gyr=deg/s ("), piped.err)
        XCTAssert(piped.err.contains("these units were not applied: pass --units gyr=deg/s,acc=g"), piped.err)
        let fixed = try CommandRunner.process(
            ["replay", "-", "--units", "gyr=deg/s,acc=g", "--output", "-"], input: Data(rows.utf8))
        XCTAssertEqual(fixed.status, 0, fixed.err)
        XCTAssertFalse(fixed.err.contains("units from the readings"), fixed.err)
        XCTAssertEqual(fixed.out, try String(contentsOfFile: out, encoding: .utf8))
        // Units the header states leave nothing to name.
        let stated = try CommandRunner.process(
            ["info", "-"], input: try Data(contentsOf: URL(fileURLWithPath: native)))
        XCTAssertFalse(stated.err.contains("units from the readings"), stated.err)
    }

    /// A live logger piped in: rows come out while the input is still open.
    func testLivePipeGetsRowsAsTheyAreComputed() throws {
        let child = try ChildProcess(
            try TestData.executable(), ["replay", "-", "--output", "-"], input: .open, error: .discard)
        var rows = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for k in 0..<400 { rows += "\(Double(k) * 0.01),0,0,0.1,0,0,9.81\n" }
        XCTAssertTrue(child.write(Data(rows.utf8)), "the command reads its input")
        // Input stays open: the estimates of the rows sent so far must arrive anyway. The deadline
        // only keeps a broken command from hanging the test.
        func lines(_ c: ChildProcess) -> Int { c.outText.split(separator: "\n").count }
        child.read(timeout: 300) { lines($0) >= 300 }
        XCTAssertGreaterThanOrEqual(lines(child), 300, "rows out while the input is open")
        child.finish()
        XCTAssertEqual(child.status, 0)
    }

    /// Sensor Logger and x-IMU3 keep their clocks (epoch seconds, device seconds); `info` shows
    /// the start time.
    func testRecordingClocksArePreserved() throws {
        let logger = try TraceFormat.load(path: try TestData.shared("formats/sensor-logger"))
        XCTAssertEqual(logger.samples[0].t, 1_663_562_598.302710300, accuracy: 1e-6)
        let ximu = try TraceFormat.load(path: try TestData.shared("formats/x-imu3"))
        XCTAssertEqual(ximu.samples[0].t, 19.146542, accuracy: 1e-9)
        let info = run(["info", try TestData.shared("formats/sensor-logger"), "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(info.out.utf8)) as! [String: Any]
        XCTAssertEqual(json["start_time_s"] as! Double, 1_663_562_598.302710300, accuracy: 1e-6)
        // The estimate rows carry the same clock.
        let out = TestData.temporaryDirectory() + "/e.csv"
        XCTAssertEqual(run(["replay", try TestData.shared("formats/euroc/V1_02_medium"), "--output", out]).status, 0)
        let first = try rows(out)[0]
        XCTAssert(first.hasPrefix("1403715523.912143"), "\(first)")
    }

    /// Integer times in ns, µs or ms become the correctly rounded seconds (one rounding, as
    /// `ns / 1e9` computes them elsewhere): EuRoC's epoch nanoseconds, and any file with `--units`.
    func testNanosecondClocksAreConvertedExactly() throws {
        let euroc = try TestData.shared("formats/euroc/V1_02_medium")
        let text = try String(contentsOfFile: euroc + "/mav0/imu0/data.csv", encoding: .utf8)
        // CRLF lines: "\r\n" is one Character, so split on newlines, not on "\n".
        let stamps = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("#") }.map {
            $0.split(separator: ",")[0]
        }
        let trace = try TraceFormat.load(path: euroc)
        XCTAssertEqual(trace.samples.count, stamps.count)
        // strtod rounds correctly; the decimal text with its exponent moved is the exact value.
        let differing = zip(trace.samples, stamps).filter { $0.t != strtod("\($1)e-9", nil) }.count
        XCTAssertEqual(differing, 0, "EuRoC samples whose time is not the correctly rounded ns / 1e9")
        // The same through --units, in every power-of-ten unit, at the end of a line and before a
        // separator (both reading paths).
        for (unit, exponent) in [("ns", -9), ("us", -6), ("ms", -3)] {
            var csv = "a,b,c,d,e,f,time\n"
            var stamps = [String]()
            var random = SeededRandom(seed: UInt64(-exponent))
            // An epoch in the unit: 2014 in ns, µs or ms.
            var stamp = UInt64(1_403_715_523_912_143_104) / [UInt64(1), 1_000, 1_000_000][(exponent + 9) / 3]
            for _ in 0..<500 {
                stamp += UInt64.random(in: 1...5_000_000, using: &random)
                stamps.append(String(stamp))
                csv += "0.1,0.2,0.3,0,0,9.81,\(stamp)\n"
            }
            let path = TestData.writeTemporary(csv, name: "clock-\(unit).csv")
            var options = DelimitedReadOptions()
            options.columns = "t=time,gyr=a,acc=d"
            options.units = "t=\(unit)"
            let read = try TraceFormat.load(path: path, options: options)
            let wrong = zip(read.samples, stamps).filter { $0.t != strtod("\($1)e\(exponent)", nil) }.count
            XCTAssertEqual(wrong, 0, "\(unit): times not correctly rounded")
        }
    }

    // MARK: Archives and importers

    /// phyphox and Sensor Logger `.zip` exports (deflated or stored) read exactly like their
    /// folders; phyphox's semicolon and decimal-comma export too.
    func testZipExportsMatchFolders() throws {
        let dir = TestData.temporaryDirectory()
        for (folder, names) in [
            ("formats/phyphox", ["Accelerometer.csv", "Gyroscope.csv", "Magnetometer.csv"]),
            ("formats/sensor-logger", ["Accelerometer.csv", "Gravity.csv", "Gyroscope.csv", "Magnetometer.csv"]),
        ] {
            let source = try TestData.shared(folder)
            let expected = try TraceFormat.load(path: source)
            for deflate in [true, false] {
                let zip = dir + "/\(PathText.name(folder))-\(deflate).zip"
                try ZipWriter.write(folder: source, names: names, to: zip, deflate: deflate)
                let got = try TraceFormat.load(path: zip)
                XCTAssertEqual(got.format, expected.format)
                XCTAssertEqual(got.samples, expected.samples, "\(folder) zip (deflate \(deflate))")
            }
        }
        // phyphox with ';' and decimal commas.
        let phy = dir + "/phy"
        try FileManager.default.createDirectory(atPath: phy, withIntermediateDirectories: true)
        try "\"Time (s)\";\"X (m/s^2)\";\"Y (m/s^2)\";\"Z (m/s^2)\"\n1,0E-2;0,5;-0,25;9,75\n2,0E-2;0,5;-0,25;9,75\n"
            .write(
                toFile: phy + "/Accelerometer.csv", atomically: true, encoding: .utf8)
        let t = try TraceFormat.load(path: phy)
        XCTAssertEqual(t.format, "phyphox")
        XCTAssertEqual(t.samples.map(\.t), [0.01, 0.02])
        XCTAssertEqual(t.samples[0].accelerometer, Vector3(0.5, -0.25, 9.75))
        // A damaged archive is an error naming it, with no binary bytes in the message.
        let broken = dir + "/broken.zip"
        var bytes = ZipWriter.archive([
            ("Accelerometer.csv", Array("\"Time (s)\",\"X (m/s^2)\",\"Y (m/s^2)\",\"Z (m/s^2)\"\n0,0,0,9.8\n".utf8))
        ])
        for i in 30..<60 { bytes[i] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: broken))
        let r = run(["info", broken])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("broken.zip"), r.err)
        // One digit changed inside a stored entry: its CRC-32 no longer matches, and the values
        // are refused rather than used.
        let text = "\"Time (s)\",\"X (m/s^2)\",\"Y (m/s^2)\",\"Z (m/s^2)\"\n0.01,0,0,9.81\n0.02,0,0,9.81\n"
        var stored = ZipWriter.archive([("Accelerometer.csv", Array(text.utf8))], deflate: false)
        let digit = stored.firstIndex(of: UInt8(ascii: "8"))!
        stored[digit] = UInt8(ascii: "3")
        let corrupted = dir + "/corrupted.zip"
        try Data(stored).write(to: URL(fileURLWithPath: corrupted))
        for command in ["info", "replay"] {
            let c = run([command, corrupted])
            XCTAssertEqual(c.status, 1, c.err)
            XCTAssert(c.err.contains("corrupted.zip: entry 'Accelerometer.csv': damaged (CRC-32"), c.err)
        }
        let binary = dir + "/binary.csv"
        try Data([0x50, 0x4B, 0x03, 0x04, 0x00, 0x1B, 0xFF, 0x07] + Array(repeating: 0, count: 40)).write(
            to: URL(fileURLWithPath: binary))
        let b = run(["replay", binary])
        XCTAssertEqual(b.status, 1)
        XCTAssertFalse(b.err.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, b.err)
        XCTAssert(b.err.contains("binary"), b.err)
    }

    // MARK: Honest fallbacks

    /// 9D asked of a recording without a magnetometer: a warning naming it, and the score says
    /// 6D; the e-compass refuses; `evaluate` reads the mode from the estimate.
    func testNineDWithoutMagnetometerSaysSixD() throws {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,gt_qw,gt_qx,gt_qy,gt_qz\n"
        for k in 0..<500 { text += "\(Double(k) * 0.01),0,0,0,0,0,9.81,1,0,0,0\n" }
        let path = TestData.writeTemporary(text)
        let out = TestData.temporaryDirectory() + "/e.csv"
        let r = run(["replay", path, "--mode", "9d", "--score", "--output", out])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("no magnetometer"), r.err)
        XCTAssert(r.err.contains("ekf 6d:"), r.err)
        let ecompass = run(["replay", path, "--filter", "ecompass", "--output", out])
        XCTAssertEqual(ecompass.status, 1)
        XCTAssert(ecompass.err.contains("no magnetometer"), ecompass.err)
        let e = run(["evaluate", out, "--truth", path])
        XCTAssert(e.out.contains("6d"), e.out)
        let report = TestData.temporaryDirectory() + "/r.html"
        let c = run(["reconstruct", path, "--mode", "9d", "--score", "--output", out, "--report", report])
        XCTAssertEqual(c.status, 0, c.err)
        XCTAssert(c.err.contains("reconstruct 6d:"), c.err)
        XCTAssert(try String(contentsOfFile: report, encoding: .utf8).contains("6D"), "the report says 6D")
    }

    // MARK: Calibration refusals

    /// `calibrate` refuses what a recording cannot determine, saying what to do.
    func testCalibrateRefusesStaticAndBarelyRotatedRecordings() throws {
        var s = MotionSimulator.Settings()
        s.scenario = .rest
        s.duration = 7
        s.rate = 100
        let dir = TestData.temporaryDirectory()
        try TraceWriter.write(MotionSimulator(settings: s).run(), to: dir + "/static.csv")
        let r = run(["calibrate", dir + "/static.csv", "--output", dir + "/cal.json"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("rotate the device"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/cal.json"))
        // The gyroscope bias alone can be determined from it.
        XCTAssertEqual(
            run(["calibrate", dir + "/static.csv", "--sensors", "gyr", "--output", dir + "/cal.json"]).status, 0)
        // A phone barely turned (±15° of yaw and tilt).
        var readings = [Vector3]()
        for k in 0..<3000 {
            let a = Double(k) * 0.01
            let q =
                Quaternion(axis: .unitZ, angle: 0.26 * a.sin) * Quaternion(axis: .unitX, angle: 0.26 * (1.3 * a).cos)
            readings.append(q.inverseRotate(Vector3(0, 20, -40)) + Vector3(30, -10, 5))
        }
        XCTAssertThrowsError(try MagnetometerCalibration.fit(readings)) { error in
            XCTAssert("\(error)".contains("rotate the device"), "\(error)")
        }
    }

    /// A calibration that does not fit the recording is applied, and the warning says the
    /// magnetometer was then rejected on most samples.
    func testMismatchedCalibrationWarns() throws {
        let dir = TestData.temporaryDirectory()
        let cal = dir + "/cal.json"
        // A hard-iron offset larger than the field: as the device turns, the field strength and dip
        // swing far beyond any steady field.
        try "{\"magnetometer\": {\"hard_iron\": [70, -40, 0]}}".write(
            toFile: cal, atomically: true, encoding: .utf8)
        let r = run([
            "replay", TestData.projectData + "/sim_magnetic_disturbance_50hz.csv", "--calibration", cal, "--output",
            dir + "/e.csv",
        ])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("rejected on"), r.err)
    }
}
