/// Estimates how much later a vector sensor (magnetometer or accelerometer) is stamped than the
/// gyroscope, from the data alone.
///
/// A vector fixed in the earth frame, seen from the rotating sensor, changes as `dv/dt = v × ω`.
/// The estimator finds the delay `d` for which the measured derivative (central differences) best
/// matches `v(t) × ω(t − d)` in least squares, over samples where the device turns and the vector's
/// magnitude is typical, and refines the best grid point with a parabola. The estimate is used only
/// when it lies ``significance`` standard errors from zero (the rate must change for a delay to
/// show). The magnetometer suits
/// this well (the field is constant in the earth frame); for the accelerometer, linear
/// accelerations add noise.
public enum SensorDelayEstimator {
    /// The estimated delay in seconds of `sensor` relative to the gyroscope, or `nil` when the
    /// trace does not turn enough to tell or its rate changes too little to determine the delay.
    /// Searches `-maximum...maximum`.
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
        // The median (rank count / 2), selected: sorting the first window's norms cost about as much
        // as a tenth of the delay search.
        let typical = Quickselect.median(vIdx.map { value(samples[$0])!.norm })!
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
        let delay = (Double(best - steps) + offset) * step
        // Only a delay the data determine: a steady turn (a turntable, a spin about one axis)
        // leaves the cost flat, since ω(t − d) = ω(t), and its minimum lies wherever the noise
        // puts it (20–40 ms on simulated steady turns, each worth a heading error of ω·d).
        let error = standardError(costs, step: step, residualVariance: costs[best] / Double(3 * points.count))
        guard abs(delay) >= significance * error else { return nil }
        return delay
    }

    /// How many standard errors from zero an estimated delay must lie to be used. Default 3.
    static let significance = 3.0

    /// The delay's standard error, s: `√(2·s² / c″)` with `s²` the residual variance per component
    /// and `c″` the curvature of a parabola fitted by least squares to the whole cost curve (the
    /// neighbouring grid points alone see the kinks that interpolating a noisy gyroscope makes).
    /// Infinite when the fitted curve is not convex.
    static func standardError(_ costs: [Double], step: Double, residualVariance: Double) -> Double {
        // Least squares of cost = a·d² + b·d + c over the grid, d = (i − centre)·step. The grid
        // is symmetric, so the odd sums vanish and `a` has a closed form.
        let centre = Double(costs.count - 1) / 2
        var (s0, s2, s4, c0, c2) = (0.0, 0.0, 0.0, 0.0, 0.0)
        for (i, c) in costs.enumerated() {
            let d2 = ((Double(i) - centre) * step) * ((Double(i) - centre) * step)
            s0 += 1
            s2 += d2
            s4 += d2 * d2
            c0 += c
            c2 += c * d2
        }
        let a = (s0 * c2 - s2 * c0) / (s0 * s4 - s2 * s2)
        guard a > 0, residualVariance.isFinite else { return .infinity }
        return (residualVariance / a).squareRoot()
    }
}
