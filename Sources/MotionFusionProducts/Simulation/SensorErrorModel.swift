/// Realistic IMU imperfections applied by ``MotionSimulator``. All defaults describe a consumer
/// MEMS IMU; ``ideal`` switches every error off.
public struct SensorErrorModel: Sendable {
    /// Gyroscope white noise density, rad/s/√Hz. Default 0.0003 (0.017 °/s/√Hz).
    public var gyroscopeNoiseDensity = 0.0003
    /// Accelerometer white noise density, m/s²/√Hz. Default 0.0015.
    public var accelerometerNoiseDensity = 0.0015
    /// Magnetometer white noise standard deviation per sample, µT. Default 0.3.
    public var magnetometerNoise = 0.3
    /// Constant gyroscope bias, rad/s, drawn per axis from ±this. Default 0.02 (≈1.1 °/s).
    public var gyroscopeBias = 0.02
    /// Gyroscope bias random walk, rad/s/√s. Default 0.0002.
    public var gyroscopeBiasRandomWalk = 0.0002
    /// Constant accelerometer bias, m/s², drawn per axis from ±this. Default 0.05.
    public var accelerometerBias = 0.05
    /// Scale-factor error, drawn per axis and sensor from ±this. Default 0.005 (0.5 %).
    public var scaleError = 0.005
    /// Axis misalignment, rad, drawn per off-diagonal element from ±this. Default 0.002.
    public var misalignment = 0.002
    /// Quantisation steps: gyroscope rad/s, accelerometer m/s², magnetometer µT. Default 16-bit-like.
    public var gyroscopeQuantum = 0.00107, accelerometerQuantum = 0.0006, magnetometerQuantum = 0.15
    /// Saturation limits: gyroscope rad/s, accelerometer m/s², magnetometer µT.
    public var gyroscopeRange = 34.9, accelerometerRange = 156.9, magnetometerRange = 4900.0
    /// Hard-iron offset, µT, drawn per axis from ±this. Default 8.
    public var hardIron = 8.0
    /// Soft-iron distortion: off-identity elements drawn from ±this. Default 0.03.
    public var softIron = 0.03
    /// Standard deviation of timestamp jitter, s. Default 0.0002.
    public var timestampJitter = 0.0002
    /// Probability that a sensor's value is missing in a sample. Default 0.002.
    public var dropoutProbability = 0.002
    /// Gyroscope bias, rad/s, used instead of a drawn one when set (it still walks). Default nil.
    public var fixedGyroscopeBias: Vector3?
    /// Hard-iron offset, µT, used instead of a drawn one when set. Default nil.
    public var fixedHardIron: Vector3?
    /// Soft-iron matrix (raw = softIron · true + hardIron), used instead of a drawn one when set.
    /// Default nil.
    public var fixedSoftIron: Matrix3?

    /// The default consumer-grade model.
    public init() {}

    /// No errors at all: sensors read the exact physical values.
    public static var ideal: SensorErrorModel {
        var m = SensorErrorModel()
        m.gyroscopeNoiseDensity = 0
        m.accelerometerNoiseDensity = 0
        m.magnetometerNoise = 0
        m.gyroscopeBias = 0
        m.gyroscopeBiasRandomWalk = 0
        m.accelerometerBias = 0
        m.scaleError = 0
        m.misalignment = 0
        m.gyroscopeQuantum = 0
        m.accelerometerQuantum = 0
        m.magnetometerQuantum = 0
        m.gyroscopeRange = .infinity
        m.accelerometerRange = .infinity
        m.magnetometerRange = .infinity
        m.hardIron = 0
        m.softIron = 0
        m.timestampJitter = 0
        m.dropoutProbability = 0
        return m
    }

    /// Noise, bias, scale, quantisation and jitter but no hard/soft iron and no dropouts: what a
    /// calibrated IMU delivers.
    public static var calibrated: SensorErrorModel {
        var m = SensorErrorModel()
        m.hardIron = 0
        m.softIron = 0
        m.dropoutProbability = 0
        return m
    }
}
