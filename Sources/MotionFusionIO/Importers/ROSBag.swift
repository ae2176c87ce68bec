import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// ROS recordings, which the command line does not read: a ROS 1 bag (`#ROSBAG V2.0`), an MCAP
/// file (ROS 2's default), a ROS 2 SQLite `.db3`, or a ROS 2 bag folder (`metadata.yaml`). They
/// are recognised so that the error names the route that reads them — the Python package, with
/// the `rosbags` library — rather than calling them an unrecognised header.
enum ROSBag {
    /// The kinds, by the bytes a file starts with.
    static let signatures: [(magic: [UInt8], kind: String, fileExtension: String)] = [
        (Array("#ROSBAG V2.0".utf8), "a ROS 1 bag (#ROSBAG V2.0)", "bag"),
        ([0x89] + Array("MCAP0".utf8), "an MCAP file (a ROS 2 bag)", "mcap"),
        (Array("SQLite format 3".utf8) + [0], "an SQLite database (a ROS 2 .db3 bag)", "db3"),
    ]

    /// Bytes that tell every kind.
    static let signatureLength = 16

    /// What kind of ROS recording the first bytes of a file show, if any.
    static func kind(firstBytes: [UInt8]) -> String? {
        signatures.first { firstBytes.starts(with: $0.magic) }?.kind
    }

    /// The error for a ROS recording arriving on a stream (standard input, a pipe) named `name`,
    /// or nil when its first bytes show none: the Python route opens files, so the recording has
    /// to be saved to one first.
    static func refusal(stream lines: ByteLineReader) throws -> TraceError? {
        let first = try lines.peekBytes(signatureLength)
        guard let signature = signatures.first(where: { first.starts(with: $0.magic) }) else { return nil }
        let source = lines.name == ByteLineReader.standardInputName ? "standard input" : "a stream (\(lines.name))"
        let file = "recording." + signature.fileExtension
        return TraceError(
            .unknownFormat, SourceLocation(file: lines.name, line: 0, column: 0),
            "\(signature.kind) on \(source): a ROS bag cannot be read from standard input or a pipe (the command line does not read ROS bags, and the Python package reads them from a file); save it to a file, e.g. \(file), and \(route(file: file))"
        )
    }

    /// The error for a ROS recording at `path` (a file or a ROS 2 bag folder), or nil when it is
    /// none.
    static func refusal(path: String) -> TraceError? {
        var kind: String?
        if TraceFormat.isDirectory(path) {
            if FileManager.default.fileExists(atPath: PathText.join(path, "metadata.yaml")) {
                kind = "a ROS 2 bag folder (metadata.yaml)"
            }
        } else if !TraceFormat.isStream(path), let file = fopen(path, "rb") {
            defer { fclose(file) }
            var first = [UInt8](repeating: 0, count: 16)
            let count = fread(&first, 1, first.count, file)
            kind = Self.kind(firstBytes: Array(first[..<count]))
        }
        return kind.map { error(path: path, kind: $0) }
    }

    /// The error naming the route for `kind` at `path`.
    static func error(path: String, kind: String) -> TraceError {
        TraceError(
            .unknownFormat, SourceLocation(file: path, line: 0, column: 0),
            "\(kind): the command line does not read ROS bags; \(route(file: PathText.name(path)))")
    }

    /// How to read the ROS recording `file`: the Python package, or a CSV export.
    static func route(file: String) -> String {
        "read it with the Python package (it uses the rosbags library: pip install rosbags): motionfusion.load(\"\(file.escapedForMessage)\", imu_topic=\"/imu/data\", mag_topic=\"/imu/mag\") with your recording's topics (a sensor_msgs/Imu topic and, if any, a sensor_msgs/MagneticField topic), or export the topics to CSV (rostopic echo -p, ros2 bag, or Foxglove) and read that"
    }
}
