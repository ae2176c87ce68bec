/// Pairs a magnetometer reading that came on a row without an accelerometer reading with the next
/// accelerometer reading, for the filters that use the field only together with gravity (Mahony,
/// Madgwick): recordings whose sensors are logged on rows of their own (phyphox, x-IMU3) would
/// otherwise never give them both at once, and they ran as 6D with every reading rejected.
///
/// A reading on a row with the accelerometer is used there, as before; one on a row of its own
/// waits for the next accelerometer reading, at most ``longestWait``, and is used once.
public struct MagnetometerPairing: Sendable, Codable {
    /// Longest time, s, a reading waits for an accelerometer reading: a magnetometer logged on rows
    /// of its own at 10 Hz or faster always finds one. 0.1 s.
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

    /// Drops a waiting reading (a gap re-initialises the filter).
    public mutating func clear() { reading = nil }
}
