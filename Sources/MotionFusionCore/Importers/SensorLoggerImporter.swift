import Foundation

/// Reads Sensor Logger folders: per-sensor CSV `time,seconds_elapsed,z,y,x` (epoch ns; note the
/// z,y,x column order). `Accelerometer.csv` excludes gravity, so the specific force is
/// `Accelerometer + Gravity` (m/s²) matched by timestamp. Gyroscope rad/s, magnetometer µT.
/// `Orientation.csv` is the phone's own estimate, not ground truth, and is not read.
enum SensorLoggerImporter {
    static func load(path: String) throws -> Trace {
        let folder = TraceFormat.isDirectory(path) ? path : (path as NSString).deletingLastPathComponent
        var origin: Int64?
        func read(_ name: String) throws -> (times: [Double], values: [Vector3?], ns: [Int64])? {
            let p = TraceFormat.join(folder, name)
            guard FileManager.default.fileExists(atPath: p) else { return nil }
            let t = try CSVTable(path: p, integerColumns: ["time"])
            let tc = try t.column("'time'") { $0 == "time" }
            let ns = t.integerColumns[tc]!
            if origin == nil { origin = ns.first }
            let c = try ["x", "y", "z"].map { a in try t.column("'\(a)'") { $0 == a } }
            return (
                try t.times(column: tc, scale: 1e-9, origin: origin), try t.vectors((c[0], c[1], c[2]), scale: 1), ns
            )
        }
        var streams = [TimelineMerger.Stream]()
        var warnings = [TraceWarning]()
        let here = SourceLocation(file: folder, line: 0, column: 0)
        if let acc = try read("Accelerometer.csv") {
            if let gravity = try read("Gravity.csv") {
                // Add gravity at the same timestamp, or interpolated linearly between neighbours.
                var values = acc.values
                var j = 0
                for i in values.indices {
                    guard let a = values[i] else { continue }
                    let t = acc.times[i]
                    while j + 1 < gravity.times.count && gravity.times[j + 1] <= t { j += 1 }
                    var g: Vector3?
                    if gravity.times[j] == t {
                        g = gravity.values[j]
                    } else if j + 1 < gravity.times.count, gravity.times[j] < t,
                        let g0 = gravity.values[j], let g1 = gravity.values[j + 1]
                    {
                        let u = (t - gravity.times[j]) / (gravity.times[j + 1] - gravity.times[j])
                        g = g0 * (1 - u) + g1 * u
                    } else {
                        g = gravity.values[min(j, gravity.values.count - 1)]
                    }
                    values[i] = g.map { a + $0 }
                }
                streams.append(TimelineMerger.Stream(sensor: .accelerometer, times: acc.times, values: values))
            } else {
                warnings.append(
                    TraceWarning(
                        here, "Gravity.csv missing: Accelerometer.csv excludes gravity, so tilt cannot be estimated"))
                streams.append(TimelineMerger.Stream(sensor: .accelerometer, times: acc.times, values: acc.values))
            }
        }
        if let g = try read("Gyroscope.csv") {
            streams.append(TimelineMerger.Stream(sensor: .gyroscope, times: g.times, values: g.values))
        }
        if let m = try read("Magnetometer.csv") {
            streams.append(TimelineMerger.Stream(sensor: .magnetometer, times: m.times, values: m.values))
        }
        if streams.isEmpty {
            throw TraceError(
                .missingColumn, here, "no Accelerometer.csv, Gyroscope.csv or Magnetometer.csv in the folder")
        }
        return Trace(samples: TimelineMerger().merge(streams), source: path, warnings: warnings)
    }
}
