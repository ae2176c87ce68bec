import Foundation

/// Reads phyphox per-sensor CSV exports: `Accelerometer.csv` (m/s², with gravity),
/// `Gyroscope.csv` (rad/s), `Magnetometer.csv` (µT), each `"Time (s)","X (…)","Y (…)","Z (…)"`,
/// merged onto one timeline. Android axes (x right, y top, z out of the screen) equal ours.
enum PhyphoxImporter {
    static func load(path: String) throws -> Trace {
        let folder = TraceFormat.isDirectory(path) ? path : (path as NSString).deletingLastPathComponent
        var streams = [TimelineMerger.Stream]()
        var warnings = [TraceWarning]()
        for (name, sensor) in [
            ("Gyroscope.csv", SensorKind.gyroscope), ("Accelerometer.csv", .accelerometer),
            ("Magnetometer.csv", .magnetometer),
        ] {
            let p = TraceFormat.join(folder, name)
            guard FileManager.default.fileExists(atPath: p) else { continue }
            let t = try CSVTable(path: p)
            let tc = try t.column("'Time (s)'") { $0.hasPrefix("Time") }
            let c = try ["X", "Y", "Z"].map { a in try t.column("'\(a) (…)'") { $0.hasPrefix(a + " (") || $0 == a } }
            var scale = 1.0
            let unit = t.header[c[0]]
            if sensor == .gyroscope && unit.contains("deg") { scale = .pi / 180 }
            if sensor == .magnetometer && unit.contains("mT") { scale = 1000 }
            if sensor == .accelerometer && unit.contains("(g)") { scale = standardGravity }
            streams.append(
                TimelineMerger.Stream(
                    sensor: sensor, times: try t.times(column: tc, scale: 1),
                    values: try t.vectors((c[0], c[1], c[2]), scale: scale)))
        }
        if streams.isEmpty {
            throw TraceError(
                .missingColumn, SourceLocation(file: folder, line: 0, column: 0),
                "no Accelerometer.csv, Gyroscope.csv or Magnetometer.csv in the phyphox folder")
        }
        if !streams.contains(where: { $0.sensor == .accelerometer }) {
            warnings.append(TraceWarning(SourceLocation(file: folder, line: 0, column: 0), "no Accelerometer.csv"))
        }
        return Trace(samples: TimelineMerger().merge(streams), source: path, warnings: warnings)
    }
}
