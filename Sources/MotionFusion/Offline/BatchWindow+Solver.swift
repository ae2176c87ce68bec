import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
