/// One instant on a trace's timeline. Each sensor is optional: `nil` means that sensor has no new
/// value at this instant (sensors at different rates, or a sample marked missing with `nan`).
///
/// Units are SI: seconds, rad/s, m/s² (specific force: +g along up at rest), µT.
public struct SensorSample: Equatable, Sendable {
    /// Time in seconds (any origin; strictly increasing along a trace).
    public var t: Double
    /// Angular rate in the sensor frame, rad/s.
    public var gyroscope: Vector3?
    /// Specific force in the sensor frame, m/s² (reads +9.81 along the up axis at rest).
    public var accelerometer: Vector3?
    /// Magnetic flux density in the sensor frame, µT.
    public var magnetometer: Vector3?
    /// Ground-truth attitude, earth (ENU) from sensor, when the trace has it.
    public var truth: Quaternion?
    /// Whether the sample belongs to the scored movement phase (BROAD's `moving`), when known.
    public var moving: Bool?

    /// Creates a sample.
    public init(
        t: Double, gyroscope: Vector3? = nil, accelerometer: Vector3? = nil, magnetometer: Vector3? = nil,
        truth: Quaternion? = nil, moving: Bool? = nil
    ) {
        self.t = t
        self.gyroscope = gyroscope
        self.accelerometer = accelerometer
        self.magnetometer = magnetometer
        self.truth = truth
        self.moving = moving
    }
}

/// A sensor of an IMU.
public enum SensorKind: String, CaseIterable, Sendable, Codable {
    /// Angular rate.
    case gyroscope
    /// Specific force.
    case accelerometer
    /// Magnetic field.
    case magnetometer
}
