import MotionFusion

/// A three-segment planar pendulum (hinge joints, point masses at the segment ends, viscous joint
/// damping) with one IMU on each segment, simulated from Lagrange's equations, and sensors of the
/// Xsens class: low noise, small bias, magnetometer in units of the calibration field (|m| ≈ 1)
/// near a steel part that bends the field, irregular sample times and lost samples.
///
/// What it does to a filter: the specific force on a swinging segment points along the chain, not
/// up, and its error repeats with every swing; the rate passes through zero at each turning point
/// while the acceleration is far from 1 g; the true heading never changes, so 6D heading error is
/// pure drift of the vertical bias estimate.
struct Pendulum {
    /// Segment lengths (m), end masses (kg), joint damping (N·m·s/rad).
    var lengths = [0.30, 0.25, 0.22]
    var masses = [0.6, 0.4, 0.3]
    var damping = 0.006
    /// IMU position along each segment, fraction of its length from the joint above.
    var mountPosition = [0.6, 0.5, 0.6]
    /// Azimuth of the swing plane, rad from north towards east.
    var azimuth = 0.5
    let gravity = 9.81

    struct State {
        var theta: [Double]
        var rate: [Double]
    }

    /// Angular accelerations for the state.
    func accelerations(_ s: State) -> [Double] {
        let n = lengths.count
        func mu(_ i: Int, _ j: Int) -> Double { masses[max(i, j)...].reduce(0, +) }
        var m = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        var rhs = [Double](repeating: 0, count: n)
        for i in 0..<n {
            for j in 0..<n {
                let c = mu(i, j) * lengths[i] * lengths[j]
                m[i][j] = c * (s.theta[i] - s.theta[j]).cos
                rhs[i] -= c * (s.theta[i] - s.theta[j]).sin * s.rate[j] * s.rate[j]
            }
            rhs[i] -= mu(i, i) * gravity * lengths[i] * s.theta[i].sin
            // Joint i couples segment i to the one above; joint i+1 to the one below.
            let relative = s.rate[i] - (i > 0 ? s.rate[i - 1] : 0)
            rhs[i] -= damping * relative
            if i + 1 < n { rhs[i] += damping * (s.rate[i + 1] - s.rate[i]) }
        }
        let inv = Matrix3(
            Vector3(m[0][0], m[0][1], m[0][2]), Vector3(m[1][0], m[1][1], m[1][2]),
            Vector3(m[2][0], m[2][1], m[2][2])
        ).inverse!
        let a = inv * Vector3(rhs[0], rhs[1], rhs[2])
        return [a.x, a.y, a.z]
    }

    func rk4(_ s: State, _ h: Double) -> State {
        func add(_ s: State, _ k: ([Double], [Double]), _ f: Double) -> State {
            State(
                theta: zip(s.theta, k.0).map { $0 + f * $1 }, rate: zip(s.rate, k.1).map { $0 + f * $1 })
        }
        func deriv(_ s: State) -> ([Double], [Double]) { (s.rate, accelerations(s)) }
        let k1 = deriv(s)
        let k2 = deriv(add(s, k1, h / 2))
        let k3 = deriv(add(s, k2, h / 2))
        let k4 = deriv(add(s, k3, h))
        var out = s
        for i in s.theta.indices {
            out.theta[i] += h / 6 * (k1.0[i] + 2 * k2.0[i] + 2 * k3.0[i] + k4.0[i])
            out.rate[i] += h / 6 * (k1.1[i] + 2 * k2.1[i] + 2 * k3.1[i] + k4.1[i])
        }
        return out
    }

    /// Exact (error-free) signals of the three IMUs at 1 kHz: held at `release` angles for
    /// `holdTime`, then released and left to swing for `swingTime`. The gyroscope sample at `t`
    /// is the mean rate over the preceding millisecond (exact for a hinge).
    func run(
        release: [Double], holdTime: Double, swingTime: Double, mounts: [Quaternion], field: Vector3,
        magnet: (position: Vector3, moment: Vector3)
    ) -> [Trace] {
        let h = 0.001
        let n = Int(((holdTime + swingTime) / h).rounded())
        let horizontal = Vector3(azimuth.sin, azimuth.cos, 0)
        let axis = horizontal.cross(.unitZ)
        var state = State(theta: release, rate: [0, 0, 0])
        var previous = release
        var traces = [[SensorSample]](repeating: [], count: 3)
        for k in 0...n {
            let t = Double(k) * h
            if t > holdTime { state = rk4(state, h) }
            let acc = t > holdTime ? accelerations(state) : [0, 0, 0]
            // Plane coordinates (horizontal, up) of each IMU and its acceleration.
            var base = (0.0, 0.0)
            var baseAcc = (0.0, 0.0)
            for i in 0..<3 {
                let th = state.theta[i]
                let u = (th.sin, -th.cos)
                let uPerp = (th.cos, th.sin)
                let w = state.rate[i]
                let d = lengths[i] * mountPosition[i]
                let p = (base.0 + d * u.0, base.1 + d * u.1)
                let a = (
                    baseAcc.0 + d * (acc[i] * uPerp.0 - w * w * u.0), baseAcc.1 + d * (acc[i] * uPerp.1 - w * w * u.1)
                )
                base = (base.0 + lengths[i] * u.0, base.1 + lengths[i] * u.1)
                baseAcc = (
                    baseAcc.0 + lengths[i] * (acc[i] * uPerp.0 - w * w * u.0),
                    baseAcc.1 + lengths[i] * (acc[i] * uPerp.1 - w * w * u.1)
                )
                let q = (Quaternion(axis: axis, angle: th) * mounts[i]).normalized
                let position = horizontal * p.0 + Vector3(0, 0, p.1)
                let accEarth = horizontal * a.0 + Vector3(0, 0, a.1)
                let rate = k == 0 ? 0 : (th - previous[i]) / h
                let r = position - magnet.position
                let dist = r.norm
                let rh = r * (1 / dist)
                let disturbance = (rh * (3 * magnet.moment.dot(rh)) - magnet.moment) * (0.1 / (dist * dist * dist))
                traces[i].append(
                    SensorSample(
                        t: t, gyroscope: q.inverseRotate(axis * rate),
                        accelerometer: q.inverseRotate(accEarth + Vector3(0, 0, gravity)),
                        magnetometer: q.inverseRotate(field + disturbance), truth: q.canonical, moving: t > holdTime))
            }
            previous = state.theta
        }
        return traces.map { Trace(samples: $0, format: "pendulum") }
    }

    /// Sensor errors of an Xsens-class IMU applied to an exact trace sampled at arbitrary instants:
    /// white noise at the densities given (scaled by each sample's step), a constant gyroscope
    /// bias, and a magnetometer in units of `fieldUnit`.
    static func addSensorErrors(
        _ trace: Trace, seed: UInt64, gyroscopeNoise: Double = 0.0009, gyroscopeBias: Double = 0.1.radians,
        accelerometerNoise: Double = 0.002, accelerometerBias: Double = 0.02, magnetometerNoise: Double = 0.004,
        fieldUnit: Double
    ) -> Trace {
        var rng = Random(seed: seed)
        let bias = Vector3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)) * gyroscopeBias
        let accBias = Vector3(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)) * accelerometerBias
        var out = trace
        for i in out.samples.indices {
            let dt = i > 0 ? out.samples[i].t - out.samples[i - 1].t : 0.006
            let s = 1 / max(dt, 1e-4).squareRoot()
            var x = out.samples[i]
            x.gyroscope = x.gyroscope.map { $0 + bias + rng.gaussianVector() * (gyroscopeNoise * s) }
            x.accelerometer = x.accelerometer.map { $0 + accBias + rng.gaussianVector() * (accelerometerNoise * s) }
            x.magnetometer = x.magnetometer.map { $0 * (1 / fieldUnit) + rng.gaussianVector() * magnetometerNoise }
            out.samples[i] = x
        }
        return out
    }

    /// Six pendulum trials (three IMUs, two releases), 166 Hz with irregular steps (3–9 ms) and lost
    /// samples (a gap of up to 0.19 s every 10 s on average), magnetometer in units of the calibration field near a steel part.
    static func trials() -> [(String, Trace)] {
        let field = Vector3(0, 49 * 64.0.radians.cos, -49 * 64.0.radians.sin)
        var out = [(String, Trace)]()
        let releases: [[Double]] = [[0.7, 0.8, 0.6], [-0.5, 0.2, 0.9]]
        for (r, release) in releases.enumerated() {
            var rng = Random(seed: UInt64(100 + r))
            var p = Pendulum()
            p.azimuth = rng.uniform(-3, 3)
            let mounts = (0..<3).map { _ in Quaternion(rotationVector: rng.direction() * rng.uniform(0, 3)) }
            let magnet = (
                position: Vector3(rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), -1.05),
                moment: rng.direction() * 1.0
            )
            let exact = p.run(
                release: release, holdTime: 4, swingTime: 70, mounts: mounts, field: field, magnet: magnet)
            for (i, trace) in exact.enumerated() {
                let source = SignalSource(trace)
                let sampled = source.irregular(
                    nominal: 0.006, spread: 0.5, gapInterval: 10, gapRange: 0.02...0.19, lost: true,
                    seed: UInt64(200 + 10 * r + i))
                let noisy = addSensorErrors(sampled, seed: UInt64(300 + 10 * r + i), fieldUnit: 49)
                out.append(("pendulum-\(r + 1)-segment-\(i + 1)", noisy))
            }
        }
        return out
    }
}

extension Pendulum {
    /// Consistency check of the simulation: plain integration of the exact signals against truth.
    static func check() {
        let field = Vector3(0, 20, -40)
        var rng = Random(seed: 100)
        var p = Pendulum()
        p.azimuth = rng.uniform(-3, 3)
        let mounts = (0..<3).map { _ in Quaternion(rotationVector: rng.direction() * rng.uniform(0, 3)) }
        let exact = p.run(
            release: [0.7, 0.8, 0.6], holdTime: 4, swingTime: 70, mounts: mounts, field: field,
            magnet: (Vector3(0.3, 0.3, -0.55), Vector3(1, 0, 0)))
        for (i, trace) in exact.enumerated() {
            let source = SignalSource(trace)
            let regular = source.resampled(rate: 166)
            let noGaps = source.irregular(
                nominal: 0.006, spread: 0.5, gapInterval: 4, gapRange: 0.02...0.19, lost: false, seed: 1)
            let gaps = source.irregular(
                nominal: 0.006, spread: 0.5, gapInterval: 4, gapRange: 0.02...0.19, lost: true, seed: 1)
            for (name, t) in [("exact 1 kHz", trace), ("166 Hz", regular), ("irregular", noGaps), ("gaps", gaps)] {
                let r = AttitudeErrorMetric.evaluate(estimates: gyroscopeIntegration(t), trace: t, mode: .nineD)!
                print("segment \(i + 1) \(name): gyro integration \(r.totalRMSE)°")
            }
        }
    }
}
