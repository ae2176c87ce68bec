import CLAPACK
import Synchronization

/// Dense operations over LAPACKE (and CBLAS), with hand-written kernels for small sizes where a
/// library call's fixed cost dominates. This is the only module that touches the C libraries, and
/// it loads them only when a problem needs them (see `LAPACKLibrary`).
public enum LinearAlgebra {
    /// Largest dimension multiplied by the hand-written kernel; BLAS above. Measured in the first
    /// release (`docs/Benchmarks.md`): the hand product wins up to 3×3, BLAS from 4×4.
    public static let handMultiplyMaxDimension = 3
    /// Largest dimension factored (Cholesky) and solved by the hand-written kernel; LAPACK above.
    /// It won up to 12×12, LAPACK from 16×16.
    public static let handFactorMaxDimension = 12

    /// Whether OpenBLAS is loaded in this process. It is loaded by the first call that needs it.
    public static var isLibraryLoaded: Bool { LAPACKLibrary.isLoaded }

    /// Loads OpenBLAS and LAPACKE now (normally they load on first use). Throws when they are not
    /// installed.
    public static func load() throws { _ = try LAPACKLibrary.get() }

    /// Calls made into LAPACK's band routines (`dpbtrf`, `dpbtrs`, `dtbtrs`) by this
    /// process so far: lets a test show that a computation reached the banded solver.
    public static var bandedCallCount: Int { bandedCalls.load(ordering: .relaxed) }
    static let bandedCalls = Atomic<Int>(0)
    static func countBandedCall() { bandedCalls.add(1, ordering: .relaxed) }

    /// `a · x` for a vector `x`.
    public static func multiply(_ a: Matrix, vector x: [Double]) -> [Double] {
        precondition(a.columns == x.count, "matrix columns must equal vector length")
        var y = [Double](repeating: 0, count: a.rows)
        if a.rows == 0 { return y }
        if a.rows > handMultiplyMaxDimension || a.columns > handMultiplyMaxDimension,
            let lib = try? LAPACKLibrary.get()
        {
            lib.dgemv(
                CblasColMajor, CblasNoTrans, Int32(a.rows), Int32(a.columns), 1, a.storage,
                Int32(max(1, a.rows)), x, 1, 0, &y, 1)
            return y
        }
        for j in 0..<a.columns {
            let xj = x[j]
            for i in 0..<a.rows { y[i] += a.storage[i + j * a.rows] * xj }
        }
        return y
    }

    // MARK: Cholesky

    /// The lower Cholesky factor `L` with `a = L · Lᵀ` of a symmetric positive definite matrix.
    /// Only the lower triangle of `a` is read.
    public static func cholesky(_ a: Matrix) throws -> Matrix {
        precondition(a.isSquare, "Cholesky needs a square matrix")
        guard a.storage.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "potrf") }
        let n = a.rows
        var l = a
        for j in 0..<n { for i in 0..<j { l[i, j] = 0 } }
        if n == 0 { return l }
        if n <= handFactorMaxDimension {
            for j in 0..<n {
                var d = l[j, j]
                for k in 0..<j { d -= l[j, k] * l[j, k] }
                guard d > 0 else { throw LinearAlgebraError.notPositiveDefinite(order: j + 1) }
                let ljj = d.squareRoot()
                l[j, j] = ljj
                for i in (j + 1)..<n {
                    var s = l[i, j]
                    for k in 0..<j { s -= l[i, k] * l[j, k] }
                    l[i, j] = s / ljj
                }
            }
            return l
        }
        let info = try LAPACKLibrary.get().dpotrf(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(n), &l.storage, Int32(n))
        try check(info, routine: "dpotrf", positiveMeans: { .notPositiveDefinite(order: Int($0)) })
        return l
    }

    /// Solves `a · x = b` for symmetric positive definite `a` (b may have several columns).
    public static func solveSPD(_ a: Matrix, _ b: Matrix) throws -> Matrix {
        precondition(a.isSquare && a.rows == b.rows, "A must be n × n and B n × k")
        let l = try cholesky(a)
        return try solveWithCholesky(l, b)
    }

    /// Solves `L Lᵀ x = b` given the lower Cholesky factor `L`.
    public static func solveWithCholesky(_ l: Matrix, _ b: Matrix) throws -> Matrix {
        let n = l.rows
        var x = b
        if n == 0 { return x }
        if n <= handFactorMaxDimension {
            for c in 0..<b.columns {
                for i in 0..<n {
                    var s = x[i, c]
                    for k in 0..<i { s -= l[i, k] * x[k, c] }
                    x[i, c] = s / l[i, i]
                }
                for i in stride(from: n - 1, through: 0, by: -1) {
                    var s = x[i, c]
                    for k in (i + 1)..<n { s -= l[k, i] * x[k, c] }
                    x[i, c] = s / l[i, i]
                }
            }
            return x
        }
        let info = try LAPACKLibrary.get().dpotrs(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(n), Int32(b.columns), l.storage, Int32(n),
            &x.storage, Int32(n))
        try check(info, routine: "dpotrs", positiveMeans: { .singular(routine: "dpotrs", info: Int($0)) })
        return x
    }

    // MARK: Eigen, least squares

    /// Eigenvalues (ascending) and orthonormal eigenvectors (as matrix columns) of a symmetric
    /// matrix (LAPACK `dsyevd`). Only the lower triangle is read.
    public static func symmetricEigen(_ a: Matrix) throws -> (values: [Double], vectors: Matrix) {
        precondition(a.isSquare, "eigendecomposition needs a square matrix")
        guard a.storage.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "dsyevd") }
        let n = a.rows
        var v = a
        var w = [Double](repeating: 0, count: n)
        if n == 0 { return (w, v) }
        let info = try LAPACKLibrary.get().dsyevd(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "V")), Int8(UInt8(ascii: "L")), Int32(n), &v.storage,
            Int32(n), &w)
        try check(info, routine: "dsyevd", positiveMeans: { .noConvergence(routine: "dsyevd", info: Int($0)) })
        return (w, v)
    }

    /// Minimum-norm least-squares solution of `a · x ≈ b` for a full-rank `a` with at least as many
    /// rows as columns (LAPACK `dgels`, QR based). Throws ``LinearAlgebraError/singular(routine:info:)``
    /// when `a` is rank deficient.
    public static func leastSquares(_ a: Matrix, _ b: Matrix) throws -> Matrix {
        precondition(a.rows == b.rows, "A and B need the same number of rows")
        precondition(a.rows >= a.columns, "least squares needs rows ≥ columns")
        guard a.storage.allSatisfy(\.isFinite), b.storage.allSatisfy(\.isFinite) else {
            throw LinearAlgebraError.nonFinite(routine: "dgels")
        }
        var aa = a
        var bb = b
        let info = try LAPACKLibrary.get().dgels(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "N")), Int32(a.rows), Int32(a.columns), Int32(b.columns),
            &aa.storage, Int32(max(1, a.rows)), &bb.storage, Int32(max(1, b.rows)))
        try check(info, routine: "dgels", positiveMeans: { .singular(routine: "dgels", info: Int($0)) })
        var x = Matrix(rows: a.columns, columns: b.columns)
        for c in 0..<b.columns { for r in 0..<a.columns { x[r, c] = bb[r, c] } }
        return x
    }

    static func check(_ info: Int32, routine: String, positiveMeans: (Int32) -> LinearAlgebraError) throws {
        if info < 0 { throw LinearAlgebraError.illegalArgument(routine: routine, argument: Int(-info)) }
        if info > 0 { throw positiveMeans(info) }
    }
}
