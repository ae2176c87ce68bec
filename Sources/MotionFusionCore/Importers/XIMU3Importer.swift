import Foundation

/// Reads x-IMU3 GUI log folders: `Inertial.csv` (µs timestamps, gyroscope deg/s, accelerometer g)
/// and, when present, `Magnetometer.csv` (its own rate, arbitrary units). The two streams are
/// merged onto one timeline.
enum XIMU3Importer {
    static func load(path: String) throws -> Trace {
        let folder = TraceFormat.isDirectory(path) ? path : (path as NSString).deletingLastPathComponent
        let inertialPath = TraceFormat.isDirectory(path) ? TraceFormat.join(folder, "Inertial.csv") : path
        let inertial = try CSVTable(path: inertialPath, integerColumns: ["Timestamp (us)"])
        let tc = try inertial.column("'Timestamp (us)'") { $0.hasPrefix("Timestamp") }
        let origin = inertial.integerColumns[tc]?.first
        func idx(_ t: CSVTable, _ names: [String]) throws -> (Int, Int, Int) {
            let c = try names.map { n in try t.column("'\(n)'") { $0.hasPrefix(n) } }
            return (c[0], c[1], c[2])
        }
        var streams = [
            TimelineMerger.Stream(
                sensor: .gyroscope, times: try inertial.times(column: tc, scale: 1e-6, origin: origin),
                values: try inertial.vectors(
                    idx(inertial, ["Gyroscope X", "Gyroscope Y", "Gyroscope Z"]), scale: .pi / 180)),
            TimelineMerger.Stream(
                sensor: .accelerometer, times: try inertial.times(column: tc, scale: 1e-6, origin: origin),
                values: try inertial.vectors(
                    idx(inertial, ["Accelerometer X", "Accelerometer Y", "Accelerometer Z"]),
                    scale: standardGravity)),
        ]
        var warnings = [TraceWarning]()
        let magPath = TraceFormat.join(folder, "Magnetometer.csv")
        if FileManager.default.fileExists(atPath: magPath) {
            let mag = try CSVTable(path: magPath, integerColumns: ["Timestamp (us)"])
            let mc = try mag.column("'Timestamp (us)'") { $0.hasPrefix("Timestamp") }
            let cols = try idx(mag, ["X", "Y", "Z"])
            let arbitrary = mag.header[cols.0].contains("a.u.")
            streams.append(
                TimelineMerger.Stream(
                    sensor: .magnetometer, times: try mag.times(column: mc, scale: 1e-6, origin: origin),
                    values: try mag.vectors(cols, scale: 1)))
            if arbitrary {
                warnings.append(
                    TraceWarning(
                        SourceLocation(file: magPath, line: 1, column: 0),
                        "magnetometer is in arbitrary units (a.u.), kept unscaled; filters use its direction only"))
            }
        }
        return Trace(samples: TimelineMerger().merge(streams), source: path, warnings: warnings)
    }
}
