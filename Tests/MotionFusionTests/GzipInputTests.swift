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
        // Standard input runs sample by sample, as the file does with `--look-ahead 0`.
        let sampleBySample = ["replay", plain, "--look-ahead", "0", "--output", dir + "/plain0.csv"]
        XCTAssertEqual(CommandRunner.run(sampleBySample).status, 0)
        let piped = try CommandRunner.process(
            ["replay", "-", "--output", "-"], input: try Data(contentsOf: URL(fileURLWithPath: compressed)))
        XCTAssertEqual(piped.status, 0, piped.err)
        XCTAssertEqual(piped.out, try String(contentsOfFile: dir + "/plain0.csv", encoding: .utf8))

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

    /// A `.csv.gz` inside a `.zip` is inflated as it is read, stored or deflated in the archive: a
    /// zipped trace file alone reads as that file, and per-sensor `.csv.gz` files as the folder.
    /// A gzip member cut short inside the archive is an error naming the entry.
    func testGzipEntriesOfAnArchiveAreInflated() throws {
        let dir = TestData.temporaryDirectory()
        let plain = dir + "/trace.csv"
        try FileManager.default.copyItem(atPath: TestData.projectData + "/sim_mixed_100hz.csv", toPath: plain)
        let compressed = Array(try Data(contentsOf: URL(fileURLWithPath: try gzip([plain], to: plain + ".gz"))))
        let expected = try TraceFormat.load(path: plain)
        for deflate in [true, false] {
            let zip = dir + "/imu-\(deflate).zip"
            try Data(ZipWriter.archive([("imu.csv.gz", compressed)], deflate: deflate)).write(
                to: URL(fileURLWithPath: zip))
            let trace = try TraceFormat.load(path: zip)
            XCTAssertEqual(trace.format, "native")
            XCTAssertEqual(trace.samples, expected.samples)
        }
        // The same zipped uncompressed reads the same.
        let zipped = dir + "/imu.zip"
        try ZipWriter.write(folder: dir, names: ["trace.csv"], to: zipped)
        XCTAssertEqual(try TraceFormat.load(path: zipped).samples, expected.samples)

        // Per-sensor files, each gzipped, in a .zip.
        let fixtures = TestData.packageRoot + "/Tests/MotionFusionTests/Fixtures/SensorFiles/iso"
        let names = ["Accelerometer.csv", "Compass.csv", "Gyroscope.csv"]
        let entries = try names.map { name in
            (
                name + ".gz",
                Array(
                    try Data(
                        contentsOf: URL(
                            fileURLWithPath: try gzip([fixtures + "/" + name], to: dir + "/" + name + ".gz"))))
            )
        }
        try Data(ZipWriter.archive(entries)).write(to: URL(fileURLWithPath: dir + "/iso.zip"))
        let folder = try TraceFormat.load(path: fixtures)
        let archive = try TraceFormat.load(path: dir + "/iso.zip")
        XCTAssertEqual(archive.format, "sensor-files")
        XCTAssertEqual(archive.samples, folder.samples)

        // Cut short inside the archive.
        let cut = dir + "/cut.zip"
        try Data(ZipWriter.archive([("imu.csv.gz", Array(compressed.prefix(compressed.count / 2)))])).write(
            to: URL(fileURLWithPath: cut))
        let r = CommandRunner.run(["replay", cut, "--output", dir + "/out.csv"])
        XCTAssertEqual(r.status, 1)
        XCTAssert(r.err.contains("cut.zip:imu.csv.gz") && r.err.contains("gzip stream is cut short"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.csv"), "nothing written")
    }
}
