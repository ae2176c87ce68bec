import Foundation

/// One window of the batch estimator: the samples, the knots and their states, and the
/// Gauss–Newton solver over them (see ``BatchAttitudeEstimator`` for the model).
///
/// Unknowns, in band order, per knot `k`: the earth-frame attitude error `θₖ` (3), the gyroscope
/// bias `bₖ` (3), the horizontal velocity `vₖ` (2) and the magnetic azimuth disturbance `dₖ` (1);
/// then the constants shared by every knot (the magnetometer hard iron, when estimated) as the
/// border of the arrowhead system.
struct BatchWindow {
    /// Unknowns per knot.
    static let knotSize = 9
    /// Place of each unknown of a knot in the band: logical order (θ 0–2, b 3–5, v 6–7, d 8) is
    /// stored as (v, d, θ, b), so that the widest coupling (θ or b of knot k with the same of
    /// knot k + 1) spans 11 places instead of 17: the band factor costs (11/17)² as much.
    @inline(__always)
    static func slot(_ a: Int) -> Int { a < 6 ? a + 3 : (a < 8 ? a - 6 : 2) }
    /// Physical band index of logical unknown `i`.
    @inline(__always)
    static func physical(_ i: Int) -> Int { (i / knotSize) * knotSize + slot(i % knotSize) }
    /// Lower bandwidth of the normal matrix in that order.
    static let bandwidth = 11
    /// Unknowns a magnetometer sample touches at most: θz, b (3), d, and the 11 constants.
    static let magStride = 16

    // MARK: Samples

    /// Sample times, s (as read; only the steps are used).
    var t: [Double] = []
    /// Gyroscope rate over the step ending at each sample, rad/s (zero when unknown).
    var rate: [Vector3] = []
    /// Step ending at each sample, s (0 for the first sample and for a non-increasing time).
    var step: [Double] = []
    /// Extra attitude variance over the step, rad², where the rate is unknown.
    var blind: [Double] = []
    /// Specific force, m/s² (held across short gaps), and whether it is usable.
    var acc: [Vector3] = []
    var accValid: [Bool] = []
    /// Magnetometer (delay compensated), any unit, whether usable, and the time it stands for, s.
    var mag: [Vector3] = []
    var magValid: [Bool] = []
    var magTime: [Double] = []
    /// Norm of each magnetometer value.
    var magNorm: [Double] = []
    /// Cached integration of each knot (fast path), and each magnetometer value turned into its
    /// knot's frame with that integration.
    var cache: [KnotCache?] = []
    /// Sine of the reference dip, and how far a departure of one dip tolerance moves it (set at
    /// each assembly).
    var referenceSinDip = 0.0
    var referenceDipScale = 1.0
    var magKnot: [Vector3] = []
    /// Rest flags.
    var rest: [Bool] = []

    // MARK: Knots and states

    /// Sample index of each knot; knot `k` stands for samples `knots[k] ..< knots[k + 1]`.
    var knots: [Int] = []
    /// Attitude, bias and horizontal velocity at each knot.
    var q: [Quaternion] = []
    var b: [Vector3] = []
    var v: [SIMD2<Double>] = []
    /// Slowly varying error of the magnetic azimuth at each knot, rad.
    var d: [Double] = []
    /// The constants (border unknowns): the hard iron (reading units); with a magnetometer
    /// calibration also the symmetric soft iron `(w00, w11, w22, w01, w02, w12)` and the earth
    /// field's horizontal and downward components `(H, Z)` (reading units).
    var globals: [Double] = []
    /// Learnt field strength (reading units) and dip (rad), for the disturbance weights.
    var fieldNorm = Double.nan
    var fieldDip = Double.nan
    /// Whether the reference field is kept as set (learnt at rest) rather than re-learnt.
    var fieldReferenceFixed = false
    /// Robust weights: accelerometer per knot interval, magnetometer per sample.
    var accWeight: [Double] = []
    /// Robust weight of each knot's gravity-direction factor.
    var gravityWeight: [Double] = []
    var magWeight: [Float] = []

    /// Gaussian prior on the first knot (and the constants).
    struct Prior {
        var attitude: Quaternion
        var bias: Vector3
        var velocity: SIMD2<Double>
        var disturbance: Double
        var globals: [Double]
        /// Information over (θ, b, v, d, constants).
        var information: Matrix
    }
    var prior: Prior?

    // MARK: Configuration

    let parameters: BatchAttitudeEstimator.Parameters
    let useMagnetometer: Bool
    let estimateHardIron: Bool
    /// Full magnetometer calibration: hard and soft iron with a full-vector field factor.
    let calibrating: Bool
    var borderWidth: Int { calibrating ? 11 : (estimateHardIron ? 3 : 0) }

    init(parameters: BatchAttitudeEstimator.Parameters, useMagnetometer: Bool, calibrating: Bool) {
        self.parameters = parameters
        self.useMagnetometer = useMagnetometer
        self.calibrating = useMagnetometer && calibrating
        estimateHardIron = useMagnetometer && (parameters.estimateHardIron || self.calibrating)
        globals = [Double](repeating: 0, count: self.calibrating ? 11 : (estimateHardIron ? 3 : 0))
        if self.calibrating {
            globals[3] = 1
            globals[4] = 1
            globals[5] = 1
        }
    }

    /// The hard iron (zero when not estimated).
    var hardIron: Vector3 { globals.count >= 3 ? Vector3(globals[0], globals[1], globals[2]) : .zero }
    /// The soft iron (identity when not estimated).
    var softIron: Matrix3 {
        guard calibrating else { return .identity }
        let g = globals
        return Matrix3(Vector3(g[3], g[6], g[7]), Vector3(g[6], g[4], g[8]), Vector3(g[7], g[8], g[5]))
    }

    var sampleCount: Int { t.count }
    var knotCount: Int { knots.count }

    /// Sample range of knot `k`.
    @inline(__always)
    func range(_ k: Int) -> Range<Int> {
        knots[k]..<(k + 1 < knots.count ? knots[k + 1] : t.count)
    }

    // MARK: Preintegration

    /// Gyroscope integration from a knot with the knot's bias: `rotation` turns the current
    /// sample's frame into the knot's, `jacobian` is its derivative (right perturbation) with
    /// respect to the bias, `variance` the attitude noise accumulated over `duration`.
    struct Preintegration {
        var rotation = Matrix3.identity
        var quaternion = Quaternion.identity
        /// `Σ ΔR_j·dt_j` over the steps so far: with it the bias Jacobian is `−ΔRᵀ·sum` (the
        /// closed form of `J ← Eᵀ·J − Jr(φ)·dt` with `Jr ≈ I`, exact to the first order in the
        /// rotation per step), so no 3×3 product is needed per sample.
        var sum = Matrix3.zero
        var variance = 0.0
        var duration = 0.0

        /// The derivative of `rotation` (right perturbation) with respect to the bias.
        var jacobian: Matrix3 { (rotation.transposed * sum) * -1 }

        /// Integrates the bias-corrected rate `omega` over `dt`, adding `noise` (rad²/s) per second
        /// and `extra` (rad²).
        @inline(__always)
        mutating func advance(_ omega: Vector3, _ dt: Double, noise: Double, extra: Double) {
            guard dt > 0 else { return }
            quaternion = quaternion * Quaternion(rotationVector: omega * dt)
            rotation = Matrix3(quaternion)
            sum += rotation * dt
            variance += noise * dt + extra
            duration += dt
        }
    }

    /// Advances `pre` over the step ending at sample `i` with knot `k`'s bias.
    @inline(__always)
    func advance(_ pre: inout Preintegration, _ i: Int, bias: Vector3) {
        let dt = step[i]
        guard dt > 0 else { return }
        let omega = rate[i] - bias
        let s2 = parameters.rateScaleUncertainty * parameters.rateScaleUncertainty
        let n2 = parameters.gyroscopeNoise * parameters.gyroscopeNoise
        pre.advance(omega, dt, noise: n2 + s2 * omega.squaredNorm, extra: blind[i])
    }

    /// Time the sample stands for in sums over a knot (the step after it), s.
    @inline(__always)
    func weightTime(_ i: Int) -> Double { i + 1 < t.count ? step[i + 1] : 0 }

    // MARK: Normal equations

    /// Assembles the normal equations at the current state for knots `0 ... lastKnot`, with the
    /// interval and per-knot factors of knots `< factorLimit` (all of them for the whole window,
    /// those before the boundary for a marginal), and updates the robust weights when asked.
    mutating func assemble(lastKnot: Int, factorLimit: Int, updateWeights: Bool) -> BorderedBandedSystem {
        let p = parameters
        let ks = Self.knotSize
        let n = (lastKnot + 1) * ks
        let pw = borderWidth
        let ld = Self.bandwidth + 1
        @inline(__always) func phys(_ i: Int) -> Int { i < n ? Self.physical(i) : i }
        var band = [Double](repeating: 0, count: ld * n)
        var rhs = [Double](repeating: 0, count: n + pw)
        var border = [Double](repeating: 0, count: n * pw)
        var corner = Matrix(rows: pw, columns: pw)
        let magNoise2 = p.magnetometerNoise * p.magnetometerNoise
        let headingScale2 = p.headingOutlierScale * p.headingOutlierScale
        let dipTol = p.dipTolerance
        let accNoise2 = p.accelerometerNoise * p.accelerometerNoise
        let accScale2 = p.accelerometerOutlierScale * p.accelerometerOutlierScale
        let velocityWeight = 1 / (2 * p.typicalSpeed * p.typicalSpeed * p.speedCorrelationTime)
        let zuptWeight = 1 / (p.restVelocityNoise * p.restVelocityNoise)
        let restNoise2 = p.restRateNoise * p.restRateNoise
        let loss = p.robustLoss
        let gravityNoise2 = p.gravityNoise * p.gravityNoise
        let gravityScale2 = p.gravityOutlierScale * p.gravityOutlierScale
        var calibrationSums = (norm: 0.0, dip: 0.0, weight: 0.0)
        var fastSums = (norm: 0.0, dip: 0.0, weight: 0.0)
        var magNormSum = 0.0
        var magDipSum = 0.0
        var magWeightSum = 0.0
        // Field reference for the disturbance weights (``fieldWeight(norm:sinDip:)``).
        referenceSinDip = Foundation.sin(fieldDip)
        // A dip departure δ moves the sine by cos(dip)·δ.
        referenceDipScale = max(Foundation.cos(fieldDip), 0.05) * dipTol
        let hard = hardIron

        // The weights live outside `self` while assembling (no uniqueness check per write).
        let weights = UnsafeMutableBufferPointer<Float>.allocate(capacity: magWeight.count)
        _ = weights.initialize(from: magWeight)
        defer {
            magWeight = Array(weights)
            weights.deallocate()
        }
        band.withUnsafeMutableBufferPointer { band in
            rhs.withUnsafeMutableBufferPointer { rhs in
                border.withUnsafeMutableBufferPointer { border in
                    // H[i, j] += v for band unknowns (either order), by logical index.
                    @inline(__always) func addH(_ li: Int, _ lj: Int, _ v: Double) {
                        let i = phys(li)
                        let j = phys(lj)
                        if i >= j { band[(i - j) + j * ld] += v } else { band[(j - i) + i * ld] += v }
                    }
                    // Generic factor: `rows` residuals with Jacobian `jac` (row-major, rows × count)
                    // over unknowns `idx` (band indices, or n + c for constant c), weight w.
                    func addFactor(
                        _ idx: UnsafeBufferPointer<Int>, _ jac: UnsafeBufferPointer<Double>,
                        _ res: UnsafeBufferPointer<Double>,
                        _ w: Double
                    ) {
                        let count = idx.count
                        let rows = res.count
                        for a in 0..<count {
                            var g = 0.0
                            for r in 0..<rows { g += jac[r * count + a] * res[r] }
                            if g != 0 {
                                if idx[a] < n { rhs[phys(idx[a])] -= w * g } else { rhs[phys(idx[a])] -= w * g }
                            }
                            for c in 0...a {
                                var h = 0.0
                                for r in 0..<rows { h += jac[r * count + a] * jac[r * count + c] }
                                if h == 0 { continue }
                                h *= w
                                let ia = idx[a]
                                let ic = idx[c]
                                if ia < n && ic < n {
                                    addH(ia, ic, h)
                                } else if ia >= n && ic >= n {
                                    corner[ia - n, ic - n] += h
                                    if ia != ic { corner[ic - n, ia - n] += h }
                                } else if ia < n {
                                    border[phys(ia) + (ic - n) * n] += h
                                } else {
                                    border[phys(ic) + (ia - n) * n] += h
                                }
                            }
                        }
                    }

                    // Prior on knot 0 (and the constants).
                    if let prior {
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
                            rhs[phys(r < ks ? r : n + r - ks)] -= g
                            for c in 0...r {
                                let val = prior.information[r, c]
                                if r < ks {
                                    addH(r, c, val)
                                } else if c < ks {
                                    border[phys(c) + (r - ks) * n] += val
                                } else {
                                    corner[r - ks, c - ks] += val
                                    if r != c { corner[c - ks, r - ks] += val }
                                }
                            }
                        }
                    }

                    var magIdx = [Int](repeating: 0, count: 5 + pw)
                    var magH = [Double](repeating: 0, count: Self.magStride * Self.magStride)
                    var magG = [Double](repeating: 0, count: Self.magStride)
                    var accIdx = [Int](repeating: 0, count: 10)
                    var accJ = [Double](repeating: 0, count: 20)
                    var accR = [Double](repeating: 0, count: 2)
                    let last = min(lastKnot, factorLimit - 1)
                    if last >= 0 {
                        for k in 0...last {
                            let o = k * ks
                            let rk = Matrix3(q[k])
                            let hasNext = k < lastKnot && k + 1 < knots.count
                            let bias = b[k]
                            var pSum = Vector3.zero  // Σ ΔR f τ
                            var magLambda = 0.0
                            var magGradient = 0.0
                            var accTime = 0.0
                            var totalTime = 0.0
                            var allRest = true
                            for a in magH.indices { magH[a] = 0 }
                            for a in magG.indices { magG[a] = 0 }
                            let dk = d[k]
                            var pre = Preintegration()
                            let r = range(k)
                            // Fast path (no constants): the knot's integration is cached and reused
                            // while its bias stays put; only the magnetometer azimuths are redone.
                            let fast = pw == 0
                            var toNext = Preintegration()
                            if fast {
                                let c = cachedKnot(k, hasNext: hasNext)
                                pSum = c.pSum
                                accTime = c.accTime
                                totalTime = c.totalTime
                                allRest = c.allRest
                                toNext = c.toNext
                                // First-order change of the rotation to the next knot with the bias.
                                let db = bias - c.bias
                                if db != .zero {
                                    let turn = toNext.jacobian * db
                                    toNext.quaternion = toNext.quaternion * Quaternion(rotationVector: turn)
                                    toNext.rotation = Matrix3(toNext.quaternion)
                                }
                            }
                            for i in r {
                                if fast {
                                    guard useMagnetometer && magValid[i] else { continue }
                                    fastMagnetometer(
                                        i, rk: rk, dk: dk, updateWeights: updateWeights, weights: weights,
                                        lambda: &magLambda, gradient: &magGradient, sums: &fastSums)
                                    continue
                                }
                                if i > r.lowerBound { advance(&pre, i, bias: bias) }
                                let tau = weightTime(i)
                                totalTime += tau
                                if !rest[i] { allRest = false }
                                if accValid[i] && tau > 0 {
                                    pSum += pre.rotation * acc[i] * tau
                                    accTime += tau
                                }
                                guard useMagnetometer && magValid[i] else { continue }
                                if calibrating {
                                    calibrationFactor(
                                        i, rk: rk, pre: pre, updateWeights: updateWeights, weights: weights,
                                        magH: &magH, magG: &magG,
                                        sums: &calibrationSums)
                                    continue
                                }
                                let m = mag[i] - hard
                                let mE = rk * (pre.rotation * m)
                                let hh = mE.x * mE.x + mE.y * mE.y
                                let norm = pw > 0 ? m.norm : magNorm[i]
                                guard hh > 0, norm > 0 else { continue }
                                let residual = Self.azimuth(mE) - dk
                                // Sine of the dip (the rotation keeps the norm).
                                let sinDip = -mE.z / norm
                                var w = Double(weights[i])
                                if updateWeights {
                                    let field = fieldWeight(norm: norm, sinDip: sinDip)
                                    w = field * loss.weight(squaredScaledResidual: residual * residual / headingScale2)
                                    weights[i] = Float(w)
                                }
                                magNormSum += w * norm
                                magDipSum += w * sinDip
                                magWeightSum += w
                                let lambda = w * magTime[i] / magNoise2
                                guard lambda > 0 else { continue }
                                // Residual ψ − d: ∂/∂θz = −1, ∂/∂d = −1. The bias moves a sample's
                                // azimuth by at most |δb|·knot interval, far below the magnetometer
                                // noise: left out. With a hard iron: ∂/∂h = −(y R_i,0 − x R_i,1)/hh.
                                if pw == 0 {
                                    magLambda += lambda
                                    magGradient += lambda * residual
                                    continue
                                }
                                let rs = rk * pre.rotation
                                let a = (rs.row0 * mE.y - rs.row1 * mE.x) * (-1 / hh)
                                let row = [-1.0, 0, 0, 0, -1, a.x, a.y, a.z]
                                for ia in 0..<8 where row[ia] != 0 {
                                    let la = lambda * row[ia]
                                    magG[ia] -= la * residual
                                    for ic in 0...ia { magH[ia * Self.magStride + ic] += la * row[ic] }
                                }
                            }
                            if magLambda > 0 {
                                magH[0] += magLambda
                                magH[4 * Self.magStride] += magLambda
                                magH[4 * Self.magStride + 4] += magLambda
                                magG[0] += magGradient
                                magG[4] += magGradient
                            }
                            if useMagnetometer {
                                magIdx[0] = o + 2
                                magIdx[1] = o + 3
                                magIdx[2] = o + 4
                                magIdx[3] = o + 5
                                magIdx[4] = o + 8
                                for c in 0..<pw { magIdx[5 + c] = n + c }
                                let count = 5 + pw
                                for a in 0..<count {
                                    rhs[phys(magIdx[a])] += magG[a]
                                    for c in 0...a {
                                        let val = magH[a * Self.magStride + c]
                                        if val == 0 { continue }
                                        let ia = magIdx[a]
                                        let ic = magIdx[c]
                                        if ia < n {
                                            addH(ia, ic, val)
                                        } else if ic < n {
                                            border[phys(ic) + (ia - n) * n] += val
                                        } else {
                                            corner[ia - n, ic - n] += val
                                            if ia != ic { corner[ic - n, ia - n] += val }
                                        }
                                    }
                                }
                            }
                            // Velocity prior (bounded speed), and zero velocity at rest.
                            var vw = velocityWeight * max(totalTime, 1e-3)
                            if allRest && !r.isEmpty { vw += zuptWeight }
                            addH(o + 6, o + 6, vw)
                            addH(o + 7, o + 7, vw)
                            rhs[phys(o + 6)] -= vw * v[k].x
                            rhs[phys(o + 7)] -= vw * v[k].y
                            // Gravity direction: the knot's mean specific force in the earth frame
                            // should be vertical (horizontal components of its direction), robustly
                            // weighted against linear acceleration.
                            if gravityNoise2 > 0 && totalTime > 0 && accTime >= 0.9 * totalTime {
                                let u = rk * pSum
                                let norm = u.norm
                                if norm > 0 {
                                    let e = u * (1 / norm)
                                    let r0 = e.x
                                    let r1 = e.y
                                    var wgv = gravityWeight[k]
                                    if updateWeights {
                                        wgv = loss.weight(squaredScaledResidual: (r0 * r0 + r1 * r1) / gravityScale2)
                                        gravityWeight[k] = wgv
                                    }
                                    let lambda = wgv * totalTime / gravityNoise2
                                    // ∂r/∂θ = −rows 0, 1 of [e]×.
                                    let j0 = (0.0, e.z, -e.y)
                                    let j1 = (-e.z, 0.0, e.x)
                                    let ja = [j0.0, j0.1, j0.2]
                                    let jb = [j1.0, j1.1, j1.2]
                                    for a in 0..<3 {
                                        rhs[phys(o + a)] -= lambda * (ja[a] * r0 + jb[a] * r1)
                                        for c in 0...a {
                                            let h = lambda * (ja[a] * ja[c] + jb[a] * jb[c])
                                            if h != 0 { addH(o + a, o + c, h) }
                                        }
                                    }
                                }
                            }
                            guard hasNext else { continue }
                            // Step to the next knot's sample.
                            if fast { pre = toNext } else { advance(&pre, r.upperBound, bias: bias) }
                            let n1 = o + ks
                            // Gyroscope: e = log(R_{k+1} (R_k ΔR)ᵀ); ∂e/∂θk = −I, ∂e/∂θk+1 = I, ∂e/∂bk = −R_k ΔR J.
                            let predicted = q[k] * pre.quaternion
                            let e = (q[k + 1] * predicted.conjugate).rotationVector
                            let wg = 1 / max(pre.variance, 1e-14)
                            let g = (rk * pre.sum) * -1  // R_k ΔR J = −R_k Σ ΔR dt
                            for a in 0..<3 {
                                addH(o + a, o + a, wg)
                                addH(n1 + a, n1 + a, wg)
                                addH(n1 + a, o + a, -wg)
                                rhs[phys(o + a)] += wg * e[a]
                                rhs[phys(n1 + a)] -= wg * e[a]
                                for c in 0..<3 {
                                    addH(o + 3 + c, o + a, wg * g[a, c])
                                    addH(o + 3 + c, n1 + a, -wg * g[a, c])
                                }
                            }
                            let gtg = g.transposed * g
                            let gte = g.transposed * e
                            for a in 0..<3 {
                                rhs[phys(o + 3 + a)] += wg * gte[a]
                                for c in 0...a { addH(o + 3 + a, o + 3 + c, wg * gtg[a, c]) }
                            }
                            // Rest: no rotation between the knots.
                            if allRest {
                                let wr = 1 / (restNoise2 * max(pre.duration, 1e-4))
                                let er = (q[k + 1] * q[k].conjugate).rotationVector
                                for a in 0..<3 {
                                    addH(o + a, o + a, wr)
                                    addH(n1 + a, n1 + a, wr)
                                    addH(n1 + a, o + a, -wr)
                                    rhs[phys(o + a)] += wr * er[a]
                                    rhs[phys(n1 + a)] -= wr * er[a]
                                }
                            }
                            // Magnetic azimuth disturbance: first-order Gauss–Markov between knots.
                            do {
                                let decay = (-max(pre.duration, 0) / p.magneticDisturbanceTime).exp
                                let variance = max(
                                    p.magneticDisturbance * p.magneticDisturbance * (1 - decay * decay), 1e-12)
                                let wd = 1 / variance
                                let rd = d[k + 1] - decay * d[k]
                                addH(o + 8, o + 8, wd * decay * decay)
                                addH(n1 + 8, n1 + 8, wd)
                                addH(n1 + 8, o + 8, -wd * decay)
                                rhs[phys(o + 8)] += wd * decay * rd
                                rhs[phys(n1 + 8)] -= wd * rd
                            }
                            // Bias random walk.
                            let wb = 1 / (p.biasRandomWalk * p.biasRandomWalk * max(pre.duration, 1e-4))
                            let db = b[k + 1] - b[k]
                            for a in 0..<3 {
                                addH(o + 3 + a, o + 3 + a, wb)
                                addH(n1 + 3 + a, n1 + 3 + a, wb)
                                addH(n1 + 3 + a, o + 3 + a, -wb)
                                rhs[phys(o + 3 + a)] += wb * db[a]
                                rhs[phys(n1 + 3 + a)] -= wb * db[a]
                            }
                            // Velocity increment (horizontal): r = v_{k+1} − v_k − H R_k Σ ΔR f τ.
                            if totalTime > 0 && accTime >= 0.9 * totalTime {
                                let u = rk * pSum
                                let res = v[k + 1] - v[k] - SIMD2(u.x, u.y)
                                let sigma2 = accNoise2 * totalTime
                                var wa = accWeight[k]
                                if updateWeights {
                                    wa = loss.weight(
                                        squaredScaledResidual: (res.x * res.x + res.y * res.y) / (sigma2 * accScale2))
                                    accWeight[k] = wa
                                }
                                // Rows over (θ 3, b 3, v_k 2, v_{k+1} 2). The bias changes an interval's
                                // velocity increment by |δb|·interval·|f|·interval, far below its noise:
                                // left out.
                                let j0: [Double] = [0, -u.z, u.y, 0, 0, 0, -1, 0, 1, 0]
                                let j1: [Double] = [u.z, 0, -u.x, 0, 0, 0, 0, -1, 0, 1]
                                for a in 0..<10 {
                                    accJ[a] = j0[a]
                                    accJ[10 + a] = j1[a]
                                    accIdx[a] = a < 8 ? o + a : n1 + 6 + (a - 8)
                                }
                                accR[0] = res.x
                                accR[1] = res.y
                                accIdx.withUnsafeBufferPointer { ip in
                                    accJ.withUnsafeBufferPointer { jp in
                                        accR.withUnsafeBufferPointer { rp in addFactor(ip, jp, rp, wa / sigma2) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if calibrating && updateWeights && calibrationSums.weight > 0 && !fieldReferenceFixed {
            fieldNorm = calibrationSums.norm / calibrationSums.weight
            fieldDip = calibrationSums.dip / calibrationSums.weight
        }
        magNormSum += fastSums.norm
        magDipSum += fastSums.dip
        magWeightSum += fastSums.weight
        if !calibrating && updateWeights && magWeightSum > 0 && !fieldReferenceFixed {
            fieldNorm = magNormSum / magWeightSum
            fieldDip = Foundation.asin(max(-1, min(1, magDipSum / magWeightSum)))
        }
        var system = BorderedBandedSystem(order: n, bandwidth: Self.bandwidth, borderWidth: pw)
        system.band.band = band
        system.rhs = rhs
        system.border = border
        system.corner = corner
        return system
    }
}

extension BatchWindow {
    /// Applies a solution step (band unknowns, then constants).
    mutating func apply(_ delta: [Double], knotCount count: Int) -> (attitude: Double, bias: Double) {
        let ks = Self.knotSize
        var maxTheta = 0.0
        var maxBias = 0.0
        for k in 0..<count {
            let o = k * ks
            var dth = Vector3(delta[o + Self.slot(0)], delta[o + Self.slot(1)], delta[o + Self.slot(2)])
            // Guard against wild steps far from the linearisation point.
            let norm = dth.norm
            if norm > 0.5 { dth = dth * (0.5 / norm) }
            q[k] = (Quaternion(rotationVector: dth) * q[k]).normalized
            let db = Vector3(delta[o + Self.slot(3)], delta[o + Self.slot(4)], delta[o + Self.slot(5)])
            b[k] += db
            v[k] += SIMD2(delta[o + Self.slot(6)], delta[o + Self.slot(7)])
            d[k] += delta[o + Self.slot(8)]
            maxTheta = max(maxTheta, norm)
            maxBias = max(maxBias, db.norm)
        }
        for c in 0..<borderWidth { globals[c] += delta[count * ks + c] }
        return (maxTheta, maxBias)
    }

    /// Gauss–Newton with robust reweighting over the whole window until the largest attitude step
    /// is below the tolerance. Returns the iterations used, the solved system (its factor, for the
    /// covariances) or nil when the normal equations could not be solved, and why they could not.
    mutating func optimise() -> (iterations: Int, system: BorderedBandedSystem?, failure: LinearAlgebraError?) {
        let p = parameters
        let last = knotCount - 1
        guard last >= 0 else { return (0, nil, nil) }
        var solved: BorderedBandedSystem?
        var iterations = 0
        while iterations < max(1, p.maximumIterations) {
            iterations += 1
            var system = assemble(lastKnot: last, factorLimit: knotCount, updateWeights: true)
            let delta: [Double]
            do {
                delta = try system.solve()
            } catch {
                return (iterations, solved, error as? LinearAlgebraError ?? .nonFinite(routine: "pbtrf"))
            }
            guard delta.allSatisfy(\.isFinite) else { return (iterations, solved, .nonFinite(routine: "pbtrs")) }
            solved = system
            let step = apply(delta, knotCount: knotCount)
            if step.attitude < p.tolerance && step.bias * max(p.knotInterval, 1e-3) < p.tolerance { break }
        }
        return (iterations, solved, nil)
    }

    /// The Gaussian marginal of the data before knot `boundary` on that knot (and the constants),
    /// linearised at the current state: the prior the next window starts from.
    mutating func marginal(at boundary: Int) -> Prior? {
        let ks = Self.knotSize
        var system = assemble(lastKnot: boundary, factorLimit: boundary, updateWeights: false)
        guard let (physicalInfo, physicalEta) = try? system.marginal(keepingLast: ks) else { return nil }
        // Back to the logical order (θ, b, v, d, constants) the prior is written in.
        let m = physicalInfo.rows
        func place(_ a: Int) -> Int { a < ks ? Self.slot(a) : a }
        var info = Matrix(rows: m, columns: m)
        var eta = [Double](repeating: 0, count: m)
        for a in 0..<m {
            eta[a] = physicalEta[place(a)]
            for c in 0..<m { info[a, c] = physicalInfo[place(a), place(c)] }
        }
        // Mean: the step δ* = Λ⁻¹ η from the current state.
        guard let delta = try? LinearAlgebra.solveSPD(info, Matrix(column: eta)).storage,
            delta.allSatisfy(\.isFinite)
        else { return nil }
        let dth = Vector3(delta[0], delta[1], delta[2])
        var g = globals
        for c in 0..<borderWidth { g[c] += delta[ks + c] }
        return Prior(
            attitude: (Quaternion(rotationVector: dth) * q[boundary]).normalized,
            bias: b[boundary] + Vector3(delta[3], delta[4], delta[5]),
            velocity: v[boundary] + SIMD2(delta[6], delta[7]), disturbance: d[boundary] + delta[8], globals: g,
            information: info.symmetrizedMatrix)
    }
}

extension Matrix {
    /// `(A + Aᵀ)/2`.
    var symmetrizedMatrix: Matrix {
        var m = self
        for i in 0..<rows { for j in 0..<i { let v = (m[i, j] + m[j, i]) / 2; m[i, j] = v; m[j, i] = v } }
        return m
    }
}

extension BatchWindow {
    /// The full-vector magnetometer factor of a calibration: `R_i·W·(m_i − h) = (0, H, −Z)` in the
    /// earth frame, scaled by the learnt field strength; its attitude and bias derivatives keep
    /// only the rotation about the vertical (the magnetometer still informs the heading only).
    /// Unknown order in `magH`/`magG`: θz, b (3), d (unused), h (3), W (6), H, Z.
    mutating func calibrationFactor(
        _ i: Int, rk: Matrix3, pre: Preintegration, updateWeights: Bool, weights: UnsafeMutableBufferPointer<Float>,
        magH: inout [Double], magG: inout [Double],
        sums: inout (norm: Double, dip: Double, weight: Double)
    ) {
        let p = parameters
        let g = globals
        let u = mag[i] - Vector3(g[0], g[1], g[2])
        let w = softIron
        let c = w * u
        let rs = rk * pre.rotation
        let rc = rs * c
        let field = Vector3(0, g[9], -g[10])
        let strength = max((g[9] * g[9] + g[10] * g[10]).squareRoot(), 1e-12)
        let s = fieldNorm.isFinite && fieldNorm > 0 ? fieldNorm : strength
        let res = (rc - field) * (1 / s)
        let hh = (rc.x * rc.x + rc.y * rc.y).squareRoot()
        let dip = Double.atan2(-rc.z, hh)
        let norm = c.norm
        var weight = Double(weights[i])
        if updateWeights {
            let en = (norm / strength - 1) / p.fieldNormTolerance
            let ed = (dip - Double.atan2(g[10], g[9])) / p.dipTolerance
            let scale2 = p.headingOutlierScale * p.headingOutlierScale
            weight = p.robustLoss.weight(squaredScaledResidual: res.squaredNorm / scale2) / (1 + en * en + ed * ed)
            weights[i] = Float(weight)
        }
        sums.norm += weight * norm
        sums.dip += weight * dip
        sums.weight += weight
        let sigma = p.magnetometerNoise * max(0.2, Foundation.cos(fieldDip.isFinite ? fieldDip : 1))
        let lambda = weight * magTime[i] / (sigma * sigma)
        guard lambda > 0 else { return }
        // Jacobian rows (3) over 16 unknowns.
        var jac = [Double](repeating: 0, count: 3 * Self.magStride)
        let turn = Vector3(-rc.y, rc.x, 0) * (1 / s)  // ∂/∂(rotation about the vertical)
        let z = pre.rotation.transposed * rk.row2
        let gb = pre.jacobian.transposed * z
        let rw = rs * w
        for r in 0..<3 {
            let o = r * Self.magStride
            jac[o] = turn[r]
            jac[o + 1] = turn[r] * gb.x
            jac[o + 2] = turn[r] * gb.y
            jac[o + 3] = turn[r] * gb.z
            // h: −R W / s.
            jac[o + 5] = -rw[r, 0] / s
            jac[o + 6] = -rw[r, 1] / s
            jac[o + 7] = -rw[r, 2] / s
            // W: R · ∂(W u)/∂w / s, w = (w00, w11, w22, w01, w02, w12).
            let r0 = rs[r, 0] / s
            let r1 = rs[r, 1] / s
            let r2 = rs[r, 2] / s
            jac[o + 8] = r0 * u.x
            jac[o + 9] = r1 * u.y
            jac[o + 10] = r2 * u.z
            jac[o + 11] = r0 * u.y + r1 * u.x
            jac[o + 12] = r0 * u.z + r2 * u.x
            jac[o + 13] = r1 * u.z + r2 * u.y
        }
        // H, Z: residual − (0, H, −Z)/s.
        jac[1 * Self.magStride + 14] = -1 / s
        jac[2 * Self.magStride + 15] = 1 / s
        for a in 0..<Self.magStride where a != 4 {
            var ga = 0.0
            for r in 0..<3 { ga += jac[r * Self.magStride + a] * res[r] }
            magG[a] -= lambda * ga
            for c in 0...a where c != 4 {
                var h = 0.0
                for r in 0..<3 { h += jac[r * Self.magStride + a] * jac[r * Self.magStride + c] }
                magH[a * Self.magStride + c] += lambda * h
            }
        }
    }
}

extension BatchWindow {
    /// What a knot's samples add up to with the knot's bias, kept across iterations.
    struct KnotCache {
        /// The bias the integration used.
        var bias: Vector3
        /// Integration to the next knot's sample.
        var toNext: Preintegration
        /// `Σ ΔR·f·τ`, the time with an accelerometer value, the knot's time.
        var pSum: Vector3
        var accTime: Double
        var totalTime: Double
        /// Every sample at rest.
        var allRest: Bool
    }

    /// The knot's cached integration, redone when its bias has moved enough to turn a sample by
    /// more than 1e-5 rad within the knot.
    mutating func cachedKnot(_ k: Int, hasNext: Bool) -> KnotCache {
        if cache.count != knots.count { cache = [KnotCache?](repeating: nil, count: knots.count) }
        if magKnot.count != t.count { magKnot = [Vector3](repeating: .zero, count: t.count) }
        let bias = b[k]
        if let c = cache[k], (c.bias - bias).norm * max(c.toNext.duration, parameters.knotInterval) < 1e-5 {
            return c
        }
        var pre = Preintegration()
        var pSum = Vector3.zero
        var accTime = 0.0
        var totalTime = 0.0
        var allRest = true
        let r = range(k)
        for i in r {
            if i > r.lowerBound { advance(&pre, i, bias: bias) }
            let tau = weightTime(i)
            totalTime += tau
            if !rest[i] { allRest = false }
            if accValid[i] && tau > 0 {
                pSum += pre.rotation * acc[i] * tau
                accTime += tau
            }
            if magValid[i] { magKnot[i] = pre.rotation * mag[i] }
        }
        if hasNext { advance(&pre, r.upperBound, bias: bias) }
        let c = KnotCache(
            bias: bias, toNext: pre, pSum: pSum, accTime: accTime, totalTime: totalTime, allRest: allRest)
        cache[k] = c
        return c
    }

    /// One magnetometer sample on the fast path: its azimuth residual against the knot's attitude
    /// and disturbance, its robust weight, and its information and gradient on (θz, d).
    @inline(__always)
    mutating func fastMagnetometer(
        _ i: Int, rk: Matrix3, dk: Double, updateWeights: Bool, weights: UnsafeMutableBufferPointer<Float>,
        lambda: inout Double, gradient: inout Double, sums: inout (norm: Double, dip: Double, weight: Double)
    ) {
        let p = parameters
        let mE = rk * magKnot[i]
        let hh = mE.x * mE.x + mE.y * mE.y
        let norm = magNorm[i]
        guard hh > 0, norm > 0 else { return }
        let residual = Self.azimuth(mE) - dk
        let sinDip = -mE.z / norm
        var w = Double(weights[i])
        if updateWeights {
            let field = fieldWeight(norm: norm, sinDip: sinDip)
            let scale2 = p.headingOutlierScale * p.headingOutlierScale
            w = field * p.robustLoss.weight(squaredScaledResidual: residual * residual / scale2)
            weights[i] = Float(w)
        }
        sums.norm += w * norm
        sums.dip += w * sinDip
        sums.weight += w
        let l = w * magTime[i] / (p.magnetometerNoise * p.magnetometerNoise)
        lambda += l
        gradient += l * residual
    }

}

extension BatchWindow {
    /// The azimuth of the horizontal field `mE` (earth frame), radians clockwise from +y (north):
    /// a short series where it is small (most samples), else `atan2`.
    @inline(__always)
    static func azimuth(_ mE: Vector3) -> Double {
        guard mE.y > 0 && abs(mE.x) < 0.1 * mE.y else { return Double.atan2(mE.x, mE.y) }
        let u = mE.x / mE.y
        let u2 = u * u
        return u * (1 - u2 * (1.0 / 3 - u2 * (1.0 / 5 - u2 * (1.0 / 7))))
    }

    /// How much a magnetometer sample of this strength and dip is trusted (1 while the reference
    /// field is not known): falls off with the deviation from the reference in units of the
    /// tolerances.
    @inline(__always)
    func fieldWeight(norm: Double, sinDip: Double) -> Double {
        guard fieldNorm.isFinite && fieldDip.isFinite else { return 1 }
        let en = (norm / fieldNorm - 1) / parameters.fieldNormTolerance
        let ed = (sinDip - referenceSinDip) / referenceDipScale
        return 1 / (1 + en * en + ed * ed)
    }
}
