/// Tilt-compensated electronic compass: the full attitude from accelerometer (up) and
/// magnetometer (north) directions, with no gyroscope. Exact for a still device in an undisturbed
/// field; the heading follows every magnetic and acceleration disturbance.
public struct ECompass: AttitudeFilter {
    /// This estimator has no tunable parameters.
    public struct Parameters: Sendable {
        /// Default parameters.
        public init() {}
    }

    /// Current attitude.
    public private(set) var attitude = Quaternion.identity
    /// Always zero: the gyroscope is not used.
    public var gyroscopeBias: Vector3 { .zero }
    /// Diagnostics of the last update.
    public private(set) var diagnostics = FilterDiagnostics()
    /// Always 9D.
    public var mode: FusionMode { .nineD }
    /// Last magnetometer value, held for samples without one (sensors at different rates).
    public private(set) var lastMagnetometer: Vector3?

    /// Creates the estimator.
    public init(parameters: Parameters = Parameters()) {}

    /// Sets the attitude from the accelerometer and the latest magnetometer value.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        if let magnetometer { lastMagnetometer = magnetometer }
        diagnostics.accelerometerRejected = accelerometer == nil
        diagnostics.magnetometerRejected = lastMagnetometer == nil
        guard let a = accelerometer else { return }
        if let m = lastMagnetometer, let q = VectorAttitude.compass(accelerometer: a, magnetometer: m) {
            attitude = q
            diagnostics.initialising = false
        } else if let q = VectorAttitude.tilt(accelerometer: a) {
            attitude = q
            diagnostics.magnetometerRejected = true
        }
    }

    /// Nothing to forget but the held magnetometer value.
    public mutating func reinitialise() { lastMagnetometer = nil }

    /// Back to the identity.
    public mutating func reset() { self = ECompass() }
}
