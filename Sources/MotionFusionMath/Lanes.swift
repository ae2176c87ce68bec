/// Independent values side by side, one per trace, for running several traces at once.
///
/// Every operation on lanes is the IEEE operation on each lane, so a computation written on
/// ``LaneVector`` and ``LaneQuaternion`` in the same order as on ``Vector3`` and ``Quaternion``
/// gives bit-identical results in every lane. Four lanes of `Double`: measured on this project's
/// benchmark machine with the default x86-64 target (two doubles per vector register), eight spill
/// registers and lose, two do no better than four, see `docs/Benchmarks.md`.
public typealias Lanes = SIMD4<Double>

/// A vector per lane: lane `i` of `x`, `y`, `z` is the vector of trace `i`.
public struct LaneVector {
    /// Components, one lane per trace.
    public var x, y, z: Lanes

    /// Creates a vector from its components.
    @inlinable @inline(__always)
    public init(_ x: Lanes, _ y: Lanes, _ z: Lanes) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// Zero in every lane.
    @inlinable @inline(__always)
    public static var zero: LaneVector { LaneVector(Lanes(), Lanes(), Lanes()) }

    /// The earth vertical (as ``Vector3/unitZ``) in every lane.
    @inlinable @inline(__always)
    public static var unitZ: LaneVector { LaneVector(Lanes(), Lanes(), Lanes(repeating: 1)) }

    /// Lane `i` as a vector.
    @inlinable @inline(__always)
    public subscript(lane i: Int) -> Vector3 {
        get { Vector3(x[i], y[i], z[i]) }
        set {
            x[i] = newValue.x
            y[i] = newValue.y
            z[i] = newValue.z
        }
    }

    /// Squared norm (as ``Vector3/squaredNorm``).
    @inlinable @inline(__always)
    public var squaredNorm: Lanes { x * x + y * y + z * z }

    /// Dot product (as ``Vector3/dot(_:)``).
    @inlinable @inline(__always)
    public func dot(_ o: LaneVector) -> Lanes { x * o.x + y * o.y + z * o.z }

    /// Cross product (as ``Vector3/cross(_:)``).
    @inlinable @inline(__always)
    public func cross(_ o: LaneVector) -> LaneVector {
        LaneVector(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    /// Sum.
    @inlinable @inline(__always)
    public static func + (a: LaneVector, b: LaneVector) -> LaneVector { LaneVector(a.x + b.x, a.y + b.y, a.z + b.z) }

    /// Scaling of each lane by its own factor.
    @inlinable @inline(__always)
    public static func * (a: LaneVector, s: Lanes) -> LaneVector { LaneVector(a.x * s, a.y * s, a.z * s) }

    /// The vector scaled by the reciprocal of its norm (as ``Vector3/normalized`` where that is
    /// not nil: the caller checks the norm).
    @inlinable @inline(__always)
    public var normalizedUnchecked: LaneVector { self * (1 / squaredNorm.squareRoot()) }

    /// Lanes whose three components are all finite.
    @inlinable @inline(__always)
    public var isFinite: SIMDMask<Lanes.MaskStorage> {
        // x − x is 0 for a finite x and NaN for ±inf and NaN.
        (x - x) .== 0 .& (y - y) .== 0 .& (z - z) .== 0
    }
}

/// A quaternion per lane (scalar first, as ``Quaternion``).
public struct LaneQuaternion {
    /// Components, one lane per trace.
    public var w, x, y, z: Lanes

    /// Creates a quaternion from its components.
    @inlinable @inline(__always)
    public init(w: Lanes, x: Lanes, y: Lanes, z: Lanes) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// Lane `i` as a quaternion.
    @inlinable @inline(__always)
    public subscript(lane i: Int) -> Quaternion {
        get { Quaternion(w: w[i], x: x[i], y: y[i], z: z[i]) }
        set {
            w[i] = newValue.w
            x[i] = newValue.x
            y[i] = newValue.y
            z[i] = newValue.z
        }
    }

    /// Hamilton product (as ``Quaternion/*(_:_:)-swift.type.method``).
    @inlinable @inline(__always)
    public static func * (a: LaneQuaternion, b: LaneQuaternion) -> LaneQuaternion {
        let w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z
        let x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y
        let y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x
        let z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w
        return LaneQuaternion(w: w, x: x, y: y, z: z)
    }

    /// Sum.
    @inlinable @inline(__always)
    public static func + (a: LaneQuaternion, b: LaneQuaternion) -> LaneQuaternion {
        LaneQuaternion(w: a.w + b.w, x: a.x + b.x, y: a.y + b.y, z: a.z + b.z)
    }

    /// Scaling of each lane by its own factor.
    @inlinable @inline(__always)
    public static func * (q: LaneQuaternion, s: Lanes) -> LaneQuaternion {
        LaneQuaternion(w: q.w * s, x: q.x * s, y: q.y * s, z: q.z * s)
    }

    /// Squared norm.
    @inlinable @inline(__always)
    public var squaredNorm: Lanes { w * w + x * x + y * y + z * z }

    /// Rotates a vector (as ``Quaternion/rotate(_:)``).
    @inlinable @inline(__always)
    public func rotate(_ v: LaneVector) -> LaneVector {
        let u = LaneVector(x, y, z)
        let t = u.cross(v) * Lanes(repeating: 2)
        return v + t * w + u.cross(t)
    }

    /// Rotates a vector by the inverse (as ``Quaternion/inverseRotate(_:)``).
    @inlinable @inline(__always)
    public func inverseRotate(_ v: LaneVector) -> LaneVector {
        let u = LaneVector(-x, -y, -z)
        let t = u.cross(v) * Lanes(repeating: 2)
        return v + t * w + u.cross(t)
    }

    /// The exponential map (as ``Quaternion/init(rotationVector:)``): the series below 0.05 rad,
    /// and the sine and cosine, lane by lane, in the lanes above it.
    @inlinable @inline(__always)
    public init(rotationVector v: LaneVector) {
        let angle2 = v.squaredNorm
        let a4 = angle2 * angle2
        var half = 0.5 - angle2 * (1.0 / 48) + a4 * (1.0 / 3840)
        var c = 1 - angle2 * 0.125 + a4 * (1.0 / 384)
        let large = angle2 .>= 0.0025
        if any(large) {
            for i in 0..<Lanes.scalarCount where large[i] {
                let angle = angle2[i].squareRoot()
                half[i] = (angle / 2).sin / angle
                c[i] = (angle / 2).cos
            }
        }
        self.init(w: c, x: v.x * half, y: v.y * half, z: v.z * half)
    }

    /// ``Quaternion/renormalized`` in every lane: the Newton step where the squared norm is within
    /// its tolerance of 1, the scalar ``Quaternion/normalized`` in the other lanes (what the scalar
    /// path takes there).
    @inlinable @inline(__always)
    public var renormalized: LaneQuaternion {
        let n2 = squaredNorm
        let s = 1.5 - 0.5 * n2
        var q = LaneQuaternion(w: w * s, x: x * s, y: y * s, z: z * s)
        let d = n2 - 1
        let near = (d .< Quaternion.renormalizationTolerance) .& (d .> -Quaternion.renormalizationTolerance)
        if !all(near) {
            for i in 0..<Lanes.scalarCount where !near[i] { q[lane: i] = self[lane: i].normalized }
        }
        return q
    }

    /// The unit quaternion (as ``Quaternion/normalized``; lanes outside the plain range of the
    /// squared norm take the scalar path).
    @inlinable @inline(__always)
    public var normalized: LaneQuaternion {
        let n2 = squaredNorm
        let s = 1 / n2.squareRoot()
        var q = LaneQuaternion(w: w * s, x: x * s, y: y * s, z: z * s)
        let plain = (n2 .> 1e-200) .& (n2 .< 1e200)
        if !all(plain) {
            for i in 0..<Lanes.scalarCount where !plain[i] { q[lane: i] = self[lane: i].normalized }
        }
        return q
    }
}
