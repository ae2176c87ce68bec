import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension BatchAttitudeEstimator.Driver {
    /// Emits samples `0 ..< end` of the window.
    mutating func emit(
        _ w: BatchWindow, _ inverse: BorderedBandedSystem.SelectedInverse?, upTo end: Int,
        _ body: (BatchAttitudeEstimator.Sample) throws -> Void
    ) throws {
        let ks = BatchWindow.knotSize
        let noise2 = parameters.gyroscopeNoise * parameters.gyroscopeNoise
        // Attitude variance (trace) and heading variance at a knot, from the selected inverse.
        func variances(_ k: Int) -> (trace: Double, heading: Double) {
            guard let inverse, k < w.knotCount else { return (.nan, .nan) }
            let o = k * ks
            let x = o + BatchWindow.slot(0)
            let y = o + BatchWindow.slot(1)
            let z = o + BatchWindow.slot(2)
            let h = inverse.element(z, z)
            return (inverse.element(x, x) + inverse.element(y, y) + h, h)
        }
        var rotations = [Quaternion]()
        var elapsed = [Double]()
        var next = variances(0)
        for k in 0..<w.knotCount {
            let r = w.range(k)
            guard r.lowerBound < end else { break }
            let bias = w.b[k]
            let here = next
            next = k + 1 < w.knotCount ? variances(k + 1) : here
            // Integrate once over the knot (and to the next knot's sample).
            rotations.removeAll(keepingCapacity: true)
            elapsed.removeAll(keepingCapacity: true)
            var pre = BatchWindow.Preintegration()
            for i in r {
                if i > r.lowerBound { w.advance(&pre, i, bias: bias) }
                rotations.append(pre.quaternion)
                elapsed.append(pre.duration)
            }
            // Spread the gyroscope residual to the next knot over the interval.
            var correction = Vector3.zero
            var duration = 0.0
            if k + 1 < w.knotCount {
                w.advance(&pre, r.upperBound, bias: bias)
                correction = (w.q[k + 1] * (w.q[k] * pre.quaternion).conjugate).rotationVector
                duration = pre.duration
            }
            for i in r where i < end {
                let j = i - r.lowerBound
                let alpha = duration > 0 ? min(1, elapsed[j] / duration) : 0
                var q = w.q[k] * rotations[j]
                if alpha > 0 { q = Quaternion(rotationVector: correction * alpha) * q }
                q = q.normalized
                let s = pending[i]
                var d = s.estimate.diagnostics
                d.initialising = false
                let accW = w.accWeight[k] * (parameters.gravityNoise > 0 ? w.gravityWeight[k] : 1)
                let magW = w.magValid[i] ? Double(w.magWeight[i]) : 0
                d.accelerometerRejected = !w.accValid[i] || accW < 0.5
                d.magnetometerRejected = !useMagnetometer || !w.magValid[i] || magW < 0.5
                d.magnetometerDeparture =
                    useMagnetometer && w.magValid[i] && magW < 0.5
                    ? w.departure(i, attitude: q, disturbance: w.d[k]) : []
                if inverse != nil {
                    // Between knots: the knots' variances interpolated, plus the gyroscope noise of
                    // a bridge pinned at both knots (the bias adds less than 1e-4 rad within a knot).
                    let bridge = noise2 * duration * alpha * (1 - alpha)
                    let trace = here.trace * (1 - alpha) + next.trace * alpha + 3 * bridge
                    let heading = here.heading * (1 - alpha) + next.heading * alpha + bridge
                    d.attitudeUncertainty = max(0, trace).squareRoot()
                    d.headingUncertainty = max(0, heading).squareRoot()
                }
                let input = s.input
                let e = MotionEstimate(
                    t: input.t, attitude: q.canonical, gyroscopeBias: bias, diagnostics: d,
                    gyroscope: input.gyroscope, accelerometer: input.accelerometer,
                    magnetometer: input.magnetometer)
                try body(
                    BatchAttitudeEstimator.Sample(
                        estimate: e, input: input, accelerometerWeight: w.accValid[i] ? accW : 0,
                        magnetometerWeight: magW))
                emitted += 1
            }
        }
    }
}
