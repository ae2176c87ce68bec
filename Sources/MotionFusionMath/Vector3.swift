/// A 3-vector of `Double`, used for every physical 3-axis quantity (rad/s, m/s², µT, …).
///
/// Plain stored properties keep the type trivially copyable and the arithmetic allocation-free.
@frozen
public struct Vector3: Hashable, Sendable, Codable, CustomStringConvertible {
    /// First component.
    public var x: Double
    /// Second component.
    public var y: Double
    /// Third component.
    public var z: Double

    /// Creates a vector from its three components.
    @inlinable @inline(__always)
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Creates a vector from labelled components.
    @inlinable @inline(__always)
    public init(x: Double, y: Double, z: Double) {
        self.init(x, y, z)
    }

    /// The zero vector.
    @inlinable public static var zero: Vector3 { Vector3(0, 0, 0) }
    /// Unit vector along x.
    @inlinable public static var unitX: Vector3 { Vector3(1, 0, 0) }
    /// Unit vector along y.
    @inlinable public static var unitY: Vector3 { Vector3(0, 1, 0) }
    /// Unit vector along z.
    @inlinable public static var unitZ: Vector3 { Vector3(0, 0, 1) }

    /// Component by index 0, 1, 2.
    @inlinable
    public subscript(index: Int) -> Double {
        get {
            switch index {
            case 0: return x
            case 1: return y
            default:
                precondition(index == 2, "Vector3 index out of range")
                return z
            }
        }
        set {
            switch index {
            case 0: x = newValue
            case 1: y = newValue
            default:
                precondition(index == 2, "Vector3 index out of range")
                z = newValue
            }
        }
    }

    /// Euclidean dot product.
    @inlinable @inline(__always)
    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    /// Right-handed cross product `self × other`.
    @inlinable @inline(__always)
    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(y * other.z - z * other.y, z * other.x - x * other.z, x * other.y - y * other.x)
    }

    /// Squared Euclidean norm.
    @inlinable @inline(__always)
    public var squaredNorm: Double { x * x + y * y + z * z }

    /// Euclidean norm.
    @inlinable @inline(__always)
    public var norm: Double { squaredNorm.squareRoot() }

    /// The vector scaled to unit length, or `nil` when its norm is zero or not finite.
    @inlinable @inline(__always)
    public var normalized: Vector3? {
        let n = norm
        guard n > 0, n.isFinite else { return nil }
        return self * (1 / n)
    }

    /// True when all three components are finite: `x·0 + y·0 + z·0` is then ±0, and NaN when a
    /// component is infinite or NaN (a few arithmetic instructions instead of three exponent tests).
    @inlinable @inline(__always)
    public var isFinite: Bool { x * 0 + y * 0 + z * 0 == 0 }

    /// The components as an array `[x, y, z]`.
    public var array: [Double] { [x, y, z] }

    public var description: String { "(\(x), \(y), \(z))" }

    @inlinable @inline(__always)
    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable @inline(__always)
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable
    public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable @inline(__always)
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable @inline(__always)
    public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable @inline(__always)
    public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    @inlinable @inline(__always)
    public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    @inlinable @inline(__always)
    public static func -= (a: inout Vector3, b: Vector3) { a = a - b }
    @inlinable @inline(__always)
    public static func *= (a: inout Vector3, s: Double) { a = a * s }
}
