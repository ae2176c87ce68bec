/// Roll and pitch from the accelerometer alone, with yaw fixed at zero: exact when the device is
/// still, wrong during linear acceleration. No gyroscope, no magnetometer, no state but the last
/// attitude (held while the accelerometer is missing).
public struct AccelerometerTilt: AttitudeFilter {
    /// This estimator has no tuning; it always uses the accelerometer alone.
    public struct Parameters: FilterParameters {
        /// Always 6D.
        public var mode: FusionMode { .sixD }
        /// No parameters, no ranges.
        public static let ranges: [String: ParameterRange] = [:]
        /// Default parameters.
        public init() {}
        public init(from decoder: Decoder) throws {}
        public func encode(to encoder: Encoder) throws {}
    }

    /// The evolving state.
    public struct State: Sendable, Codable {
        /// Attitude, ENU from sensor (yaw always zero).
        public var attitude = Quaternion.identity
        /// Whether an accelerometer sample has set the attitude.
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

    /// Current attitude (yaw always zero).
    public var attitude: Quaternion { state.attitude }
    /// Always zero: the gyroscope is not used.
    public var gyroscopeBias: Vector3 { .zero }
    /// Diagnostics of the last update.
    public var diagnostics: FilterDiagnostics { FilterDiagnostics(state.use, initialised: state.initialised) }

    /// Sets the attitude from the accelerometer when present.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        state.use = SensorUse()
        if let a = accelerometer, let q = VectorAttitude.tilt(accelerometer: a) {
            state.attitude = q
            state.initialised = true
            state.use.accelerometerRejected = false
        }
    }

    /// Nothing to forget: every sample is independent.
    public mutating func reinitialise() {}
}
