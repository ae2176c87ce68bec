import MotionFusionMath

/// A dense real matrix stored column-major, the layout BLAS and LAPACK use.
///
/// Sizes are checked with `precondition` (a size mismatch is a programming error); numerical
/// failures such as a matrix that is not positive definite throw ``LinearAlgebraError``.
public struct Matrix: Hashable, Sendable, CustomStringConvertible {
    /// Number of rows.
    public let rows: Int
    /// Number of columns.
    public let columns: Int
    /// Elements in column-major order: element (r, c) is at `r + c * rows`.
    public var storage: [Double]

    /// A `rows × columns` matrix filled with `value`.
    public init(rows: Int, columns: Int, repeating value: Double = 0) {
        precondition(rows >= 0 && columns >= 0, "matrix dimensions must be non-negative")
        self.rows = rows
        self.columns = columns
        self.storage = [Double](repeating: value, count: rows * columns)
    }

    /// A matrix from column-major storage.
    public init(rows: Int, columns: Int, columnMajor: [Double]) {
        precondition(columnMajor.count == rows * columns, "storage size must be rows × columns")
        self.rows = rows
        self.columns = columns
        self.storage = columnMajor
    }

    /// A matrix from a list of rows (handy in tests and small literals).
    public init(_ rowList: [[Double]]) {
        let r = rowList.count
        let c = rowList.first?.count ?? 0
        precondition(rowList.allSatisfy { $0.count == c }, "all rows must have the same length")
        self.init(rows: r, columns: c)
        for i in 0..<r { for j in 0..<c { self[i, j] = rowList[i][j] } }
    }

    /// The `n × n` identity.
    public static func identity(_ n: Int) -> Matrix {
        var m = Matrix(rows: n, columns: n)
        for i in 0..<n { m[i, i] = 1 }
        return m
    }

    /// A column vector (n × 1).
    public init(column: [Double]) {
        self.init(rows: column.count, columns: 1, columnMajor: column)
    }

    /// Element at row `r`, column `c`.
    @inlinable
    public subscript(r: Int, c: Int) -> Double {
        get { storage[r + c * rows] }
        set { storage[r + c * rows] = newValue }
    }

    /// A 3×3 matrix as a dense matrix.
    public init(_ m: Matrix3) {
        self.init([m.row0.array, m.row1.array, m.row2.array])
    }

    /// True for a square matrix.
    public var isSquare: Bool { rows == columns }

    /// The transpose.
    public var transposed: Matrix {
        var t = Matrix(rows: columns, columns: rows)
        for c in 0..<columns { for r in 0..<rows { t[c, r] = self[r, c] } }
        return t
    }

    /// Largest absolute element difference to `other` (same shape required).
    public func maxAbsDifference(_ other: Matrix) -> Double {
        precondition(rows == other.rows && columns == other.columns, "shape mismatch")
        var m = 0.0
        for i in storage.indices { m = Swift.max(m, abs(storage[i] - other.storage[i])) }
        return m
    }

    /// Element-wise sum.
    public static func + (a: Matrix, b: Matrix) -> Matrix {
        precondition(a.rows == b.rows && a.columns == b.columns, "shape mismatch")
        var c = a
        for i in c.storage.indices { c.storage[i] += b.storage[i] }
        return c
    }

    /// Element-wise difference.
    public static func - (a: Matrix, b: Matrix) -> Matrix {
        precondition(a.rows == b.rows && a.columns == b.columns, "shape mismatch")
        var c = a
        for i in c.storage.indices { c.storage[i] -= b.storage[i] }
        return c
    }

    /// Scaling.
    public static func * (a: Matrix, s: Double) -> Matrix {
        var c = a
        for i in c.storage.indices { c.storage[i] *= s }
        return c
    }

    public var description: String {
        (0..<rows).map { r in (0..<columns).map { c in "\(self[r, c])" }.joined(separator: " ") }
            .joined(separator: "\n")
    }
}

/// Typed failures of the linear-algebra layer, carrying LAPACK's `info` where it has one.
public enum LinearAlgebraError: Error, Equatable, CustomStringConvertible {
    /// Cholesky factorisation failed: the leading minor of this order is not positive definite.
    case notPositiveDefinite(order: Int)
    /// A least-squares or linear system is singular or rank deficient (LAPACK info > 0).
    case singular(routine: String, info: Int)
    /// An iterative routine (eigen or singular value decomposition) did not converge.
    case noConvergence(routine: String, info: Int)
    /// LAPACK rejected an argument (info < 0): a bug in this layer, reported rather than trapped.
    case illegalArgument(routine: String, argument: Int)
    /// The input contains NaN or infinity.
    case nonFinite(routine: String)
    /// OpenBLAS or LAPACKE could not be loaded; the message says which package to install.
    case unavailable(String)

    public var description: String {
        switch self {
        case .notPositiveDefinite(let order):
            return "matrix is not positive definite (leading minor of order \(order) is not positive)"
        case .singular(let routine, let info):
            return "\(routine): matrix is singular or rank deficient (info = \(info))"
        case .noConvergence(let routine, let info):
            return "\(routine): did not converge (info = \(info))"
        case .illegalArgument(let routine, let argument):
            return "\(routine): illegal value in argument \(argument)"
        case .nonFinite(let routine):
            return "\(routine): input contains NaN or infinity"
        case .unavailable(let message):
            return message
        }
    }
}
