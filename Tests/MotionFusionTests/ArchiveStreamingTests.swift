import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// `.zip` entries are decoded as they are read and merged an instant at a time: a long entry reads
/// exactly like the same files in a folder, and a damaged one fails the run (memory is measured in
/// docs/Reliability.md, never here).
final class ArchiveStreamingTests: XCTestCase {
    /// A phyphox-layout recording of `rows` accelerometer and gyroscope rows at 100 Hz and a
    /// magnetometer at 20 Hz offset by 1 ms, with values that tell every row apart.
    func recording(rows: Int) -> [(String, [UInt8])] {
        func file(_ unit: String, _ count: Int, _ time: (Int) -> Double, _ value: (Int) -> (Double, Double, Double))
            -> [UInt8]
        {
            var text = "\"Time (s)\",\"X (\(unit))\",\"Y (\(unit))\",\"Z (\(unit))\"\n"
            for k in 0..<count {
                let (x, y, z) = value(k)
                text += "\(time(k)),\(x),\(y),\(z)\n"
            }
            return Array(text.utf8)
        }
        return [
            (
                "Accelerometer.csv",
                file("m/s^2", rows, { Double($0) / 100 }, { (0.001 * Double($0 % 997), 0.25, 9.75) })
            ),
            ("Gyroscope.csv", file("rad/s", rows, { Double($0) / 100 }, { (0.01, -0.0001 * Double($0 % 991), 0.02) })),
            (
                "Magnetometer.csv",
                file("µT", rows / 5, { Double($0) / 20 + 0.001 }, { (20, 0.01 * Double($0 % 89), -40) })
            ),
        ]
    }

    func write(_ entries: [(String, [UInt8])], folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, bytes) in entries { try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name)) }
    }

    func testLongEntriesReadLikeTheFolder() throws {
        let dir = TestData.temporaryDirectory()
        let rows = 60_000
        let entries = recording(rows: rows)
        try write(entries, folder: dir + "/folder")
        let expected = try TraceFormat.load(path: dir + "/folder")
        // Every accelerometer instant, and every magnetometer one between them.
        XCTAssertEqual(expected.samples.count, rows + rows / 5)
        XCTAssertEqual(expected.samples[1].t, 0.001)
        XCTAssertEqual(expected.samples[1].magnetometer, Vector3(20, 0, -40))
        XCTAssertEqual(expected.samples.last?.accelerometer, Vector3(0.001 * Double((rows - 1) % 997), 0.25, 9.75))
        for deflate in [true, false] {
            let zip = dir + "/recording-\(deflate).zip"
            try Data(ZipWriter.archive(entries, deflate: deflate)).write(to: URL(fileURLWithPath: zip))
            let got = try TraceFormat.load(path: zip)
            XCTAssertEqual(got.format, "phyphox")
            XCTAssertEqual(got.samples, expected.samples, "deflate \(deflate)")
            let a = CommandRunner.run(["replay", zip, "--output", dir + "/zip-\(deflate).csv"])
            XCTAssertEqual(a.status, 0, a.err)
        }
        XCTAssertEqual(CommandRunner.run(["replay", dir + "/folder", "--output", dir + "/folder.csv"]).status, 0)
        let folderRows = try String(contentsOfFile: dir + "/folder.csv", encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: dir + "/zip-true.csv", encoding: .utf8), folderRows)
        XCTAssertEqual(try String(contentsOfFile: dir + "/zip-false.csv", encoding: .utf8), folderRows)
    }

    /// Where the central directory's first entry (the first file's) starts, from the
    /// end-of-directory record (the last 22 bytes: no archive comment).
    func directoryStart(_ archive: [UInt8]) -> Int {
        let eocd = archive.count - 22
        return (0..<4).reduce(0) { $0 | Int(archive[eocd + 16 + $1]) << (8 * $1) }
    }

    /// A damaged entry found only at its end (after many rows were read) fails the run: exit 1, the
    /// entry named, and no output file.
    func testDamageAtTheEndFailsTheRun() throws {
        let dir = TestData.temporaryDirectory()
        var entries = recording(rows: 20_000)
        entries.removeLast()
        // Stored: one digit of the last accelerometer row changed; the CRC-32 tells.
        var stored = ZipWriter.archive(entries, deflate: false)
        let lastRow = entries[0].1.count - 8
        let at = 30 + "Accelerometer.csv".utf8.count + lastRow
        stored[at] = stored[at] == UInt8(ascii: "5") ? UInt8(ascii: "6") : UInt8(ascii: "5")
        // Deflated: the CRC-32 the directory records for the accelerometer is wrong, the data intact.
        var deflated = ZipWriter.archive(entries, deflate: true)
        deflated[directoryStart(deflated) + 16] ^= 0x01
        for (name, bytes) in [("stored", stored), ("deflated", deflated)] {
            let zip = dir + "/\(name).zip"
            try Data(bytes).write(to: URL(fileURLWithPath: zip))
            let output = dir + "/\(name).csv"
            let r = CommandRunner.run(["replay", zip, "--output", output])
            XCTAssertEqual(r.status, 1, "\(name): \(r.err)")
            XCTAssert(r.err.contains("\(name).zip: entry 'Accelerometer.csv': damaged (CRC-32"), r.err)
            XCTAssertFalse(FileManager.default.fileExists(atPath: output), "\(name): no output from a damaged entry")
            XCTAssertThrowsError(try TraceFormat.load(path: zip))
            let streamed = try CommandRunner.process(["replay", zip, "--output", "-"])
            XCTAssertEqual(streamed.status, 1, streamed.err)
        }
        // A deflated entry cut short (its compressed size says less than the data) is damaged too.
        var cut = ZipWriter.archive(entries, deflate: true)
        let directory = directoryStart(cut)
        let compressed = Int(cut[directory + 20]) | Int(cut[directory + 21]) << 8 | Int(cut[directory + 22]) << 16
        let smaller = compressed / 2
        for k in 0..<3 { cut[directory + 20 + k] = UInt8(smaller >> (8 * k) & 0xFF) }
        try Data(cut).write(to: URL(fileURLWithPath: dir + "/cut.zip"))
        let r = CommandRunner.run(["info", dir + "/cut.zip"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("cut.zip: entry 'Accelerometer.csv'"), r.err)
    }
}
