extension Quaternion {
    /// Spherical linear interpolation from `self` (t = 0) to `other` (t = 1) along the shorter arc.
    @inlinable
    public func slerp(to other: Quaternion, t: Double) -> Quaternion {
        var b = other
        var cosine = dot(other)
        if cosine < 0 {
            b = -b
            cosine = -cosine
        }
        if cosine > 0.9995 {
            // Nearly parallel: normalised linear interpolation is accurate and stable.
            return (self * (1 - t) + b * t).normalized
        }
        let theta = cosine.acosClamped
        let sinTheta = theta.sin
        let wa = ((1 - t) * theta).sin / sinTheta
        let wb = (t * theta).sin / sinTheta
        return (self * wa + b * wb).normalized
    }

    /// The weighted average rotation of unit quaternions: the unit eigenvector of the largest
    /// eigenvalue of `Σ wᵢ qᵢ qᵢᵀ` (Markley et al., 2007). Sign-independent (`q` and `-q` count the
    /// same). Returns `nil` for an empty list or all-zero weights.
    public static func average(_ quaternions: [Quaternion], weights: [Double]? = nil) -> Quaternion? {
        guard !quaternions.isEmpty else { return nil }
        if let weights { precondition(weights.count == quaternions.count, "one weight per quaternion") }
        var m = [Double](repeating: 0, count: 16)
        var total = 0.0
        for (i, q) in quaternions.enumerated() {
            let wgt = weights?[i] ?? 1
            total += wgt
            let c = [q.w, q.x, q.y, q.z]
            for r in 0..<4 {
                for k in 0..<4 { m[r * 4 + k] += wgt * c[r] * c[k] }
            }
        }
        guard total > 0 else { return nil }
        let (values, vectors) = SymmetricEigen4.decompose(m)
        var best = 0
        for i in 1..<4 where values[i] > values[best] { best = i }
        let v = vectors[best]
        return Quaternion(w: v[0], x: v[1], y: v[2], z: v[3]).normalized.canonical
    }
}

/// Cyclic Jacobi eigendecomposition of a symmetric 4×4 matrix, for quaternion averaging without
/// pulling LAPACK into the math core.
@usableFromInline
enum SymmetricEigen4 {
    /// Returns eigenvalues and the matching unit eigenvectors of a row-major symmetric matrix.
    @usableFromInline
    static func decompose(_ input: [Double]) -> (values: [Double], vectors: [[Double]]) {
        var a = input
        var v = [Double](repeating: 0, count: 16)
        for i in 0..<4 { v[i * 4 + i] = 1 }
        for _ in 0..<50 {
            var off = 0.0
            for p in 0..<4 { for q in (p + 1)..<4 { off += a[p * 4 + q] * a[p * 4 + q] } }
            if off < 1e-30 { break }
            for p in 0..<3 {
                for q in (p + 1)..<4 {
                    let apq = a[p * 4 + q]
                    if abs(apq) < 1e-300 { continue }
                    let theta = (a[q * 4 + q] - a[p * 4 + p]) / (2 * apq)
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot()
                    let s = t * c
                    for k in 0..<4 {
                        let akp = a[k * 4 + p]
                        let akq = a[k * 4 + q]
                        a[k * 4 + p] = c * akp - s * akq
                        a[k * 4 + q] = s * akp + c * akq
                    }
                    for k in 0..<4 {
                        let apk = a[p * 4 + k]
                        let aqk = a[q * 4 + k]
                        a[p * 4 + k] = c * apk - s * aqk
                        a[q * 4 + k] = s * apk + c * aqk
                    }
                    for k in 0..<4 {
                        let vkp = v[k * 4 + p]
                        let vkq = v[k * 4 + q]
                        v[k * 4 + p] = c * vkp - s * vkq
                        v[k * 4 + q] = s * vkp + c * vkq
                    }
                }
            }
        }
        let values = (0..<4).map { a[$0 * 4 + $0] }
        let vectors = (0..<4).map { col in (0..<4).map { v[$0 * 4 + col] } }
        return (values, vectors)
    }
}
