import Foundation

/// Reads EuRoC / ASL datasets: `mav0/imu0/data.csv` (ns timestamps, gyroscope rad/s,
/// accelerometer m/s², no magnetometer) with ground truth from
/// `mav0/state_groundtruth_estimate0/data.csv` (`q_RS`: world from IMU, world z up, heading
/// arbitrary), interpolated by slerp onto the IMU timestamps inside its time span.
enum EuRoCImporter {
    /// The IMU file inside a dataset folder (the folder itself, `mav0`, or `imu0`), if any.
    static func imuFile(in folder: String) -> String? {
        for rel in ["mav0/imu0/data.csv", "imu0/data.csv", "data.csv"] {
            let p = TraceFormat.join(folder, rel)
            if FileManager.default.fileExists(atPath: p),
                TraceFormat.firstLine(p)?.lowercased().hasPrefix("#timestamp") == true,
                TraceFormat.firstLine(p)?.lowercased().contains("w_rs_s_x") == true
            {
                return p
            }
        }
        return nil
    }

    static func load(path: String) throws -> Trace {
        let imuPath = TraceFormat.isDirectory(path) ? imuFile(in: path)! : path
        let table = try CSVTable(path: imuPath, integerColumns: ["#timestamp [ns]"])
        let tc = try table.column("'#timestamp [ns]'") { $0.lowercased().hasPrefix("#timestamp") }
        let origin = table.integerColumns[tc]?.first
        let times = try table.times(column: tc, scale: 1e-9, origin: origin)
        func col(_ name: String) throws -> Int { try table.column("'\(name)'") { $0.hasPrefix(name) } }
        let gyro = try table.vectors((col("w_RS_S_x"), col("w_RS_S_y"), col("w_RS_S_z")), scale: 1)
        let acc = try table.vectors((col("a_RS_S_x"), col("a_RS_S_y"), col("a_RS_S_z")), scale: 1)
        var samples = times.indices.map {
            SensorSample(t: times[$0], gyroscope: gyro[$0], accelerometer: acc[$0])
        }
        var warnings = [TraceWarning]()
        // Ground truth beside the IMU folder.
        let imuDir = (imuPath as NSString).deletingLastPathComponent
        let gtPath = TraceFormat.join(
            (imuDir as NSString).deletingLastPathComponent, "state_groundtruth_estimate0/data.csv")
        if FileManager.default.fileExists(atPath: gtPath), let origin {
            let gt = try CSVTable(path: gtPath, integerColumns: ["#timestamp"])
            let gtc = try gt.column("'#timestamp'") { $0.lowercased().hasPrefix("#timestamp") }
            let gtTimes = try gt.times(column: gtc, scale: 1e-9, origin: origin)
            func gcol(_ name: String) throws -> Int { try gt.column("'\(name)'") { $0.hasPrefix(name) } }
            let (w, x, y, z) = try (gcol("q_RS_w"), gcol("q_RS_x"), gcol("q_RS_y"), gcol("q_RS_z"))
            let quats = (0..<gt.rowCount).map {
                Quaternion(w: gt.columns[w][$0], x: gt.columns[x][$0], y: gt.columns[y][$0], z: gt.columns[z][$0])
                    .normalized
            }
            var j = 0
            for i in samples.indices {
                let t = samples[i].t
                while j + 1 < gtTimes.count && gtTimes[j + 1] < t { j += 1 }
                guard j + 1 < gtTimes.count, gtTimes[j] <= t, gtTimes[j + 1] >= t else { continue }
                // Interpolate only across normal ground-truth spacing (no gaps over 50 ms).
                guard gtTimes[j + 1] - gtTimes[j] < 0.05 else { continue }
                let u = (t - gtTimes[j]) / (gtTimes[j + 1] - gtTimes[j])
                samples[i].truth = quats[j].slerp(to: quats[j + 1], t: u).canonical
            }
            warnings.append(
                TraceWarning(
                    SourceLocation(file: gtPath, line: 0, column: 0),
                    "ground truth interpolated onto IMU timestamps; its heading is arbitrary (no magnetometer), so compare in 6D"
                ))
        }
        return Trace(samples: samples, source: path, warnings: warnings)
    }
}
