/// Decides whether the device is at rest: the gyroscope and accelerometer, lightly smoothed
/// against sensor noise, stay within small bands around their own slower low-passed values for a
/// minimum time. Used to estimate gyroscope bias.
public struct RestDetector: Sendable, Codable {
    /// Tuning.
    public struct Parameters: Sendable, Codable, ParameterRanges {
        /// Largest deviation of the rate from its low-passed value, rad/s. Default 2 °/s.
        public var gyroscopeThreshold = 2.0.radians
        /// Largest deviation of the specific force from its low-passed value, m/s². Default 0.5.
        public var accelerometerThreshold = 0.5
        /// Time the bands must hold before rest is declared, s. Default 1.5.
        public var minimumDuration = 1.5
        /// Low-pass time constant of the reference values, s. Default 0.5.
        public var filterTime = 0.5
        /// Smoothing time constant applied against sensor noise before the comparison, s. Default 0.05.
        public var noiseFilterTime = 0.05
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "gyroscopeThreshold": .above(0, upTo: 1), "accelerometerThreshold": .above(0, upTo: 10),
            "minimumDuration": .duration, "filterTime": .timeConstant, "noiseFilterTime": .duration,
        ]
        /// Default parameters.
        public init() {}
    }

    /// Tuning.
    public var parameters: Parameters
    /// Low-passed gyroscope, rad/s.
    public private(set) var gyroscopeMean = Vector3.zero
    /// Low-passed accelerometer, m/s².
    public private(set) var accelerometerMean = Vector3.zero
    /// Noise-smoothed gyroscope (rad/s) and accelerometer (m/s²).
    public private(set) var gyroscopeSmoothed = Vector3.zero, accelerometerSmoothed = Vector3.zero
    /// Time the bands have held, s.
    public private(set) var stillTime = 0.0
    /// Whether the detector has seen its first sample.
    public private(set) var primed = false

    /// Creates a detector.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Whether the device is at rest now.
    public var atRest: Bool { stillTime >= parameters.minimumDuration }
    /// Whether the last sample stayed within the bands (the device looks still, not yet for long).
    public var still: Bool { stillTime > 0 }

    /// Feeds one sample (inlined into the filters, which call it on every sample).
    @inline(__always)
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, dt: Double) {
        guard let g = gyroscope, let a = accelerometer else { return }
        if !primed {
            gyroscopeMean = g
            accelerometerMean = a
            gyroscopeSmoothed = g
            accelerometerSmoothed = a
            primed = true
            return
        }
        let k = firstOrderSmoothing(dt, time: parameters.filterTime)
        let kf = firstOrderSmoothing(dt, time: parameters.noiseFilterTime)
        gyroscopeMean += (g - gyroscopeMean) * k
        accelerometerMean += (a - accelerometerMean) * k
        gyroscopeSmoothed += (g - gyroscopeSmoothed) * kf
        accelerometerSmoothed += (a - accelerometerSmoothed) * kf
        let gt = parameters.gyroscopeThreshold
        let at = parameters.accelerometerThreshold
        let still =
            (gyroscopeSmoothed - gyroscopeMean).squaredNorm < gt * gt
            && (accelerometerSmoothed - accelerometerMean).squaredNorm < at * at
        stillTime = still ? stillTime + dt : 0
    }

    /// Forgets everything.
    public mutating func reset() { self = RestDetector(parameters: parameters) }
}
