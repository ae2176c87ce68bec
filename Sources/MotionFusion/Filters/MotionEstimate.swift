/// Everything a filter knows after one sample, shaped like the platforms' device-motion value.
public struct MotionEstimate: Sendable {
    /// Sample time, s.
    public var t: Double
    /// Attitude, earth (ENU, magnetic north) from sensor.
    public var attitude: Quaternion
    /// Gravity in the sensor frame, m/s² (points down: −g along the up axis).
    public var gravity: Vector3
    /// Specific force minus the gravity reaction, in the sensor frame, m/s² (zero at rest).
    public var userAcceleration: Vector3
    /// Gyroscope rate minus the estimated bias, rad/s (nil when no gyroscope value has arrived).
    public var rotationRate: Vector3?
    /// Gyroscope bias estimate, rad/s.
    public var gyroscopeBias: Vector3
    /// Magnetic field in the sensor frame as measured, µT (nil when absent).
    public var magneticField: Vector3?
    /// Diagnostics of the update.
    public var diagnostics: FilterDiagnostics

    /// Creates an estimate.
    public init(
        t: Double, attitude: Quaternion, gravity: Vector3, userAcceleration: Vector3, rotationRate: Vector3?,
        gyroscopeBias: Vector3, magneticField: Vector3?, diagnostics: FilterDiagnostics
    ) {
        self.t = t
        self.attitude = attitude
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.rotationRate = rotationRate
        self.gyroscopeBias = gyroscopeBias
        self.magneticField = magneticField
        self.diagnostics = diagnostics
    }

    /// Rotation matrix, earth (ENU) from sensor.
    public var rotationMatrix: RotationMatrix { RotationMatrix(attitude) }
    /// Roll, pitch and yaw of the ENU attitude.
    public var eulerAngles: EulerAngles { EulerAngles(attitude) }
    /// Magnetic heading, degrees clockwise from magnetic north in [0, 360).
    public var magneticHeading: Double { attitude.headingDegrees() }
    /// True heading given the declination (degrees, east positive), in [0, 360).
    public func trueHeading(declinationDegrees: Double) -> Double {
        (magneticHeading + declinationDegrees).wrappedTo360
    }
    /// The attitude expressed in another earth frame.
    public func attitude(in frame: EarthFrame) -> Quaternion { frame.attitude(fromENU: attitude) }
}
