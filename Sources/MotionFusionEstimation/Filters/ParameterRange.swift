import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The values a numeric tuning parameter accepts: an interval, closed at its upper end and closed
/// or open at its lower end (`[0, 10]`, or `(0, 1]`: above 0, at most 1). Each tuning struct
/// declares its parameters' ranges beside them (``ParameterRanges``); ``FilterSetup`` refuses a
/// value outside (and NaN, except for a parameter learnt when NaN).
public struct ParameterRange: Sendable, Equatable, CustomStringConvertible {
    /// Smallest value, or the bound the values lie above when ``includesLower`` is false.
    public var lower: Double
    /// Largest value.
    public var upper: Double
    /// Whether ``lower`` itself is accepted.
    public var includesLower: Bool

    /// `[lower, upper]`.
    public init(_ range: ClosedRange<Double>) {
        lower = range.lowerBound
        upper = range.upperBound
        includesLower = true
    }

    /// `(lower, upper]`: above `lower`, at most `upper`.
    public static func above(_ lower: Double, upTo upper: Double) -> ParameterRange {
        var r = ParameterRange(lower...upper)
        r.includesLower = false
        return r
    }

    /// `[lower, upper]` given in degrees, kept in radians.
    public static func degrees(_ range: ClosedRange<Double>) -> ParameterRange {
        ParameterRange(range.lowerBound.radians...range.upperBound.radians)
    }

    /// A time that may be zero, up to a day, s: `[0, 86400]`.
    public static let duration = ParameterRange(0...86_400)
    /// A time constant, positive, up to a day, s: `(0, 86400]`.
    public static let timeConstant = above(0, upTo: 86_400)
    /// A fraction: `[0, 1]`.
    public static let fraction = ParameterRange(0...1)
    /// A positive angle up to a half turn, rad: `(0, π]`.
    public static let angle = above(0, upTo: .pi)
    /// A rate up to the largest a gyroscope reading may have (``ValueFaults/gyroscopeLimit``), rad/s.
    public static let rate = ParameterRange(0...ValueFaults.gyroscopeLimit)

    /// Whether `value` lies in the range (never for NaN).
    public func contains(_ value: Double) -> Bool {
        (includesLower ? value >= lower : value > lower) && value <= upper
    }

    /// `[0, 10]` or `(0, 1]`, the bounds with six significant digits.
    public var description: String {
        (includesLower ? "[" : "(") + Self.format(lower) + ", " + Self.format(upper) + "]"
    }

    /// The same with the bounds to the last digit (messages: a value just past a rounded bound).
    public var exactDescription: String {
        func exact(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? "\(Int64(v))" : "\(v)" }
        return (includesLower ? "[" : "(") + exact(lower) + ", " + exact(upper) + "]"
    }

    static func format(_ v: Double) -> String { String(printf: "%.6g", v) }
}

/// A tuning struct whose numeric parameters each declare the values they accept, beside their
/// declarations.
public protocol ParameterRanges {
    /// The range of each numeric parameter, by the name ``FilterSetup/parameterValues`` gives it
    /// (a part's dotted, see ``part(_:_:)``). Switches (1 or 0) and modes have none.
    static var ranges: [String: ParameterRange] { get }
}

extension ParameterRanges {
    /// The ranges of a part (a nested tuning struct) under its property name: `name.parameter`.
    public static func part<Part: ParameterRanges>(_ name: String, _: Part.Type) -> [String: ParameterRange] {
        Dictionary(uniqueKeysWithValues: Part.ranges.map { (name + "." + $0.key, $0.value) })
    }
}

extension Dictionary where Key == String, Value == ParameterRange {
    /// These ranges and those of the parts (names never collide: a part's are dotted).
    public func adding(_ parts: [String: ParameterRange]...) -> [String: ParameterRange] {
        parts.reduce(self) { $0.merging($1) { a, _ in a } }
    }
}
