/// Reads x-IMU3 GUI log folders: `Inertial.csv` (µs timestamps, gyroscope deg/s, accelerometer g)
/// and, when present, `Magnetometer.csv` (its own rate, arbitrary units). The two streams are
/// merged onto one timeline; time is the device's clock in seconds.
enum XIMU3Importer {
    static func open(_ files: RecordingFiles, options: DelimitedReadOptions) throws -> SampleReader {
        let inertial = try DelimitedTraceReader(
            lines: files.lines("Inertial.csv"), format: TraceFormat.ximu3.rawValue, options: options)
        var parts: [SampleReader] = [inertial]
        var warnings = inertial.warnings
        var arbitrary = false
        if files.has("Magnetometer.csv") {
            let file = files.path("Magnetometer.csv")
            parts.append(
                try files.stream("Magnetometer.csv", format: .ximu3, options: options) { names in
                    try RecordingFiles.layout(
                        names, file: file, time: { $0.hasPrefix("Timestamp") }, timeUnit: "us", sensor: .magnetometer,
                        axes: ["X", "Y", "Z"].map { a in { $0 == a || $0.hasPrefix(a + " (") } }, unit: "au")
                })
            arbitrary = true
            warnings.append(
                TraceWarning(
                    SourceLocation(file: file, line: 1, column: 0),
                    "magnetometer is in arbitrary units (a.u.), kept unscaled; filters use its direction only"))
        }
        return MergedSampleReader(
            parts, format: TraceFormat.ximu3.rawValue, source: files.location, warnings: warnings,
            strict: options.strict, magnetometerArbitrary: arbitrary)
    }
}
