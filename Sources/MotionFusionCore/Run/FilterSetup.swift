/// The estimators by name, for command lines and bindings.
public enum FilterKind: String, CaseIterable, Sendable, Codable {
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

    /// The default filter: the most accurate.
    public static let `default` = FilterKind.ekf

    /// The modes the filter supports, the default last.
    public var modes: [FusionMode] {
        switch self {
        case .ecompass: return [.nineD]
        case .tilt: return [.sixD]
        default: return [.sixD, .nineD]
        }
    }
}

/// Code that works with a filter of any type, statically: ``FilterSetup/withFilter(_:)`` calls
/// `visit` with the concrete filter, so the per-sample loop inside is specialised for it.
public protocol FilterVisitor {
    /// What the visit produces.
    associatedtype Result
    /// Works with the configured filter.
    func visit<Filter: AttitudeFilter>(_ filter: Filter) throws -> Result
}

/// Which estimator runs, with its tuning (including the fusion mode). The one place that turns a
/// filter's name into a filter.
public enum FilterSetup: Sendable {
    /// ``KalmanFilter``.
    case ekf(KalmanFilter.Parameters)
    /// ``ComplementaryFilter``.
    case complementary(ComplementaryFilter.Parameters)
    /// ``MahonyFilter``.
    case mahony(MahonyFilter.Parameters)
    /// ``MadgwickFilter``.
    case madgwick(MadgwickFilter.Parameters)
    /// ``ECompass``.
    case ecompass(ECompass.Parameters)
    /// ``AccelerometerTilt``.
    case tilt(AccelerometerTilt.Parameters)

    /// The filter of `kind` with default parameters in `mode` (default: the filter's own default).
    public init(_ kind: FilterKind, mode: FusionMode? = nil) {
        switch kind {
        case .ekf: self = .ekf(.init())
        case .complementary: self = .complementary(.init())
        case .mahony: self = .mahony(.init())
        case .madgwick: self = .madgwick(.init())
        case .ecompass: self = .ecompass(.init())
        case .tilt: self = .tilt(.init())
        }
        if let mode { self.mode = mode }
    }

    /// The filter's name.
    public var kind: FilterKind {
        switch self {
        case .ekf: return .ekf
        case .complementary: return .complementary
        case .mahony: return .mahony
        case .madgwick: return .madgwick
        case .ecompass: return .ecompass
        case .tilt: return .tilt
        }
    }

    /// Calls `visitor` with the configured filter, freshly created.
    @inlinable
    public func withFilter<V: FilterVisitor>(_ visitor: V) throws -> V.Result {
        switch self {
        case .ekf(let p): return try visitor.visit(KalmanFilter(parameters: p))
        case .complementary(let p): return try visitor.visit(ComplementaryFilter(parameters: p))
        case .mahony(let p): return try visitor.visit(MahonyFilter(parameters: p))
        case .madgwick(let p): return try visitor.visit(MadgwickFilter(parameters: p))
        case .ecompass(let p): return try visitor.visit(ECompass(parameters: p))
        case .tilt(let p): return try visitor.visit(AccelerometerTilt(parameters: p))
        }
    }

    /// The parameters, whatever the filter (for code that treats them generically).
    public var parameters: any FilterParameters {
        get {
            switch self {
            case .ekf(let p): return p
            case .complementary(let p): return p
            case .mahony(let p): return p
            case .madgwick(let p): return p
            case .ecompass(let p): return p
            case .tilt(let p): return p
            }
        }
        set {
            switch (self, newValue) {
            case (.ekf, let p as KalmanFilter.Parameters): self = .ekf(p)
            case (.complementary, let p as ComplementaryFilter.Parameters): self = .complementary(p)
            case (.mahony, let p as MahonyFilter.Parameters): self = .mahony(p)
            case (.madgwick, let p as MadgwickFilter.Parameters): self = .madgwick(p)
            case (.ecompass, let p as ECompass.Parameters): self = .ecompass(p)
            case (.tilt, let p as AccelerometerTilt.Parameters): self = .tilt(p)
            default: preconditionFailure("parameters of another filter")
            }
        }
    }

    /// Sensors fused (kept in the filter's parameters). Filters with one mode ignore a change.
    public var mode: FusionMode {
        get { parameters.mode }
        set {
            var p = parameters
            p.mode = newValue
            parameters = p
        }
    }

    /// The field the magnetometer should see (from the World Magnetic Model), for filters that use
    /// a reference field; a filter still falls back to the measured field when the sensor does not
    /// see this one (indoors, uncalibrated, arbitrary units).
    public mutating func setExpectedField(_ field: ExpectedField) {
        if case .ekf(var p) = self {
            p.expectedFieldNorm = field.strength
            p.expectedDip = field.dip
            self = .ekf(p)
        }
    }
}

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
