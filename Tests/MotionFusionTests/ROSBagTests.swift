import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// ROS 1 bags, MCAP files and ROS 2 bag folders are named, with the route that reads them (the
/// Python package), not called an unrecognised header.
final class ROSBagTests: XCTestCase {
    /// ROS bags are named with the route that reads them, not an unrecognised header.
    func testROSBagsNameThePythonRoute() throws {
        let dir = TestData.temporaryDirectory()
        let bag = dir + "/x.bag"
        try Data(Array("#ROSBAG V2.0\n".utf8) + [0x45, 0, 0, 0, 0x20, 0, 0, 0]).write(to: URL(fileURLWithPath: bag))
        let mcap = dir + "/x.mcap"
        try Data([0x89] + Array("MCAP0\r\n".utf8) + [1, 0, 0, 0]).write(to: URL(fileURLWithPath: mcap))
        let folder = dir + "/rosbag2_2024_03_01"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "rosbag2_bagfile_information:\n  version: 5\n".write(
            toFile: folder + "/metadata.yaml", atomically: true, encoding: .utf8)
        try Data(Array("SQLite format 3".utf8) + [0] + Array(repeating: 0, count: 84)).write(
            to: URL(fileURLWithPath: folder + "/rosbag2_2024_03_01_0.db3"))
        for (path, kind) in [
            (bag, "ROS 1 bag"), (mcap, "MCAP"), (folder, "ROS 2 bag folder"),
            (folder + "/rosbag2_2024_03_01_0.db3", "ROS 2 .db3"),
        ] {
            for command in ["replay", "info"] {
                let r = CommandRunner.run([command, path])
                XCTAssertEqual(r.status, 1, r.err)
                XCTAssert(r.err.contains(kind), r.err)
                XCTAssert(r.err.contains("motionfusion.load(") && r.err.contains("imu_topic="), r.err)
                XCTAssertFalse(r.err.contains("unrecognised header"), r.err)
            }
        }
        let forced = CommandRunner.run(["replay", bag, "--columns", "t=1,acc=2"])
        XCTAssertEqual(forced.status, 1, forced.err)
        XCTAssert(forced.err.contains("ROS 1 bag"), forced.err)
        // On standard input, whatever --format says: it cannot be read from there, and the
        // Python route is named with a file to save it to.
        for (path, file) in [(mcap, "recording.mcap"), (bag, "recording.bag")] {
            for format in [[], ["--format", "native"]] {
                let piped = try CommandRunner.process(
                    ["replay", "-"] + format, input: try Data(contentsOf: URL(fileURLWithPath: path)))
                XCTAssertEqual(piped.status, 1, piped.err)
                XCTAssert(
                    piped.err.contains("on standard input: a ROS bag cannot be read from standard input"), piped.err)
                XCTAssert(piped.err.contains("motionfusion.load(\"\(file)\""), piped.err)
                XCTAssertFalse(piped.err.contains("load(\"stdin\""), piped.err)
            }
        }
    }
}
