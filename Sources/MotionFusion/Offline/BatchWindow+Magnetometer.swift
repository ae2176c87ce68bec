import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The magnetometer's factors: per sample, on the fast path (azimuth only, integration cached),
/// with a hard iron, or as the full vector of a calibration; gathered per knot in the scratch and
/// added to the normal equations once per knot.
extension BatchWindow {
    /// Adds a knot's gathered magnetometer information and gradient over (θz, b, d, constants).
    func addMagnetometer(_ k: Int, scratch: inout Scratch, _ eq: inout NormalEquations) {
        let o = k * Self.knotSize
        let n = eq.order
        let pw = borderWidth
        let lambda = scratch.magLambda
        if lambda > 0 {
            scratch.magH[0] += lambda
            scratch.magH[4 * Self.magStride] += lambda
            scratch.magH[4 * Self.magStride + 4] += lambda
            scratch.magG[0] += scratch.magGradient
            scratch.magG[4] += scratch.magGradient
        }
        scratch.magIdx[0] = o + 2
        scratch.magIdx[1] = o + 3
        scratch.magIdx[2] = o + 4
        scratch.magIdx[3] = o + 5
        scratch.magIdx[4] = o + 8
        for c in 0..<pw { scratch.magIdx[5 + c] = n + c }
        for a in 0..<5 + pw {
            eq.rhs[eq.phys(scratch.magIdx[a])] += scratch.magG[a]
            for c in 0...a {
                let val = scratch.magH[a * Self.magStride + c]
                if val == 0 { continue }
                eq.add(scratch.magIdx[a], scratch.magIdx[c], val)
            }
        }
    }

    /// A sample's azimuth residual against the knot's disturbance `dk` and its information
    /// (weight × time / noise²), from its field `mE` in the earth frame and its strength; its
    /// robust weight is updated when asked and its strength and dip summed for the reference.
    /// Nil for a field without a horizontal part.
    @inline(__always)
    func azimuthTerm(
        _ i: Int, mE: Vector3, norm: Double, dk: Double, updateWeights: Bool,
        weights: UnsafeMutableBufferPointer<Float>, sums: inout FieldSums
    ) -> (residual: Double, lambda: Double)? {
        let p = parameters
        let hh = mE.x * mE.x + mE.y * mE.y
        guard hh > 0, norm > 0 else { return nil }
        let residual = Self.azimuth(mE) - dk
        // Sine of the dip (the rotation keeps the norm).
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
        return (residual, w * magTime[i] / (p.magnetometerNoise * p.magnetometerNoise))
    }

    /// One magnetometer sample on the fast path: its azimuth residual against the knot's attitude
    /// and disturbance, its robust weight, and its information and gradient on (θz, d).
    @inline(__always)
    func fastMagnetometer(
        _ i: Int, rk: Matrix3, dk: Double, updateWeights: Bool, weights: UnsafeMutableBufferPointer<Float>,
        scratch: inout Scratch, sums: inout FieldSums
    ) {
        guard
            let (residual, l) = azimuthTerm(
                i, mE: rk * magKnot[i], norm: magNorm[i], dk: dk, updateWeights: updateWeights, weights: weights,
                sums: &sums)
        else { return }
        scratch.magLambda += l
        scratch.magGradient += l * residual
    }

    /// One magnetometer sample with the hard iron `hard` as constants: residual ψ − d, ∂/∂θz = −1,
    /// ∂/∂d = −1, ∂/∂h = −(y R_i,0 − x R_i,1)/hh. The bias moves a sample's azimuth by at most
    /// |δb|·knot interval, far below the magnetometer noise: left out.
    func hardIronAzimuth(
        _ i: Int, rk: Matrix3, dk: Double, pre: Preintegration, hard: Vector3, updateWeights: Bool,
        weights: UnsafeMutableBufferPointer<Float>, scratch: inout Scratch, sums: inout FieldSums
    ) {
        let m = mag[i] - hard
        let mE = rk * (pre.rotation * m)
        guard
            let (residual, lambda) = azimuthTerm(
                i, mE: mE, norm: m.norm, dk: dk, updateWeights: updateWeights, weights: weights, sums: &sums),
            lambda > 0
        else { return }
        let hh = mE.x * mE.x + mE.y * mE.y
        let rs = rk * pre.rotation
        let a = (rs.row0 * mE.y - rs.row1 * mE.x) * (-1 / hh)
        let row = [-1.0, 0, 0, 0, -1, a.x, a.y, a.z]
        for ia in 0..<8 where row[ia] != 0 {
            let la = lambda * row[ia]
            scratch.magG[ia] -= la * residual
            for ic in 0...ia { scratch.magH[ia * Self.magStride + ic] += la * row[ic] }
        }
    }

    /// The full-vector magnetometer factor of a calibration: `R_i·W·(m_i − h) = (0, H, −Z)` in the
    /// earth frame, scaled by the learnt field strength; its attitude and bias derivatives keep
    /// only the rotation about the vertical (the magnetometer still informs the heading only).
    /// Unknown order in the scratch's `magH`/`magG`: θz, b (3), d (unused), h (3), W (6), H, Z.
    func calibrationFactor(
        _ i: Int, rk: Matrix3, pre: Preintegration, updateWeights: Bool, weights: UnsafeMutableBufferPointer<Float>,
        scratch: inout Scratch, sums: inout FieldSums
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
            let (en, ed) = calibratedExcess(norm: norm, dip: dip, strength: strength)
            let scale2 = p.headingOutlierScale * p.headingOutlierScale
            weight = p.robustLoss.weight(squaredScaledResidual: res.squaredNorm / scale2) / (1 + en * en + ed * ed)
            weights[i] = Float(weight)
        }
        sums.norm += weight * norm
        sums.dip += weight * dip
        sums.weight += weight
        let sigma = p.magnetometerNoise * max(0.2, Glibc.cos(fieldDip.isFinite ? fieldDip : 1))
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
            scratch.magG[a] -= lambda * ga
            for c in 0...a where c != 4 {
                var h = 0.0
                for r in 0..<3 { h += jac[r * Self.magStride + a] * jac[r * Self.magStride + c] }
                scratch.magH[a * Self.magStride + c] += lambda * h
            }
        }
    }

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
        guard let (en, ed) = fieldExcess(norm: norm, sinDip: sinDip) else { return 1 }
        return 1 / (1 + en * en + ed * ed)
    }

    /// A reading's departure from the reference field in units of the tolerances, its strength
    /// `norm` and the sine of its dip against the reference's (nil while the reference is not
    /// known).
    @inline(__always)
    func fieldExcess(norm: Double, sinDip: Double) -> (strength: Double, dip: Double)? {
        guard fieldNorm.isFinite && fieldDip.isFinite else { return nil }
        return ((norm / fieldNorm - 1) / parameters.fieldNormTolerance, (sinDip - referenceSinDip) / referenceDipScale)
    }

    /// A calibrated reading's departure from the field being fitted, in units of the tolerances:
    /// its strength `norm` against the fitted `strength`, its `dip` against the fitted dip.
    @inline(__always)
    func calibratedExcess(norm: Double, dip: Double, strength: Double) -> (strength: Double, dip: Double) {
        let g = globals
        return (
            (norm / strength - 1) / parameters.fieldNormTolerance,
            (dip - Double.atan2(g[10], g[9])) / parameters.dipTolerance
        )
    }

    /// Which checks of the field sample `i`'s reading fails at the attitude `q` (earth from
    /// sensor) and the knot's disturbance `dk`, as its robust weight judges them: a strength or a
    /// dip that departs by a tolerance or more (each alone halves the weight), or a residual
    /// (azimuth, or the calibrated field's vector) whose robust weight is under one half. Why a
    /// reading was down-weighted, for the rejection warning.
    func departure(_ i: Int, attitude q: Quaternion, disturbance dk: Double) -> FieldDeparture {
        let p = parameters
        let scale2 = p.headingOutlierScale * p.headingOutlierScale
        var excess: (strength: Double, dip: Double)?
        let residual2: Double
        if calibrating {
            let g = globals
            let c = softIron * (mag[i] - hardIron)
            let rc = q.rotate(c)
            let strength = max((g[9] * g[9] + g[10] * g[10]).squareRoot(), 1e-12)
            let s = fieldNorm.isFinite && fieldNorm > 0 ? fieldNorm : strength
            let dip = Double.atan2(-rc.z, (rc.x * rc.x + rc.y * rc.y).squareRoot())
            excess = calibratedExcess(norm: c.norm, dip: dip, strength: strength)
            residual2 = ((rc - Vector3(0, g[9], -g[10])) * (1 / s)).squaredNorm
        } else {
            let m = mag[i] - hardIron
            let mE = q.rotate(m)
            let norm = m.norm
            guard norm > 0, mE.x * mE.x + mE.y * mE.y > 0 else { return [] }
            excess = fieldExcess(norm: norm, sinDip: -mE.z / norm)
            let residual = Self.azimuth(mE) - dk
            residual2 = residual * residual
        }
        var out = FieldDeparture()
        if let e = excess {
            if e.strength * e.strength >= 1 { out.insert(.strength) }
            if e.dip * e.dip >= 1 { out.insert(.dip) }
        }
        if p.robustLoss.weight(squaredScaledResidual: residual2 / scale2) < 0.5 { out.insert(.azimuth) }
        return out
    }
}
