import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Time from a rate the user states: rows without a time column, and sample counters (which wrap).
final class SampleClockTests: XCTestCase {
    /// The bundled trace's rows with the time column replaced by `time(k)` (or dropped when nil).
    func rewritten(_ name: String, header: String?, time: ((Int) -> String)?) throws -> String {
        let lines = try String(contentsOfFile: TestData.projectData + "/sim_mixed_100hz.csv", encoding: .utf8)
            .split(separator: "\n")
        let rest = lines.map { $0.split(separator: ",", maxSplits: 1)[1] }
        var text = (header.map { $0 + "," } ?? "") + rest[0] + "\n"
        for (k, row) in rest.dropFirst().enumerated() { text += (time.map { $0(k) + "," } ?? "") + row + "\n" }
        return TestData.writeTemporary(text, name: name)
    }

    func testRowsWithoutATimeColumnAreTimedByTheStatedRate() throws {
        let path = try rewritten("notime.csv", header: nil, time: nil)
        let missing = CommandRunner.run(["info", path])
        XCTAssertEqual(missing.status, 1)
        XCTAssert(missing.err.contains("--sample-rate HZ"), missing.err)
        var options = DelimitedReadOptions()
        options.sampleRate = 50
        let trace = try TraceFormat.load(path: path, options: options)
        XCTAssertEqual(trace.samples.count, 6001)
        for k in [0, 1, 2, 6000] { XCTAssertEqual(trace.samples[k].t, Double(k) / 50, accuracy: 1e-12) }
        let r = CommandRunner.run(["replay", path, "--sample-rate", "100", "--output", "-"])
        XCTAssertEqual(r.status, 0, r.err)
    }

    func testWrappingCounterIsUnwrapped() throws {
        // An 8-bit packet counter: 0…255, 0…255, …
        let path = try rewritten("counter.csv", header: "packet", time: { "\($0 % 256)" })
        let columns = ["--columns", "t=packet,gyr=gyr_x,acc=acc_x,mag=mag_x,gt=gt_qw"]
        let withoutRate = CommandRunner.run(["info", path] + columns + ["--units", "t=count"])
        XCTAssertEqual(withoutRate.status, 2)
        XCTAssert(withoutRate.err.contains("needs its rate: --sample-rate HZ"), withoutRate.err)
        var options = DelimitedReadOptions()
        options.columns = "t=packet,gyr=gyr_x,acc=acc_x,mag=mag_x,gt=gt_qw"
        options.units = "t=count"
        options.sampleRate = 256
        let trace = try TraceFormat.load(path: path, options: options)
        XCTAssertEqual(trace.samples.count, 6001)
        for k in [0, 255, 256, 257, 6000] { XCTAssertEqual(trace.samples[k].t, Double(k) / 256, accuracy: 1e-12) }
        XCTAssertFalse(trace.warnings.contains { $0.message.contains("earlier") }, "no backward time at a wrap")
    }

    func testStatedRateWithATimeColumnIsAUsageError() {
        let r = CommandRunner.run([
            "replay", TestData.projectData + "/sim_mixed_100hz.csv", "--sample-rate", "100", "--output", "-",
        ])
        XCTAssertEqual(r.status, 2)
        XCTAssert(r.err.contains("this file's time column 't' gives the times"), r.err)
    }
}
