/// Reads phyphox exports — a folder or a `.zip` of per-sensor CSV files — `Accelerometer.csv`
/// (m/s², with gravity), `Gyroscope.csv` (rad/s), `Magnetometer.csv` (µT), each with a
/// `"Time (s)","X (…)","Y (…)","Z (…)"` header, merged onto one timeline. Comma- or
/// semicolon-separated with decimal points or decimal commas, as phyphox's export options write
/// them. Android axes (x right, y top, z out of the screen) equal ours.
enum PhyphoxImporter {
    static let files: [(String, SensorKind)] = [
        ("Gyroscope.csv", .gyroscope), ("Accelerometer.csv", .accelerometer), ("Magnetometer.csv", .magnetometer),
    ]

    static func open(_ recording: RecordingFiles, options: DelimitedReadOptions) throws -> SampleReader {
        var parts = [SampleReader]()
        var warnings = [TraceWarning]()
        for (name, sensor) in files where recording.has(name) {
            let file = recording.path(name)
            parts.append(
                try recording.stream(name, format: .phyphox, options: options) { names in
                    try RecordingFiles.layout(
                        names, file: file, time: { $0.hasPrefix("Time") }, timeUnit: "s", sensor: sensor,
                        axes: ["X", "Y", "Z"].map { a in { $0 == a || $0.hasPrefix(a + " (") } },
                        unit: sensor == .accelerometer ? "m/s2" : sensor == .gyroscope ? "rad/s" : "uT")
                })
        }
        if parts.isEmpty {
            throw TraceError(
                .missingColumn, SourceLocation(file: recording.location, line: 0, column: 0),
                "no Accelerometer.csv, Gyroscope.csv or Magnetometer.csv in the phyphox export")
        }
        if !recording.has("Accelerometer.csv") {
            warnings.append(
                TraceWarning(SourceLocation(file: recording.location, line: 0, column: 0), "no Accelerometer.csv"))
        }
        return MergedSampleReader(
            parts, format: TraceFormat.phyphox.rawValue, source: recording.location, warnings: warnings,
            strict: options.strict)
    }
}
