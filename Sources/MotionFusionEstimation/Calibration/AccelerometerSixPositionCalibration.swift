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

    /// Creates a calibration.
    public init(bias: Vector3, scale: Vector3, residual: Double, poses: Int) {
        self.bias = bias
        self.scale = scale
        self.residual = residual
        self.poses = poses
    }

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
