/// Pairs a magnetometer reading that came on a row without an accelerometer reading with the next
/// accelerometer reading, for the filters that use the field only together with gravity (Mahony,
/// Madgwick): recordings whose sensors are logged on rows of their own (phyphox, x-IMU3) would
/// otherwise never give them both at once, and they ran as 6D with every reading rejected.
///
/// A reading on a row with the accelerometer is used there, as before; one on a row of its own
/// waits for the next accelerometer reading, at most ``longestWait``, and is used once.
public struct MagnetometerPairing: Sendable, Codable {
    /// Longest time, s, a reading waits for an accelerometer reading: an accelerometer at 10 Hz or
    /// faster always comes within it. The reading is used as it was read, not turned by the
    /// gyroscope's turn since (at phyphox's 10 ms, 0.6° at 1 rad/s; at 0.1 s, 5.7°). 0.1 s.
    public static let longestWait = 0.1
    /// The reading waiting, and the time since it came, s.
    var reading: Vector3?
    var age = 0.0

    /// Nothing waiting.
    public init() {}

    /// The magnetometer reading to use with this row's `accelerometer`, `dt` seconds after the last
    /// row: this row's own, else one waiting since an earlier row; nil on a row without an
    /// accelerometer, where this row's reading (if any) starts to wait.
    public mutating func pair(magnetometer: Vector3?, accelerometer: Vector3?, dt: Double) -> Vector3? {
        age += max(0, dt)
        guard accelerometer != nil else {
            if let magnetometer { (reading, age) = (magnetometer, 0) }
            return nil
        }
        defer { reading = nil }
        return magnetometer ?? (age <= Self.longestWait ? reading : nil)
    }

    /// Whether a reading is waiting for an accelerometer reading.
    public var waiting: Bool { reading != nil }

    /// The magnetometer reading a 9D filter that uses the field only with gravity takes for this
    /// row (nil in 6D), and the time it covers (``ReadingInterval``, at most ``longestWait``), with
    /// `pairing` and `interval` kept (created on first use). A reading that starts to wait counts
    /// as used in `use`: it is, at the next accelerometer reading, unless a newer reading replaces
    /// it first (a magnetometer faster than the accelerometer) or none comes within
    /// ``longestWait``. A row of no length after the start (a magnetometer logged with the
    /// gyroscope's time), where these filters integrate and correct nothing, passes its reading
    /// on to the next row, as one without an accelerometer does.
    static func pair(
        _ pairing: inout MagnetometerPairing?, _ interval: inout ReadingInterval?, _ use: inout SensorUse,
        mode: FusionMode, initialised: Bool, magnetometer: Vector3?, accelerometer: Vector3?, dt: Double
    ) -> (reading: Vector3?, covered: Double?) {
        var m: Vector3?
        if mode == .nineD {
            var p = pairing ?? MagnetometerPairing()
            m = p.pair(
                magnetometer: magnetometer, accelerometer: dt > 0 || !initialised ? accelerometer : nil, dt: dt)
            if p.waiting && magnetometer != nil { use.magnetometerRejected = false }
            pairing = p
        }
        var i = interval ?? ReadingInterval()
        let covered = i.advance(dt, reading: m != nil, limit: longestWait)
        interval = i
        return (m, covered)
    }

    /// Drops a waiting reading (a gap re-initialises the filter).
    public mutating func clear() { reading = nil }
}
