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
        /// Last magnetometer value, held for samples without one (sensors at different rates), and
        /// how long it has been held, s (nil in states saved before it was kept, read as 0).
        public var lastMagnetometer: Vector3?
        public var magnetometerAge: Double?
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

    /// Longest time a magnetometer value is held for accelerometer readings without one, s, as
    /// the runner holds an accelerometer's (``FilterRunnerSettings/maximumAccelerometerHold``): a
    /// magnetometer at 10 Hz or faster is followed; past it the heading stays where it was, with
    /// the magnetometer rejected, instead of taking an old reading for the device's heading now
    /// (a 10 s outage while turning put it 56° off, flagged used). Held 1 s, the heading kept
    /// was that of a reading already a second old (a 10 s outage while spinning: 46° → 55°).
    /// 0.1 s.
    public static let longestHold = MagnetometerPairing.longestWait

    /// Current attitude.
    public var attitude: Quaternion { state.attitude }
    /// Always zero: the gyroscope is not used.
    public var gyroscopeBias: Vector3 { .zero }
    /// Diagnostics of the last update.
    public var diagnostics: FilterDiagnostics { FilterDiagnostics(state.use, initialised: state.initialised) }

    /// Sets the attitude from the accelerometer and the latest magnetometer value.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        if let magnetometer {
            state.lastMagnetometer = magnetometer
            state.magnetometerAge = 0
        } else {
            state.magnetometerAge = (state.magnetometerAge ?? 0) + max(0, dt)
        }
        state.use = SensorUse()
        guard let a = accelerometer else {
            // Held for the next accelerometer reading, which uses it.
            if magnetometer != nil { state.use.magnetometerRejected = false }
            return
        }
        let held = (state.magnetometerAge ?? 0) <= Self.longestHold ? state.lastMagnetometer : nil
        if let m = held, let q = VectorAttitude.compass(accelerometer: a, magnetometer: m) {
            state.attitude = q
            state.initialised = true
            state.use.accelerometerRejected = false
            state.use.magnetometerRejected = false
        } else if let q = VectorAttitude.tilt(accelerometer: a) {
            // Without a field, the tilt with the heading where it was.
            state.attitude = state.initialised ? q.withHeading(of: state.attitude) : q
            state.use.accelerometerRejected = false
        }
    }

    /// Nothing to forget but the held magnetometer value.
    public mutating func reinitialise() {
        state.lastMagnetometer = nil
        state.magnetometerAge = nil
    }
}
