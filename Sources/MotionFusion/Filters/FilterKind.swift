/// The Earth's field a magnetometer should see where the recording was made, e.g. from the
/// World Magnetic Model: used as the reference for magnetic disturbance detection.
public struct ExpectedField: Sendable, Equatable {
    /// Field strength, µT.
    public var strength: Double
    /// Dip (inclination), radians, positive downward.
    public var dip: Double

    /// Creates an expected field.
    public init(strength: Double, dip: Double) {
        self.strength = strength
        self.dip = dip
    }

    /// The expected field of a World Magnetic Model evaluation.
    public init(_ field: WorldMagneticModel.Field) {
        self.init(strength: field.totalIntensity / 1000, dip: field.inclination.radians)
    }
}

/// The estimators by name, for command lines and batch runs. Running through this type keeps every
/// per-sample call statically dispatched: each case runs its own specialised loop.
public enum FilterKind: String, CaseIterable, Sendable {
    /// Multiplicative extended Kalman filter (the default, most accurate).
    case ekf
    /// Quaternion complementary filter with bias estimation.
    case complementary
    /// Mahony's nonlinear complementary filter.
    case mahony
    /// Madgwick's gradient-descent filter.
    case madgwick
    /// Tilt-compensated e-compass (accelerometer + magnetometer, no gyroscope).
    case ecompass
    /// Accelerometer tilt only (roll and pitch).
    case tilt

    /// The filters with default parameters in `mode`: built in one place for both batch paths.
    static func kalman(_ mode: FusionMode, _ expectedField: ExpectedField?) -> KalmanFilter {
        var p = KalmanFilter.Parameters()
        p.mode = mode
        if let f = expectedField {
            p.expectedFieldNorm = f.strength
            p.expectedDip = f.dip
        }
        return KalmanFilter(parameters: p)
    }
    static func complementary(_ mode: FusionMode) -> ComplementaryFilter {
        var p = ComplementaryFilter.Parameters()
        p.mode = mode
        return ComplementaryFilter(parameters: p)
    }
    static func mahony(_ mode: FusionMode) -> MahonyFilter {
        var p = MahonyFilter.Parameters()
        p.mode = mode
        return MahonyFilter(parameters: p)
    }
    static func madgwick(_ mode: FusionMode) -> MadgwickFilter {
        var p = MadgwickFilter.Parameters()
        p.mode = mode
        return MadgwickFilter(parameters: p)
    }

    /// The default filter for `replay`: the most accurate.
    public static let `default` = FilterKind.ekf

    /// Runs the filter in `mode` over `samples` and calls `body` with each estimate.
    public func run(
        _ samples: [SensorSample], mode: FusionMode, runner: FilterRunnerSettings = .init(),
        expectedField: ExpectedField? = nil, _ body: (MotionEstimate) throws -> Void
    ) rethrows {
        switch self {
        case .ekf:
            var r = FilterRunner(Self.kalman(mode, expectedField), settings: runner)
            try r.run(samples, body)
        case .complementary:
            var r = FilterRunner(Self.complementary(mode), settings: runner)
            try r.run(samples, body)
        case .mahony:
            var r = FilterRunner(Self.mahony(mode), settings: runner)
            try r.run(samples, body)
        case .madgwick:
            var r = FilterRunner(Self.madgwick(mode), settings: runner)
            try r.run(samples, body)
        case .ecompass:
            var r = FilterRunner(ECompass(), settings: runner)
            try r.run(samples, body)
        case .tilt:
            var r = FilterRunner(AccelerometerTilt(), settings: runner)
            try r.run(samples, body)
        }
    }

    /// The attitudes only, one per sample (the lean batch path: no device-motion values built).
    public func attitudes(_ samples: [SensorSample], mode: FusionMode, expectedField: ExpectedField? = nil)
        -> [Quaternion]
    {
        switch self {
        case .ekf:
            var r = FilterRunner(Self.kalman(mode, expectedField))
            return r.attitudes(samples)
        case .complementary:
            var r = FilterRunner(Self.complementary(mode))
            return r.attitudes(samples)
        case .mahony:
            var r = FilterRunner(Self.mahony(mode))
            return r.attitudes(samples)
        case .madgwick:
            var r = FilterRunner(Self.madgwick(mode))
            return r.attitudes(samples)
        case .ecompass:
            var r = FilterRunner(ECompass())
            return r.attitudes(samples)
        case .tilt:
            var r = FilterRunner(AccelerometerTilt())
            return r.attitudes(samples)
        }
    }

    /// The modes the filter supports.
    public var modes: [FusionMode] {
        switch self {
        case .ecompass: return [.nineD]
        case .tilt: return [.sixD]
        default: return [.sixD, .nineD]
        }
    }
}
