import MotionFusionMath

/// A general 3×3 matrix of fixed size, stored as three rows: the hand-written small-matrix kernel
/// for per-sample covariance algebra (no allocation, fully inlined). Larger problems use ``Matrix``.
@frozen
public struct Matrix3: Hashable, Sendable {
    /// First row.
    public var r0: Vector3
    /// Second row.
    public var r1: Vector3
    /// Third row.
    public var r2: Vector3

    /// A matrix from its rows.
    @inlinable @inline(__always)
    public init(_ r0: Vector3, _ r1: Vector3, _ r2: Vector3) {
        self.r0 = r0
        self.r1 = r1
        self.r2 = r2
    }

    /// The zero matrix.
    public static let zero = Matrix3(.zero, .zero, .zero)
    /// The identity.
    public static let identity = Matrix3(.unitX, .unitY, .unitZ)

    /// `s · I`.
    @inlinable @inline(__always)
    public static func diagonal(_ s: Double) -> Matrix3 {
        Matrix3(Vector3(s, 0, 0), Vector3(0, s, 0), Vector3(0, 0, s))
    }

    /// The rotation matrix as a general matrix.
    @inlinable @inline(__always)
    public init(_ m: RotationMatrix) { self.init(m.row0, m.row1, m.row2) }

    /// Outer product `u vᵀ`.
    @inlinable @inline(__always)
    public static func outer(_ u: Vector3, _ v: Vector3) -> Matrix3 {
        Matrix3(v * u.x, v * u.y, v * u.z)
    }

    /// Element (row, column).
    @inlinable
    public subscript(row: Int, column: Int) -> Double {
        get {
            switch row {
            case 0: return r0[column]
            case 1: return r1[column]
            default: return r2[column]
            }
        }
        set {
            switch row {
            case 0: r0[column] = newValue
            case 1: r1[column] = newValue
            default: r2[column] = newValue
            }
        }
    }

    /// The transpose.
    @inlinable @inline(__always)
    public var transposed: Matrix3 {
        Matrix3(Vector3(r0.x, r1.x, r2.x), Vector3(r0.y, r1.y, r2.y), Vector3(r0.z, r1.z, r2.z))
    }

    /// The trace.
    @inlinable @inline(__always)
    public var trace: Double { r0.x + r1.y + r2.z }

    /// The diagonal as a vector.
    @inlinable @inline(__always)
    public var diagonalVector: Vector3 { Vector3(r0.x, r1.y, r2.z) }

    /// True when every element is finite.
    @inlinable @inline(__always)
    public var isFinite: Bool { r0.isFinite && r1.isFinite && r2.isFinite }

    /// `(A + Aᵀ) / 2`.
    @inlinable @inline(__always)
    public var symmetrized: Matrix3 {
        let a = (r0.y + r1.x) / 2
        let b = (r0.z + r2.x) / 2
        let c = (r1.z + r2.y) / 2
        return Matrix3(Vector3(r0.x, a, b), Vector3(a, r1.y, c), Vector3(b, c, r2.z))
    }

    @inlinable @inline(__always)
    public static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(a.r0 + b.r0, a.r1 + b.r1, a.r2 + b.r2) }
    @inlinable @inline(__always)
    public static func - (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(a.r0 - b.r0, a.r1 - b.r1, a.r2 - b.r2) }
    @inlinable @inline(__always)
    public static func * (a: Matrix3, s: Double) -> Matrix3 { Matrix3(a.r0 * s, a.r1 * s, a.r2 * s) }
    @inlinable @inline(__always)
    public static func += (a: inout Matrix3, b: Matrix3) { a = a + b }
    @inlinable @inline(__always)
    public static func -= (a: inout Matrix3, b: Matrix3) { a = a - b }

    /// Matrix–vector product.
    @inlinable @inline(__always)
    public static func * (a: Matrix3, v: Vector3) -> Vector3 { Vector3(a.r0.dot(v), a.r1.dot(v), a.r2.dot(v)) }

    /// Matrix product.
    @inlinable @inline(__always)
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(
            b.r0 * a.r0.x + b.r1 * a.r0.y + b.r2 * a.r0.z,
            b.r0 * a.r1.x + b.r1 * a.r1.y + b.r2 * a.r1.z,
            b.r0 * a.r2.x + b.r1 * a.r2.y + b.r2 * a.r2.z)
    }

    /// Determinant.
    @inlinable @inline(__always)
    public var determinant: Double { r0.dot(r1.cross(r2)) }

    /// The inverse by cofactors, or `nil` when the matrix is singular to working precision.
    @inlinable @inline(__always)
    public var inverse: Matrix3? {
        let c0 = r1.cross(r2)
        let c1 = r2.cross(r0)
        let c2 = r0.cross(r1)
        let det = r0.dot(c0)
        let scale = max(r0.norm * r1.norm * r2.norm, .leastNormalMagnitude)
        guard det.isFinite, abs(det) > 1e-14 * scale else { return nil }
        // The columns of the inverse are the cofactor rows divided by the determinant.
        return Matrix3(c0, c1, c2).transposed * (1 / det)
    }

    /// The same matrix as a dense ``Matrix``.
    public var dense: Matrix {
        Matrix([[r0.x, r0.y, r0.z], [r1.x, r1.y, r1.z], [r2.x, r2.y, r2.z]])
    }
}
