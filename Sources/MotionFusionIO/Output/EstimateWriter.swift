/// Writes estimates as CSV, one row per estimate. The first columns are always
/// `t,qw,qx,qy,qz,roll,pitch,yaw,heading` (angles in degrees, quaternion earth-from-sensor in the
/// configured frame and north reference); diagnostic columns follow (see `docs/TraceFormat.md`).
public final class EstimateWriter {
    /// What the columns mean, one line each (the `help` page of `replay` and `reconstruct`).
    public static let columnHelp: [(name: String, meaning: String)] = [
        ("t", "time, s, on the recording's own clock, written so it reads back exactly"),
        ("qw,qx,qy,qz", "attitude quaternion, scalar first, earth from sensor, in the chosen --frame"),
        ("roll,pitch,yaw", "Z-Y'-X'' Euler angles of that attitude, degrees"),
        ("heading", "degrees clockwise from north in [0, 360): true north with a declination, else magnetic"),
        ("magnetic_heading", "degrees clockwise from magnetic north"),
        ("used", "1 when the filter had an attitude and used a sensor for this row, 0 otherwise"),
        ("acc_rejected,mag_rejected", "1 when the accelerometer / magnetometer was not used for this row"),
        ("rest", "1 when the device was judged at rest"),
        ("time_fault", "1 when the row's timestamp could not be integrated (repeated, backwards, or a gap)"),
        ("bias_x,bias_y,bias_z", "gyroscope bias estimate, rad/s"),
        (
            "mag_accuracy",
            "on-line magnetometer calibration level, as Core Motion's: -1 uncalibrated, 0 low, 1 medium, 2 high"
        ),
        (
            "sigma_attitude_deg,sigma_heading_deg",
            "one-sigma attitude and heading uncertainty, degrees (EKF and reconstruct; 180 while initialising)"
        ),
    ]

    /// The column names, in order.
    public static func header(uncertainty: Bool) -> [String] {
        var h = ["t", "qw", "qx", "qy", "qz", "roll", "pitch", "yaw", "heading", "magnetic_heading"]
        h += [
            "used", "acc_rejected", "mag_rejected", "rest", "time_fault", "bias_x", "bias_y", "bias_z", "mag_accuracy",
        ]
        if uncertainty { h += ["sigma_attitude_deg", "sigma_heading_deg"] }
        return h
    }

    let output: OutputFile
    @exclusivity(unchecked) var buffer = CSVOutputBuffer()
    let reference: OutputReference
    let uncertainty: Bool
    /// Flush after every row (a terminal or a live pipe).
    @exclusivity(unchecked) public var flushEachRow = false
    /// Rows written.
    @exclusivity(unchecked) public private(set) var rows = 0

    /// Writes to `output` in the frame and north reference of `configuration`; `uncertainty` adds
    /// the sigma columns.
    public init(output: OutputFile, configuration: RunConfiguration, uncertainty: Bool) {
        self.output = output
        reference = OutputReference(configuration)
        self.uncertainty = uncertainty
        buffer.append(Self.header(uncertainty: uncertainty).joined(separator: ",") + "\n")
    }

    deinit { buffer.deallocate() }

    /// Appends one estimate.
    public func write(_ e: MotionEstimate) throws {
        let row = reference.row(e)
        let q = row.attitude
        let d = e.diagnostics
        // One local buffer per row: the class's stored buffer is touched twice, not per field.
        var b = buffer
        b.appendTime(e.t)
        b.append(byte: 0x2C)
        b.append(q.w, decimals: 9)
        b.append(byte: 0x2C)
        b.append(q.x, decimals: 9)
        b.append(byte: 0x2C)
        b.append(q.y, decimals: 9)
        b.append(byte: 0x2C)
        b.append(q.z, decimals: 9)
        b.append(byte: 0x2C)
        b.append(Self.signedAngle(row.rollDegrees), decimals: Self.angleDecimals)
        b.append(byte: 0x2C)
        b.append(row.pitchDegrees, decimals: Self.angleDecimals)
        b.append(byte: 0x2C)
        b.append(Self.signedAngle(row.yawDegrees), decimals: Self.angleDecimals)
        b.append(byte: 0x2C)
        b.append(Self.heading(row.heading), decimals: Self.angleDecimals)
        b.append(byte: 0x2C)
        b.append(Self.heading(row.magneticHeading), decimals: Self.angleDecimals)
        b.appendFlag(e.used)
        b.appendFlag(d.accelerometerRejected)
        b.appendFlag(d.magnetometerRejected)
        b.appendFlag(d.atRest)
        b.appendFlag(d.timeFault)
        b.append(byte: 0x2C)
        b.append(e.gyroscopeBias.x, decimals: 8)
        b.append(byte: 0x2C)
        b.append(e.gyroscopeBias.y, decimals: 8)
        b.append(byte: 0x2C)
        b.append(e.gyroscopeBias.z, decimals: 8)
        b.appendLevel(d.magnetometerAccuracy.rawValue)
        if uncertainty {
            b.append(byte: 0x2C)
            b.append(OutputReference.uncertaintyDegrees(d.attitudeUncertainty), decimals: 4)
            b.append(byte: 0x2C)
            b.append(OutputReference.uncertaintyDegrees(d.headingUncertainty), decimals: 4)
        }
        b.append(byte: 0x0A)
        buffer = b
        rows += 1
        if b.isFull || flushEachRow { try buffer.flush(to: output) }
    }

    /// Decimals of the angle columns (degrees).
    static var angleDecimals: Int { 5 }

    /// A heading in [0, 360) that would be written as 360 after rounding, moved to the 0 it is.
    @inline(__always)
    static func heading(_ degrees: Double) -> Double {
        // A value a unit of the last decimal below 360 cannot round up to it: check only above.
        guard degrees >= 360 - 1 / CSVOutputBuffer.powerOfTen(angleDecimals),
            let (whole, _) = CSVOutputBuffer.split(degrees, decimals: angleDecimals),
            whole >= 360
        else { return degrees }
        return degrees - 360
    }

    /// A roll or yaw in (−180, 180] that would be written as −180 after rounding, moved to the 180
    /// it is.
    @inline(__always)
    static func signedAngle(_ degrees: Double) -> Double {
        guard degrees <= 1 / CSVOutputBuffer.powerOfTen(angleDecimals) - 180,
            let (whole, _) = CSVOutputBuffer.split(degrees, decimals: angleDecimals),
            whole >= 180
        else { return degrees }
        return degrees + 360
    }

    /// Writes what is buffered.
    public func flush() throws { try buffer.flush(to: output) }

    /// Flushes and makes the output visible.
    public func finish() throws {
        try buffer.flush(to: output)
        try output.commit()
    }

    /// Removes a half-written output after a failure.
    public func abandon() { output.abandon() }
}
