import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

/// Parameters of a filter that fuses either 6D or 9D: every filter but the e-compass and the tilt,
/// whose one mode is fixed.
public protocol ModeSelectable: FilterParameters {
    /// Sensors fused.
    var mode: FusionMode { get set }
}

extension KalmanFilter.Parameters: ModeSelectable {}
extension ComplementaryFilter.Parameters: ModeSelectable {}
extension MahonyFilter.Parameters: ModeSelectable {}
extension MadgwickFilter.Parameters: ModeSelectable {}

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

    /// Whether the filter estimates its own uncertainty (written as `sigma_*`; NaN otherwise).
    public var hasUncertainty: Bool {
        if case .ekf = self { return true }
        return false
    }

    /// Whether the filter cannot run without a magnetometer (no 6D fallback).
    public var needsMagnetometer: Bool {
        if case .ecompass = self { return true }
        return false
    }

    /// What the filter's attitude does over samples without a gyroscope value (beyond the short
    /// hold of ``FilterRunnerSettings/maximumGyroscopeHold``).
    public var withoutGyroscope: GyroscopeAbsence {
        switch self {
        case .ekf, .complementary, .mahony, .madgwick: return .followsOtherSensors
        case .ecompass, .tilt: return .unused
        }
    }

    /// The Kalman filter's parameters, which offline reconstruction runs on; nil for the others.
    public var reconstructionFilter: KalmanFilter.Parameters? {
        if case .ekf(let p) = self { return p }
        return nil
    }

    /// Sensors fused (kept in the filter's parameters). The filters with one mode (``FilterKind/modes``:
    /// the e-compass, the tilt) keep it whatever is set.
    public var mode: FusionMode {
        get { parameters.mode }
        set {
            guard var p = parameters as? any ModeSelectable else { return }
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

/// What a filter's attitude does over samples without a gyroscope value
/// (``FilterSetup/withoutGyroscope``).
public enum GyroscopeAbsence: Sendable {
    /// It follows the accelerometer's tilt (and the magnetometer's heading) alone, and every linear
    /// acceleration throws it (the EKF propagates blind; the complementary, Mahony and Madgwick
    /// filters apply their correction alone, as if the rate were zero).
    case followsOtherSensors
    /// The filter uses no gyroscope (the e-compass, the tilt).
    case unused
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
}

/// A parameter name or value that does not fit the filter (a usage error).
public struct ParameterError: Error, CustomStringConvertible {
    /// What is wrong.
    public var description: String
    /// Creates an error.
    public init(description: String) { self.description = description }
}

extension FilterSetup {
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }()
    static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }()

    /// The filter's numeric parameters by name (nested ones dotted, e.g. `rest.minimumDuration`), in
    /// SI units, with their current values; switches read 1 (on) or 0 (off).
    public var parameterValues: [(name: String, value: Double)] {
        guard let object = try? jsonObject() else { return [] }
        var out = [(String, Double)]()
        func walk(_ o: [String: JSONValue], _ prefix: String) {
            for key in o.keys.sorted() {
                let name = prefix + key
                if let v = Self.number(o[key]!) {
                    out.append((name, v))
                } else if let sub = o[key]?.objectValue {
                    walk(sub, name + ".")
                }
            }
        }
        walk(object, "")
        return out
    }

    static func number(_ any: JSONValue) -> Double? {
        if case .bool(let b) = any { return b ? 1 : 0 }
        if let n = any.doubleValue { return n }
        switch any.stringValue {
        case "nan": return .nan
        case "inf": return .infinity
        case "-inf": return -.infinity
        default: return nil
        }
    }

    /// Whether a decoded JSON value is `true` or `false` rather than a number.
    static func isSwitch(_ any: JSONValue) -> Bool {
        if case .bool = any { return true }
        return false
    }

    func jsonObject() throws -> [String: JSONValue] {
        let data = try withParameters { try Self.encoder.encode($0) }
        return try JSONValue.parse(Array(data)).objectValue ?? [:]
    }

    func withParameters<R>(_ body: (any FilterParameters) throws -> R) rethrows -> R { try body(parameters) }

    /// The values each numeric parameter accepts, by name (see ``parameterValues``); switches
    /// have none.
    public var ranges: [String: ParameterRange] { type(of: parameters).ranges }

    /// Sets one numeric parameter by name (see ``parameterValues``), refusing a value outside its
    /// range (``ranges``).
    public mutating func setParameter(_ name: String, _ value: Double) throws {
        guard !parameterValues.isEmpty else { throw ParameterError(description: "\(kind.rawValue) has no parameters") }
        var object = try jsonObject()
        let path = name.split(separator: ".").map(String.init)
        func set(_ o: inout [String: JSONValue], _ keys: ArraySlice<String>) throws {
            let key = keys.first!
            guard let current = o[key] else {
                throw ParameterError(
                    description:
                        "\(kind.rawValue) has no parameter '\(name)'; it has: \(parameterValues.map(\.name).joined(separator: ", "))"
                )
            }
            if keys.count == 1 {
                guard Self.number(current) != nil else {
                    throw ParameterError(description: "'\(name)' is not a number")
                }
                if !Self.isSwitch(current) {
                    // Within the range its struct declares; NaN only where NaN (the default) means
                    // "learn it" (the expected field).
                    guard let range = ranges[name] else {
                        throw ParameterError(description: "'\(name)' declares no range of values")
                    }
                    let learnt = FilterSetup(kind).parameterValues.first { $0.name == name }?.value.isNaN ?? false
                    guard range.contains(value) || (learnt && value.isNaN) else {
                        throw ParameterError(
                            description:
                                "'\(name)' must be within \(range.exactDescription)\(learnt ? " (or nan to learn it)" : ""); got \(value)"
                        )
                    }
                }
                if Self.isSwitch(current) {
                    guard value == 0 || value == 1 else {
                        throw ParameterError(description: "'\(name)' is a switch: 1 (on) or 0 (off); got \(value)")
                    }
                    o[key] = .bool(value == 1)
                } else {
                    o[key] =
                        value.isFinite ? .number(value) : .string(value.isNaN ? "nan" : (value > 0 ? "inf" : "-inf"))
                }
            } else {
                guard var sub = current.objectValue else {
                    throw ParameterError(description: "'\(name)' has no parts")
                }
                try set(&sub, keys.dropFirst())
                o[key] = .object(sub)
            }
        }
        try set(&object, path[...])
        struct Decode: FilterVisitor {
            let data: Data
            func visit<Filter: AttitudeFilter>(_ filter: Filter) throws -> any FilterParameters {
                try FilterSetup.decoder.decode(Filter.Parameters.self, from: data)
            }
        }
        do {
            parameters = try withFilter(Decode(data: Data(JSONValue.object(object).text.utf8)))
        } catch is DecodingError {
            // The only parameters that are not real numbers are counts.
            throw ParameterError(description: "'\(name)' is a count: a whole number; got \(value)")
        }
    }
}
