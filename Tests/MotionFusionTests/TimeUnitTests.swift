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
}
