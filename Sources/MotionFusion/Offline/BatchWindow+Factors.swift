import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The factors of the window other than the magnetometer's (``BatchWindow+Magnetometer.swift``),
/// each added to the normal equations at the current state. Knot `k`'s unknowns start at logical
/// index `k·knotSize`: θ 0–2, b 3–5, v 6–7, d 8.
extension BatchWindow {
    /// The Gaussian prior on knot 0 (and the constants), when there is one.
    func addPrior(_ eq: inout NormalEquations) {
        guard let prior else { return }
        let ks = Self.knotSize
        let pw = borderWidth
        let n = eq.order
        let m = ks + pw
        precondition(prior.information.rows == m, "prior size")
        let dth = (q[0] * prior.attitude.conjugate).rotationVector
        let db = b[0] - prior.bias
        let dv = v[0] - prior.velocity
        var e = [dth.x, dth.y, dth.z, db.x, db.y, db.z, dv.x, dv.y, d[0] - prior.disturbance]
        for c in 0..<pw { e.append(globals[c] - prior.globals[c]) }
        for r in 0..<m {
            var g = 0.0
            for c in 0..<m { g += prior.information[r, c] * e[c] }
            eq.rhs[eq.phys(r < ks ? r : n + r - ks)] -= g
            for c in 0...r {
                let val = prior.information[r, c]
                if r < ks {
                    eq.addH(r, c, val)
                } else if c < ks {
                    eq.addBorder(c, constant: r - ks, val)
                } else {
                    eq.addCorner(r - ks, c - ks, val)
                }
            }
        }
    }

    /// Velocity prior (bounded speed), and zero velocity when all the knot's samples are at rest.
    func addVelocityPrior(_ k: Int, _ x: KnotIntegration, _ eq: inout NormalEquations) {
        let p = parameters
        let o = k * Self.knotSize
        let velocityWeight = 1 / (2 * p.typicalSpeed * p.typicalSpeed * p.speedCorrelationTime)
        var vw = velocityWeight * max(x.totalTime, 1e-3)
        if x.allRest && !range(k).isEmpty { vw += 1 / (p.restVelocityNoise * p.restVelocityNoise) }
        eq.addH(o + 6, o + 6, vw)
        eq.addH(o + 7, o + 7, vw)
        eq.rhs[eq.phys(o + 6)] -= vw * v[k].x
        eq.rhs[eq.phys(o + 7)] -= vw * v[k].y
    }

    /// Whether the accelerometer covers enough of the knot's time for its factors.
    func accelerometerCovers(_ x: KnotIntegration) -> Bool { x.totalTime > 0 && x.accTime >= 0.9 * x.totalTime }

    /// Gravity direction: the knot's mean specific force in the earth frame should be vertical
    /// (horizontal components of its direction), robustly weighted against linear acceleration.
    mutating func addGravity(
        _ k: Int, rk: Matrix3, _ x: KnotIntegration, updateWeights: Bool, _ eq: inout NormalEquations
    ) {
        let p = parameters
        let gravityNoise2 = p.gravityNoise * p.gravityNoise
        guard gravityNoise2 > 0 && accelerometerCovers(x) else { return }
        let o = k * Self.knotSize
        let u = rk * x.pSum
        let norm = u.norm
        guard norm > 0 else { return }
        let e = u * (1 / norm)
        let r0 = e.x
        let r1 = e.y
        var wgv = gravityWeight[k]
        if updateWeights {
            let gravityScale2 = p.gravityOutlierScale * p.gravityOutlierScale
            wgv = p.robustLoss.weight(squaredScaledResidual: (r0 * r0 + r1 * r1) / gravityScale2)
            gravityWeight[k] = wgv
        }
        let lambda = wgv * x.totalTime / gravityNoise2
        // ∂r/∂θ = −rows 0, 1 of [e]×.
        let j0 = (0.0, e.z, -e.y)
        let j1 = (-e.z, 0.0, e.x)
        let ja = [j0.0, j0.1, j0.2]
        let jb = [j1.0, j1.1, j1.2]
        for a in 0..<3 {
            eq.rhs[eq.phys(o + a)] -= lambda * (ja[a] * r0 + jb[a] * r1)
            for c in 0...a {
                let h = lambda * (ja[a] * ja[c] + jb[a] * jb[c])
                if h != 0 { eq.addH(o + a, o + c, h) }
            }
        }
    }

    /// Gyroscope: e = log(R_{k+1} (R_k ΔR)ᵀ); ∂e/∂θk = −I, ∂e/∂θk+1 = I, ∂e/∂bk = −R_k ΔR J.
    func addGyroscope(_ k: Int, rk: Matrix3, _ x: KnotIntegration, _ eq: inout NormalEquations) {
        let o = k * Self.knotSize
        let n1 = o + Self.knotSize
        let pre = x.pre
        let predicted = q[k] * pre.quaternion
        let e = (q[k + 1] * predicted.conjugate).rotationVector
        let wg = 1 / max(pre.variance, 1e-14)
        let g = (rk * pre.sum) * -1  // R_k ΔR J = −R_k Σ ΔR dt
        addDifference(o, n1, weight: wg, residual: e, &eq)
        for a in 0..<3 {
            for c in 0..<3 {
                eq.addH(o + 3 + c, o + a, wg * g[a, c])
                eq.addH(o + 3 + c, n1 + a, -wg * g[a, c])
            }
        }
        let gtg = g.transposed * g
        let gte = g.transposed * e
        for a in 0..<3 {
            eq.rhs[eq.phys(o + 3 + a)] += wg * gte[a]
            for c in 0...a { eq.addH(o + 3 + a, o + 3 + c, wg * gtg[a, c]) }
        }
    }

    /// A factor `residual ≈ x₂ − x₁` on three unknowns `x₁` from `first` and `x₂` from `second`
    /// (θ or b of two knots), with `weight` as information.
    func addDifference(
        _ first: Int, _ second: Int, weight w: Double, residual e: Vector3, _ eq: inout NormalEquations
    ) {
        for a in 0..<3 {
            eq.addH(first + a, first + a, w)
            eq.addH(second + a, second + a, w)
            eq.addH(second + a, first + a, -w)
            eq.rhs[eq.phys(first + a)] += w * e[a]
            eq.rhs[eq.phys(second + a)] -= w * e[a]
        }
    }

    /// Rest: no rotation between the knots (for a knot whose samples are all at rest).
    func addRest(_ k: Int, _ x: KnotIntegration, _ eq: inout NormalEquations) {
        let p = parameters
        let o = k * Self.knotSize
        let n1 = o + Self.knotSize
        let wr = 1 / (p.restRateNoise * p.restRateNoise * max(x.pre.duration, 1e-4))
        let er = (q[k + 1] * q[k].conjugate).rotationVector
        addDifference(o, n1, weight: wr, residual: er, &eq)
    }

    /// Magnetic azimuth disturbance: first-order Gauss–Markov between knots.
    func addDisturbance(_ k: Int, _ x: KnotIntegration, _ eq: inout NormalEquations) {
        let p = parameters
        let o = k * Self.knotSize
        let n1 = o + Self.knotSize
        let decay = (-max(x.pre.duration, 0) / p.magneticDisturbanceTime).exp
        let variance = max(p.magneticDisturbance * p.magneticDisturbance * (1 - decay * decay), 1e-12)
        let wd = 1 / variance
        let rd = d[k + 1] - decay * d[k]
        eq.addH(o + 8, o + 8, wd * decay * decay)
        eq.addH(n1 + 8, n1 + 8, wd)
        eq.addH(n1 + 8, o + 8, -wd * decay)
        eq.rhs[eq.phys(o + 8)] += wd * decay * rd
        eq.rhs[eq.phys(n1 + 8)] -= wd * rd
    }

    /// Bias random walk between knots.
    func addBiasRandomWalk(_ k: Int, _ x: KnotIntegration, _ eq: inout NormalEquations) {
        let p = parameters
        let o = k * Self.knotSize
        let n1 = o + Self.knotSize
        let wb = 1 / (p.biasRandomWalk * p.biasRandomWalk * max(x.pre.duration, 1e-4))
        let db = b[k + 1] - b[k]
        addDifference(o + 3, n1 + 3, weight: wb, residual: db, &eq)
    }

    /// Velocity increment (horizontal): r = v_{k+1} − v_k − H R_k Σ ΔR f τ, robustly weighted.
    mutating func addVelocityIncrement(
        _ k: Int, rk: Matrix3, _ x: KnotIntegration, updateWeights: Bool, scratch: inout Scratch,
        _ eq: inout NormalEquations
    ) {
        guard accelerometerCovers(x) else { return }
        let p = parameters
        let o = k * Self.knotSize
        let n1 = o + Self.knotSize
        let u = rk * x.pSum
        let res = v[k + 1] - v[k] - SIMD2(u.x, u.y)
        let sigma2 = p.accelerometerNoise * p.accelerometerNoise * x.totalTime
        var wa = accWeight[k]
        if updateWeights {
            let accScale2 = p.accelerometerOutlierScale * p.accelerometerOutlierScale
            wa = p.robustLoss.weight(squaredScaledResidual: (res.x * res.x + res.y * res.y) / (sigma2 * accScale2))
            accWeight[k] = wa
        }
        // Rows over (θ 3, b 3, v_k 2, v_{k+1} 2). The bias changes an interval's velocity increment
        // by |δb|·interval·|f|·interval, far below its noise: left out.
        let j0: [Double] = [0, -u.z, u.y, 0, 0, 0, -1, 0, 1, 0]
        let j1: [Double] = [u.z, 0, -u.x, 0, 0, 0, 0, -1, 0, 1]
        for a in 0..<10 {
            scratch.accJ[a] = j0[a]
            scratch.accJ[10 + a] = j1[a]
            scratch.accIdx[a] = a < 8 ? o + a : n1 + 6 + (a - 8)
        }
        scratch.accR[0] = res.x
        scratch.accR[1] = res.y
        scratch.accIdx.withUnsafeBufferPointer { ip in
            scratch.accJ.withUnsafeBufferPointer { jp in
                scratch.accR.withUnsafeBufferPointer { rp in eq.addFactor(ip, jp, rp, wa / sigma2) }
            }
        }
    }
}
