import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension MagnetometerCalibration {
    /// Fits the calibration to raw readings (µT, or arbitrary units when `arbitraryUnits`). Throws
    /// ``FitError`` rather than return a fit the data cannot determine: too few readings, field
    /// directions that do not cover the sphere (a static recording, turns about one axis), a field
    /// strength implausible for the units, or readings scattered far from the fitted sphere.
    public static func fit(_ readings: [Vector3], arbitraryUnits: Bool = false) throws -> MagnetometerCalibration {
        let raw = readings.filter(\.isFinite)
        guard raw.count >= minimumSamples else { throw FitError.tooFewSamples(raw.count) }
        // Centre and scale for conditioning.
        let mean = raw.reduce(Vector3.zero, +) / Double(raw.count)
        let scale = max(1e-300, (raw.map { ($0 - mean).squaredNorm }.reduce(0, +) / Double(raw.count)).squareRoot())
        let pts = raw.map { ($0 - mean) / scale }
        // A recording that hardly turns: the readings hardly move compared with their size.
        let typical = UnitCheck.median(raw.map(\.norm)) ?? 0
        if scale < 0.05 * typical {
            throw FitError.insufficientCoverage(coverage: 0, spanDegrees: 2 * (scale / typical).asinClamped.degrees)
        }
        // Turns about one axis put the readings on a circle: flat around their centre.
        let (centred, centredSpan) = directionCoverage(pts)
        guard centred >= minimumCoverage else {
            throw FitError.insufficientCoverage(coverage: centred, spanDegrees: centredSpan)
        }
        var weights = [Double](repeating: 1, count: pts.count)
        var solution: (Vector3, Matrix3, Double)?
        var residuals = [Double](repeating: 0, count: pts.count)
        for _ in 0..<4 {
            let rows = pts.count
            var a = Matrix(rows: rows, columns: 9)
            var b = Matrix(rows: rows, columns: 1)
            for (i, p) in pts.enumerated() {
                let w = weights[i]
                let terms = [
                    p.x * p.x, p.y * p.y, p.z * p.z, 2 * p.x * p.y, 2 * p.x * p.z, 2 * p.y * p.z, p.x, p.y, p.z,
                ]
                for (j, v) in terms.enumerated() { a[i, j] = v * w }
                b[i, 0] = w
            }
            guard let v = try? LinearAlgebra.leastSquares(a, b) else { throw FitError.notAnEllipsoid }
            let q = Matrix([[v[0, 0], v[3, 0], v[4, 0]], [v[3, 0], v[1, 0], v[5, 0]], [v[4, 0], v[5, 0], v[2, 0]]])
            let pv = [v[6, 0], v[7, 0], v[8, 0]]
            // Centre: Q c = −p / 2.
            guard let cm = try? LinearAlgebra.solveSPD(q, Matrix(column: pv.map { -$0 / 2 })) else {
                throw FitError.notAnEllipsoid
            }
            let c = Vector3(cm[0, 0], cm[1, 0], cm[2, 0])
            let qc = LinearAlgebra.multiply(q, vector: c.array)
            let k = 1 + c.x * qc[0] + c.y * qc[1] + c.z * qc[2]
            guard k > 0 else { throw FitError.notAnEllipsoid }
            // (x − c)ᵀ (Q/k) (x − c) = 1; W = sqrt(Q/k) maps the ellipsoid to the unit sphere.
            guard let (values, vectors) = try? LinearAlgebra.symmetricEigen(q * (1 / k)), values.allSatisfy({ $0 > 0 })
            else { throw FitError.notAnEllipsoid }
            var w = Matrix(rows: 3, columns: 3)
            for i in 0..<3 {
                for j in 0..<3 {
                    var sum = 0.0
                    for l in 0..<3 { sum += vectors[i, l] * values[l].squareRoot() * vectors[j, l] }
                    w[i, j] = sum
                }
            }
            let wm = Matrix3(
                Vector3(w[0, 0], w[0, 1], w[0, 2]),
                Vector3(w[1, 0], w[1, 1], w[1, 2]),
                Vector3(w[2, 0], w[2, 1], w[2, 2]))
            solution = (c, wm, 1)
            // Residuals on the unit sphere; Huber-like weights down-weight disturbed readings.
            for (i, p) in pts.enumerated() { residuals[i] = (wm * (p - c)).norm - 1 }
            let sorted = residuals.map(abs).sorted()
            let mad = max(1e-6, sorted[sorted.count / 2] * 1.4826)
            for i in weights.indices {
                let r = abs(residuals[i]) / (3 * mad)
                weights[i] = r <= 1 ? 1 : (r < 3 ? 1 / r : 0)
            }
        }
        guard let (cUnit, wUnit, _) = solution else { throw FitError.notAnEllipsoid }
        // Back to µT: x = mean + scale·p, so h = mean + scale·c and W_raw = W_unit / scale (unit sphere).
        let hard = mean + cUnit * scale
        let det = wUnit.determinant
        guard det > 0 else { throw FitError.notAnEllipsoid }
        // Normalise W to determinant 1; the unit sphere then has radius det^(1/3)·scale in µT.
        let norm = Glibc.cbrt(det)
        let soft = Matrix3(wUnit.row0 / norm, wUnit.row1 / norm, wUnit.row2 / norm)
        let strength = scale / norm
        let inliers = weights.indices.filter { weights[$0] > 0 }
        let calibrated = raw.map { soft * ($0 - hard) }
        let residual =
            (inliers.map { i -> Double in
                let d = calibrated[i].norm - strength
                return d * d
            }.reduce(0, +) / Double(max(1, inliers.count))).squareRoot()
        let (coverage, span) = directionCoverage(calibrated)
        guard coverage >= minimumCoverage else {
            throw FitError.insufficientCoverage(coverage: coverage, spanDegrees: span)
        }
        if arbitraryUnits {
            guard strength >= 0.05 * typical else {
                throw FitError.implausibleStrength(
                    strength,
                    "a field \(Int((typical / strength).rounded()))× smaller than the readings themselves (hard iron that large is not physical)"
                )
            }
        } else if !plausibleStrength.contains(strength) {
            throw FitError.implausibleStrength(
                strength,
                "Earth's field is 22–67 µT; the recording was disturbed, or the magnetometer is not in µT (pass --units mag=gauss|nT|au)"
            )
        }
        guard residual <= maximumRelativeResidual * strength else {
            throw FitError.residualTooLarge(residual / strength)
        }
        return MagnetometerCalibration(
            hardIron: hard, softIron: soft, fieldStrength: strength, residual: residual, coverage: coverage,
            samplesUsed: inliers.count, samplesOffered: raw.count)
    }
}
