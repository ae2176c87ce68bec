import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Users' data is sacred: no output path overwrites an input, special files are written through,
/// temporary files are unpredictable and exclusive, and no path or value crashes a command. Each
/// case runs the built executable as a user would and checks the exit status (< 128) and that the
/// input is unchanged.
final class DataSafetyTests: XCTestCase {
    var dir = ""
    var trace = ""
    var original = Data()

    override func setUpWithError() throws {
        dir = TestData.temporaryDirectory()
        trace = dir + "/trace.csv"
        try FileManager.default.copyItem(atPath: TestData.projectData + "/sim_mixed_100hz.csv", toPath: trace)
        original = try Data(contentsOf: URL(fileURLWithPath: trace))
    }

    func assertInputUnchanged(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: trace)), original, "input unchanged", file: file, line: line)
        var st = stat()
        XCTAssertEqual(lstat(trace, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG, "still a regular file", file: file, line: line)
    }

    func run(_ args: [String], in directory: String? = nil) throws -> CommandResult {
        let r = try CommandRunner.process(args, in: directory)
        XCTAssertLessThan(r.status, 128, "\(args): crashed or killed: \(r.err)")
        return r
    }

    /// A file named alone can bring others with it: an EuRoC IMU file its ground truth, x-IMU3's
    /// `Inertial.csv` the `Magnetometer.csv` beside it. Those are inputs too: every writing command
    /// refuses to replace them, by `--output` or by standard output redirected onto them.
    func testFilesReadBesideTheNamedOneAreInputs() throws {
        let imu = dir + "/mav0/imu0/data.csv"
        let truth = dir + "/mav0/state_groundtruth_estimate0/data.csv"
        try FileManager.default.createDirectory(atPath: dir + "/mav0/imu0", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: dir + "/mav0/state_groundtruth_estimate0", withIntermediateDirectories: true)
        var rows =
            "#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
        for i in 0..<50 { rows += "\(1_403_636_579_758_555_392 + i * 5_000_000),0,0,0,0,0,9.81\n" }
        try rows.write(toFile: imu, atomically: false, encoding: .utf8)
        let truthText = "#timestamp, p_RS_R_x [m]\nthe ground truth\n"
        try truthText.write(toFile: truth, atomically: false, encoding: .utf8)
        let xio = dir + "/xio"
        try FileManager.default.createDirectory(atPath: xio, withIntermediateDirectories: true)
        var inertial =
            "Timestamp (us),Gyroscope X (deg/s),Gyroscope Y (deg/s),Gyroscope Z (deg/s),Accelerometer X (g),Accelerometer Y (g),Accelerometer Z (g)\n"
        for i in 0..<50 { inertial += "\(i * 10_000),0,0,0,0,0,1\n" }
        try inertial.write(toFile: xio + "/Inertial.csv", atomically: false, encoding: .utf8)
        let magnetometer = "Timestamp (us),X (a.u.),Y (a.u.),Z (a.u.)\n0,0.2,0,-0.4\n"
        try magnetometer.write(toFile: xio + "/Magnetometer.csv", atomically: false, encoding: .utf8)
        for (named, beside, text) in [
            (imu, truth, truthText), (xio + "/Inertial.csv", xio + "/Magnetometer.csv", magnetometer),
        ] {
            for command in ["replay", "reconstruct", "convert"] {
                let r = try run([command, named, "--output", beside])
                XCTAssertEqual(r.status, 2, "\(command) \(named): \(r.err)")
                XCTAssert(r.err.contains("is an input of this run"), r.err)
            }
            let appending = try XCTUnwrap(FileHandle(forWritingAtPath: beside))
            appending.seekToEndOfFile()
            let child = try ChildProcess.run(
                try TestData.executable(), ["convert", named, "--output", "-"], output: .handle(appending))
            appending.closeFile()
            XCTAssertEqual(child.status, 2, child.errText)
            XCTAssertEqual(try String(contentsOfFile: beside, encoding: .utf8), text, "\(beside) unchanged")
        }
    }

    /// Output onto the input — by the same path, another spelling, a hard link or a symlink — is a
    /// usage error before anything is read or written, for every writing command.
    func testOutputOntoInputIsRefused() throws {
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.csv", withDestinationPath: trace)
        XCTAssertEqual(link(trace, dir + "/hard.csv"), 0)
        for output in [
            trace, dir + "/./trace.csv", dir + "/../" + (dir as NSString).lastPathComponent + "/trace.csv",
            dir + "/link.csv", dir + "/hard.csv",
        ] {
            for command in [["replay"], ["reconstruct"], ["calibrate", "--sensors", "gyr"]] {
                let r = try run(command + [trace, "--output", output])
                XCTAssertEqual(r.status, 2, "\(command[0]) --output \(output): \(r.err)")
                XCTAssert(r.err.contains("input"), r.err)
                try assertInputUnchanged()
            }
        }
        // The report and the calibration written out too, each refusal naming its option.
        for option in ["--report", "--calibrate-mag"] {
            let r = try run(["reconstruct", trace, "--output", dir + "/est.csv", option, trace])
            XCTAssertEqual(r.status, 2, r.err)
            XCTAssert(r.err.contains("(choose another \(option))"), r.err)
            try assertInputUnchanged()
        }
        // And the calibration file given as input.
        let cal = dir + "/cal.json"
        try "{\"gyroscope\": {\"bias\": [0, 0, 0]}}".write(toFile: cal, atomically: true, encoding: .utf8)
        XCTAssertEqual(try run(["replay", trace, "--calibration", cal, "--output", cal]).status, 2)
        XCTAssertEqual(try String(contentsOfFile: cal, encoding: .utf8), "{\"gyroscope\": {\"bias\": [0, 0, 0]}}")
    }

    /// A folder run into its own folder would overwrite every trace: refused, nothing changed.
    func testFolderOntoItselfIsRefused() throws {
        let folder = dir + "/traces"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["a.csv", "b.csv"] { try FileManager.default.copyItem(atPath: trace, toPath: folder + "/" + name) }
        for command in ["replay", "reconstruct"] {
            let r = try run([command, folder, "--output", folder])
            XCTAssertEqual(r.status, 2, r.err)
            for name in ["a.csv", "b.csv"] {
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)), original)
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["a.csv", "b.csv"])
        }
    }

    /// Odd paths: the current folder, a folder, a one-character name, a missing folder, a
    /// read-only folder.
    func testOddOutputPaths() throws {
        for output in [".", "./", dir, dir + "/"] {
            let r = try run(["replay", trace, "--output", output], in: dir)
            XCTAssertEqual(r.status, 2, "--output \(output): \(r.err)")
            XCTAssert(r.err.contains("folder"), r.err)
        }
        let one = try run(["replay", "trace.csv", "--output", "a"], in: dir)
        XCTAssertEqual(one.status, 0, one.err)
        XCTAssertEqual(try String(contentsOfFile: dir + "/a", encoding: .utf8).split(separator: "\n").count, 6002)
        let missing = try run(["replay", trace, "--output", dir + "/no/such/folder/out.csv"])
        XCTAssertEqual(missing.status, 2, missing.err)
        XCTAssert(missing.err.contains("does not exist"), missing.err)
        let readOnly = dir + "/ro"
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        chmod(readOnly, 0o555)
        defer { chmod(readOnly, 0o755) }
        let r = try run(["replay", trace, "--output", readOnly + "/out.csv"])
        if getuid() == 0 {
            // Root writes anyway; the run must simply succeed.
            XCTAssertEqual(r.status, 0, r.err)
        } else {
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssert(r.err.contains("Permission denied"), r.err)
        }
        try assertInputUnchanged()
    }

    /// An existing file is replaced atomically, keeping its permissions.
    func testExistingFileIsReplacedWithItsMode() throws {
        let out = dir + "/est.csv"
        try "old".write(toFile: out, atomically: true, encoding: .utf8)
        chmod(out, 0o640)
        XCTAssertEqual(try run(["replay", trace, "--output", out]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count, 6002)
        var st = stat()
        stat(out, &st)
        XCTAssertEqual(st.st_mode & 0o777, 0o640)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["est.csv", "trace.csv"])
    }

    /// A symbolic link is kept and its target written; a FIFO is written through to its reader;
    /// character devices are never replaced, and a full device is a clean error.
    func testSpecialOutputsAreWrittenThrough() throws {
        let target = dir + "/target.csv"
        let link = dir + "/link.csv"
        // A dangling, relative link.
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.csv")
        XCTAssertEqual(try run(["replay", trace, "--output", link]).status, 0)
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: link), "target.csv", "the link is kept")
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8).split(separator: "\n").count, 6002)

        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let received = HandedOver<Data>(Data())
        let reading = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if let h = FileHandle(forReadingAtPath: fifo) { received.value = h.readDataToEndOfFile() }
            reading.signal()
        }
        XCTAssertEqual(try run(["replay", trace, "--output", fifo]).status, 0)
        // The command has ended (or was killed at its deadline), closing its end. A reader still
        // waiting in `open` for a writer, because the command never opened the FIFO, is released by
        // one writer that opens and closes it at once: the read ends either way.
        let release = open(fifo, O_WRONLY | O_NONBLOCK)
        if release >= 0 { close(release) }
        guard reading.wait(timeout: .now() + 60) == .success else {
            return XCTFail("the reader of the FIFO did not end")
        }
        XCTAssertEqual(
            String(decoding: received.value, as: UTF8.self).split(separator: "\n").count, 6002,
            "the reader got every row")
        var st = stat()
        lstat(fifo, &st)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "still a FIFO")

        XCTAssertEqual(try run(["replay", trace, "--output", "/dev/null"]).status, 0)
        lstat("/dev/null", &st)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR)
        if FileManager.default.fileExists(atPath: "/dev/full") {
            let full = try run(["replay", trace, "--output", "/dev/full"])
            XCTAssertEqual(full.status, 1, full.err)
            XCTAssert(full.err.contains("No space left on device"), full.err)
            lstat("/dev/full", &st)
            XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "the device node is not replaced")
        }
        try assertInputUnchanged()
    }

    /// A link planted where a predictable temporary name would be cannot redirect the write: names
    /// are random and created exclusively without following links.
    func testPlantedLinksAtTemporaryNamesAreHarmless() throws {
        let victim = dir + "/victim.txt"
        try "precious".write(toFile: victim, atomically: true, encoding: .utf8)
        // The old scheme's names for a range of process ids, and a few plausible others.
        for pid in 1..<2048 {
            try? FileManager.default.createSymbolicLink(
                atPath: dir + "/.est.csv.tmp-\(pid)", withDestinationPath: victim)
        }
        for name in [".est.csv.tmp", "est.csv.tmp", ".est.csv.partial"] {
            try? FileManager.default.createSymbolicLink(atPath: dir + "/" + name, withDestinationPath: victim)
        }
        XCTAssertEqual(try run(["replay", trace, "--output", dir + "/est.csv"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious")
        // Two outputs opened together never share a temporary file.
        let a = try OutputTarget.resolve(dir + "/same.csv", protecting: InputFiles()).open()
        let b = try OutputTarget.resolve(dir + "/same.csv", protecting: InputFiles()).open()
        try a.write("a\n")
        try b.write("b\n")
        try a.commit()
        try b.commit()
        XCTAssertEqual(try String(contentsOfFile: dir + "/same.csv", encoding: .utf8), "b\n")
        XCTAssertFalse(
            try FileManager.default.contentsOfDirectory(atPath: dir).contains {
                ($0.hasPrefix(".same.csv.") || $0.hasPrefix(".est.csv.")) && $0.hasSuffix(".tmp")
                    && $0.count > ".est.csv.tmp".count
            },
            "no temporary file left")
    }

    /// Two inputs of a folder that map to the same output name get distinct names, the mapping is
    /// printed, and each output holds its own trace.
    func testCollidingNamesInAFolderGetDistinctOutputs() throws {
        let folder = dir + "/in"
        try FileManager.default.createDirectory(atPath: folder + "/seqA", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: trace, toPath: folder + "/seqA.csv")
        // seqA/ is a phyphox-style recording folder with 3 samples.
        try "\"Time (s)\",\"X (m/s^2)\",\"Y (m/s^2)\",\"Z (m/s^2)\"\n0,0,0,9.8\n0.01,0,0,9.8\n0.02,0,0,9.8\n".write(
            toFile: folder + "/seqA/Accelerometer.csv", atomically: true, encoding: .utf8)
        let out = dir + "/out"
        let r = try run(["replay", folder, "--output", out])
        XCTAssertEqual(r.status, 0, r.err)
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        XCTAssertEqual(names, ["seqA-2.csv", "seqA.csv"])
        XCTAssert(r.err.contains("-> seqA-2.csv"), r.err)
        let counts = try names.map {
            try String(contentsOfFile: out + "/" + $0, encoding: .utf8).split(separator: "\n").count - 1
        }
        XCTAssertEqual(Set(counts), [3, 6001])
    }

    /// Values no reader refuses — huge, tiny, infinite norms — never crash `info --json`.
    func testHugeValuesGiveValidJSON() throws {
        let path = dir + "/huge.csv"
        try
            "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n0,1e300,1e300,1e300,1e300,1e300,1e300,1e300,1e300,1e300\n1e300,1e-300,0,0,1e300,0,0,1e300,1e300,1e300\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = try run(["info", path, "--json"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(r.out.utf8)), r.out)
        let replay = try run(["replay", path, "--output", dir + "/h.csv"])
        XCTAssertEqual(replay.status, 0, replay.err)
        XCTAssertFalse(try String(contentsOfFile: dir + "/h.csv", encoding: .utf8).contains("nan"))
        // A norm that overflows is no figure: the warning gives the reading.
        XCTAssert(replay.err.contains("gyroscope reading (1e+300, 1e+300, 1e+300) beyond"), replay.err)
        XCTAssertFalse(replay.err.contains("magnitude inf"), replay.err)
    }

    /// An oversized simulation is refused with its size before anything is allocated or written.
    func testOversizedSimulationIsRefused() throws {
        let r = try run([
            "simulate", "--scenario", "mixed", "--duration", "1000000", "--rate", "100000", "--output",
            dir + "/sim.csv",
        ])
        XCTAssertEqual(r.status, 2, r.err)
        XCTAssert(r.err.contains("TB"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/sim.csv"))
    }

    /// Timestamps finer than a microsecond stay distinct in the output, so `evaluate` accepts it.
    /// The header states seconds: unstated, steps of 0.5 µs (2 MHz) are no sensor's clock, refused.
    func testFineTimestampsStayDistinct() throws {
        var text = "time_s,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,gt_qw,gt_qx,gt_qy,gt_qz\n"
        for k in 0..<500 { text += "\(1_700_000_000.0 + Double(k) * 5e-7),0,0,0,0,0,9.81,1,0,0,0\n" }
        let path = dir + "/fine.csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try run(["replay", path, "--mode", "6d", "--output", dir + "/fine-est.csv"]).status, 0)
        let estimates = try EstimateReader.read(path: dir + "/fine-est.csv")
        let input = try TraceFormat.load(path: path)
        XCTAssertEqual(estimates.t, input.samples.map(\.t), "every time reads back bit for bit")
        let e = try run(["evaluate", dir + "/fine-est.csv", "--truth", path])
        XCTAssertEqual(e.status, 0, e.err)
    }

    /// Conflicting and repeated options are usage errors; messages never echo control characters.
    func testConflictingOptionsAndEscapedMessages() throws {
        XCTAssertEqual(try run(["replay", trace, "--declination", "3", "--lat", "52", "--lon", "13"]).status, 2)
        XCTAssertEqual(try run(["replay", trace, "--mode", "6d", "--mode", "9d"]).status, 2)
        let r = try run([
            "replay", trace, "--output", dir + "/e.csv", "--lat", "52", "--lon", "13", "--date", "2031-06-01",
        ])
        XCTAssertEqual(r.status, 0)
        XCTAssert(r.err.contains("warning"), "a date outside the model's validity warns: \(r.err)")
        let evil = dir + "/evil.csv"
        try "t,acc_x,acc_y,acc_z\n0,0,\u{1B}[31mred,9.8\n".write(toFile: evil, atomically: true, encoding: .utf8)
        let bad = try run(["replay", evil])
        XCTAssertEqual(bad.status, 1)
        XCTAssertFalse(bad.err.contains("\u{1B}"), "no raw escape sequence: \(bad.err)")
        XCTAssert(bad.err.contains("\\u{1B}"), bad.err)
    }
}
