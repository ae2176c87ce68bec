/// Roll and pitch from the accelerometer alone, with yaw fixed at zero: exact when the device is
/// still, wrong during linear acceleration. No gyroscope, no magnetometer, no state but the last
/// attitude (held while the accelerometer is missing).
public struct AccelerometerTilt: AttitudeFilter {
    /// This estimator has no tunable parameters.
    public struct Parameters: Sendable {
        /// Default parameters.
        public init() {}
    }

    /// Current attitude (yaw always zero).
    public private(set) var attitude = Quaternion.identity
    /// Always zero: the gyroscope is not used.
    public var gyroscopeBias: Vector3 { .zero }
    /// Diagnostics of the last update.
    public private(set) var diagnostics = FilterDiagnostics()
    /// Always 6D (no heading).
    public var mode: FusionMode { .sixD }

    /// Creates the estimator.
    public init(parameters: Parameters = Parameters()) {}

    /// Sets the attitude from the accelerometer when present.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        diagnostics.magnetometerRejected = true
        if let a = accelerometer, let q = VectorAttitude.tilt(accelerometer: a) {
            attitude = q
            diagnostics.accelerometerRejected = false
            diagnostics.initialising = false
        } else {
            diagnostics.accelerometerRejected = true
        }
    }

    /// Nothing to forget: every sample is independent.
    public mutating func reinitialise() {}

    /// Back to the identity.
    public mutating func reset() { self = AccelerometerTilt() }
}
