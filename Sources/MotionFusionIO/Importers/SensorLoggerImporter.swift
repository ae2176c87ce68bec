/// Reads Sensor Logger recordings — a folder or a `.zip` of per-sensor CSV files
/// `time,seconds_elapsed,z,y,x` (`time` in nanoseconds since the epoch; note the z,y,x order).
/// `Accelerometer.csv` excludes gravity, so the specific force is `Accelerometer + Gravity` (m/s²)
/// matched by timestamp (`TotalAcceleration.csv`, when there is no `Gravity.csv`). Gyroscope
/// rad/s, magnetometer µT. Time is the epoch in seconds.
///
/// On iOS the app records accelerations with the opposite sign to Android's (a phone flat on a
/// table: gravity along −z), unless its "Standardise Units & Frames" setting was on
/// (``accelerationSign(_:at:)``). `Orientation.csv` is the phone's own estimate, not ground truth;
/// it is read only to recognise that sign when `Metadata.csv` is missing.
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
        let (sign, said) = try accelerationSign(files, at: here)
        if let said { warnings.append(said) }
        if let acc = try read("Accelerometer.csv", .accelerometer) {
            if let gravity = try read("Gravity.csv", .accelerometer) {
                parts.append(GravityAddingReader(acc, gravity: gravity, sign: sign))
            } else if let total = try read("TotalAcceleration.csv", .accelerometer) {
                parts.append(GravityAddingReader(total, gravity: nil, sign: sign))
            } else {
                warnings.append(
                    TraceWarning(
                        here, "Gravity.csv missing: Accelerometer.csv excludes gravity, so tilt cannot be estimated"))
                parts.append(GravityAddingReader(acc, gravity: nil, sign: sign))
            }
        } else if let total = try read("TotalAcceleration.csv", .accelerometer) {
            parts.append(GravityAddingReader(total, gravity: nil, sign: sign))
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

    /// The factor that turns the recording's accelerations into Android's signs (the specific
    /// force: +z on a phone flat on a table), and what to say about it:
    /// - `Metadata.csv` names the platform, and on iOS whether "Standardise Units & Frames" was on;
    /// - without it, the phone's own gravity (`Gravity.csv`) against the up axis of its own
    ///   attitude (`Orientation.csv`, scalar first, sensor to earth) at the first sample;
    /// - without either, Android's signs, said in a warning (an iPhone's would read upside down).
    ///
    /// A negation is said in a note.
    static func accelerationSign(_ files: RecordingFiles, at here: SourceLocation) throws -> (Double, TraceWarning?) {
        if let fields = try firstRow(files, "Metadata.csv"), let platform = fields["platform"]?.lowercased() {
            let standardised = fields["standardisation"]?.lowercased() == "true"
            let apple = platform == "ios" || platform == "ipados"
            if apple && !standardised {
                return (
                    -1,
                    TraceWarning(
                        here,
                        "Metadata.csv: recorded on iOS, whose accelerations Sensor Logger writes with the opposite sign to Android's: read negated",
                        note: true)
                )
            }
            if apple || platform == "android" { return (1, nil) }
        }
        let unnamed = files.has("Metadata.csv") ? "Metadata.csv names no platform" : "no Metadata.csv"
        if let g = try firstRow(files, "Gravity.csv"), let o = try firstRow(files, "Orientation.csv"),
            let gx = g["x"].flatMap(Double.init), let gy = g["y"].flatMap(Double.init),
            let gz = g["z"].flatMap(Double.init), let w = o["qw"].flatMap(Double.init),
            let x = o["qx"].flatMap(Double.init), let y = o["qy"].flatMap(Double.init),
            let z = o["qz"].flatMap(Double.init)
        {
            // The earth's up axis in the sensor frame: the third row of the attitude's matrix.
            let up = Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
            let along = up.dot(Vector3(gx, gy, gz))
            let strength = Vector3(gx, gy, gz).norm
            if along < -0.5 * strength {
                return (
                    -1,
                    TraceWarning(
                        here,
                        "\(unnamed): Gravity.csv points down along the phone's own attitude (Orientation.csv), as iOS records it: accelerations read negated",
                        note: true)
                )
            }
            if along > 0.5 * strength { return (1, nil) }
        }
        return (
            1,
            TraceWarning(
                here,
                "\(unnamed): accelerations read with Android's signs (an iPhone recording made without 'Standardise Units & Frames' would read upside down; keep the export's Metadata.csv beside the sensor files)"
            )
        )
    }

    /// The first data row of a small member file as its header's names to the row's values (the
    /// project's CSV fields: quoted, a quoted comma kept, trimmed); nil when the file is missing or
    /// has no data row.
    static func firstRow(_ files: RecordingFiles, _ name: String) throws -> [String: String]? {
        guard files.has(name) else { return nil }
        let lines = try files.lines(name)
        let split = FieldSplitter(dialect: .csv)
        guard
            let header = try lines.nextLine({
                split.texts(DelimitedRows.withoutBOM(Array(UnsafeBufferPointer(start: $0, count: $1))))
            }),
            let row = try lines.nextLine({ split.texts(Array(UnsafeBufferPointer(start: $0, count: $1))) })
        else { return nil }
        return Dictionary(zip(header, row), uniquingKeysWith: { first, _ in first })
    }
}

/// Sensor Logger's accelerometer (without gravity) plus its gravity, as the two files are read:
/// gravity at the same timestamp, or interpolated linearly between its neighbours (the first or
/// last gravity value outside its span); the sum times `sign` (−1 for iOS's signs). Without a
/// gravity file, the accelerometer times `sign`.
final class GravityAddingReader: SampleReader {
    private let acceleration: SampleReader
    private let gravity: SampleReader?
    private let sign: Double
    /// The gravity samples around the current time: the latest at or before it, and the next.
    private var before: SensorSample?
    private var after: SensorSample?
    private var started = false

    init(_ acceleration: SampleReader, gravity: SampleReader?, sign: Double) {
        self.acceleration = acceleration
        self.gravity = gravity
        self.sign = sign
    }

    var description: TraceDescription { acceleration.description }
    var faults: ValueFaults {
        var f = acceleration.faults
        if let gravity { f.absorb(gravity.faults) }
        return f
    }
    var warnings: [TraceWarning] { acceleration.warnings }
    var progress: Double? { acceleration.progress }

    func next() throws -> SensorSample? {
        guard var sample = try acceleration.next() else { return nil }
        guard let gravity else {
            if sign < 0 { sample.accelerometer = sample.accelerometer.map { $0 * -1 } }
            return sample
        }
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
        sample.accelerometer = g.map { (a + $0) * sign }
        return sample
    }
}
