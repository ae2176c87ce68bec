/// Reads x-io Fusion example CSV: `Time (s)`, gyroscope in deg/s, accelerometer in g,
/// magnetometer in µT. Axes are the IMU's own; units are converted to rad/s and m/s².
enum XioFusionImporter {
    static func load(path: String) throws -> Trace {
        let table = try CSVTable(path: path)
        let t = try table.column("'Time (s)'") { $0.lowercased().hasPrefix("time") }
        let times = try table.times(column: t, scale: 1)
        func triplet(_ prefix: String) -> (Int, Int, Int)? {
            let idx = ["X", "Y", "Z"].compactMap { axis in
                table.header.firstIndex { $0.hasPrefix("\(prefix) \(axis)") }
            }
            return idx.count == 3 ? (idx[0], idx[1], idx[2]) : nil
        }
        guard let g = triplet("Gyroscope"), let a = triplet("Accelerometer") else {
            throw TraceError(
                .missingColumn, SourceLocation(file: path, line: 1, column: 0),
                "expected Gyroscope X/Y/Z (deg/s) and Accelerometer X/Y/Z (g) columns")
        }
        let gyro = try table.vectors(g, scale: .pi / 180)
        let acc = try table.vectors(a, scale: standardGravity)
        let mag = try triplet("Magnetometer").map { try table.vectors($0, scale: 1) }
        var samples = [SensorSample]()
        samples.reserveCapacity(times.count)
        for i in times.indices {
            samples.append(SensorSample(t: times[i], gyroscope: gyro[i], accelerometer: acc[i], magnetometer: mag?[i]))
        }
        return Trace(samples: samples, source: path)
    }
}
