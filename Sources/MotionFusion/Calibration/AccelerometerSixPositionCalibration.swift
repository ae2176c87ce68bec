/// Accelerometer scale and bias from static poses in (at least) six orientations, e.g. each axis
/// pointing up and down: per-axis `calibrated = scale ⊙ (raw − bias)` such that every static pose
/// reads exactly `g`. Solved by Gauss–Newton, each step a linear least-squares problem (LAPACK).
public struct AccelerometerSixPositionCalibration: Sendable, Equatable {
    /// Per-axis bias, m/s².
    public var bias: Vector3
    /// Per-axis scale factor.
    public var scale: Vector3
    /// RMS of `|calibrated| − g` over the poses, m/s².
    public var residual: Double
    /// Number of static poses used.
    public var poses: Int

    /// Applies the calibration.
    public func apply(_ raw: Vector3) -> Vector3 {
        let d = raw - bias
        return Vector3(d.x * scale.x, d.y * scale.y, d.z * scale.z)
    }

    /// Why a fit was refused.
    public enum FitError: Error, Equatable, CustomStringConvertible {
        /// Not every axis was seen pointing both up and down.
        case missingOrientations([String])

        public var description: String {
            switch self {
            case .missingOrientations(let missing):
                return
                    "six-position accelerometer calibration needs each axis up and down at rest; missing: \(missing.joined(separator: ", "))"
            }
        }
    }

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

/// Static poses of a trace: stretches where the rest detector holds for at least `minimumDuration`.
public enum StaticPoses {
    /// One static pose.
    public struct Pose: Sendable {
        /// Start and end time, s.
        public var start: Double, end: Double
        /// Mean accelerometer (m/s²) and gyroscope (rad/s) over the pose.
        public var accelerometer: Vector3, gyroscope: Vector3?
        /// Samples in the pose.
        public var samples: Int
    }

    /// Finds the static poses.
    public static func find(_ samples: [SensorSample], minimumDuration: Double = 1.0) -> [Pose] {
        var detector = RestDetector()
        var poses = [Pose]()
        var accSum = Vector3.zero
        var gyroSum = Vector3.zero
        var count = 0
        var gyroCount = 0
        var start = 0.0
        var last = -Double.infinity
        var lastT = samples.first?.t ?? 0
        func close() {
            if count > 0 && last - start >= minimumDuration {
                poses.append(
                    Pose(
                        start: start, end: last, accelerometer: accSum / Double(count),
                        gyroscope: gyroCount > 0 ? gyroSum / Double(gyroCount) : nil, samples: count))
            }
            accSum = .zero
            gyroSum = .zero
            count = 0
            gyroCount = 0
        }
        for s in samples {
            let dt = max(0, s.t - lastT)
            lastT = s.t
            detector.update(gyroscope: s.gyroscope, accelerometer: s.accelerometer, dt: dt)
            if detector.atRest, let a = s.accelerometer {
                if count == 0 { start = s.t }
                accSum += a
                count += 1
                if let g = s.gyroscope {
                    gyroSum += g
                    gyroCount += 1
                }
                last = s.t
            } else if count > 0 {
                close()
            }
        }
        close()
        return poses
    }
}
