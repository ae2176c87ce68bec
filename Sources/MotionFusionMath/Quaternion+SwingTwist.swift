extension Quaternion {
    /// The rotation about the earth's vertical (the z axis of the frame the attitude maps into) in
    /// the swing–twist decomposition `self = twist ⊗ swing`, where `swing` turns about a horizontal
    /// axis. Defined at every tilt, unlike an Euler yaw (which is lost near ±90° of pitch); the
    /// identity when `self` is a half turn about a horizontal axis, where the twist is undefined.
    @inlinable
    public var verticalTwist: Quaternion {
        let norm = (w * w + z * z).squareRoot()
        guard norm > 1e-9 else { return .identity }
        return Quaternion(w: w / norm, x: 0, y: 0, z: z / norm)
    }

    /// This attitude (earth from sensor) turned about the earth's vertical to the heading of
    /// `reference`: the turn that leaves the two differing by a rotation about a horizontal axis
    /// only, so the tilt is this attitude's and the heading `reference`'s, at any tilt.
    @inlinable
    public func withHeading(of reference: Quaternion) -> Quaternion {
        ((reference * conjugate).verticalTwist * self).normalized
    }
}
