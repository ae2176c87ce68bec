/// Samples read in place from caller-owned arrays, struct of arrays: `t[count]`, and rows of three
/// for each sensor (a nil pointer: no such sensor; a row that is not finite: no value at that
/// sample). The arrays must stay valid while the value is used.
public struct SensorArrays: SampleArray {
    /// Number of samples.
    public let count: Int
    /// Times, s.
    public let t: UnsafePointer<Double>
    /// Gyroscope rows, rad/s.
    public let gyroscope: UnsafePointer<Double>?
    /// Accelerometer rows, m/s².
    public let accelerometer: UnsafePointer<Double>?
    /// Magnetometer rows, any unit.
    public let magnetometer: UnsafePointer<Double>?

    /// Reads `count` samples from the arrays.
    public init(
        count: Int, t: UnsafePointer<Double>, gyroscope: UnsafePointer<Double>?,
        accelerometer: UnsafePointer<Double>?, magnetometer: UnsafePointer<Double>?
    ) {
        self.count = count
        self.t = t
        self.gyroscope = gyroscope
        self.accelerometer = accelerometer
        self.magnetometer = magnetometer
    }

    /// Row `i` of `p` when it is present and finite.
    @inlinable @inline(__always)
    public static func row(_ p: UnsafePointer<Double>?, _ i: Int) -> Vector3? {
        guard let p else { return nil }
        let v = Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2])
        return v.isFinite ? v : nil
    }

    /// The sample at `i`.
    @inlinable @inline(__always)
    public func sample(at i: Int) -> SensorSample {
        SensorSample(
            t: t[i], gyroscope: Self.row(gyroscope, i), accelerometer: Self.row(accelerometer, i),
            magnetometer: Self.row(magnetometer, i))
    }

    /// A pull function over the samples, as the run paths take.
    public func reader() -> () -> SensorSample? {
        var i = 0
        return {
            guard i < count else { return nil }
            defer { i += 1 }
            return sample(at: i)
        }
    }
}
