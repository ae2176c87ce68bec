extension Quaternion {
    /// The exponential map: the unit quaternion of a rotation vector (axis × angle, radians).
    @inlinable @inline(__always)
    public init(rotationVector v: Vector3) {
        let angle2 = v.squaredNorm
        let half: Double
        let c: Double
        if angle2 < 0.0025 {
            // sin(θ/2)/θ and cos(θ/2) by their Taylor series: below 0.05 rad (a filter step) the
            // truncation error is under 1e-12, and no sine or cosine is evaluated. The coefficients
            // are multiplied, not divided by: a division would sit on the filters' critical path.
            let a4 = angle2 * angle2
            half = 0.5 - angle2 * (1.0 / 48) + a4 * (1.0 / 3840)
            c = 1 - angle2 * 0.125 + a4 * (1.0 / 384)
        } else {
            let angle = angle2.squareRoot()
            half = (angle / 2).sin / angle
            c = (angle / 2).cos
        }
        self.init(w: c, x: v.x * half, y: v.y * half, z: v.z * half)
    }

    /// The logarithm map: the rotation vector (axis × angle, radians, angle in `[0, π]`) of a unit
    /// quaternion. `q` and `-q` give the same vector.
    @inlinable @inline(__always)
    public var rotationVector: Vector3 {
        let q = canonical
        let s = q.vector.norm
        if s < 1e-8 {
            // θ/sin(θ/2) ≈ 2 (1 + s²/6) / w near zero.
            return q.vector * (2 / q.w)
        }
        let angle = 2 * Double.atan2(s, q.w)
        return q.vector * (angle / s)
    }
}
