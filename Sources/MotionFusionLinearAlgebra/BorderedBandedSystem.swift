/// A symmetric positive definite "arrowhead" system
///
///     [ A   B ] [x]   [r]
///     [ Bᵀ  C ] [y] = [s]
///
/// with `A` banded (n × n, LAPACK lower band storage), `B` dense (n × p) and `C` dense (p × p): the
/// normal equations of a chain of states (banded) plus a few unknowns that every state shares
/// (constants such as a sensor offset). It is solved by block elimination on the band factor:
/// `A = L·Lᵀ` (LAPACK `dpbtrf`), `X = A⁻¹·B` and `x₀ = A⁻¹·r` (`dpbtrs`), the Schur complement
/// `S = C − Bᵀ·X` (p × p, dense Cholesky), `y = S⁻¹·(s − Bᵀ·x₀)`, `x = x₀ − X·y`. Cost
/// O(n · (bandwidth² + p·bandwidth)). With `p = 0` it is a plain banded solve.
public struct BorderedBandedSystem: Sendable {
    /// The banded block `A`; after ``solve()`` it holds its Cholesky factor.
    public var band: BandedSPDMatrix
    /// The border `B`, column-major, `order × borderWidth`.
    public var border: [Double]
    /// The corner `C`, `borderWidth × borderWidth` (both triangles are read).
    public var corner: Matrix
    /// The right-hand side `(r, s)`, `order + borderWidth` values.
    public var rhs: [Double]
    /// Number of border unknowns `p`.
    public let borderWidth: Int
    /// `A⁻¹·B` after ``solve()``.
    var aInverseB: [Double] = []
    /// Cholesky factor of the Schur complement after ``solve()``.
    var schurFactor = Matrix(rows: 0, columns: 0)

    /// Order of the banded block.
    public var order: Int { band.order }

    /// A zero system.
    public init(order: Int, bandwidth: Int, borderWidth: Int) {
        precondition(borderWidth >= 0, "border width must be non-negative")
        band = BandedSPDMatrix(order: order, bandwidth: bandwidth)
        self.borderWidth = borderWidth
        border = [Double](repeating: 0, count: order * borderWidth)
        corner = Matrix(rows: borderWidth, columns: borderWidth)
        rhs = [Double](repeating: 0, count: order + borderWidth)
    }

    /// Element (i, j) of `B`.
    @inlinable
    public subscript(border i: Int, j: Int) -> Double {
        get { border[i + j * band.order] }
        set { border[i + j * band.order] = newValue }
    }

    /// The whole matrix, dense (for tests).
    public var dense: Matrix {
        let n = order
        var m = Matrix(rows: n + borderWidth, columns: n + borderWidth)
        let a = band.dense
        for j in 0..<n { for i in 0..<n { m[i, j] = a[i, j] } }
        for j in 0..<borderWidth {
            for i in 0..<n {
                m[i, n + j] = self[border: i, j]
                m[n + j, i] = self[border: i, j]
            }
            for i in 0..<borderWidth { m[n + i, n + j] = corner[i, j] }
        }
        return m
    }

    /// Factors and solves; returns `(x, y)` as one vector. The factors are kept for
    /// ``selectedInverse()``. Throws ``LinearAlgebraError`` when the system is not positive definite.
    public mutating func solve() throws -> [Double] {
        let n = order
        let p = borderWidth
        try band.factor()
        var x0 = Array(rhs[0..<n])
        try band.solveFactored(inPlace: &x0, columns: 1)
        guard p > 0 else {
            aInverseB = []
            return x0
        }
        var x = border
        try band.solveFactored(inPlace: &x, columns: p)
        aInverseB = x
        // S = C − Bᵀ X, and s − Bᵀ x₀.
        var s = corner
        var reduced = Array(rhs[n..<(n + p)])
        border.withUnsafeBufferPointer { b in
            x.withUnsafeBufferPointer { xp in
                for j in 0..<p {
                    for i in 0...j {
                        var sum = 0.0
                        for k in 0..<n { sum += b[k + i * n] * xp[k + j * n] }
                        s[i, j] -= sum
                        if i != j { s[j, i] -= sum }
                    }
                    var sum = 0.0
                    for k in 0..<n { sum += b[k + j * n] * x0[k] }
                    reduced[j] -= sum
                }
            }
        }
        schurFactor = try LinearAlgebra.cholesky(s)
        let y = try LinearAlgebra.solveWithCholesky(schurFactor, Matrix(column: reduced)).storage
        var out = x0
        for j in 0..<p where y[j] != 0 {
            let yj = y[j]
            for k in 0..<n { out[k] -= x[k + j * n] * yj }
        }
        return out + y
    }

    /// Selected elements of the inverse after ``solve()``: the band of the inverse of the whole
    /// system's leading block (Takahashi recurrence on the band factor plus the rank-p border
    /// correction) and the corner of the inverse.
    public struct SelectedInverse: Sendable {
        /// Band of `A⁻¹`.
        public var band: BandedSPDMatrix
        /// `A⁻¹·B` (order × p, column-major).
        var aInverseB: [Double]
        /// `S⁻¹` (p × p).
        public var corner: Matrix
        /// Order of the banded block.
        public var order: Int { band.order }

        /// Element (i, j) of the inverse of the whole system for `|i − j| ≤ bandwidth`, both in
        /// the banded block: `(A⁻¹ + X·S⁻¹·Xᵀ)[i, j]` with `X = A⁻¹·B`.
        public func element(_ i: Int, _ j: Int) -> Double {
            var v = band[i, j]
            let p = corner.rows
            let n = band.order
            if p > 0 {
                for a in 0..<p {
                    let xa = aInverseB[i + a * n]
                    if xa == 0 { continue }
                    for c in 0..<p { v += xa * corner[a, c] * aInverseB[j + c * n] }
                }
            }
            return v
        }
    }

    /// The selected inverse (marginal covariances when the system is an information matrix).
    /// Call after ``solve()``.
    public func selectedInverse() throws -> SelectedInverse {
        let z = band.selectedInverse()
        let p = borderWidth
        var sInverse = Matrix(rows: p, columns: p)
        if p > 0 { sInverse = try LinearAlgebra.solveWithCholesky(schurFactor, Matrix.identity(p)) }
        return SelectedInverse(band: z, aInverseB: aInverseB, corner: sInverse)
    }

    /// Eliminates all but the last `keep` band unknowns (and none of the border unknowns): the
    /// Schur complement onto `(x_last, y)` and its right-hand side. For a least-squares problem
    /// this is the Gaussian marginal of the kept unknowns: information `Λ` and `η` such that the
    /// cost, minimised over the eliminated unknowns, is `const − ηᵀδ + ½ δᵀΛδ` near the
    /// linearisation point. Requires `keep ≤ bandwidth + 1`. Factors the band in place.
    public mutating func marginal(keepingLast keep: Int) throws -> (information: Matrix, rhs: [Double]) {
        let n = order
        let p = borderWidth
        let kd = band.bandwidth
        precondition(keep >= 1 && keep <= n && keep <= kd + 1, "keep at most bandwidth + 1 trailing unknowns")
        try band.factor()
        // Y = L⁻¹ [B, r] (forward substitution only).
        var y = border + Array(rhs[0..<n])
        try band.forwardSubstituteFactored(inPlace: &y, columns: p + 1)
        let m = keep
        let first = n - m
        var info = Matrix(rows: m + p, columns: m + p)
        var eta = [Double](repeating: 0, count: m + p)
        let ld = kd + 1
        // L_mm (trailing m × m of the factor, lower triangular).
        func lmm(_ i: Int, _ j: Int) -> Double {
            guard i >= j else { return 0 }
            return band.band[(i - j) + (first + j) * ld]
        }
        for i in 0..<m {
            for j in 0..<m {
                var s = 0.0
                for k in 0...min(i, j) { s += lmm(i, k) * lmm(j, k) }
                info[i, j] = s
            }
            // η_m = L_mm y_m (the last column of y is L⁻¹ r).
            var e = 0.0
            for k in 0...i { e += lmm(i, k) * y[first + k + p * n] }
            eta[i] = e
            for c in 0..<p {
                var s = 0.0
                for k in 0...i { s += lmm(i, k) * y[first + k + c * n] }
                info[i, m + c] = s
                info[m + c, i] = s
            }
        }
        for a in 0..<p {
            for c in 0..<p {
                var s = corner[a, c]
                for k in 0..<first { s -= y[k + a * n] * y[k + c * n] }
                info[m + a, m + c] = s
            }
            var e = rhs[n + a]
            for k in 0..<first { e -= y[k + a * n] * y[k + p * n] }
            eta[m + a] = e
        }
        return (info, eta)
    }
}
