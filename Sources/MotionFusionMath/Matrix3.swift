/// A 3×3 matrix of `Double`, stored row-major as three row vectors: the one small-matrix type of
/// the package, for rotations and for per-sample covariance algebra (no allocation, inlined).
///
/// As an attitude it is the rotation *earth from sensor*: `v_earth = R · v_sensor`; its columns are
/// the sensor axes expressed in the earth frame, its rows the earth axes in sensor coordinates.
@frozen
public struct Matrix3: Hashable, Sendable, Codable {
    /// First row.
    public var row0: Vector3
    /// Second row.
    public var row1: Vector3
    /// Third row.
    public var row2: Vector3

    /// Creates a matrix from its rows.
    @inlinable @inline(__always)
    public init(_ row0: Vector3, _ row1: Vector3, _ row2: Vector3) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// Creates a matrix from nine numbers in row-major order.
    @inlinable
    public init(rowMajor m: [Double]) {
        precondition(m.count == 9, "Matrix3 needs 9 elements")
        self.init(Vector3(m[0], m[1], m[2]), Vector3(m[3], m[4], m[5]), Vector3(m[6], m[7], m[8]))
    }

    /// The zero matrix.
    @inlinable public static var zero: Matrix3 { Matrix3(.zero, .zero, .zero) }
    /// The identity matrix.
    @inlinable public static var identity: Matrix3 { Matrix3(.unitX, .unitY, .unitZ) }

    /// `s · I`.
    @inlinable @inline(__always)
    public static func diagonal(_ s: Double) -> Matrix3 {
        Matrix3(Vector3(s, 0, 0), Vector3(0, s, 0), Vector3(0, 0, s))
    }

    /// `diag(d)`.
    @inlinable @inline(__always)
    public static func diagonal(_ d: Vector3) -> Matrix3 {
        Matrix3(Vector3(d.x, 0, 0), Vector3(0, d.y, 0), Vector3(0, 0, d.z))
    }

    /// Outer product `u vᵀ`.
    @inlinable @inline(__always)
    public static func outer(_ u: Vector3, _ v: Vector3) -> Matrix3 {
        Matrix3(v * u.x, v * u.y, v * u.z)
    }

    /// The skew-symmetric cross-product matrix: `[v]× · w = v × w`.
    @inlinable @inline(__always)
    public static func cross(_ v: Vector3) -> Matrix3 {
        Matrix3(Vector3(0, -v.z, v.y), Vector3(v.z, 0, -v.x), Vector3(-v.y, v.x, 0))
    }

    /// Element at `row`, `column` (0-based).
    @inlinable
    public subscript(row: Int, column: Int) -> Double {
        get {
            switch row {
            case 0: return row0[column]
            case 1: return row1[column]
            default: return row2[column]
            }
        }
        set {
            switch row {
            case 0: row0[column] = newValue
            case 1: row1[column] = newValue
            default: row2[column] = newValue
            }
        }
    }

    /// Elements in row-major order.
    public var rowMajor: [Double] { row0.array + row1.array + row2.array }

    /// The transpose (the inverse of a rotation).
    @inlinable @inline(__always)
    public var transposed: Matrix3 {
        Matrix3(
            Vector3(row0.x, row1.x, row2.x), Vector3(row0.y, row1.y, row2.y), Vector3(row0.z, row1.z, row2.z))
    }

    /// The trace.
    @inlinable @inline(__always)
    public var trace: Double { row0.x + row1.y + row2.z }

    /// The diagonal as a vector.
    @inlinable @inline(__always)
    public var diagonalVector: Vector3 { Vector3(row0.x, row1.y, row2.z) }

    /// True when every element is finite.
    @inlinable @inline(__always)
    public var isFinite: Bool { row0.isFinite && row1.isFinite && row2.isFinite }

    /// `(A + Aᵀ) / 2`.
    @inlinable @inline(__always)
    public var symmetrized: Matrix3 {
        let a = (row0.y + row1.x) / 2
        let b = (row0.z + row2.x) / 2
        let c = (row1.z + row2.y) / 2
        return Matrix3(Vector3(row0.x, a, b), Vector3(a, row1.y, c), Vector3(b, c, row2.z))
    }

    /// Determinant.
    @inlinable @inline(__always)
    public var determinant: Double { row0.dot(row1.cross(row2)) }

    /// The inverse by cofactors, or `nil` when the matrix is singular to working precision.
    @inlinable @inline(__always)
    public var inverse: Matrix3? {
        let c0 = row1.cross(row2)
        let c1 = row2.cross(row0)
        let c2 = row0.cross(row1)
        let det = row0.dot(c0)
        let scale = max(row0.norm * row1.norm * row2.norm, .leastNormalMagnitude)
        guard det.isFinite, abs(det) > 1e-14 * scale else { return nil }
        // The columns of the inverse are the cofactor rows divided by the determinant.
        return Matrix3(c0, c1, c2).transposed * (1 / det)
    }

    @inlinable @inline(__always)
    public static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(a.row0 + b.row0, a.row1 + b.row1, a.row2 + b.row2)
    }
    @inlinable @inline(__always)
    public static func - (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(a.row0 - b.row0, a.row1 - b.row1, a.row2 - b.row2)
    }
    @inlinable @inline(__always)
    public static func * (a: Matrix3, s: Double) -> Matrix3 { Matrix3(a.row0 * s, a.row1 * s, a.row2 * s) }
    @inlinable @inline(__always)
    public static func += (a: inout Matrix3, b: Matrix3) { a = a + b }
    @inlinable @inline(__always)
    public static func -= (a: inout Matrix3, b: Matrix3) { a = a - b }

    /// Matrix–vector product.
    @inlinable @inline(__always)
    public static func * (m: Matrix3, v: Vector3) -> Vector3 { Vector3(m.row0.dot(v), m.row1.dot(v), m.row2.dot(v)) }

    /// Matrix product.
    @inlinable @inline(__always)
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(
            b.row0 * a.row0.x + b.row1 * a.row0.y + b.row2 * a.row0.z,
            b.row0 * a.row1.x + b.row1 * a.row1.y + b.row2 * a.row1.z,
            b.row0 * a.row2.x + b.row1 * a.row2.y + b.row2 * a.row2.z)
    }

    /// The rotation matrix of a unit quaternion.
    @inlinable @inline(__always)
    public init(_ q: Quaternion) {
        let (w, x, y, z) = (q.w, q.x, q.y, q.z)
        self.init(
            Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }
}

extension Quaternion {
    /// The unit quaternion of a rotation matrix (Shepperd's method: numerically stable for every
    /// rotation). The result has a non-negative scalar part.
    @inlinable @inline(__always)
    public init(_ m: Matrix3) {
        let (m00, m01, m02) = (m.row0.x, m.row0.y, m.row0.z)
        let (m10, m11, m12) = (m.row1.x, m.row1.y, m.row1.z)
        let (m20, m21, m22) = (m.row2.x, m.row2.y, m.row2.z)
        let trace = m00 + m11 + m22
        var q: Quaternion
        if trace >= m00 && trace >= m11 && trace >= m22 {
            let s = 2 * (1 + trace).squareRoot()
            q = Quaternion(w: s / 4, x: (m21 - m12) / s, y: (m02 - m20) / s, z: (m10 - m01) / s)
        } else if m00 >= m11 && m00 >= m22 {
            let s = 2 * (1 + m00 - m11 - m22).squareRoot()
            q = Quaternion(w: (m21 - m12) / s, x: s / 4, y: (m01 + m10) / s, z: (m02 + m20) / s)
        } else if m11 >= m22 {
            let s = 2 * (1 + m11 - m00 - m22).squareRoot()
            q = Quaternion(w: (m02 - m20) / s, x: (m01 + m10) / s, y: s / 4, z: (m12 + m21) / s)
        } else {
            let s = 2 * (1 + m22 - m00 - m11).squareRoot()
            q = Quaternion(w: (m10 - m01) / s, x: (m02 + m20) / s, y: (m12 + m21) / s, z: s / 4)
        }
        self = q.normalized.canonical
    }
}
