/// Everything a filter knows after one sample, shaped like the platforms' device-motion value.
public struct MotionEstimate: Sendable {
    /// Sample time, s (the recording's own clock).
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
    /// Magnetic field in the sensor frame as measured (nil when absent).
    public var magneticField: Vector3?
    /// Diagnostics of the update.
    public var diagnostics: FilterDiagnostics

    /// The estimate after a sample: gravity and user acceleration split with ``standardGravity``,
    /// the rotation rate corrected by the bias. The one place an estimate is built.
    ///
    /// - Parameters:
    ///   - gyroscope, accelerometer, magnetometer: the latest sensor values (rad/s, m/s², any unit).
    public init(
        t: Double, attitude: Quaternion, gyroscopeBias: Vector3, diagnostics: FilterDiagnostics,
        gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?
    ) {
        self.t = t
        self.attitude = attitude
        let g = attitude.inverseRotate(Vector3(0, 0, -standardGravity))
        gravity = g
        userAcceleration = accelerometer.map { $0 + g } ?? .zero
        rotationRate = gyroscope.map { $0 - gyroscopeBias }
        self.gyroscopeBias = gyroscopeBias
        magneticField = magnetometer
        self.diagnostics = diagnostics
    }

    /// Whether the filter had an attitude and used some sensor for it at this sample (the `used`
    /// output column): false while initialising, and when no sensor value was usable.
    public var used: Bool {
        !diagnostics.initialising
            && !(diagnostics.accelerometerRejected && diagnostics.magnetometerRejected && rotationRate == nil)
    }

    /// Rotation matrix, earth (ENU) from sensor.
    public var rotationMatrix: Matrix3 { Matrix3(attitude) }
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
