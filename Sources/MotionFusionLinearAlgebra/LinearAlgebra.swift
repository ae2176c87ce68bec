import CLAPACK

/// Which implementation runs a dense operation.
public enum LinearAlgebraBackend: Sendable {
    /// Hand-written kernels below ``LinearAlgebra/handKernelMaxDimension``, BLAS/LAPACK above.
    case automatic
    /// Always CBLAS/LAPACKE.
    case blas
    /// Always the hand-written Swift kernel (where one exists).
    case handWritten
}

/// Dense operations over OpenBLAS (CBLAS) and LAPACKE, with hand-written kernels for small sizes
/// where a library call's fixed cost (about 90 ns) dominates. This is the only module that touches
/// the C libraries.
public enum LinearAlgebra {
    /// Largest dimension for which ``LinearAlgebraBackend/automatic`` multiplies with the
    /// hand-written kernel. Measured by `Benchmarks/run.sh --only crossover` (see
    /// `docs/Benchmarks.md`): the hand product wins up to 3×3, BLAS from 4×4.
    public static let handMultiplyMaxDimension = 3
    /// Largest dimension for which ``LinearAlgebraBackend/automatic`` factors (Cholesky) and solves
    /// with the hand-written kernel: it wins up to 12×12, LAPACK from 16×16.
    public static let handFactorMaxDimension = 12

    /// Pins OpenBLAS to one thread (its threads slow the small problems this package solves).
    /// Runs once, before the first library call; set `MOTIONFUSION_BLAS_THREADS` to override.
    static let configured: Bool = {
        var threads: Int32 = 1
        if let text = getenv("MOTIONFUSION_BLAS_THREADS"), let n = Int32(String(cString: text)), n > 0 {
            threads = n
        }
        openblas_set_num_threads(threads)
        return true
    }()

    @inline(__always)
    static func ensureConfigured() { _ = configured }

    /// Applies the thread setting now. OpenBLAS starts its worker threads when the library loads;
    /// programs call this first so idle workers do not compete with the filters for the cores.
    public static func configure() { ensureConfigured() }

    static func useHand(_ backend: LinearAlgebraBackend, limit: Int, _ dims: Int...) -> Bool {
        switch backend {
        case .handWritten: return true
        case .blas: return false
        case .automatic: return dims.allSatisfy { $0 <= limit }
        }
    }

    // MARK: Products

    /// `op(a) · op(b)`, with `op` the transpose when the flag is set.
    public static func multiply(
        _ a: Matrix, _ b: Matrix, transposeA: Bool = false, transposeB: Bool = false,
        backend: LinearAlgebraBackend = .automatic
    ) -> Matrix {
        let m = transposeA ? a.columns : a.rows
        let k = transposeA ? a.rows : a.columns
        let kb = transposeB ? b.columns : b.rows
        let n = transposeB ? b.rows : b.columns
        precondition(k == kb, "inner dimensions differ: \(k) vs \(kb)")
        var c = Matrix(rows: m, columns: n)
        if m == 0 || n == 0 { return c }
        if useHand(backend, limit: handMultiplyMaxDimension, m, n, k) {
            a.storage.withUnsafeBufferPointer { pa in
                b.storage.withUnsafeBufferPointer { pb in
                    c.storage.withUnsafeMutableBufferPointer { pc in
                        for j in 0..<n {
                            for i in 0..<m {
                                var s = 0.0
                                for l in 0..<k {
                                    let av = transposeA ? pa[l + i * a.rows] : pa[i + l * a.rows]
                                    let bv = transposeB ? pb[j + l * b.rows] : pb[l + j * b.rows]
                                    s += av * bv
                                }
                                pc[i + j * m] = s
                            }
                        }
                    }
                }
            }
            return c
        }
        ensureConfigured()
        cblas_dgemm(
            CblasColMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
            Int32(m), Int32(n), Int32(k), 1, a.storage, Int32(max(1, a.rows)), b.storage,
            Int32(max(1, b.rows)), 0, &c.storage, Int32(max(1, m)))
        return c
    }

    /// `a · x` for a vector `x`.
    public static func multiply(
        _ a: Matrix, vector x: [Double], backend: LinearAlgebraBackend = .automatic
    ) -> [Double] {
        precondition(a.columns == x.count, "matrix columns must equal vector length")
        var y = [Double](repeating: 0, count: a.rows)
        if a.rows == 0 { return y }
        if useHand(backend, limit: handMultiplyMaxDimension, a.rows, a.columns) {
            for j in 0..<a.columns {
                let xj = x[j]
                for i in 0..<a.rows { y[i] += a.storage[i + j * a.rows] * xj }
            }
            return y
        }
        ensureConfigured()
        cblas_dgemv(
            CblasColMajor, CblasNoTrans, Int32(a.rows), Int32(a.columns), 1, a.storage,
            Int32(max(1, a.rows)), x, 1, 0, &y, 1)
        return y
    }

    /// Symmetric rank-k update `alpha · a · aᵀ + beta · c`, full symmetric result.
    public static func symmetricRankK(
        _ a: Matrix, alpha: Double = 1, beta: Double = 0, adding c: Matrix? = nil,
        backend: LinearAlgebraBackend = .automatic
    ) -> Matrix {
        let n = a.rows
        var out = c ?? Matrix(rows: n, columns: n)
        precondition(out.rows == n && out.columns == n, "C must be n × n with n = rows of A")
        if n == 0 { return out }
        if useHand(backend, limit: handMultiplyMaxDimension, n, a.columns) {
            for j in 0..<n {
                for i in j..<n {
                    var s = 0.0
                    for l in 0..<a.columns { s += a[i, l] * a[j, l] }
                    let v = alpha * s + beta * out[i, j]
                    out[i, j] = v
                    out[j, i] = v
                }
            }
            return out
        }
        ensureConfigured()
        cblas_dsyrk(
            CblasColMajor, CblasLower, CblasNoTrans, Int32(n), Int32(a.columns), alpha, a.storage,
            Int32(max(1, n)), beta, &out.storage, Int32(n))
        for j in 0..<n { for i in (j + 1)..<n { out[j, i] = out[i, j] } }
        return out
    }

    // MARK: Cholesky

    /// The lower Cholesky factor `L` with `a = L · Lᵀ` of a symmetric positive definite matrix.
    /// Only the lower triangle of `a` is read.
    public static func cholesky(_ a: Matrix, backend: LinearAlgebraBackend = .automatic) throws -> Matrix {
        precondition(a.isSquare, "Cholesky needs a square matrix")
        guard a.storage.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "potrf") }
        let n = a.rows
        var l = a
        for j in 0..<n { for i in 0..<j { l[i, j] = 0 } }
        if n == 0 { return l }
        if useHand(backend, limit: handFactorMaxDimension, n) {
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
        ensureConfigured()
        let info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(n), &l.storage, Int32(n))
        try check(info, routine: "dpotrf", positiveMeans: { .notPositiveDefinite(order: Int($0)) })
        return l
    }

    /// Solves `a · x = b` for symmetric positive definite `a` (b may have several columns).
    public static func solveSPD(
        _ a: Matrix, _ b: Matrix, backend: LinearAlgebraBackend = .automatic
    ) throws -> Matrix {
        precondition(a.isSquare && a.rows == b.rows, "A must be n × n and B n × k")
        let l = try cholesky(a, backend: backend)
        return solveWithCholesky(l, b, backend: backend)
    }

    /// Solves `L Lᵀ x = b` given the lower Cholesky factor `L`.
    public static func solveWithCholesky(
        _ l: Matrix, _ b: Matrix, backend: LinearAlgebraBackend = .automatic
    ) -> Matrix {
        let n = l.rows
        var x = b
        if n == 0 { return x }
        if useHand(backend, limit: handFactorMaxDimension, n) {
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
        ensureConfigured()
        _ = LAPACKE_dpotrs(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(n), Int32(b.columns), l.storage, Int32(n),
            &x.storage, Int32(n))
        return x
    }

    // MARK: Eigen, least squares, SVD

    /// Eigenvalues (ascending) and orthonormal eigenvectors (as matrix columns) of a symmetric
    /// matrix (LAPACK `dsyevd`). Only the lower triangle is read.
    public static func symmetricEigen(_ a: Matrix) throws -> (values: [Double], vectors: Matrix) {
        precondition(a.isSquare, "eigendecomposition needs a square matrix")
        guard a.storage.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "dsyevd") }
        let n = a.rows
        var v = a
        var w = [Double](repeating: 0, count: n)
        if n == 0 { return (w, v) }
        ensureConfigured()
        let info = LAPACKE_dsyevd(
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
        ensureConfigured()
        let info = LAPACKE_dgels(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "N")), Int32(a.rows), Int32(a.columns), Int32(b.columns),
            &aa.storage, Int32(max(1, a.rows)), &bb.storage, Int32(max(1, b.rows)))
        try check(info, routine: "dgels", positiveMeans: { .singular(routine: "dgels", info: Int($0)) })
        var x = Matrix(rows: a.columns, columns: b.columns)
        for c in 0..<b.columns { for r in 0..<a.columns { x[r, c] = bb[r, c] } }
        return x
    }

    /// Thin singular value decomposition `a = U · diag(s) · Vᵀ` (LAPACK `dgesdd`), singular values
    /// in descending order.
    public static func svd(_ a: Matrix) throws -> (u: Matrix, singularValues: [Double], vt: Matrix) {
        guard a.storage.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "dgesdd") }
        let m = a.rows
        let n = a.columns
        let k = min(m, n)
        var aa = a
        var s = [Double](repeating: 0, count: k)
        var u = Matrix(rows: m, columns: k)
        var vt = Matrix(rows: k, columns: n)
        if k == 0 { return (u, s, vt) }
        ensureConfigured()
        let info = LAPACKE_dgesdd(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "S")), Int32(m), Int32(n), &aa.storage, Int32(m), &s,
            &u.storage, Int32(m), &vt.storage, Int32(k))
        try check(info, routine: "dgesdd", positiveMeans: { .noConvergence(routine: "dgesdd", info: Int($0)) })
        return (u, s, vt)
    }

    static func check(
        _ info: Int32, routine: String, positiveMeans: (Int32) -> LinearAlgebraError
    ) throws {
        if info < 0 { throw LinearAlgebraError.illegalArgument(routine: routine, argument: Int(-info)) }
        if info > 0 { throw positiveMeans(info) }
    }
}
