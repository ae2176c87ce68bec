extension AccelerometerSixPositionCalibration {
    /// Finds the static poses of a trace (rest detected, at least 1 s) and fits.
    public static func fit(_ samples: [SensorSample], gravity: Double = 9.80665) throws
        -> AccelerometerSixPositionCalibration
    {
        try fit(poses: StaticPoses.find(samples).map(\.accelerometer), gravity: gravity)
    }

    /// Fits to mean accelerometer readings of static poses.
    public static func fit(poses: [Vector3], gravity: Double = 9.80665) throws -> AccelerometerSixPositionCalibration {
        // Every axis must have been up and down.
        var seen = Set<String>()
        for p in poses {
            let a = [abs(p.x), abs(p.y), abs(p.z)]
            let k = a.firstIndex(of: a.max()!)!
            seen.insert(["x", "y", "z"][k] + (p[k] > 0 ? "+" : "-"))
        }
        let missing = ["x+", "x-", "y+", "y-", "z+", "z-"].filter { !seen.contains($0) }
        guard missing.isEmpty else { throw FitError.missingOrientations(missing) }
        var bias = Vector3.zero
        var scale = Vector3(1, 1, 1)
        for _ in 0..<10 {
            // Residual r = |s ⊙ (a − b)|² − g², linearised in (b, s).
            var jac = Matrix(rows: poses.count, columns: 6)
            var res = Matrix(rows: poses.count, columns: 1)
            for (i, a) in poses.enumerated() {
                let d = a - bias
                let c = Vector3(d.x * scale.x, d.y * scale.y, d.z * scale.z)
                res[i, 0] = -(c.squaredNorm - gravity * gravity)
                for k in 0..<3 {
                    jac[i, k] = -2 * c[k] * scale[k]  // ∂/∂b_k
                    jac[i, 3 + k] = 2 * c[k] * d[k]  // ∂/∂s_k
                }
            }
            guard let step = try? LinearAlgebra.leastSquares(jac, res) else { break }
            bias += Vector3(step[0, 0], step[1, 0], step[2, 0])
            scale += Vector3(step[3, 0], step[4, 0], step[5, 0])
            if (0..<6).map({ abs(step[$0, 0]) }).max()! < 1e-12 { break }
        }
        let cal = AccelerometerSixPositionCalibration(bias: bias, scale: scale, residual: 0, poses: poses.count)
        let residual =
            (poses.map { p -> Double in
                let d = cal.apply(p).norm - gravity
                return d * d
            }.reduce(0, +) / Double(poses.count)).squareRoot()
        return AccelerometerSixPositionCalibration(bias: bias, scale: scale, residual: residual, poses: poses.count)
    }
}
