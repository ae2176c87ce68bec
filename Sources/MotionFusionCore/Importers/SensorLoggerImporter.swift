/// Reads Sensor Logger recordings — a folder or a `.zip` of per-sensor CSV files
/// `time,seconds_elapsed,z,y,x` (`time` in nanoseconds since the epoch; note the z,y,x order).
/// `Accelerometer.csv` excludes gravity, so the specific force is `Accelerometer + Gravity` (m/s²)
/// matched by timestamp. Gyroscope rad/s, magnetometer µT. Time is the epoch in seconds.
/// `Orientation.csv` is the phone's own estimate, not ground truth, and is not read.
enum SensorLoggerImporter {
    static func open(_ files: RecordingFiles, options: DelimitedReadOptions) throws -> SampleReader {
        var faults = ValueFaults(strict: options.strict)
        func read(_ name: String, _ sensor: SensorKind) throws -> TimelineMerger.Stream? {
            guard files.has(name) else { return nil }
            let file = files.path(name)
            return try files.stream(name, format: .sensorLogger, sensor: sensor, options: options, faults: &faults) {
                names in
                try RecordingFiles.layout(
                    names, file: file, time: { $0 == "time" }, timeUnit: "ns", sensor: sensor,
                    axes: ["x", "y", "z"].map { a in { $0 == a } },
                    unit: sensor == .accelerometer ? "m/s2" : sensor == .gyroscope ? "rad/s" : "uT")
            }
        }
        var streams = [TimelineMerger.Stream]()
        var warnings = [TraceWarning]()
        let here = SourceLocation(file: files.location, line: 0, column: 0)
        if var acc = try read("Accelerometer.csv", .accelerometer) {
            if let gravity = try read("Gravity.csv", .accelerometer) {
                // Add gravity at the same timestamp, or interpolated linearly between neighbours.
                var j = 0
                for i in acc.values.indices {
                    guard let a = acc.values[i], !gravity.times.isEmpty else { continue }
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
                    acc.values[i] = g.map { a + $0 }
                }
            } else {
                warnings.append(
                    TraceWarning(
                        here, "Gravity.csv missing: Accelerometer.csv excludes gravity, so tilt cannot be estimated"))
            }
            streams.append(acc)
        }
        if let g = try read("Gyroscope.csv", .gyroscope) { streams.append(g) }
        if let m = try read("Magnetometer.csv", .magnetometer) { streams.append(m) }
        if streams.isEmpty {
            throw TraceError(
                .missingColumn, here, "no Accelerometer.csv, Gyroscope.csv or Magnetometer.csv in the recording")
        }
        let trace = Trace(
            samples: TimelineMerger().merge(streams), format: TraceFormat.sensorLogger.rawValue, source: files.location,
            warnings: warnings)
        return TraceSampleReader(trace, faults: faults)
    }
}
