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
        let (values, vectors) = SymmetricEigen.decompose(m, size: 4)
        var best = 0
        for i in 1..<4 where values[i] > values[best] { best = i }
        let v = vectors[best]
        return Quaternion(w: v[0], x: v[1], y: v[2], z: v[3]).normalized.canonical
    }
}
