/// Estimates how much later a vector sensor (magnetometer or accelerometer) is stamped than the
/// gyroscope, from the data alone.
///
/// A vector fixed in the earth frame, seen from the rotating sensor, changes as `dv/dt = v × ω`.
/// The estimator finds the delay `d` for which the measured derivative (central differences) best
/// matches `v(t) × ω(t − d)` in least squares, over samples where the device turns and the vector's
/// magnitude is typical, and refines the best grid point with a parabola. The magnetometer suits
/// this well (the field is constant in the earth frame); for the accelerometer, linear
/// accelerations add noise.
public enum SensorDelayEstimator {
    /// The estimated delay in seconds of `sensor` relative to the gyroscope, or `nil` when the
    /// trace does not turn enough to tell. Searches `-maximum...maximum`.
    public static func estimate(_ samples: [SensorSample], sensor: SensorKind, maximum: Double = 0.05) -> Double? {
        func value(_ s: SensorSample) -> Vector3? {
            switch sensor {
            case .magnetometer: return s.magnetometer
            case .accelerometer: return s.accelerometer
            case .gyroscope: return nil
            }
        }
        // Gyroscope timeline for interpolation.
        let gyroIdx = samples.indices.filter { samples[$0].gyroscope?.isFinite == true }
        let vIdx = samples.indices.filter { value(samples[$0])?.isFinite == true }
        guard gyroIdx.count > 100, vIdx.count > 100 else { return nil }
        let gt = gyroIdx.map { samples[$0].t }
        let gv = gyroIdx.map { samples[$0].gyroscope! }
        return gt.withUnsafeBufferPointer { gt in
            gv.withUnsafeBufferPointer { gv in
                estimate(samples, vIdx, value, gyroscope: Gyroscope(t: gt, rate: gv), maximum: maximum)
            }
        }
    }

    /// The gyroscope's times and rates, interpolated linearly at any time between its samples.
    struct Gyroscope {
        let t: UnsafeBufferPointer<Double>
        let rate: UnsafeBufferPointer<Vector3>

        /// The rate at `time`, or nil outside the samples; `hint` is the index found last (the
        /// search walks from it, so a sweep through increasing times costs one pass).
        @inline(__always)
        func callAsFunction(at time: Double, hint: inout Int) -> Vector3? {
            while hint + 1 < t.count && t[hint + 1] < time { hint += 1 }
            while hint > 0 && t[hint] > time { hint -= 1 }
            guard hint + 1 < t.count, t[hint] <= time else { return nil }
            let u = (time - t[hint]) / (t[hint + 1] - t[hint])
            return rate[hint] * (1 - u) + rate[hint + 1] * u
        }
    }

    /// The search of ``estimate(_:sensor:maximum:)`` over the samples `vIdx` that have a value.
    static func estimate(
        _ samples: [SensorSample], _ vIdx: [Int], _ value: (SensorSample) -> Vector3?, gyroscope gyro: Gyroscope,
        maximum: Double
    ) -> Double? {
        let gt = gyro.t
        // Typical magnitude, to skip disturbed samples.
        let norms = vIdx.map { value(samples[$0])!.norm }.sorted()
        let typical = norms[norms.count / 2]
        // Central-difference derivatives where the device turns.
        var points = [(t: Double, v: Vector3, dv: Vector3)]()
        var hint = 0
        for j in 1..<(vIdx.count - 1) {
            let a = samples[vIdx[j - 1]]
            let b = samples[vIdx[j]]
            let c = samples[vIdx[j + 1]]
            let span = c.t - a.t
            guard span > 0, span < 0.1 else { continue }
            let v = value(b)!
            guard abs(v.norm - typical) < 0.15 * typical else { continue }
            guard let w = gyro(at: b.t, hint: &hint), w.norm > 0.3 else { continue }
            points.append((b.t, v, (value(c)! - value(a)!) * (1 / span)))
        }
        guard points.count > 200 else { return nil }
        let medianStep = (gt.last! - gt.first!) / Double(gt.count - 1)
        let step = max(medianStep / 2, 0.0005)
        let steps = Int((maximum / step).rounded())
        let costs = points.withUnsafeBufferPointer { points in
            (-steps...steps).map { i in
                let d = Double(i) * step
                var cost = 0.0
                var h = 0
                for p in points {
                    guard let w = gyro(at: p.t - d, hint: &h) else { continue }
                    cost += (p.dv - p.v.cross(w)).squaredNorm
                }
                return cost
            }
        }
        guard let best = costs.indices.min(by: { costs[$0] < costs[$1] }) else { return nil }
        var offset = 0.0
        if best > 0 && best < costs.count - 1 {
            let (l, m, r) = (costs[best - 1], costs[best], costs[best + 1])
            let curvature = l - 2 * m + r
            if curvature > 0 { offset = 0.5 * (l - r) / curvature }
        }
        if best == 0 || best == costs.count - 1 { return nil }
        return (Double(best - steps) + offset) * step
    }
}
