/// Reads x-IMU3 GUI log folders: `Inertial.csv` (µs timestamps, gyroscope deg/s, accelerometer g)
/// and, when present, `Magnetometer.csv` (its own rate, arbitrary units). The two streams are
/// merged onto one timeline; time is the device's clock in seconds.
enum XIMU3Importer {
    static func open(_ files: RecordingFiles, options: DelimitedReadOptions) throws -> SampleReader {
        var faults = ValueFaults(strict: options.strict)
        let inertial = try DelimitedTraceReader(
            lines: files.lines("Inertial.csv"), format: TraceFormat.ximu3.rawValue, options: options)
        var samples = [SensorSample]()
        while let s = try inertial.next() { samples.append(s) }
        faults.absorb(inertial.faults)
        var streams = [
            TimelineMerger.Stream(sensor: .gyroscope, times: samples.map(\.t), values: samples.map(\.gyroscope)),
            TimelineMerger.Stream(
                sensor: .accelerometer, times: samples.map(\.t), values: samples.map(\.accelerometer)),
        ]
        var warnings = inertial.warnings
        var arbitrary = false
        if files.has("Magnetometer.csv") {
            let file = files.path("Magnetometer.csv")
            streams.append(
                try files.stream(
                    "Magnetometer.csv", format: .ximu3, sensor: .magnetometer, options: options, faults: &faults
                ) { names in
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
        let trace = Trace(
            samples: TimelineMerger().merge(streams), format: TraceFormat.ximu3.rawValue, source: files.location,
            warnings: warnings)
        return TraceSampleReader(trace, faults: faults, magnetometerArbitrary: arbitrary)
    }
}
