/// Tilt-compensated electronic compass: the full attitude from accelerometer (up) and
/// magnetometer (north) directions, with no gyroscope. Exact for a still device in an undisturbed
/// field; the heading follows every magnetic and acceleration disturbance.
public struct ECompass: AttitudeFilter {
    /// This estimator has no tuning; it always fuses accelerometer and magnetometer.
    public struct Parameters: FilterParameters {
        /// Always 9D.
        public var mode: FusionMode { .nineD }
        /// No parameters, no ranges.
        public static let ranges: [String: ParameterRange] = [:]
        /// Default parameters.
        public init() {}
        public init(from decoder: Decoder) throws {}
        public func encode(to encoder: Encoder) throws {}
    }

    /// The evolving state.
    public struct State: Sendable, Codable {
        /// Attitude, ENU from sensor.
        public var attitude = Quaternion.identity
        /// Last magnetometer value, held for samples without one (sensors at different rates).
        public var lastMagnetometer: Vector3?
        /// Whether an attitude has been set from both sensors.
        public var initialised = false
        /// What the last update did with the sensors.
        public var use = SensorUse()
    }

    /// Tuning in use.
    public let parameters: Parameters
    /// The state.
    public var state = State()

    /// Creates the estimator.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Current attitude.
    public var attitude: Quaternion { state.attitude }
    /// Always zero: the gyroscope is not used.
    public var gyroscopeBias: Vector3 { .zero }
    /// Diagnostics of the last update.
    public var diagnostics: FilterDiagnostics { FilterDiagnostics(state.use, initialised: state.initialised) }

    /// Sets the attitude from the accelerometer and the latest magnetometer value.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        if let magnetometer { state.lastMagnetometer = magnetometer }
        state.use = SensorUse()
        guard let a = accelerometer else {
            // Held for the next accelerometer reading, which uses it.
            if magnetometer != nil { state.use.magnetometerRejected = false }
            return
        }
        if let m = state.lastMagnetometer, let q = VectorAttitude.compass(accelerometer: a, magnetometer: m) {
            state.attitude = q
            state.initialised = true
            state.use.accelerometerRejected = false
            state.use.magnetometerRejected = false
        } else if let q = VectorAttitude.tilt(accelerometer: a) {
            state.attitude = q
            state.use.accelerometerRejected = false
        }
    }

    /// Nothing to forget but the held magnetometer value.
    public mutating func reinitialise() { state.lastMagnetometer = nil }
}
