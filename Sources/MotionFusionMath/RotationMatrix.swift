/// A 3×3 matrix stored row-major as three row vectors; as an attitude, the rotation *earth from
/// sensor*: `v_earth = R · v_sensor`. Its columns are the sensor axes expressed in the earth frame.
@frozen
public struct RotationMatrix: Hashable, Sendable {
    /// First row.
    public var row0: Vector3
    /// Second row.
    public var row1: Vector3
    /// Third row.
    public var row2: Vector3

    /// Creates a matrix from its rows.
    @inlinable @inline(__always)
    public init(row0: Vector3, row1: Vector3, row2: Vector3) {
        self.row0 = row0
        self.row1 = row1
        self.row2 = row2
    }

    /// Creates a matrix from nine numbers in row-major order.
    @inlinable @inline(__always)
    public init(rowMajor m: [Double]) {
        precondition(m.count == 9, "RotationMatrix needs 9 elements")
        self.init(
            row0: Vector3(m[0], m[1], m[2]), row1: Vector3(m[3], m[4], m[5]),
            row2: Vector3(m[6], m[7], m[8]))
    }

    /// The identity matrix.
    public static let identity = RotationMatrix(row0: .unitX, row1: .unitY, row2: .unitZ)

    /// Element at `row`, `column` (0-based).
    @inlinable
    public subscript(row: Int, column: Int) -> Double {
        switch row {
        case 0: return row0[column]
        case 1: return row1[column]
        default: return row2[column]
        }
    }

    /// Elements in row-major order.
    public var rowMajor: [Double] { row0.array + row1.array + row2.array }

    /// The transpose, which is the inverse of a rotation.
    @inlinable @inline(__always)
    public var transposed: RotationMatrix {
        RotationMatrix(
            row0: Vector3(row0.x, row1.x, row2.x), row1: Vector3(row0.y, row1.y, row2.y),
            row2: Vector3(row0.z, row1.z, row2.z))
    }

    /// Matrix–vector product.
    @inlinable @inline(__always)
    public static func * (m: RotationMatrix, v: Vector3) -> Vector3 {
        Vector3(m.row0.dot(v), m.row1.dot(v), m.row2.dot(v))
    }

    /// Matrix–matrix product.
    @inlinable @inline(__always)
    public static func * (a: RotationMatrix, b: RotationMatrix) -> RotationMatrix {
        let bt = b.transposed
        return RotationMatrix(
            row0: Vector3(a.row0.dot(bt.row0), a.row0.dot(bt.row1), a.row0.dot(bt.row2)),
            row1: Vector3(a.row1.dot(bt.row0), a.row1.dot(bt.row1), a.row1.dot(bt.row2)),
            row2: Vector3(a.row2.dot(bt.row0), a.row2.dot(bt.row1), a.row2.dot(bt.row2)))
    }

    /// Determinant.
    @inlinable @inline(__always)
    public var determinant: Double { row0.dot(row1.cross(row2)) }

    /// The rotation matrix of a unit quaternion.
    @inlinable @inline(__always)
    public init(_ q: Quaternion) {
        let (w, x, y, z) = (q.w, q.x, q.y, q.z)
        self.init(
            row0: Vector3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            row1: Vector3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            row2: Vector3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }
}

extension Quaternion {
    /// The unit quaternion of a rotation matrix (Shepperd's method: numerically stable for every
    /// rotation). The result has a non-negative scalar part.
    @inlinable @inline(__always)
    public init(_ m: RotationMatrix) {
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
