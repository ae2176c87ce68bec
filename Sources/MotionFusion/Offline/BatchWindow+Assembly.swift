import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The normal equations of a window while they are assembled, over buffers the caller owns: the
/// band (LAPACK lower band storage, in the physical order of ``BatchWindow/physical(_:)``), the
/// right-hand side (minus the gradient), the border (band unknowns × constants, column by
/// constant) and the corner (constants × constants). Unknowns are named by logical index: band
/// unknowns `0 ..< order`, constant `c` as `order + c`.
struct NormalEquations {
    /// Band unknowns.
    let order: Int
    let band: UnsafeMutableBufferPointer<Double>
    let rhs: UnsafeMutableBufferPointer<Double>
    let border: UnsafeMutableBufferPointer<Double>
    var corner: Matrix
    /// Leading dimension of the band storage.
    let ld = BatchWindow.bandwidth + 1

    /// Physical index of logical unknown `i` (constants stay where they are).
    @inline(__always)
    func phys(_ i: Int) -> Int { i < order ? BatchWindow.physical(i) : i }

    /// H[i, j] += v for band unknowns (either order), by logical index.
    @inline(__always)
    func addH(_ li: Int, _ lj: Int, _ v: Double) {
        let i = phys(li)
        let j = phys(lj)
        if i >= j { band[(i - j) + j * ld] += v } else { band[(j - i) + i * ld] += v }
    }

    /// H[i, order + c] += v between band unknown `li` and constant `c`.
    @inline(__always)
    func addBorder(_ li: Int, constant c: Int, _ v: Double) { border[phys(li) + c * order] += v }

    /// H[order + a, order + c] += v between constants (and the symmetric element).
    @inline(__always)
    mutating func addCorner(_ a: Int, _ c: Int, _ v: Double) {
        corner[a, c] += v
        if a != c { corner[c, a] += v }
    }

    /// H[ia, ic] += v for any unknowns with `ia ≥ ic`.
    @inline(__always)
    mutating func add(_ ia: Int, _ ic: Int, _ v: Double) {
        if ia < order {
            addH(ia, ic, v)
        } else if ic < order {
            addBorder(ic, constant: ia - order, v)
        } else {
            addCorner(ia - order, ic - order, v)
        }
    }

    /// Generic factor: `rows` residuals with Jacobian `jac` (row-major, rows × count) over unknowns
    /// `idx` (logical), weight w.
    mutating func addFactor(
        _ idx: UnsafeBufferPointer<Int>, _ jac: UnsafeBufferPointer<Double>, _ res: UnsafeBufferPointer<Double>,
        _ w: Double
    ) {
        let count = idx.count
        let rows = res.count
        for a in 0..<count {
            var g = 0.0
            for r in 0..<rows { g += jac[r * count + a] * res[r] }
            if g != 0 { rhs[phys(idx[a])] -= w * g }
            for c in 0...a {
                var h = 0.0
                for r in 0..<rows { h += jac[r * count + a] * jac[r * count + c] }
                if h == 0 { continue }
                h *= w
                let ia = idx[a]
                let ic = idx[c]
                if ia < order && ic < order {
                    addH(ia, ic, h)
                } else if ia >= order && ic >= order {
                    addCorner(ia - order, ic - order, h)
                } else if ia < order {
                    addBorder(ia, constant: ic - order, h)
                } else {
                    addBorder(ic, constant: ia - order, h)
                }
            }
        }
    }
}

extension BatchWindow {
    /// Weighted sums of the magnetometer samples' strength and dip (the sine of the dip on the
    /// azimuth paths, the dip on the calibration's), from which the reference field is re-learnt.
    struct FieldSums {
        var norm = 0.0
        var dip = 0.0
        var weight = 0.0
    }

    /// Work arrays of the assembly, allocated once per assembly: the magnetometer's information
    /// and gradient over one knot's unknowns (θz, b (3), d, the constants; ``magStride`` wide),
    /// with the fast path's sums on (θz, d), and the velocity increment's factor.
    struct Scratch {
        var magIdx: [Int]
        var magH = [Double](repeating: 0, count: BatchWindow.magStride * BatchWindow.magStride)
        var magG = [Double](repeating: 0, count: BatchWindow.magStride)
        var magLambda = 0.0
        var magGradient = 0.0
        var accIdx = [Int](repeating: 0, count: 10)
        var accJ = [Double](repeating: 0, count: 20)
        var accR = [Double](repeating: 0, count: 2)

        init(borderWidth: Int) { magIdx = [Int](repeating: 0, count: 5 + borderWidth) }

        /// Clears the magnetometer's terms for the next knot.
        mutating func resetMagnetometer() {
            for a in magH.indices { magH[a] = 0 }
            for a in magG.indices { magG[a] = 0 }
            magLambda = 0
            magGradient = 0
        }
    }

    /// What a knot's samples add up to with the knot's bias (kept across iterations on the fast
    /// path, see ``cachedKnot(_:hasNext:)``).
    struct KnotIntegration {
        /// The bias the integration used.
        var bias: Vector3
        /// Integration from the knot to the last sample taken, then to the next knot's sample.
        var pre = Preintegration()
        /// `Σ ΔR·f·τ`, the time with an accelerometer value, the knot's time.
        var pSum = Vector3.zero
        var accTime = 0.0
        var totalTime = 0.0
        /// Every sample at rest.
        var allRest = true
    }

    /// Adds sample `i` of the knot whose first sample is `start` to its integration.
    @inline(__always)
    func integrate(_ i: Int, from start: Int, into x: inout KnotIntegration) {
        let bias = x.bias
        if i > start { advance(&x.pre, i, bias: bias) }
        let tau = weightTime(i)
        x.totalTime += tau
        if !rest[i] { x.allRest = false }
        if accValid[i] && tau > 0 {
            x.pSum += x.pre.rotation * acc[i] * tau
            x.accTime += tau
        }
    }

    /// The knot's cached integration, redone when its bias has moved enough to turn a sample by
    /// more than 1e-5 rad within the knot; each magnetometer value turned into the knot's frame
    /// (``magKnot``) with it.
    mutating func cachedKnot(_ k: Int, hasNext: Bool) -> KnotIntegration {
        if cache.count != knots.count { cache = [KnotIntegration?](repeating: nil, count: knots.count) }
        if magKnot.count != t.count { magKnot = [Vector3](repeating: .zero, count: t.count) }
        let bias = b[k]
        if let c = cache[k], (c.bias - bias).norm * max(c.pre.duration, parameters.knotInterval) < 1e-5 {
            return c
        }
        var c = KnotIntegration(bias: bias)
        let r = range(k)
        for i in r {
            integrate(i, from: r.lowerBound, into: &c)
            if magValid[i] { magKnot[i] = c.pre.rotation * mag[i] }
        }
        if hasNext { advance(&c.pre, r.upperBound, bias: bias) }
        cache[k] = c
        return c
    }

    // MARK: Normal equations

    /// Assembles the normal equations at the current state for knots `0 ... lastKnot`, with the
    /// interval and per-knot factors of knots `< factorLimit` (all of them for the whole window,
    /// those before the boundary for a marginal), and updates the robust weights when asked.
    mutating func assemble(lastKnot: Int, factorLimit: Int, updateWeights: Bool) -> BorderedBandedSystem {
        let n = (lastKnot + 1) * Self.knotSize
        let pw = borderWidth
        var band = [Double](repeating: 0, count: (Self.bandwidth + 1) * n)
        var rhs = [Double](repeating: 0, count: n + pw)
        var border = [Double](repeating: 0, count: n * pw)
        var corner = Matrix(rows: pw, columns: pw)
        var sums = FieldSums()
        // Field reference for the disturbance weights (``fieldWeight(norm:sinDip:)``).
        referenceSinDip = Glibc.sin(fieldDip)
        // A dip departure δ moves the sine by cos(dip)·δ.
        referenceDipScale = max(Glibc.cos(fieldDip), 0.05) * parameters.dipTolerance

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
                    var eq = NormalEquations(order: n, band: band, rhs: rhs, border: border, corner: corner)
                    addPrior(&eq)
                    let last = min(lastKnot, factorLimit - 1)
                    if last >= 0 {
                        var scratch = Scratch(borderWidth: pw)
                        for k in 0...last {
                            addKnotFactors(
                                k, lastKnot: lastKnot, updateWeights: updateWeights, weights: weights,
                                scratch: &scratch, sums: &sums, &eq)
                        }
                    }
                    corner = eq.corner
                }
            }
        }
        if updateWeights && sums.weight > 0 && !fieldReferenceFixed {
            // Re-learnt from the weighted samples.
            fieldNorm = sums.norm / sums.weight
            fieldDip =
                calibrating ? sums.dip / sums.weight : Glibc.asin(max(-1, min(1, sums.dip / sums.weight)))
        }
        var system = BorderedBandedSystem(order: n, bandwidth: Self.bandwidth, borderWidth: pw)
        system.band.band = band
        system.rhs = rhs
        system.border = border
        system.corner = corner
        return system
    }

    /// Adds the factors of knot `k`: its samples' magnetometer factors, its velocity prior and
    /// gravity direction, and (when it has a next knot) the factors between it and the next.
    mutating func addKnotFactors(
        _ k: Int, lastKnot: Int, updateWeights: Bool, weights: UnsafeMutableBufferPointer<Float>,
        scratch: inout Scratch, sums: inout FieldSums, _ eq: inout NormalEquations
    ) {
        let rk = Matrix3(q[k])
        let hasNext = k < lastKnot && k + 1 < knots.count
        let x = integrateKnot(
            k, rk: rk, hasNext: hasNext, updateWeights: updateWeights, weights: weights, scratch: &scratch,
            sums: &sums)
        if useMagnetometer { addMagnetometer(k, scratch: &scratch, &eq) }
        addVelocityPrior(k, x, &eq)
        addGravity(k, rk: rk, x, updateWeights: updateWeights, &eq)
        guard hasNext else { return }
        addGyroscope(k, rk: rk, x, &eq)
        if x.allRest { addRest(k, x, &eq) }
        addDisturbance(k, x, &eq)
        addBiasRandomWalk(k, x, &eq)
        addVelocityIncrement(k, rk: rk, x, updateWeights: updateWeights, scratch: &scratch, &eq)
    }

    /// Integrates knot `k`'s samples to the next knot's (when it has one) and gathers their
    /// magnetometer factors in `scratch`. Fast path (no constants): the knot's integration is
    /// cached and reused while its bias stays put; only the magnetometer azimuths are redone.
    mutating func integrateKnot(
        _ k: Int, rk: Matrix3, hasNext: Bool, updateWeights: Bool, weights: UnsafeMutableBufferPointer<Float>,
        scratch: inout Scratch, sums: inout FieldSums
    ) -> KnotIntegration {
        scratch.resetMagnetometer()
        let dk = d[k]
        let r = range(k)
        if borderWidth == 0 {
            var x = cachedKnot(k, hasNext: hasNext)
            // First-order change of the rotation to the next knot with the bias.
            let db = b[k] - x.bias
            if db != .zero {
                let turn = x.pre.jacobian * db
                x.pre.quaternion = x.pre.quaternion * Quaternion(rotationVector: turn)
                x.pre.rotation = Matrix3(x.pre.quaternion)
            }
            guard useMagnetometer else { return x }
            for i in r where magValid[i] {
                fastMagnetometer(
                    i, rk: rk, dk: dk, updateWeights: updateWeights, weights: weights, scratch: &scratch,
                    sums: &sums)
            }
            return x
        }
        let bias = b[k]
        var x = KnotIntegration(bias: bias)
        let hard = hardIron
        for i in r {
            integrate(i, from: r.lowerBound, into: &x)
            guard useMagnetometer && magValid[i] else { continue }
            if calibrating {
                calibrationFactor(
                    i, rk: rk, pre: x.pre, updateWeights: updateWeights, weights: weights, scratch: &scratch,
                    sums: &sums)
            } else {
                hardIronAzimuth(
                    i, rk: rk, dk: dk, pre: x.pre, hard: hard, updateWeights: updateWeights, weights: weights,
                    scratch: &scratch, sums: &sums)
            }
        }
        if hasNext { advance(&x.pre, r.upperBound, bias: bias) }
        return x
    }
}
