import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads EuRoC / ASL datasets: `mav0/imu0/data.csv` (ns timestamps, gyroscope rad/s,
/// accelerometer m/s², no magnetometer), streamed, with ground truth from
/// `mav0/state_groundtruth_estimate0/data.csv` (`q_RS`: world from IMU, world z up, heading
/// arbitrary) interpolated by slerp onto the IMU timestamps inside its time span. Time is the
/// dataset's clock (ns since the epoch) in seconds.
final class EuRoCReader: SampleReader {
    /// The IMU file inside a dataset folder (the folder itself, `mav0`, or `imu0`), if any.
    static func imuFile(in folder: String) -> String? {
        for rel in ["mav0/imu0/data.csv", "imu0/data.csv", "data.csv"] {
            let p = PathText.join(folder, rel)
            if let line = TraceFormat.firstLine(p)?.lowercased(), line.hasPrefix("#timestamp"),
                line.contains("w_rs_s_x")
            {
                return p
            }
        }
        return nil
    }

    let imu: DelimitedTraceReader
    var truthTimes: [Double] = []
    var truth: [Quaternion?] = []
    var j = 0
    let description: TraceDescription
    var faults: ValueFaults { var f = imu.faults; f.absorb(truthFaults); return f }
    var truthFaults = ValueFaults()
    var warnings: [TraceWarning] { imu.warnings + truthWarnings }
    var truthWarnings: [TraceWarning] = []
    var progress: Double? { imu.progress }

    /// Largest ground-truth spacing interpolated across, s.
    static let maximumTruthGap = 0.05

    /// The ground truth an EuRoC IMU file's recording holds beside it.
    static func groundTruthPath(imu imuPath: String) -> String {
        PathText.join(PathText.folder(PathText.folder(imuPath)), "state_groundtruth_estimate0/data.csv")
    }

    init(path: String, options: DelimitedReadOptions) throws {
        let imuPath =
            TraceFormat.isDirectory(path)
            ? (Self.imuFile(in: path) ?? PathText.join(path, "mav0/imu0/data.csv")) : path
        // A forced --format euroc must name an EuRoC IMU file, not relabel another layout.
        if let line = TraceFormat.firstLine(imuPath)?.lowercased(),
            !(line.hasPrefix("#timestamp") && line.contains("w_rs_s_x"))
        {
            throw TraceError(
                .unknownFormat, SourceLocation(file: imuPath, line: 1, column: 1),
                "not an EuRoC IMU file: expected a header '#timestamp [ns],w_RS_S_x [rad s^-1],…'; pass the right --format, or none to detect it"
            )
        }
        imu = try DelimitedTraceReader(path: imuPath, format: TraceFormat.euroc.rawValue, options: options)
        let gtPath = Self.groundTruthPath(imu: imuPath)
        var d = imu.description
        d.source = path
        if FileManager.default.fileExists(atPath: gtPath) {
            var o = options
            o.columns = nil
            o.units = nil
            o.remap = nil
            let gt = try DelimitedTraceReader(
                lines: ByteLineReader(path: gtPath), format: TraceFormat.euroc.rawValue, options: o
            ) { names in
                var layout = ColumnLayout()
                guard let tc = names.firstIndex(where: { $0.lowercased().hasPrefix("#timestamp") }),
                    let w = names.firstIndex(where: { $0.hasPrefix("q_RS_w") })
                else {
                    throw TraceError(
                        .missingColumn, SourceLocation(file: gtPath, line: 1, column: 0),
                        "expected '#timestamp' and 'q_RS_w', 'q_RS_x', 'q_RS_y', 'q_RS_z' columns")
                }
                layout.columns[.time] = tc
                try layout.units.set("t", "ns", strictly: true)
                for k in 0..<4 {
                    layout.columns[ColumnLayout.Slot(rawValue: ColumnLayout.Slot.truthW.rawValue + k)!] = w + k
                }
                return layout
            }
            while let s = try gt.next() {
                truthTimes.append(s.t)
                truth.append(s.truth.map { $0.normalized })
            }
            truthFaults = gt.faults
            truthWarnings = gt.warnings
            truthWarnings.append(
                TraceWarning(
                    SourceLocation(file: gtPath, line: 0, column: 0),
                    "ground truth interpolated onto IMU timestamps; its heading is arbitrary (no magnetometer), so compare in 6D"
                ))
            d.hasTruth = true
        }
        description = d
    }

    func next() throws -> SensorSample? {
        guard var s = try imu.next() else { return nil }
        let t = s.t
        while j + 1 < truthTimes.count && truthTimes[j + 1] < t { j += 1 }
        if j + 1 < truthTimes.count, truthTimes[j] <= t, truthTimes[j + 1] >= t,
            truthTimes[j + 1] - truthTimes[j] < Self.maximumTruthGap, let a = truth[j], let b = truth[j + 1]
        {
            let u = (t - truthTimes[j]) / (truthTimes[j + 1] - truthTimes[j])
            s.truth = a.slerp(to: b, t: u).canonical
        }
        return s
    }
}
