/// Mahony's nonlinear complementary filter on SO(3) (Mahony, Hamel, Pflimlin 2008): the gyroscope
/// rate is corrected by a proportional-integral feedback of the cross product between measured and
/// predicted reference directions (gravity, and the horizontal magnetic field in 9D).
///
/// The gains follow the widespread reference implementation, so published gains carry over: the
/// correction is `Kp · e` and the integral `Ki · ∫e dt`, with `e` the sum of the cross products of
/// the measured and estimated unit directions.
public struct MahonyFilter: AttitudeFilter {
    /// Tuning.
    public struct Parameters: Sendable {
        /// Proportional gain, 1/s. Default 0.74 (BROAD's best common gain).
        public var kp = 0.74
        /// Integral gain, 1/s². Default 0.0012.
        public var ki = 0.0012
        /// 6D or 9D. Default 9D.
        public var mode = FusionMode.nineD
        /// Default parameters.
        public init() {}
    }

    /// Tuning in use.
    public var parameters: Parameters
    /// Current attitude.
    public var attitude = Quaternion.identity
    /// Integral feedback term, rad/s; the bias estimate is its negative.
    public var integral = Vector3.zero
    /// Diagnostics of the last update.
    public private(set) var diagnostics = FilterDiagnostics()
    var initialised = false

    /// Creates the filter.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Gyroscope bias estimate, rad/s.
    public var gyroscopeBias: Vector3 { -integral }
    /// Sensors fused.
    public var mode: FusionMode { parameters.mode }

    /// One step.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        let mag = parameters.mode == .nineD ? magnetometer : nil
        if !initialised {
            guard let q = VectorAttitude.initial(accelerometer: accelerometer, magnetometer: mag) else { return }
            attitude = q
            initialised = true
            diagnostics.initialising = false
            return
        }
        var error = Vector3.zero
        diagnostics.accelerometerRejected = true
        diagnostics.magnetometerRejected = true
        if let a = accelerometer?.normalized {
            // Estimated up direction in the sensor frame.
            let v = attitude.inverseRotate(.unitZ)
            error += a.cross(v)
            diagnostics.accelerometerRejected = false
            if let m = mag?.normalized {
                // Reference: the measured field rotated to earth, with its horizontal part turned to north.
                let h = attitude.rotate(m)
                let b = Vector3(0, (h.x * h.x + h.y * h.y).squareRoot(), h.z)
                let w = attitude.inverseRotate(b)
                error += m.cross(w)
                diagnostics.magnetometerRejected = false
            }
        }
        guard let g = gyroscope, dt > 0 else { return }
        integral += error * (parameters.ki * dt)
        let omega = g + integral + error * parameters.kp
        attitude = (attitude * Quaternion(rotationVector: omega * dt)).normalized
    }

    /// Re-initialise the attitude from the next accelerometer sample.
    public mutating func reinitialise() { initialised = false }

    /// Back to the initial state.
    public mutating func reset() { self = MahonyFilter(parameters: parameters) }
}
