/// A quaternion stored scalar first, `(w, x, y, z)`, multiplied with the Hamilton product.
///
/// As an attitude it is a unit quaternion meaning *earth from sensor*: a vector measured in the
/// sensor frame maps into the earth frame as `v_earth = q ⊗ v_sensor ⊗ q*`
/// (see `docs/Conventions.md`). `q` and `-q` are the same rotation.
@frozen
public struct Quaternion: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Scalar part.
    public var w: Double
    /// First vector component.
    public var x: Double
    /// Second vector component.
    public var y: Double
    /// Third vector component.
    public var z: Double

    /// Creates a quaternion from its components, scalar first.
    @inlinable @inline(__always)
    public init(w: Double, x: Double, y: Double, z: Double) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// Creates a quaternion from a scalar part and a vector part.
    @inlinable @inline(__always)
    public init(scalar: Double, vector: Vector3) {
        self.init(w: scalar, x: vector.x, y: vector.y, z: vector.z)
    }

    /// The identity rotation.
    @inlinable public static var identity: Quaternion { Quaternion(w: 1, x: 0, y: 0, z: 0) }

    /// The vector part `(x, y, z)`.
    @inlinable @inline(__always)
    public var vector: Vector3 { Vector3(x, y, z) }

    /// Components in storage order `[w, x, y, z]`.
    public var array: [Double] { [w, x, y, z] }

    /// Squared norm.
    @inlinable @inline(__always)
    public var squaredNorm: Double { w * w + x * x + y * y + z * z }

    /// Norm.
    @inlinable @inline(__always)
    public var norm: Double { squaredNorm.squareRoot() }

    /// True when all components are finite.
    @inlinable @inline(__always)
    public var isFinite: Bool { w.isFinite && x.isFinite && y.isFinite && z.isFinite }

    /// The conjugate `(w, -x, -y, -z)`: the inverse rotation of a unit quaternion.
    @inlinable @inline(__always)
    public var conjugate: Quaternion { Quaternion(w: w, x: -x, y: -y, z: -z) }

    /// The quaternion scaled to unit norm; the identity when the norm is zero or a component is not
    /// finite. Components of any magnitude work (huge or tiny ones are scaled first).
    @inlinable @inline(__always)
    public var normalized: Quaternion {
        let n2 = squaredNorm
        if n2 > 1e-200 && n2 < 1e200 {
            let s = 1 / n2.squareRoot()
            return Quaternion(w: w * s, x: x * s, y: y * s, z: z * s)
        }
        return rescaledNormalized
    }

    /// The distance of the squared norm from 1 below which ``renormalized`` takes its Newton step.
    @inlinable public static var renormalizationTolerance: Double { 1e-8 }

    /// The unit quaternion, for one that is already nearly unit (a filter's attitude after a step,
    /// a product of unit quaternions): when the squared norm `n²` is closer to 1 than
    /// ``renormalizationTolerance`` (`d = n² − 1`), one Newton step for 1/√n², `s = 3/2 − n²/2`;
    /// the result's norm is then within (3/8)d² of 1 and its squared norm within (3/4)d² (below
    /// 7.5e-17), so it is unit to rounding without a square root or a division on the filter's
    /// critical path. Otherwise ``normalized``.
    @inlinable @inline(__always)
    public var renormalized: Quaternion {
        let n2 = squaredNorm
        guard abs(n2 - 1) < Quaternion.renormalizationTolerance else { return normalized }
        let s = 1.5 - 0.5 * n2
        return Quaternion(w: w * s, x: x * s, y: y * s, z: z * s)
    }

    /// The slow path of ``normalized``: scale by the largest component first.
    @usableFromInline @inline(never)
    var rescaledNormalized: Quaternion {
        let m = Swift.max(Swift.max(abs(w), abs(x)), Swift.max(abs(y), abs(z)))
        guard m > 0, m.isFinite, isFinite else { return .identity }
        let q = self * (1 / m)
        let s = 1 / q.squaredNorm.squareRoot()
        return Quaternion(w: q.w * s, x: q.x * s, y: q.y * s, z: q.z * s)
    }

    /// The norm computed without overflow or underflow for components of any magnitude; infinite
    /// or NaN when a component is.
    @inlinable
    public var robustNorm: Double {
        let m = Swift.max(Swift.max(abs(w), abs(x)), Swift.max(abs(y), abs(z)))
        guard m > 0, m.isFinite else {
            return isFinite ? 0 : (w.isNaN || x.isNaN || y.isNaN || z.isNaN ? .nan : .infinity)
        }
        return m * (self * (1 / m)).squaredNorm.squareRoot()
    }

    /// The representative with a non-negative scalar part (`q` or `-q`).
    @inlinable @inline(__always)
    public var canonical: Quaternion { w < 0 ? -self : self }

    /// Hamilton product `a ⊗ b`: rotate by `b` first, then by `a`.
    @inlinable @inline(__always)
    public static func * (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w)
    }

    /// Negation of every component (the same rotation).
    @inlinable
    public static prefix func - (q: Quaternion) -> Quaternion {
        Quaternion(w: -q.w, x: -q.x, y: -q.y, z: -q.z)
    }

    /// Component-wise sum.
    @inlinable @inline(__always)
    public static func + (a: Quaternion, b: Quaternion) -> Quaternion {
        Quaternion(w: a.w + b.w, x: a.x + b.x, y: a.y + b.y, z: a.z + b.z)
    }

    /// Scaling by a scalar.
    @inlinable @inline(__always)
    public static func * (q: Quaternion, s: Double) -> Quaternion {
        Quaternion(w: q.w * s, x: q.x * s, y: q.y * s, z: q.z * s)
    }

    /// Four-dimensional dot product.
    @inlinable @inline(__always)
    public func dot(_ other: Quaternion) -> Double {
        w * other.w + x * other.x + y * other.y + z * other.z
    }

    /// Rotates a vector: `q ⊗ v ⊗ q*` (sensor to earth for an attitude). Assumes unit norm.
    @inlinable @inline(__always)
    public func rotate(_ v: Vector3) -> Vector3 {
        // v + 2w (u × v) + 2 u × (u × v), with u the vector part.
        let u = Vector3(x, y, z)
        let t = u.cross(v) * 2
        return v + t * w + u.cross(t)
    }

    /// Rotates a vector by the inverse: `q* ⊗ v ⊗ q` (earth to sensor for an attitude).
    @inlinable @inline(__always)
    public func inverseRotate(_ v: Vector3) -> Vector3 {
        let u = Vector3(-x, -y, -z)
        let t = u.cross(v) * 2
        return v + t * w + u.cross(t)
    }

    /// The rotation by `angle` radians about a unit `axis` (right-hand rule).
    @inlinable @inline(__always)
    public init(axis: Vector3, angle: Double) {
        let half = angle / 2
        let s = half.sin
        self.init(w: half.cos, x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// Rotation angle in radians, in `[0, π]`.
    @inlinable @inline(__always)
    public var angle: Double {
        let v = vector.norm
        return 2 * Double.atan2(v, abs(w))
    }

    /// The angle in radians, in `[0, π]`, of the rotation that takes `self` to `other`.
    /// Treats `q` and `-q` as equal.
    @inlinable @inline(__always)
    public func angle(to other: Quaternion) -> Double {
        (conjugate * other).angle
    }

    /// True when `self` and `other` are the same rotation to within `tolerance` radians.
    @inlinable @inline(__always)
    public func isSameRotation(as other: Quaternion, tolerance: Double) -> Bool {
        angle(to: other) <= tolerance
    }

    public var description: String { "Quaternion(w: \(w), x: \(x), y: \(y), z: \(z))" }
}
