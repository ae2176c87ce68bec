import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// `.csv.gz` recordings (and gzip on standard input) are read as they are, decompressed while they
/// stream; a stream cut short is an error, never a silently shorter recording.
final class GzipInputTests: XCTestCase {
    /// The files `paths` compressed by Debian's gzip (an essential package), one gzip member each,
    /// one after the other in `out`.
    @discardableResult
    func gzip(_ paths: [String], to out: String) throws -> String {
        FileManager.default.createFile(atPath: out, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        defer { try? handle.close() }
        for path in paths {
            let p = try ChildProcess.run("/bin/gzip", ["-c", path], output: .handle(handle))
            XCTAssertEqual(p.status, 0, p.errText)
        }
        return out
    }

    func testCompressedRecordingReadsLikeThePlainOne() throws {
        let dir = TestData.temporaryDirectory()
        let plain = dir + "/trace.csv"
        try FileManager.default.copyItem(atPath: TestData.projectData + "/sim_mixed_100hz.csv", toPath: plain)
        let compressed = try gzip([plain], to: plain + ".gz")
        let a = try TraceFormat.load(path: plain)
        let b = try TraceFormat.load(path: compressed)
        XCTAssertEqual(a.samples.count, b.samples.count)
        XCTAssertEqual(a.samples.map(\.t), b.samples.map(\.t))
        XCTAssertEqual(a.samples.map(\.gyroscope), b.samples.map(\.gyroscope))

        // The command line, from a file and from standard input, writes the same estimates.
        let fromFile = CommandRunner.run(["replay", compressed, "--output", dir + "/gz.csv"])
        XCTAssertEqual(fromFile.status, 0, fromFile.err)
        XCTAssertEqual(CommandRunner.run(["replay", plain, "--output", dir + "/plain.csv"]).status, 0)
        XCTAssertEqual(
            try String(contentsOfFile: dir + "/gz.csv", encoding: .utf8),
            try String(contentsOfFile: dir + "/plain.csv", encoding: .utf8))
        let piped = try CommandRunner.process(
            ["replay", "-", "--output", "-"], input: try Data(contentsOf: URL(fileURLWithPath: compressed)))
        XCTAssertEqual(piped.status, 0, piped.err)
        XCTAssertEqual(piped.out, try String(contentsOfFile: dir + "/plain.csv", encoding: .utf8))

        // Concatenated members read as one stream (`cat a.gz b.gz`): a recording split in two.
        let lines = try String(contentsOfFile: plain, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false)
        let half = lines.count / 2
        try lines[..<half].joined(separator: "\n").appending("\n").write(
            toFile: dir + "/a.csv", atomically: true, encoding: .utf8)
        try lines[half...].joined(separator: "\n").write(toFile: dir + "/b.csv", atomically: true, encoding: .utf8)
        let joined = try gzip([dir + "/a.csv", dir + "/b.csv"], to: dir + "/joined.csv.gz")
        XCTAssertEqual(try TraceFormat.load(path: joined).samples.map(\.t), a.samples.map(\.t))
    }

    func testZeroPaddingAfterTheLastMemberIsIgnored() throws {
        let dir = TestData.temporaryDirectory()
        let plain = dir + "/trace.csv"
        try FileManager.default.copyItem(atPath: TestData.projectData + "/sim_mixed_100hz.csv", toPath: plain)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: try gzip([plain], to: plain + ".gz")))
        bytes.append(Data(repeating: 0, count: 70_000))
        let padded = dir + "/padded.csv.gz"
        try bytes.write(to: URL(fileURLWithPath: padded))
        XCTAssertEqual(
            try TraceFormat.load(path: padded).samples.map(\.t), try TraceFormat.load(path: plain).samples.map(\.t))
    }

    func testTruncatedStreamIsAnError() throws {
        let dir = TestData.temporaryDirectory()
        let plain = dir + "/trace.csv"
        try FileManager.default.copyItem(atPath: TestData.projectData + "/sim_mixed_100hz.csv", toPath: plain)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try gzip([plain], to: plain + ".gz")))
        let cut = dir + "/cut.csv.gz"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let r = CommandRunner.run(["replay", cut, "--output", dir + "/out.csv"])
        XCTAssertEqual(r.status, 1)
        XCTAssert(r.err.contains("gzip stream is cut short"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.csv"), "nothing written")
    }
}
