import CLAPACK

/// A symmetric positive definite band matrix in LAPACK's lower band storage, for banded normal
/// equations. Factored with LAPACK `dpbtrf` (banded Cholesky) and solved with `dpbtrs`, at a cost of
/// O(n · bandwidth²).
public struct BandedSPDMatrix: Sendable {
    /// Order of the matrix.
    public let order: Int
    /// Number of sub-diagonals (`kd`): element (i, j) is zero when `|i − j| > bandwidth`.
    public let bandwidth: Int
    /// Lower band storage, column-major with leading dimension `bandwidth + 1`:
    /// element (i, j), i ≥ j, is at `(i − j) + j · (bandwidth + 1)`.
    public var band: [Double]

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
        if order == 0 { return }
        let info = try LAPACKLibrary.get().dpbtrf(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(order), Int32(bandwidth), &band,
            Int32(bandwidth + 1))
        try LinearAlgebra.check(info, routine: "dpbtrf", positiveMeans: { .notPositiveDefinite(order: Int($0)) })
    }

    /// Solves with a matrix already factored by ``factor()`` (LAPACK `dpbtrs`).
    public func solveFactored(_ b: Matrix) throws -> Matrix {
        precondition(b.rows == order, "right-hand side needs one row per unknown")
        guard b.storage.allSatisfy(\.isFinite) else { throw LinearAlgebraError.nonFinite(routine: "dpbtrs") }
        var x = b
        if order == 0 { return x }
        let info = try LAPACKLibrary.get().dpbtrs(
            LAPACK_COL_MAJOR, Int8(UInt8(ascii: "L")), Int32(order), Int32(bandwidth), Int32(b.columns),
            band, Int32(bandwidth + 1), &x.storage, Int32(order))
        try LinearAlgebra.check(info, routine: "dpbtrs", positiveMeans: { .singular(routine: "dpbtrs", info: Int($0)) })
        return x
    }
}
