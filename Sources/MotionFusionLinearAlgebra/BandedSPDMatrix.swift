import CLAPACK

/// A symmetric positive definite band matrix in LAPACK's lower band storage, for banded normal
/// equations. Factored with LAPACK `dpbtrf` (banded Cholesky) and solved with `dpbtrs`, at a cost of
/// O(n · bandwidth²). After ``factor()`` the storage holds the lower Cholesky factor `L` (same
/// layout), from which ``selectedInverse()`` computes the band of the inverse without forming it.
public struct BandedSPDMatrix: Sendable {
    /// Order of the matrix.
    public let order: Int
    /// Number of sub-diagonals (`kd`): element (i, j) is zero when `|i − j| > bandwidth`.
    public let bandwidth: Int
    /// Lower band storage, column-major with leading dimension `bandwidth + 1`:
    /// element (i, j), i ≥ j, is at `(i − j) + j · (bandwidth + 1)`.
    public var band: [Double]
    /// Whether ``band`` holds the Cholesky factor (set by ``factor()``).
    public private(set) var isFactored = false

    /// A zero band matrix.
    public init(order: Int, bandwidth: Int) {
        precondition(order >= 0 && bandwidth >= 0, "order and bandwidth must be non-negative")
        self.order = order
        self.bandwidth = bandwidth
        self.band = [Double](repeating: 0, count: (bandwidth + 1) * order)
    }

    /// The band of a dense symmetric matrix (its lower triangle is read; entries outside the band
    /// are ignored).
    public init(_ dense: Matrix, bandwidth: Int) {
        precondition(dense.isSquare, "a band matrix is square")
        self.init(order: dense.rows, bandwidth: bandwidth)
        for j in 0..<order {
            for i in j..<min(order, j + bandwidth + 1) { self[i, j] = dense[i, j] }
        }
    }

    /// Element (i, j); symmetric, zero outside the band.
    @inlinable
    public subscript(i: Int, j: Int) -> Double {
        get {
            let (r, c) = i >= j ? (i, j) : (j, i)
            if r - c > bandwidth { return 0 }
            return band[(r - c) + c * (bandwidth + 1)]
        }
        set {
            let (r, c) = i >= j ? (i, j) : (j, i)
            precondition(r - c <= bandwidth, "element outside the band")
            band[(r - c) + c * (bandwidth + 1)] = newValue
        }
    }

    /// Adds `value` to element (i, j) (and so to (j, i)).
    @inlinable
    public mutating func add(_ value: Double, _ i: Int, _ j: Int) {
        let (r, c) = i >= j ? (i, j) : (j, i)
        band[(r - c) + c * (bandwidth + 1)] += value
    }

    /// The dense symmetric matrix.
    public var dense: Matrix {
        var m = Matrix(rows: order, columns: order)
        for j in 0..<order {
            for i in j..<min(order, j + bandwidth + 1) {
                m[i, j] = self[i, j]
                m[j, i] = self[i, j]
            }
        }
        return m
    }

    /// Solves `self · x = b` (`b` is `order × k`) by factoring a copy.
    public func solve(_ b: Matrix) throws -> Matrix {
        var factored = self
        try factored.factor()
        return try factored.solveFactored(b)
    }

    /// Solves for a single right-hand side vector.
    public func solve(vector b: [Double]) throws -> [Double] {
        try solve(Matrix(column: b)).storage
    }

    /// Factors in place with LAPACK `dpbtrf`, for repeated solves with ``solveFactored(_:)``.
    public mutating func factor() throws {
        guard band.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "dpbtrf") }
        if order == 0 {
            isFactored = true
            return
        }
        // Finiteness is checked above, so LAPACKE's own NaN scan (`_work` skips it) is not needed.
        let info = try LAPACKLibrary.get().dpbtrfWork(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(order), Int32(bandwidth), &band,
            Int32(bandwidth + 1))
        LinearAlgebra.countBandedCall()
        try LinearAlgebra.check(info, routine: "dpbtrf", positiveMeans: { .notPositiveDefinite(order: Int($0)) })
        isFactored = true
    }

    /// Solves with a matrix already factored by ``factor()`` (LAPACK `dpbtrs`).
    public func solveFactored(_ b: Matrix) throws -> Matrix {
        precondition(b.rows == order, "right-hand side needs one row per unknown")
        var x = b
        try solveFactored(inPlace: &x.storage, columns: b.columns)
        return x
    }

    /// Solves in place for `columns` right-hand sides stored column-major in `b` (`order` rows
    /// each), with a matrix already factored by ``factor()`` (LAPACK `dpbtrs`).
    public func solveFactored(inPlace b: inout [Double], columns: Int) throws {
        precondition(b.count == order * columns, "right-hand side needs one row per unknown")
        guard b.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "dpbtrs") }
        if order == 0 || columns == 0 { return }
        let info = try LAPACKLibrary.get().dpbtrsWork(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(order), Int32(bandwidth), Int32(columns),
            band, Int32(bandwidth + 1), &b, Int32(order))
        LinearAlgebra.countBandedCall()
        try LinearAlgebra.check(info, routine: "dpbtrs", positiveMeans: { .singular(routine: "dpbtrs", info: Int($0)) })
    }

    /// Forward substitution `L · y = b` with the factor of ``factor()`` (LAPACK `dtbtrs`), in place,
    /// for `columns` right-hand sides stored column-major in `b`. Half of a solve: what Schur
    /// complements (marginalisation) need.
    public func forwardSubstituteFactored(inPlace b: inout [Double], columns: Int) throws {
        precondition(isFactored, "factor() first")
        precondition(b.count == order * columns, "right-hand side needs one row per unknown")
        guard b.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "dtbtrs") }
        if order == 0 || columns == 0 { return }
        let info = try LAPACKLibrary.get().dtbtrs(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int8(UInt8(ascii: "N")), Int8(UInt8(ascii: "N")),
            Int32(order), Int32(bandwidth), Int32(columns), band, Int32(bandwidth + 1), &b, Int32(order))
        LinearAlgebra.countBandedCall()
        try LinearAlgebra.check(info, routine: "dtbtrs", positiveMeans: { .singular(routine: "dtbtrs", info: Int($0)) })
    }

    /// The band of the inverse (every element within the bandwidth of `A⁻¹`), from the Cholesky
    /// factor of ``factor()``, by the Takahashi recurrence: with `A = L·Lᵀ` and `Z = A⁻¹`,
    /// `Z·L = L⁻ᵀ` gives, column by column from the last,
    /// `Z[j,i] = (δ[j,i]/L[i,i] − Σ_{k=i+1…i+kd} Z[j,k]·L[k,i]) / L[i,i]` for `j = i+kd … i`,
    /// which only reads elements of `Z` inside the band. Cost O(n · bandwidth²), memory of the
    /// band; no dense inverse is formed. The diagonal blocks are the marginal covariances of
    /// the unknowns when `A` is an information (normal) matrix.
    public func selectedInverse() -> BandedSPDMatrix {
        precondition(isFactored, "factor() first")
        var z = BandedSPDMatrix(order: order, bandwidth: bandwidth)
        let ld = bandwidth + 1
        let n = order
        let kd = bandwidth
        band.withUnsafeBufferPointer { l in
            z.band.withUnsafeMutableBufferPointer { zb in
                // Z[r, c] for |r − c| ≤ kd, symmetric.
                @inline(__always) func zget(_ r: Int, _ c: Int) -> Double {
                    r >= c ? zb[(r - c) + c * ld] : zb[(c - r) + r * ld]
                }
                for i in stride(from: n - 1, through: 0, by: -1) {
                    let lii = l[i * ld]
                    let last = min(n - 1, i + kd)
                    var j = last
                    while j >= i {
                        var s = j == i ? 1 / lii : 0
                        if last > i {
                            for k in (i + 1)...last { s -= zget(j, k) * l[(k - i) + i * ld] }
                        }
                        zb[(j - i) + i * ld] = s / lii
                        j -= 1
                    }
                }
            }
        }
        return z
    }
}
