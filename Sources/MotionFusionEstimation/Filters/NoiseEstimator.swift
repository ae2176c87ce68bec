/// Noise densities of the gyroscope and accelerometer measured from the data: while the device is
/// still, the spread of each sample around the rest detector's low-passed mean is sensor noise
/// (and vibration, which a filter must treat the same way). A sample's variance `σ²` over a step
/// `dt` is a white-noise density `σ·√dt`, so the figures do not depend on the sample rate.
public struct NoiseEstimator: Sendable, Codable {
    /// Tuning.
    public struct Parameters: Sendable, Codable, ParameterRanges {
        /// Averaging time of the estimates, counted in still time only, s. Default 10.
        public var averagingTime = 10.0
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "averagingTime": .timeConstant
        ]
        /// Default parameters.
        public init() {}
    }

    /// Squared gyroscope noise density per axis, (rad/s)²/Hz; NaN until the device was still.
    public private(set) var gyroscopeDensitySquared = Double.nan
    /// Squared accelerometer noise density per axis, (m/s²)²/Hz; NaN until the device was still.
    public private(set) var accelerometerDensitySquared = Double.nan

    /// Creates an estimator that has measured nothing.
    public init() {}

    /// Gyroscope noise density, rad/s/√Hz (NaN until measured).
    public var gyroscopeDensity: Double { gyroscopeDensitySquared.squareRoot() }
    /// Still time measured so far (up to the averaging time), s.
    public private(set) var time = 0.0

    /// Accelerometer noise density, m/s²/√Hz (NaN until measured).
    public var accelerometerDensity: Double { accelerometerDensitySquared.squareRoot() }

    /// Feeds one sample taken while the rest detector's bands hold, with the detector's means.
    public mutating func update(
        gyroscope g: Vector3, accelerometer a: Vector3, rest: RestDetector, dt: Double, _ p: Parameters
    ) {
        guard dt > 0 else { return }
        let gyro = (g - rest.gyroscopeMean).squaredNorm / 3 * dt
        let acc = (a - rest.accelerometerMean).squaredNorm / 3 * dt
        // A running mean over the first averaging time, then an exponential average.
        time = min(time + dt, p.averagingTime)
        let k = dt / time
        if !gyroscopeDensitySquared.isFinite {
            gyroscopeDensitySquared = 0
            accelerometerDensitySquared = 0
        }
        gyroscopeDensitySquared += (gyro - gyroscopeDensitySquared) * k
        accelerometerDensitySquared += (acc - accelerometerDensitySquared) * k
    }
}
