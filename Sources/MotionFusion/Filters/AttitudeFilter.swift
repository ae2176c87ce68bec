/// Which sensors a filter fuses.
public enum FusionMode: String, CaseIterable, Sendable {
    /// Gyroscope and accelerometer: roll and pitch are absolute, heading drifts freely.
    case sixD = "6d"
    /// Gyroscope, accelerometer and magnetometer: heading is referenced to magnetic north.
    case nineD = "9d"
}

/// Why a filter did what it did at the last update.
public struct FilterDiagnostics: Equatable, Sendable {
    /// The accelerometer was not used (missing, not finite, or judged disturbed).
    public var accelerometerRejected = false
    /// The magnetometer was not used (missing, not finite, disturbed, or 6D mode).
    public var magnetometerRejected = false
    /// The device is judged at rest.
    public var atRest = false
    /// The filter is (re)initialising: the first samples, or after a gap.
    public var initialising = true
    /// The sample's timestamp could not be used (not increasing, or a gap); the gyroscope was not integrated.
    public var timeFault = false
    /// One standard deviation of the attitude error, radians (tilt and heading combined), when known.
    public var attitudeUncertainty = Double.nan
    /// One standard deviation of the heading error, radians, when known.
    public var headingUncertainty = Double.nan

    /// Creates diagnostics with default values.
    public init() {}
}

/// An attitude estimator: gyroscope, accelerometer and magnetometer in, attitude out.
///
/// Every estimator is a value type with a nested `Parameters` struct (documented defaults, SI
/// units, independent of the sample rate) and a readable, settable state. Updates take each
/// sample's own time step, so variable rates and gaps work. Any sensor may be `nil` (no new value).
/// The attitude is earth (ENU) from sensor, see `docs/Conventions.md`.
public protocol AttitudeFilter {
    /// Current attitude, ENU from sensor.
    var attitude: Quaternion { get }
    /// Current gyroscope bias estimate, rad/s (zero for filters that do not estimate it).
    var gyroscopeBias: Vector3 { get }
    /// Diagnostics of the last update.
    var diagnostics: FilterDiagnostics { get }
    /// Sensors fused.
    var mode: FusionMode { get }
    /// Processes one sample. `dt` (s) is the time since the previous sample and is finite and
    /// non-negative (the ``FilterRunner`` guarantees this); inputs are finite when not `nil`.
    mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double)
    /// Forgets the attitude so the next sample re-initialises it from the accelerometer (and
    /// magnetometer), keeping the gyroscope bias estimate.
    mutating func reinitialise()
    /// Restores the initial state.
    mutating func reset()
}

/// Attitude from accelerometer and magnetometer directions, shared by the filters' initialisation.
public enum VectorAttitude {
    /// The attitude with zero yaw whose up axis matches the specific force (roll and pitch only).
    public static func tilt(accelerometer a: Vector3) -> Quaternion? {
        guard let up = a.normalized else { return nil }
        // Rotation taking the sensor-frame up direction to earth +z by the shortest arc, then
        // expressed with zero yaw (ZYX) so it does not depend on how the device is turned.
        let roll = Double.atan2(up.y, up.z)
        let pitch = Double.atan2(-up.x, (up.y * up.y + up.z * up.z).squareRoot())
        return EulerAngles(roll: roll, pitch: pitch, yaw: 0).quaternion
    }

    /// The starting attitude of a filter: from accelerometer and magnetometer when both are usable,
    /// else from the accelerometer alone (zero yaw), else `nil`.
    public static func initial(accelerometer: Vector3?, magnetometer: Vector3?) -> Quaternion? {
        guard let a = accelerometer else { return nil }
        if let m = magnetometer, let q = compass(accelerometer: a, magnetometer: m) { return q }
        return tilt(accelerometer: a)
    }

    /// The full attitude from specific force (up) and magnetic field (north and down), ENU, or
    /// `nil` when the two are parallel or missing.
    public static func compass(accelerometer a: Vector3, magnetometer m: Vector3) -> Quaternion? {
        guard let up = a.normalized, let east = m.cross(up).normalized else { return nil }
        let north = up.cross(east)
        // Rows of earth-from-sensor are the earth axes in sensor coordinates.
        return Quaternion(RotationMatrix(row0: east, row1: north, row2: up))
    }
}
