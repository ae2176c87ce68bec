/// The earth (navigation) frame an attitude is expressed in. Every axis is local: north means
/// magnetic north unless a declination has been applied (see `docs/Conventions.md`).
public enum EarthFrame: String, CaseIterable, Sendable {
    /// East (x), North (y), Up (z). The default, as in BROAD and VQF.
    case enu
    /// North (x), East (y), Down (z). Aerospace convention.
    case ned
    /// North (x), West (y), Up (z). xio Fusion's default.
    case nwu

    /// The rotation that takes ENU coordinates into this frame: `v_self = q ⊗ v_enu ⊗ q*`.
    @inlinable
    public var fromENU: Quaternion {
        let h = 0.5.squareRoot()
        switch self {
        case .enu: return .identity
        // 180° about the bisector of east and north: (e, n, u) ↦ (n, e, -u).
        case .ned: return Quaternion(w: 0, x: h, y: h, z: 0)
        // -90° about up: (e, n, u) ↦ (n, -e, u).
        case .nwu: return Quaternion(w: h, x: 0, y: 0, z: -h)
        }
    }

    /// Expresses an ENU vector in this frame.
    @inlinable
    public func vector(fromENU v: Vector3) -> Vector3 {
        switch self {
        case .enu: return v
        case .ned: return Vector3(v.y, v.x, -v.z)
        case .nwu: return Vector3(v.y, -v.x, v.z)
        }
    }

    /// Expresses a vector given in this frame in ENU.
    @inlinable
    public func vectorToENU(_ v: Vector3) -> Vector3 {
        switch self {
        case .enu: return v
        case .ned: return Vector3(v.y, v.x, -v.z)
        case .nwu: return Vector3(-v.y, v.x, v.z)
        }
    }

    /// Re-expresses an earth-from-sensor attitude given in ENU as an attitude in this frame.
    /// The sensor frame is unchanged; only the earth frame differs.
    @inlinable
    public func attitude(fromENU q: Quaternion) -> Quaternion {
        self == .enu ? q : (fromENU * q).normalized
    }

    /// Re-expresses an earth-from-sensor attitude given in this frame as an ENU attitude.
    @inlinable
    public func attitudeToENU(_ q: Quaternion) -> Quaternion {
        self == .enu ? q : (fromENU.conjugate * q).normalized
    }

    /// The unit vector pointing up, in this frame's coordinates.
    @inlinable
    public var up: Vector3 { vector(fromENU: .unitZ) }

    /// The unit vector pointing to (magnetic) north, in this frame's coordinates.
    @inlinable
    public var north: Vector3 { vector(fromENU: .unitY) }
}

extension Quaternion {
    /// Compass heading in degrees, clockwise from north, in `[0, 360)`, of an earth-from-sensor
    /// attitude expressed in `frame`.
    ///
    /// Heading is `-yaw` of the ENU Euler angles: the bearing of the horizontal projection of the
    /// sensor +y axis when the device is level (a phone lying flat, top edge forward), and in general
    /// 90° less than the bearing of the sensor +x axis. It is undefined when +x is vertical.
    @inlinable
    public func headingDegrees(in frame: EarthFrame = .enu) -> Double {
        let enu = frame.attitudeToENU(self)
        return (-EulerAngles(enu).yaw).degrees.wrappedTo360
    }
}
