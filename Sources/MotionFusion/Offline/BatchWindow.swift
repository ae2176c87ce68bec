/// One window of the batch estimator: the samples, the knots and their states, and the
/// Gauss–Newton solver over them (see ``BatchAttitudeEstimator`` for the model).
///
/// Unknowns, in band order, per knot `k`: the earth-frame attitude error `θₖ` (3), the gyroscope
/// bias `bₖ` (3) and the horizontal velocity `vₖ` (2); then the constants shared by every knot
/// (the magnetometer hard iron, when estimated) as the border of the arrowhead system.
struct BatchWindow {
    /// Unknowns per knot.
    static let knotSize = 8
    /// Lower bandwidth of the normal matrix: a factor couples at most knot `k` and `k + 1`.
    static let bandwidth = 2 * knotSize - 1

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
    /// Rest flags.
    var rest: [Bool] = []

    // MARK: Knots and states

    /// Sample index of each knot; knot `k` stands for samples `knots[k] ..< knots[k + 1]`.
    var knots: [Int] = []
    /// Attitude, bias and horizontal velocity at each knot.
    var q: [Quaternion] = []
    var b: [Vector3] = []
    var v: [SIMD2<Double>] = []
    /// Magnetometer hard iron (same unit as the readings).
    var hardIron = Vector3.zero
    /// Learnt field strength (reading units) and dip (rad), for the disturbance weights.
    var fieldNorm = Double.nan
    var fieldDip = Double.nan
    /// Robust weights: accelerometer per knot interval, magnetometer per sample.
    var accWeight: [Double] = []
    var magWeight: [Float] = []

    /// Gaussian prior on the first knot (and the constants).
    struct Prior {
        var attitude: Quaternion
        var bias: Vector3
        var velocity: SIMD2<Double>
        var hardIron: Vector3
        /// Information over (θ, b, v, hard iron if estimated).
        var information: Matrix
    }
    var prior: Prior?

    // MARK: Configuration

    let parameters: BatchAttitudeEstimator.Parameters
    let useMagnetometer: Bool
    let estimateHardIron: Bool
    var borderWidth: Int { estimateHardIron ? 3 : 0 }

    init(parameters: BatchAttitudeEstimator.Parameters, useMagnetometer: Bool) {
        self.parameters = parameters
        self.useMagnetometer = useMagnetometer
        self.estimateHardIron = useMagnetometer && parameters.estimateHardIron
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
        var jacobian = Matrix3.zero
        var variance = 0.0
        var duration = 0.0

        /// Integrates the bias-corrected rate `omega` over `dt`, adding `noise` (rad²/s) per second
        /// and `extra` (rad²).
        @inline(__always)
        mutating func advance(_ omega: Vector3, _ dt: Double, noise: Double, extra: Double) {
            guard dt > 0 else { return }
            let phi = omega * dt
            let e = Quaternion(rotationVector: phi)
            let em = Matrix3(e)
            quaternion = quaternion * e
            rotation = rotation * em
            // J ← Eᵀ J − Jr(φ) dt, with Jr(φ) ≈ I − ½[φ]×.
            let h = phi * 0.5
            let jr = Matrix3(Vector3(1, h.z, -h.y), Vector3(-h.z, 1, h.x), Vector3(h.y, -h.x, 1))
            jacobian = em.transposed * jacobian - jr * dt
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
        var band = [Double](repeating: 0, count: ld * n)
        var rhs = [Double](repeating: 0, count: n + pw)
        var border = [Double](repeating: 0, count: n * pw)
        var corner = Matrix(rows: pw, columns: pw)
        let magNoise2 = p.magnetometerNoise * p.magnetometerNoise
        let headingScale2 = p.headingOutlierScale * p.headingOutlierScale
        let normTol = p.fieldNormTolerance
        let dipTol = p.dipTolerance
        let accNoise2 = p.accelerometerNoise * p.accelerometerNoise
        let accScale2 = p.accelerometerOutlierScale * p.accelerometerOutlierScale
        let velocityWeight = 1 / (2 * p.typicalSpeed * p.typicalSpeed * p.speedCorrelationTime)
        let zuptWeight = 1 / (p.restVelocityNoise * p.restVelocityNoise)
        let restNoise2 = p.restRateNoise * p.restRateNoise
        let loss = p.robustLoss
        var magNormSum = 0.0
        var magDipSum = 0.0
        var magWeightSum = 0.0
        // Field reference for the disturbance weights.
        let refNorm = fieldNorm
        let refDip = fieldDip

        band.withUnsafeMutableBufferPointer { band in
            rhs.withUnsafeMutableBufferPointer { rhs in
                border.withUnsafeMutableBufferPointer { border in
                    // H[i, j] += v for band unknowns (either order).
                    @inline(__always) func addH(_ i: Int, _ j: Int, _ v: Double) {
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
                                if idx[a] < n { rhs[idx[a]] -= w * g } else { rhs[idx[a]] -= w * g }
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
                                    border[ia + (ic - n) * n] += h
                                } else {
                                    border[ic + (ia - n) * n] += h
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
                        var e = [dth.x, dth.y, dth.z, db.x, db.y, db.z, dv.x, dv.y]
                        if pw > 0 {
                            let dh = hardIron - prior.hardIron
                            e += [dh.x, dh.y, dh.z]
                        }
                        for r in 0..<m {
                            var g = 0.0
                            for c in 0..<m { g += prior.information[r, c] * e[c] }
                            rhs[r < ks ? r : n + r - ks] -= g
                            for c in 0...r {
                                let val = prior.information[r, c]
                                if r < ks {
                                    addH(r, c, val)
                                } else if c < ks {
                                    border[c + (r - ks) * n] += val
                                } else {
                                    corner[r - ks, c - ks] += val
                                    if r != c { corner[c - ks, r - ks] += val }
                                }
                            }
                        }
                    }

                    var magIdx = [Int](repeating: 0, count: 4 + pw)
                    var magH = [Double](repeating: 0, count: 49)
                    var magG = [Double](repeating: 0, count: 7)
                    var accIdx = [Int](repeating: 0, count: 10)
                    var accJ = [Double](repeating: 0, count: 20)
                    var accR = [Double](repeating: 0, count: 2)
                    let last = min(lastKnot, factorLimit - 1)
                    if last >= 0 {
                        for k in 0...last {
                            let o = k * ks
                            let rk = Matrix3(q[k])
                            let rkRow2 = rk.row2
                            let hasNext = k < lastKnot && k + 1 < knots.count
                            let bias = b[k]
                            var pSum = Vector3.zero  // Σ ΔR f τ
                            var qSum = Matrix3.zero  // Σ ΔR [f]× J τ
                            var accTime = 0.0
                            var totalTime = 0.0
                            var allRest = true
                            for a in 0..<49 { magH[a] = 0 }
                            for a in 0..<7 { magG[a] = 0 }
                            var pre = Preintegration()
                            let r = range(k)
                            for i in r {
                                if i > r.lowerBound { advance(&pre, i, bias: bias) }
                                let tau = weightTime(i)
                                totalTime += tau
                                if !rest[i] { allRest = false }
                                if accValid[i] && tau > 0 {
                                    let f = acc[i]
                                    pSum += pre.rotation * f * tau
                                    qSum += pre.rotation * (Matrix3.cross(f) * pre.jacobian) * tau
                                    accTime += tau
                                }
                                guard useMagnetometer && magValid[i] else { continue }
                                let m = mag[i] - hardIron
                                let mK = pre.rotation * m
                                let mE = rk * mK
                                let hh = mE.x * mE.x + mE.y * mE.y
                                let norm = m.norm
                                guard hh > 0, norm > 0 else { continue }
                                let psi = Double.atan2(mE.x, mE.y)
                                let dip = Double.atan2(-mE.z, hh.squareRoot())
                                var w = Double(magWeight[i])
                                if updateWeights {
                                    var field = 1.0
                                    if refNorm.isFinite && refDip.isFinite {
                                        let en = (norm / refNorm - 1) / normTol
                                        let ed = (dip - refDip) / dipTol
                                        field = 1 / (1 + en * en + ed * ed)
                                    }
                                    w = field * loss.weight(squaredScaledResidual: psi * psi / headingScale2)
                                    magWeight[i] = Float(w)
                                }
                                magNormSum += w * norm
                                magDipSum += w * dip
                                magWeightSum += w
                                let lambda = w * magTime[i] / magNoise2
                                guard lambda > 0 else { continue }
                                // Row: θz → −1, b → −(R_i J)ᵀ e_z, hard iron → −(y R_i,0 − x R_i,1)/hh.
                                let z = pre.rotation.transposed * rkRow2  // row 2 of R_i
                                let gb = pre.jacobian.transposed * z
                                var row = (-1.0, -gb.x, -gb.y, -gb.z, 0.0, 0.0, 0.0)
                                if pw > 0 {
                                    let x0 = pre.rotation.transposed * rk.row0
                                    let x1 = pre.rotation.transposed * rk.row1
                                    let a = (x0 * mE.y - x1 * mE.x) * (-1 / hh)
                                    row.4 = a.x
                                    row.5 = a.y
                                    row.6 = a.z
                                }
                                withUnsafeBytes(of: row) { raw in
                                    let rv = raw.bindMemory(to: Double.self)
                                    let count = 4 + pw
                                    for a in 0..<count {
                                        let la = lambda * rv[a]
                                        magG[a] -= la * psi
                                        for c in 0...a { magH[a * 7 + c] += la * rv[c] }
                                    }
                                }
                            }
                            if useMagnetometer {
                                magIdx[0] = o + 2
                                magIdx[1] = o + 3
                                magIdx[2] = o + 4
                                magIdx[3] = o + 5
                                for c in 0..<pw { magIdx[4 + c] = n + c }
                                let count = 4 + pw
                                for a in 0..<count {
                                    rhs[magIdx[a]] += magG[a]
                                    for c in 0...a {
                                        let val = magH[a * 7 + c]
                                        if val == 0 { continue }
                                        let ia = magIdx[a]
                                        let ic = magIdx[c]
                                        if ia < n {
                                            addH(ia, ic, val)
                                        } else if ic < n {
                                            border[ic + (ia - n) * n] += val
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
                            rhs[o + 6] -= vw * v[k].x
                            rhs[o + 7] -= vw * v[k].y
                            guard hasNext else { continue }
                            // Step to the next knot's sample.
                            advance(&pre, r.upperBound, bias: bias)
                            let n1 = o + ks
                            // Gyroscope: e = log(R_{k+1} (R_k ΔR)ᵀ); ∂e/∂θk = −I, ∂e/∂θk+1 = I, ∂e/∂bk = −R_k ΔR J.
                            let predicted = q[k] * pre.quaternion
                            let e = (q[k + 1] * predicted.conjugate).rotationVector
                            let wg = 1 / max(pre.variance, 1e-14)
                            let g = rk * pre.rotation * pre.jacobian
                            for a in 0..<3 {
                                addH(o + a, o + a, wg)
                                addH(n1 + a, n1 + a, wg)
                                addH(n1 + a, o + a, -wg)
                                rhs[o + a] += wg * e[a]
                                rhs[n1 + a] -= wg * e[a]
                                for c in 0..<3 {
                                    addH(o + 3 + c, o + a, wg * g[a, c])
                                    addH(o + 3 + c, n1 + a, -wg * g[a, c])
                                }
                            }
                            let gtg = g.transposed * g
                            let gte = g.transposed * e
                            for a in 0..<3 {
                                rhs[o + 3 + a] += wg * gte[a]
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
                                    rhs[o + a] += wr * er[a]
                                    rhs[n1 + a] -= wr * er[a]
                                }
                            }
                            // Bias random walk.
                            let wb = 1 / (p.biasRandomWalk * p.biasRandomWalk * max(pre.duration, 1e-4))
                            let db = b[k + 1] - b[k]
                            for a in 0..<3 {
                                addH(o + 3 + a, o + 3 + a, wb)
                                addH(n1 + 3 + a, n1 + 3 + a, wb)
                                addH(n1 + 3 + a, o + 3 + a, -wb)
                                rhs[o + 3 + a] += wb * db[a]
                                rhs[n1 + 3 + a] -= wb * db[a]
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
                                let rq = rk * qSum
                                // Rows over (θ 3, b 3, v_k 2, v_{k+1} 2).
                                let j0: [Double] = [0, -u.z, u.y, rq[0, 0], rq[0, 1], rq[0, 2], -1, 0, 1, 0]
                                let j1: [Double] = [u.z, 0, -u.x, rq[1, 0], rq[1, 1], rq[1, 2], 0, -1, 0, 1]
                                for a in 0..<10 {
                                    accJ[a] = j0[a]
                                    accJ[10 + a] = j1[a]
                                    accIdx[a] = a < 8 ? o + a : n1 + a - 2
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
        if updateWeights && magWeightSum > 0 {
            fieldNorm = magNormSum / magWeightSum
            fieldDip = magDipSum / magWeightSum
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
            var dth = Vector3(delta[o], delta[o + 1], delta[o + 2])
            // Guard against wild steps far from the linearisation point.
            let norm = dth.norm
            if norm > 0.5 { dth = dth * (0.5 / norm) }
            q[k] = (Quaternion(rotationVector: dth) * q[k]).normalized
            let db = Vector3(delta[o + 3], delta[o + 4], delta[o + 5])
            b[k] += db
            v[k] += SIMD2(delta[o + 6], delta[o + 7])
            maxTheta = max(maxTheta, norm)
            maxBias = max(maxBias, db.norm)
        }
        if estimateHardIron {
            let o = count * ks
            hardIron += Vector3(delta[o], delta[o + 1], delta[o + 2])
        }
        return (maxTheta, maxBias)
    }

    /// Gauss–Newton with robust reweighting over the whole window until the largest attitude step
    /// is below the tolerance. Returns the iterations used and the solved system (its factor, for
    /// the covariances), or nil when the normal equations could not be solved.
    mutating func optimise() -> (iterations: Int, system: BorderedBandedSystem?) {
        let p = parameters
        let last = knotCount - 1
        guard last >= 0 else { return (0, nil) }
        var solved: BorderedBandedSystem?
        var iterations = 0
        while iterations < max(1, p.maximumIterations) {
            iterations += 1
            var system = assemble(lastKnot: last, factorLimit: knotCount, updateWeights: true)
            guard let delta = try? system.solve(), delta.allSatisfy(\.isFinite) else { break }
            solved = system
            let step = apply(delta, knotCount: knotCount)
            if step.attitude < p.tolerance && step.bias * max(p.knotInterval, 1e-3) < p.tolerance { break }
        }
        return (iterations, solved)
    }

    /// The Gaussian marginal of the data before knot `boundary` on that knot (and the constants),
    /// linearised at the current state: the prior the next window starts from.
    mutating func marginal(at boundary: Int) -> Prior? {
        let ks = Self.knotSize
        var system = assemble(lastKnot: boundary, factorLimit: boundary, updateWeights: false)
        guard let (info, eta) = try? system.marginal(keepingLast: ks) else { return nil }
        // Mean: the step δ* = Λ⁻¹ η from the current state.
        guard let delta = try? LinearAlgebra.solveSPD(info, Matrix(column: eta)).storage,
            delta.allSatisfy(\.isFinite)
        else { return nil }
        let dth = Vector3(delta[0], delta[1], delta[2])
        var h = hardIron
        if estimateHardIron { h += Vector3(delta[ks], delta[ks + 1], delta[ks + 2]) }
        return Prior(
            attitude: (Quaternion(rotationVector: dth) * q[boundary]).normalized,
            bias: b[boundary] + Vector3(delta[3], delta[4], delta[5]),
            velocity: v[boundary] + SIMD2(delta[6], delta[7]), hardIron: h, information: info.symmetrizedMatrix)
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
