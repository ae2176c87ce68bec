/// Madgwick's gradient-descent filter (Madgwick, Harrison, Vaidyanathan 2011): the gyroscope
/// turn is corrected by a normalised gradient step of fixed rate β that reduces the misfit between
/// measured and predicted gravity (and, in 9D, magnetic field) directions.
///
/// The gradient is computed exactly for the unit reference field `(0, |h_horizontal|, h_z)` in ENU;
/// the widespread C implementation doubles the magnetometer reference, which this does not. The
/// gyroscope turn is integrated with the exponential map rather than the first-order quaternion
/// rate, and the step is β·dt, so the result does not depend on the sample rate; sensors are used
/// by direction only, so units do not matter. The first magnetometer sample after a start without
/// one sets the heading at once.
public struct MadgwickFilter: AttitudeFilter {
    /// Tuning.
    public struct Parameters: FilterParameters {
        /// Gradient step rate β, rad/s. Default 0.12 (BROAD's best common gain).
        public var beta = 0.12
        /// 6D or 9D. Default 9D.
        public var mode = FusionMode.nineD
        /// Gyroscope integration across irregular steps and lost samples.
        public var integration = GyroscopeIntegrator.Parameters()
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "beta": ParameterRange(0...10)
        ].adding(part("integration", GyroscopeIntegrator.Parameters.self))
        /// Default parameters.
        public init() {}
    }

    /// The evolving state.
    public struct State: Sendable, Codable {
        /// Attitude, ENU from sensor.
        public var attitude = Quaternion.identity
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
    /// Madgwick's basic filter does not estimate gyroscope bias.
    public var gyroscopeBias: Vector3 { .zero }
    /// Diagnostics of the last update.
    public var diagnostics: FilterDiagnostics { FilterDiagnostics(state.use, initialised: state.initialised) }

    /// The gradient of ½|Rᵀd − s|² with respect to the quaternion, for a unit earth reference `d`
    /// and a unit sensor measurement `s`: a tangent part `2 q ⊗ (0, v × s)` and a radial part
    /// `2 (1 − v·s) q`, with `v = Rᵀd` the predicted measurement.
    static func gradient(_ q: Quaternion, predicted v: Vector3, measured s: Vector3) -> Quaternion {
        let tangent = q * Quaternion(scalar: 0, vector: v.cross(s))
        return tangent * 2 + q * (2 * (1 - v.dot(s)))
    }

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
        let q = state.attitude
        var step = Quaternion(w: 0, x: 0, y: 0, z: 0)
        var fieldGradient: Quaternion?
        if let a = accelerometer?.normalized {
            step = step + Self.gradient(q, predicted: q.inverseRotate(.unitZ), measured: a)
            state.use.accelerometerRejected = false
            if let m = mag?.normalized {
                let h = q.rotate(m)
                let b = Vector3(0, (h.x * h.x + h.y * h.y).squareRoot(), h.z)
                let g = Self.gradient(q, predicted: q.inverseRotate(b), measured: m)
                step = step + g
                fieldGradient = g
                state.use.magnetometerRejected = false
            }
        }
        var next = q
        if let g = gyroscope {
            guard dt > 0 else { return }
            let rate = state.integrator.meanRate(g, dt: dt, parameters.integration)
            // The gyroscope turn is integrated exactly (exponential map), so the result does not
            // depend on the sample rate; the gradient step of β·dt follows.
            next = q * Quaternion(rotationVector: rate * dt)
        } else {
            // No turn rate (an outage longer than the runner holds a value): the gradient step
            // alone keeps pulling the attitude to the accelerometer and magnetometer.
            state.integrator.interrupt()
            guard dt > 0 else { return }
        }
        let n = step.norm
        // At an exact fit the gradient vanishes; normalising rounding noise would inject a full β step.
        if n > 1e-12 { next = next + step * (-parameters.beta * dt / n) }
        // A reading that covers more than the step (a slower magnetometer, or one on samples of
        // its own) corrects the heading over the rest of its time too: a further step along the
        // part of its own gradient that turns about the vertical (the rest would tilt the attitude
        // by the field's dip noise).
        if let g = fieldGradient, let covered, covered > dt {
            let gn = g.norm
            if gn > 1e-12 {
                let vertical = q.rotate((q.conjugate * g).vector).z
                let heading = q * Quaternion(scalar: 0, vector: q.inverseRotate(Vector3(0, 0, vertical)))
                next = next + heading * (-parameters.beta * (covered - dt) / gn)
            }
        }
        state.attitude = next.normalized
    }

    /// Re-initialise the attitude from the next accelerometer sample.
    public mutating func reinitialise() {
        state.initialised = false
        state.integrator.interrupt()
        state.magnetometerPairing?.clear()
        state.magnetometerInterval = ReadingInterval()
    }
}
