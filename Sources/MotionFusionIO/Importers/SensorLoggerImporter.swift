/// Reads Sensor Logger recordings — a folder or a `.zip` of per-sensor CSV files
/// `time,seconds_elapsed,z,y,x` (`time` in nanoseconds since the epoch; note the z,y,x order).
/// `Accelerometer.csv` excludes gravity, so the specific force is `Accelerometer + Gravity` (m/s²)
/// matched by timestamp. Gyroscope rad/s, magnetometer µT. Time is the epoch in seconds.
/// `Orientation.csv` is the phone's own estimate, not ground truth, and is not read.
enum SensorLoggerImporter {
    static func open(_ files: RecordingFiles, options: DelimitedReadOptions) throws -> SampleReader {
        func read(_ name: String, _ sensor: SensorKind) throws -> SampleReader? {
            guard files.has(name) else { return nil }
            let file = files.path(name)
            return try files.stream(name, format: .sensorLogger, options: options) { names in
                try RecordingFiles.layout(
                    names, file: file, time: { $0 == "time" }, timeUnit: "ns", sensor: sensor,
                    axes: ["x", "y", "z"].map { a in { $0 == a } },
                    unit: sensor == .accelerometer ? "m/s2" : sensor == .gyroscope ? "rad/s" : "uT")
            }
        }
        var parts = [SampleReader]()
        var warnings = [TraceWarning]()
        let here = SourceLocation(file: files.location, line: 0, column: 0)
        if let acc = try read("Accelerometer.csv", .accelerometer) {
            if let gravity = try read("Gravity.csv", .accelerometer) {
                parts.append(GravityAddingReader(acc, gravity: gravity))
            } else {
                warnings.append(
                    TraceWarning(
                        here, "Gravity.csv missing: Accelerometer.csv excludes gravity, so tilt cannot be estimated"))
                parts.append(acc)
            }
        }
        if let g = try read("Gyroscope.csv", .gyroscope) { parts.append(g) }
        if let m = try read("Magnetometer.csv", .magnetometer) { parts.append(m) }
        if parts.isEmpty {
            throw TraceError(
                .missingColumn, here, "no Accelerometer.csv, Gyroscope.csv or Magnetometer.csv in the recording")
        }
        return MergedSampleReader(
            parts, format: TraceFormat.sensorLogger.rawValue, source: files.location, warnings: warnings,
            strict: options.strict)
    }
}

/// Sensor Logger's accelerometer (without gravity) plus its gravity, as the two files are read:
/// gravity at the same timestamp, or interpolated linearly between its neighbours (the first or
/// last gravity value outside its span).
final class GravityAddingReader: SampleReader {
    private let acceleration: SampleReader
    private let gravity: SampleReader
    /// The gravity samples around the current time: the latest at or before it, and the next.
    private var before: SensorSample?
    private var after: SensorSample?
    private var started = false

    init(_ acceleration: SampleReader, gravity: SampleReader) {
        self.acceleration = acceleration
        self.gravity = gravity
    }

    var description: TraceDescription { acceleration.description }
    var faults: ValueFaults {
        var f = acceleration.faults
        f.absorb(gravity.faults)
        return f
    }
    var warnings: [TraceWarning] { acceleration.warnings }
    var progress: Double? { acceleration.progress }

    func next() throws -> SensorSample? {
        guard var sample = try acceleration.next() else { return nil }
        if !started {
            before = try gravity.next()
            after = try before.map { _ in try gravity.next() } ?? nil
            started = true
        }
        guard let a = sample.accelerometer, let first = before else { return sample }
        let t = sample.t
        while let later = after, later.t <= t {
            before = later
            after = try gravity.next()
        }
        var g: Vector3?
        let b = before ?? first
        if b.t == t {
            g = b.accelerometer
        } else if let later = after, b.t < t, let g0 = b.accelerometer, let g1 = later.accelerometer {
            let u = (t - b.t) / (later.t - b.t)
            g = g0 * (1 - u) + g1 * u
        } else {
            g = b.accelerometer
        }
        sample.accelerometer = g.map { a + $0 }
        return sample
    }
}
