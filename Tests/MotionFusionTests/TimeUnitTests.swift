import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// A time column without a unit in its name whose steps are no sensor's rate as seconds (whole
/// milliseconds, microseconds or nanoseconds) is read in the unit that makes them one, announced;
/// a clock no unit reads is refused at its first time, naming the flags.
final class TimeUnitTests: XCTestCase {
    /// Writes `t,gyr_x,…,acc_z` rows at the times `times` (as written) with the device at rest.
    func write(_ name: String, times: [String]) throws -> String {
        let path = TestData.temporaryDirectory() + "/" + name
        var text = "timestamp,gx,gy,gz,ax,ay,az\n"
        for t in times { text += "\(t),0.001,-0.002,0.001,0.17,0.27,9.79\n" }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// The rate of `trace`'s median step, Hz.
    func rate(_ trace: Trace) -> Double {
        let steps = zip(trace.samples, trace.samples.dropFirst()).map { $1.t - $0.t }
        return 1 / (UnitCheck.median(steps) ?? .nan)
    }

    func note(_ trace: Trace) -> String {
        trace.warnings.map(\.message).first { $0.hasPrefix(UnitEvidence.notePrefix) } ?? ""
    }

    /// Integer times with a little jitter, from `first` stepping by about `step`.
    func times(_ first: Int64, step: Int64, count: Int = 300) -> [String] {
        (0..<Int64(count)).map { k in String(first + k * step + (k % 3 == 1 ? step / 50 : 0)) }
    }

    func testMillisClockStepsOf8AreMilliseconds() throws {
        let trace = try TraceFormat.load(path: try write("millis.csv", times: times(15234, step: 8)))
        XCTAssertEqual(rate(trace), 125, accuracy: 1.25)
        XCTAssertEqual(trace.samples[0].t, 15.234, accuracy: 1e-9)
        XCTAssert(note(trace).contains("t=ms (the times step by 8 per sample in whole numbers: ms (125 Hz)"))
        XCTAssert(note(trace).contains("--units t=… overrides"), note(trace))
    }

    func testPX4MicrosecondsStepsOf4000AreMicroseconds() throws {
        let trace = try TraceFormat.load(path: try write("px4.csv", times: times(717_093_622, step: 4000)))
        XCTAssertEqual(rate(trace), 250, accuracy: 2.5)
        XCTAssert(note(trace).contains("t=us (the times step by 4000 per sample"), note(trace))
    }

    func testAndroidEventTimeNanosecondsSinceBoot() throws {
        let trace = try TraceFormat.load(
            path: try write("android.csv", times: times(4_240_911_748_748, step: 19_577_187)))
        XCTAssertEqual(rate(trace), 51.08, accuracy: 0.51)
        XCTAssert(note(trace).contains("t=ns"), note(trace))
    }

    func testEpochsInMillisecondsAndNanoseconds() throws {
        let ms = try TraceFormat.load(path: try write("epoch_ms.csv", times: times(1_700_000_000_000, step: 10)))
        XCTAssertEqual(rate(ms), 100, accuracy: 1)
        XCTAssertEqual(ms.samples[0].t, 1.7e9, accuracy: 1e-3)
        let ns = try TraceFormat.load(
            path: try write("epoch_ns.csv", times: times(1_700_000_000_000_000_000, step: 10_000_000)))
        XCTAssertEqual(rate(ns), 100, accuracy: 1)
        XCTAssertEqual(ns.samples[0].t, 1.7e9, accuracy: 1e-3)
    }

    /// Seconds with a fraction stay seconds, and so do whole ms under `--units t=s`.
    func testSecondsAndAStatedUnitAreKept() throws {
        let seconds = try TraceFormat.load(path: try write("s.csv", times: (0..<100).map { String(Double($0) / 100) }))
        XCTAssertEqual(rate(seconds), 100, accuracy: 1)
        XCTAssertEqual(note(seconds), "")
        var options = DelimitedReadOptions()
        options.units = "t=s"
        let told = try TraceFormat.load(path: try write("told.csv", times: times(0, step: 8)), options: options)
        XCTAssertEqual(rate(told), 0.125, accuracy: 0.002)
    }

    /// Steps of 300 are 3.3 Hz in ms and 3.3 kHz in µs, and steps of 1e-12 no rate at all: refused
    /// at the first time, naming the flags; `--units` reads them.
    func testAClockNoUnitReadsIsRefused() throws {
        for (name, rows) in [
            ("ambiguous.csv", times(1000, step: 300)), ("tiny.csv", (0..<100).map { "\(Double($0) * 1e-12)" }),
        ] {
            let path = try write(name, times: rows)
            XCTAssertThrowsError(try TraceFormat.load(path: path), name) { error in
                let e = error as? TraceError
                XCTAssertEqual(e?.kind, .implausibleClock)
                XCTAssertEqual(e?.location, SourceLocation(file: path, line: 2, column: 1))
                XCTAssert(e?.message.contains("--units t=ms") == true, "\(error)")
                XCTAssert(e?.message.contains("--sample-rate") == true, "\(error)")
            }
            let r = CommandRunner.run(["replay", path, "--output", TestData.temporaryDirectory() + "/o.csv"])
            XCTAssertNotEqual(r.status, 0)
            XCTAssert(r.err.contains("\(path):2:1: the time column 'timestamp'"), r.err)
        }
        var options = DelimitedReadOptions()
        options.units = "t=ms"
        let told = try TraceFormat.load(path: try write("told.csv", times: times(1000, step: 300)), options: options)
        XCTAssertEqual(rate(told), 3.33, accuracy: 0.04)
    }

    /// Asserts `path` is refused at its first time, naming each of `flags`.
    func assertRefused(_ path: String, naming flags: [String], line: UInt = #line) {
        XCTAssertThrowsError(try TraceFormat.load(path: path), line: line) { error in
            let e = error as? TraceError
            XCTAssertEqual(e?.kind, .implausibleClock, line: line)
            XCTAssertEqual(e?.location, SourceLocation(file: path, line: 2, column: 1), line: line)
            for flag in flags { XCTAssert(e?.message.contains(flag) == true, "\(error)", line: line) }
        }
    }

    /// ns since an Android phone's boot 20 days ago step by 10⁶ at 1 kHz: as µs, an epoch in 2024
    /// at 1 Hz. An epoch must be read at a sensor's rate that no finer unit also gives: at 1 kHz
    /// both readings are a sensor's, so the clock is refused naming both; at 200 Hz (an epoch at
    /// 0.2 Hz) and µs since boot at 500 Hz (an epoch in ms at 0.5 Hz) the steps decide.
    func testAClockSinceBootIsNotTakenForAnEpoch() throws {
        assertRefused(
            try write("ns_boot_1khz.csv", times: times(1_728_000_000_000_000, step: 1_000_000)),
            naming: ["--units t=us", "--units t=ns", "epoch in µs"])
        assertRefused(
            try write("us_boot_1khz.csv", times: times(1_728_000_000_000, step: 1000)),
            naming: ["--units t=ms", "--units t=us"])
        let ns = try TraceFormat.load(
            path: try write("ns_boot_200hz.csv", times: times(1_728_000_000_000_000, step: 5_000_000)))
        XCTAssertEqual(rate(ns), 200, accuracy: 2)
        XCTAssert(note(ns).contains("t=ns"), note(ns))
        let us = try TraceFormat.load(path: try write("us_boot_500hz.csv", times: times(1_728_000_000_000, step: 2000)))
        XCTAssertEqual(rate(us), 500, accuracy: 5)
        XCTAssert(note(us).contains("t=us"), note(us))
    }

    /// Whole steps two units read as a sensor's rate are refused naming both: micros() at 10 kHz
    /// (10 Hz in ms), millis() at 1 Hz (1 kHz in µs); whole epoch seconds stepping by 1 are seconds.
    func testTwoUnitsAtASensorsRateAreRefused() throws {
        assertRefused(
            try write("micros_10khz.csv", times: times(123_456, step: 100)), naming: ["--units t=ms", "--units t=us"])
        assertRefused(
            try write("millis_1hz.csv", times: times(5000, step: 1000)), naming: ["--units t=ms", "--units t=us"])
        let epoch = try TraceFormat.load(path: try write("epoch_s.csv", times: times(1_700_000_000, step: 1)))
        XCTAssertEqual(rate(epoch), 1, accuracy: 0.01)
        XCTAssertEqual(epoch.samples[0].t, 1.7e9)
        XCTAssertEqual(note(epoch), "")
    }

    /// Fractional ms at 2 kHz step by 0.5: read as seconds (2 Hz), with a warning naming
    /// `--units t=ms`, which reads them.
    func testFractionalMillisecondsAreWarnedAbout() throws {
        let path = try write("float_ms.csv", times: (0..<300).map { String(format: "%.1f", 12.5 + Double($0) * 0.5) })
        let trace = try TraceFormat.load(path: path)
        XCTAssertEqual(rate(trace), 2, accuracy: 0.02)
        XCTAssert(
            trace.warnings.contains { !$0.isNote && $0.message.contains("if they are ms (2 kHz), give --units t=ms") },
            "\(trace.warnings)")
        var options = DelimitedReadOptions()
        options.units = "t=ms"
        XCTAssertEqual(rate(try TraceFormat.load(path: path, options: options)), 2000, accuracy: 20)
    }

    /// Writes a folder of `accel.csv` and `gyro.csv` stepping by `step` and `mag.csv` by `magStep`.
    func folder(_ name: String, step: Int64, magStep: Int64) throws -> String {
        let dir = TestData.temporaryDirectory() + "/" + name
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (file, row, by) in [
            ("accel.csv", "0.0,0.0,1.0", step), ("gyro.csv", "0.001,0.0,0.0", step),
            ("mag.csv", "0.0,20.0,-40.0", magStep),
        ] {
            let text = "time,x,y,z\n" + (0..<Int64(8000 / by)).map { "\(15000 + $0 * by),\(row)\n" }.joined()
            try text.write(toFile: dir + "/" + file, atomically: false, encoding: .utf8)
        }
        return dir
    }

    /// A slow magnetometer file (2 or 4 Hz in whole ms) takes the unit the other files' steps prove
    /// (ms), not one of its own; the note names `t` once.
    func testASlowFileTakesTheOtherFilesClock() throws {
        for magStep: Int64 in [250, 500] {
            let trace = try TraceFormat.load(path: try folder("slow_mag_\(magStep)", step: 10, magStep: magStep))
            let mags = trace.samples.filter { $0.magnetometer != nil }.map(\.t)
            let steps = zip(mags, mags.dropFirst()).map { $1 - $0 }
            XCTAssertEqual(UnitCheck.median(steps) ?? 0, Double(magStep) / 1000, accuracy: 1e-9)
            XCTAssertEqual(mags.first ?? 0, 15, accuracy: 1e-9)
            XCTAssert(note(trace).contains("--units t=…,acc=… overrides"), note(trace))
            XCTAssertFalse(note(trace).contains("t=us"), note(trace))
        }
    }

    /// A folder whose clocks no unit reads is refused at the first time of a file, by its line and
    /// column.
    func testARefusedFolderClockHasALineAndColumn() throws {
        let dir = try folder("refused", step: 300, magStep: 300)
        XCTAssertThrowsError(try TraceFormat.load(path: dir)) { error in
            let e = error as? TraceError
            XCTAssertEqual(e?.kind, .implausibleClock)
            XCTAssertEqual(e?.location.line, 2)
            XCTAssertEqual(e?.location.column, 1)
            XCTAssert(e?.location.file.hasSuffix(".csv") == true, "\(error)")
        }
    }

    /// A stream whose clock a file would be refused for (micros() at 10 kHz, 10 Hz in ms) is read
    /// as seconds with a warning naming both flags, not in silence.
    func testAStreamsRefusedClockIsWarnedAbout() throws {
        let path = try write("micros_stream.csv", times: times(123_456, step: 100))
        let r = try CommandRunner.process(
            ["info", "-"], input: try Data(contentsOf: URL(fileURLWithPath: path)))
        XCTAssert(r.err.contains("--units t=ms (10 Hz) or --units t=us (10 kHz)"), r.err)
        XCTAssert(r.err.contains("so its times were read as seconds"), r.err)
    }
}
