/// Mahony's nonlinear complementary filter on SO(3) (Mahony, Hamel, Pflimlin 2008): the gyroscope
/// rate is corrected by a proportional-integral feedback of the cross product between measured and
/// predicted reference directions (gravity, and the horizontal magnetic field in 9D).
///
/// The gains follow the widespread reference implementation, so published gains carry over: the
/// correction is `Kp · e` and the integral `Ki · ∫e dt`, with `e` the sum of the cross products of
/// the measured and estimated unit directions. Both gains are per second and sensors are used by
/// direction only, so neither the sample rate nor the units matter. The first magnetometer sample
/// after a start without one sets the heading at once.
public struct MahonyFilter: AttitudeFilter {
    /// Tuning.
    public struct Parameters: FilterParameters {
        /// Proportional gain, 1/s. Default 0.74 (BROAD's best common gain).
        public var kp = 0.74
        /// Integral gain, 1/s². Default 0.0012.
        public var ki = 0.0012
        /// 6D or 9D. Default 9D.
        public var mode = FusionMode.nineD
        /// Gyroscope integration across irregular steps and lost samples.
        public var integration = GyroscopeIntegrator.Parameters()
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "kp": ParameterRange(0...100), "ki": ParameterRange(0...10),
        ].adding(part("integration", GyroscopeIntegrator.Parameters.self))
        /// Default parameters.
        public init() {}
    }

    /// The evolving state.
    public struct State: Sendable, Codable {
        /// Attitude, ENU from sensor.
        public var attitude = Quaternion.identity
        /// Integral feedback term, rad/s; the bias estimate is its negative.
        public var integral = Vector3.zero
        /// Whether the attitude has been initialised.
        public var initialised = false
        /// Whether a magnetometer sample has set the heading since the attitude was initialised.
        public var headingReferenced = false
        /// Mean rate over each step (bridges lost samples).
        public var integrator = GyroscopeIntegrator()
        /// A magnetometer reading from a row without an accelerometer reading, waiting for one
        /// (9D; nil in states saved before it was kept).
        public var magnetometerPairing: MagnetometerPairing?
        /// Time since the last magnetometer reading used: the time a reading's correction covers,
        /// at most ``MagnetometerPairing/longestWait`` (nil in states saved before it was kept).
        public var magnetometerInterval: ReadingInterval?
        /// What the last update did with the sensors.
        public var use = SensorUse()
    }

    /// Tuning in use.
    public let parameters: Parameters
    /// The state.
    public var state = State()

    /// Creates the filter.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Current attitude.
    public var attitude: Quaternion { state.attitude }
    /// Gyroscope bias estimate, rad/s.
    public var gyroscopeBias: Vector3 { -state.integral }
    /// Diagnostics of the last update.
    public var diagnostics: FilterDiagnostics { FilterDiagnostics(state.use, initialised: state.initialised) }

    /// One step.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        state.use = SensorUse()
        let (mag, covered) = MagnetometerPairing.pair(
            &state.magnetometerPairing, &state.magnetometerInterval, &state.use, mode: parameters.mode,
            initialised: state.initialised, magnetometer: magnetometer, accelerometer: accelerometer, dt: dt)
        guard
            VectorAttitude.start(
                &state.attitude, headingReferenced: &state.headingReferenced, initialised: &state.initialised,
                accelerometer: accelerometer, magnetometer: mag)
        else { return }
        let attitude = state.attitude
        var error = Vector3.zero
        if let a = accelerometer?.normalized {
            // Estimated up direction in the sensor frame.
            let v = attitude.inverseRotate(.unitZ)
            error += a.cross(v)
            state.use.accelerometerRejected = false
            if let m = mag?.normalized {
                // Reference: the measured field rotated to earth, with its horizontal part turned to north.
                let h = attitude.rotate(m)
                let b = Vector3(0, (h.x * h.x + h.y * h.y).squareRoot(), h.z)
                let w = attitude.inverseRotate(b)
                // Weighed by the time the reading covers against the step (1 on every sample).
                error += m.cross(w) * (dt > 0 ? (covered ?? dt) / dt : 1)
                state.use.magnetometerRejected = false
            }
        }
        guard let g = gyroscope else {
            // No turn rate (an outage longer than the runner holds a value): the feedback alone
            // keeps pulling the attitude to the accelerometer and magnetometer, as if at rest.
            state.integrator.interrupt()
            if dt > 0 {
                state.attitude = (attitude * Quaternion(rotationVector: error * (parameters.kp * dt))).renormalized
            }
            return
        }
        guard dt > 0 else { return }
        let rate = state.integrator.meanRate(g, dt: dt, parameters.integration)
        state.integral += error * (parameters.ki * dt)
        let omega = rate + state.integral + error * parameters.kp
        state.attitude = (attitude * Quaternion(rotationVector: omega * dt)).renormalized
    }

    /// Re-initialise the attitude from the next accelerometer sample.
    public mutating func reinitialise() {
        state.initialised = false
        state.integrator.interrupt()
        state.magnetometerPairing?.clear()
        state.magnetometerInterval = ReadingInterval()
    }
}
