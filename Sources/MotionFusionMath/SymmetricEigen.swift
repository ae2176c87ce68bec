/// Small dense symmetric problems without LAPACK, for the math core and the per-sample path:
/// cyclic Jacobi eigendecomposition and a Cholesky solve.
public enum SymmetricEigen {
    /// Eigenvalues and the matching unit eigenvectors of a row-major symmetric `size`×`size`
    /// matrix, by cyclic Jacobi rotations (at most 50 sweeps; converged when the off-diagonal sum
    /// of squares is below 1e-30 of the matrix's).
    public static func decompose(_ input: [Double], size n: Int) -> (values: [Double], vectors: [[Double]]) {
        var a = input
        var v = [Double](repeating: 0, count: n * n)
        a.withUnsafeMutableBufferPointer { a in
            v.withUnsafeMutableBufferPointer { v in jacobi(a.baseAddress!, v.baseAddress!, size: n) }
        }
        let values = (0..<n).map { a[$0 * n + $0] }
        let vectors = (0..<n).map { col in (0..<n).map { v[$0 * n + col] } }
        return (values, vectors)
    }

    /// The eigenvalues and unit eigenvectors (columns of the returned matrix) of a symmetric 3×3
    /// matrix: the same rotations as ``decompose(_:size:)``, on the stack.
    public static func decompose(_ m: Matrix3) -> (values: Vector3, vectors: Matrix3) {
        var a = (m.row0.x, m.row0.y, m.row0.z, m.row1.x, m.row1.y, m.row1.z, m.row2.x, m.row2.y, m.row2.z)
        var v = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        withUnsafeMutableBytes(of: &a) { a in
            withUnsafeMutableBytes(of: &v) { v in
                jacobi(
                    a.baseAddress!.assumingMemoryBound(to: Double.self),
                    v.baseAddress!.assumingMemoryBound(to: Double.self), size: 3)
            }
        }
        return (
            Vector3(a.0, a.4, a.8),
            Matrix3(Vector3(v.0, v.1, v.2), Vector3(v.3, v.4, v.5), Vector3(v.6, v.7, v.8))
        )
    }

    /// Cyclic Jacobi rotations of the row-major symmetric `n`×`n` matrix `a` in place, down to its
    /// eigenvalues on the diagonal, with the rotations gathered in `v` (set to the identity first):
    /// its columns are the unit eigenvectors.
    @inline(__always)
    static func jacobi(_ a: UnsafeMutablePointer<Double>, _ v: UnsafeMutablePointer<Double>, size n: Int) {
        for i in 0..<(n * n) { v[i] = 0 }
        for i in 0..<n { v[i * n + i] = 1 }
        var sum = 0.0
        for i in 0..<(n * n) { sum = sum + a[i] * a[i] }
        let scale = max(sum, .leastNormalMagnitude)
        for _ in 0..<50 {
            var off = 0.0
            for p in 0..<n { for q in (p + 1)..<n { off += a[p * n + q] * a[p * n + q] } }
            if off < 1e-30 * scale { break }
            for p in 0..<(n - 1) {
                for q in (p + 1)..<n {
                    let apq = a[p * n + q]
                    if abs(apq) < 1e-300 { continue }
                    let theta = (a[q * n + q] - a[p * n + p]) / (2 * apq)
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot()
                    let s = t * c
                    for k in 0..<n {
                        let akp = a[k * n + p]
                        let akq = a[k * n + q]
                        a[k * n + p] = c * akp - s * akq
                        a[k * n + q] = s * akp + c * akq
                    }
                    for k in 0..<n {
                        let apk = a[p * n + k]
                        let aqk = a[q * n + k]
                        a[p * n + k] = c * apk - s * aqk
                        a[q * n + k] = s * apk + c * aqk
                    }
                    for k in 0..<n {
                        let vkp = v[k * n + p]
                        let vkq = v[k * n + q]
                        v[k * n + p] = c * vkp - s * vkq
                        v[k * n + q] = s * vkp + c * vkq
                    }
                }
            }
        }
    }

    /// Solves `A x = b` for a row-major symmetric positive definite `A` by Cholesky factorisation;
    /// nil when `A` is not numerically positive definite (a pivot at or below 1e-12 of the largest
    /// diagonal entry).
    public static func choleskySolve(_ input: [Double], _ b: [Double]) -> [Double]? {
        let n = b.count
        guard input.count == n * n else { return nil }
        var l = input
        var largest = 0.0
        for i in 0..<n { largest = max(largest, abs(input[i * n + i])) }
        for j in 0..<n {
            var d = l[j * n + j]
            for k in 0..<j { d -= l[j * n + k] * l[j * n + k] }
            guard d > 1e-12 * largest, d.isFinite else { return nil }
            let root = d.squareRoot()
            l[j * n + j] = root
            for i in (j + 1)..<n {
                var s = l[i * n + j]
                for k in 0..<j { s -= l[i * n + k] * l[j * n + k] }
                l[i * n + j] = s / root
            }
        }
        var y = b
        for i in 0..<n {
            var s = y[i]
            for k in 0..<i { s -= l[i * n + k] * y[k] }
            y[i] = s / l[i * n + i]
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = y[i]
            for k in (i + 1)..<n { s -= l[k * n + i] * y[k] }
            y[i] = s / l[i * n + i]
        }
        return y
    }
}
