/// Generates traces with exact ground truth from a scripted motion and a sensor error model.
///
/// The true angular rate is an analytic function of time; the true attitude integrates it with
/// sub-millisecond exponential-map steps, so gyroscope and ground truth agree to about 1e-9 rad.
/// Runs are reproducible: the same settings and seed give the same bytes.
public struct MotionSimulator: Sendable {
    /// A named motion script.
    public enum Scenario: String, CaseIterable, Sendable {
        /// The device lies still.
        case rest
        /// Slow rotations about all axes (up to about 1 rad/s) between rests.
        case slowRotation = "slow-rotation"
        /// Fast rotations (up to about 6 rad/s) between rests.
        case fastRotation = "fast-rotation"
        /// Slow rotation while translating with accelerations up to about 5 m/s².
        case translation
        /// Short shakes (about 8 Hz, 15 m/s²) between rests.
        case shaking
        /// Slow rotation while a magnet passes nearby (earth-frame field disturbance windows).
        case magneticDisturbance = "magnetic-disturbance"
        /// Rest, slow and fast rotation, translation, shaking and a magnetic disturbance in turn.
        case mixed
        /// Static poses in the six device orientations (face up, portrait, face down, portrait
        /// upside down, landscape right and left; each axis up and down) joined by 90° turns, then
        /// a tumble through all orientations and two shakes: for calibration and orientation events.
        case orientations
        /// A constant rate about one body axis (``Settings/turn``) after a rest and a smooth
        /// spin-up. About z with a level device this is a turn about the vertical (a turntable,
        /// a person turning); about x or y the direction of gravity rotates in the sensor frame.
        case steadyTurn = "steady-turn"
        /// A level device fixed in a car driving a circle to the left (``Settings/vehicle``): yaw
        /// rate v/r about the vertical and a centripetal specific force v²/r along body +y (x
        /// forward, z up), after a rest and a smooth speed ramp.
        case vehicle
        /// A short rest, fast rotation for 10 % of the run, then rest to the end.
        case longRest = "long-rest"
    }

    /// Simulation settings.
    public struct Settings: Sendable {
        /// Motion script. Default ``Scenario/mixed``.
        public var scenario: Scenario = .mixed
        /// Length, s. Default 60.
        public var duration = 60.0
        /// Sample rate, Hz. Default 100.
        public var rate = 100.0
        /// Random seed. Default 1.
        public var seed: UInt64 = 1
        /// Sensor imperfections. Default consumer grade.
        public var errors = SensorErrorModel()
        /// Earth's field strength, µT. Default 49.
        public var fieldStrength = 49.0
        /// Magnetic dip (inclination, positive downward), degrees. Default 64.
        public var dipDegrees = 64.0
        /// Gravity, m/s². Default 9.81.
        public var gravity = 9.81
        /// Initial attitude, ENU from sensor. Default: level, facing 30° east of north.
        public var initialAttitude = Quaternion(axis: .unitZ, angle: -30.0.radians)
        /// The turn of ``Scenario/steadyTurn``.
        public var turn = SteadyTurn()
        /// The drive of ``Scenario/vehicle``.
        public var vehicle = Vehicle()

        /// Default settings.
        public init() {}
    }

    /// The settings in use.
    public var settings: Settings

    /// Creates a simulator.
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// The true (hard- and soft-iron free) earth field in ENU, µT.
    public var earthField: Vector3 {
        let dip = settings.dipDegrees.radians
        return Vector3(0, settings.fieldStrength * dip.cos, -settings.fieldStrength * dip.sin)
    }

    /// Segment of the motion script: a kind and its length in seconds.
    enum Segment: Equatable {
        case rest, slow, fast, translate, shake, magnet
        /// A smooth turn by `angle` radians about body axis `axis` (0, 1, 2).
        case turn(axis: Int, angle: Double)
        /// A constant rate, rad/s, about body axis `axis`, reached smoothly over `spinUp` seconds
        /// from the segment's start and held to the end of the run.
        case spin(axis: Int, rate: Double, spinUp: Double)
        /// Driving a circle of `radius` m to the left at `speed` m/s, reached smoothly over
        /// `ramp` seconds from the segment's start and held to the end of the run.
        case drive(speed: Double, radius: Double, ramp: Double)
    }

    /// Static poses and turns of the ``Scenario/orientations`` script, in seconds of a 60 s run,
    /// with the orientation held after each segment.
    static let orientationScript: [(Segment, Double, String)] = [
        (.rest, 5, "face_up"), (.turn(axis: 0, angle: .pi / 2), 1.5, "portrait"), (.rest, 5, "portrait"),
        (.turn(axis: 0, angle: .pi / 2), 1.5, "face_down"), (.rest, 5, "face_down"),
        (.turn(axis: 0, angle: .pi / 2), 1.5, "portrait_upside_down"), (.rest, 5, "portrait_upside_down"),
        (.turn(axis: 0, angle: .pi / 2), 1.5, "face_up"), (.rest, 5, "face_up"),
        (.turn(axis: 1, angle: .pi / 2), 1.5, "landscape_right"), (.rest, 5, "landscape_right"),
        (.turn(axis: 1, angle: -.pi), 1.5, "landscape_left"), (.rest, 5, "landscape_left"),
        (.turn(axis: 1, angle: .pi / 2), 1.5, "face_up"), (.rest, 5, "face_up"), (.slow, 10, "tumble"),
        (.rest, 2, "unknown"), (.shake, 2, "shake"), (.rest, 2, "unknown"), (.shake, 2, "shake"), (.rest, 2, "unknown"),
    ]

    /// Length of the ``Scenario/orientations`` script at its natural pace, s; a run of another
    /// duration stretches it proportionally.
    public static let orientationScriptDuration = orientationScript.map(\.1).reduce(0, +)

    /// The expected orientation events of an ``Scenario/orientations`` run of `duration` seconds:
    /// for each turn, its time window and the orientation it ends in.
    public static func orientationTurns(duration: Double) -> [(start: Double, end: Double, orientation: String)] {
        let scale = duration / orientationScriptDuration
        var t = 0.0
        var out = [(Double, Double, String)]()
        for (segment, length, label) in orientationScript {
            if case .turn = segment { out.append((t * scale, (t + length) * scale, label)) }
            t += length
        }
        return out
    }

    /// The shake windows of an ``Scenario/orientations`` run of `duration` seconds.
    public static func orientationShakes(duration: Double) -> [(start: Double, end: Double)] {
        let scale = duration / orientationScriptDuration
        var t = 0.0
        var out = [(Double, Double)]()
        for (segment, length, _) in orientationScript {
            if segment == .shake { out.append((t * scale, (t + length) * scale)) }
            t += length
        }
        return out
    }

    func script() -> [(Segment, Double)] {
        switch settings.scenario {
        case .rest: return [(.rest, 1)]
        case .slowRotation: return [(.rest, 0.1), (.slow, 0.8), (.rest, 0.1)]
        case .fastRotation: return [(.rest, 0.1), (.fast, 0.8), (.rest, 0.1)]
        case .translation: return [(.rest, 0.1), (.translate, 0.8), (.rest, 0.1)]
        case .shaking:
            return [
                (.rest, 0.2), (.shake, 0.1), (.rest, 0.2), (.shake, 0.1), (.rest, 0.2), (.shake, 0.1), (.rest, 0.1),
            ]
        case .magneticDisturbance: return [(.rest, 0.1), (.magnet, 0.8), (.rest, 0.1)]
        case .orientations:
            return Self.orientationScript.map { ($0.0, $0.1 / Self.orientationScriptDuration) }
        case .mixed:
            return [
                (.rest, 0.08), (.slow, 0.17), (.rest, 0.05), (.fast, 0.15), (.rest, 0.05), (.translate, 0.15),
                (.rest, 0.05), (.shake, 0.08), (.rest, 0.05), (.magnet, 0.12), (.rest, 0.05),
            ]
        case .steadyTurn:
            let t = settings.turn
            let rest = min(1, max(0, t.rest / settings.duration))
            let spin = Segment.spin(axis: t.axis.index, rate: t.rateDegrees.radians, spinUp: t.spinUp)
            return [(.rest, rest), (spin, 1 - rest)]
        case .vehicle:
            let v = settings.vehicle
            let rest = min(1, max(0, v.rest / settings.duration))
            return [(.rest, rest), (.drive(speed: v.speed, radius: v.radius, ramp: v.ramp), 1 - rest)]
        case .longRest: return [(.rest, 0.05), (.fast, 0.1), (.rest, 0.85)]
        }
    }

    /// Smooth 0→1 step: 0 before `start`, 1 from `start + length` on (a jump when `length` is 0),
    /// and its time derivative, 1/s.
    static func smoothStep(_ t: Double, from start: Double, length: Double) -> (value: Double, rate: Double) {
        if t < start { return (0, 0) }
        if t >= start + length { return (1, 0) }
        let u = (t - start) / length
        return (u * u * (3 - 2 * u), 6 * u * (1 - u) / length)
    }

    /// Smooth 0→1→0 envelope over a segment, with ramps of `ramp` seconds.
    static func envelope(_ t: Double, _ start: Double, _ end: Double, ramp: Double) -> Double {
        if t <= start || t >= end { return 0 }
        let r = min(ramp, (end - start) / 2)
        let up = min(1, (t - start) / r)
        let down = min(1, (end - t) / r)
        let s = min(up, down)
        return s * s * (3 - 2 * s)
    }

    /// Deterministic motion functions drawn once from the seed.
    struct Motion {
        var segments: [(Segment, Double, Double)] = []
        var freq: [Double] = []
        var phase: [Double] = []
        var magnetDirection = Vector3.unitX

        /// Angular rate of the scripted turns, spins and drives, body frame, rad/s.
        func turnRate(_ t: Double) -> Vector3 {
            var w = Vector3.zero
            for (kind, a, b) in segments {
                switch kind {
                case .turn(let axis, let angle) where t > a && t < b:
                    let u = (t - a) / (b - a)
                    w[axis] += angle * (1 - (2 * .pi * u).cos) / (b - a)
                case .spin(let axis, let rate, let spinUp) where t >= a:
                    w[axis] += rate * MotionSimulator.smoothStep(t, from: a, length: spinUp).value
                case .drive(let speed, let radius, let ramp) where t >= a:
                    // A car's yaw rate on a circle is its speed over the radius.
                    w.z += speed * MotionSimulator.smoothStep(t, from: a, length: ramp).value / radius
                default: continue
                }
            }
            return w
        }

        /// Whether a segment adds a body-frame acceleration (``bodyAcceleration(_:)``).
        var hasBodyAcceleration: Bool {
            segments.contains {
                if case .drive = $0.0 { return true }
                return false
            }
        }

        /// True linear acceleration fixed to the body (a car on a circle), body frame, m/s²: the
        /// speed's change along x (forward) and the centripetal v²/r along y (to the centre).
        func bodyAcceleration(_ t: Double) -> Vector3 {
            var a = Vector3.zero
            for (kind, start, _) in segments {
                guard case .drive(let speed, let radius, let ramp) = kind, t >= start else { continue }
                let step = MotionSimulator.smoothStep(t, from: start, length: ramp)
                let v = speed * step.value
                a += Vector3(speed * step.rate, v * v / radius, 0)
            }
            return a
        }

        func activity(_ t: Double, _ kind: Segment) -> Double {
            var e = 0.0
            for (k, a, b) in segments where k == kind { e += MotionSimulator.envelope(t, a, b, ramp: 1.0) }
            return e
        }

        /// True angular rate in the sensor frame, rad/s.
        func omega(_ t: Double) -> Vector3 {
            let slow = activity(t, .slow) + activity(t, .translate) + activity(t, .magnet)
            let fast = activity(t, .fast)
            let shake = activity(t, .shake)
            var w = Vector3.zero
            for k in 0..<3 {
                let s = (2 * .pi * freq[k] * t + phase[k]).sin
                let f = (2 * .pi * 3 * freq[k + 3] * t + phase[k + 3]).sin
                let sh = (2 * .pi * 8 * t + phase[k]).sin
                w[k] = 0.8 * slow * s + 5 * fast * f + 0.8 * shake * sh
            }
            return w + turnRate(t)
        }

        /// True linear acceleration in the earth frame (ENU), m/s².
        func acceleration(_ t: Double) -> Vector3 {
            let tr = activity(t, .translate)
            let shake = activity(t, .shake)
            var a = Vector3.zero
            for k in 0..<3 {
                a[k] =
                    4 * tr * (2 * .pi * 0.7 * t * (1 + 0.3 * Double(k)) + phase[k]).sin
                    + 15 * shake * (2 * .pi * 8.0 * t + phase[k + 3]).sin
            }
            return a
        }

        /// Earth-frame magnetic disturbance, µT.
        func disturbance(_ t: Double) -> Vector3 {
            magnetDirection * (25 * activity(t, .magnet) * (2 * .pi * 0.2 * t).sin)
        }
    }

    /// The simulator's generator for a seed.
    static func generator(_ seed: UInt64) -> SplitMix64 { SplitMix64(state: seed &* 0x2545_F491_4F6C_DD1D &+ 1) }

    func makeMotion(_ rng: inout SplitMix64) -> Motion {
        var m = Motion()
        var t = 0.0
        for (kind, fraction) in script() {
            let len = fraction * settings.duration
            m.segments.append((kind, t, t + len))
            t += len
        }
        m.freq = (0..<6).map { _ in 0.15 + 0.35 * rng.uniform() }
        m.phase = (0..<6).map { _ in 2 * .pi * rng.uniform() }
        m.magnetDirection = Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()).normalized ?? .unitX
        return m
    }

    /// The fixed sensor errors of a run, drawn from the seed (the same values ``run()`` applies).
    public struct DrawnErrors: Sendable {
        /// Initial gyroscope bias, rad/s (it then walks).
        public var gyroscopeBias: Vector3
        /// Accelerometer bias, m/s².
        public var accelerometerBias: Vector3
        /// Gyroscope scale and misalignment: measured = M · true + bias.
        public var gyroscopeMatrix: Matrix3
        /// Accelerometer scale and misalignment.
        public var accelerometerMatrix: Matrix3
        /// Hard-iron offset, µT: raw = softIron · true + hardIron.
        public var hardIron: Vector3
        /// Soft-iron distortion (symmetric), raw = softIron · true + hardIron.
        public var softIron: Matrix3
    }

    /// Draws the fixed sensor errors of this seed.
    public func drawErrors() -> DrawnErrors {
        let e = settings.errors
        var rng = Self.generator(settings.seed &+ 0x5EED_0F_E770_2)
        func symmetric(_ a: Double) -> Double { a * (2 * rng.uniform() - 1) }
        func randomVector(_ a: Double) -> Vector3 { Vector3(symmetric(a), symmetric(a), symmetric(a)) }
        func imperfection(_ scale: Double, _ mis: Double) -> Matrix3 {
            Matrix3(
                Vector3(1 + symmetric(scale), symmetric(mis), symmetric(mis)),
                Vector3(symmetric(mis), 1 + symmetric(scale), symmetric(mis)),
                Vector3(symmetric(mis), symmetric(mis), 1 + symmetric(scale)))
        }
        let gyroBias = randomVector(e.gyroscopeBias)
        let accBias = randomVector(e.accelerometerBias)
        let gyroMatrix = imperfection(e.scaleError, e.misalignment)
        let accMatrix = imperfection(e.scaleError, e.misalignment)
        let hardIron = randomVector(e.hardIron)
        // Soft iron is symmetric: a stretch along three orthogonal axes.
        let (a, b, c) = (symmetric(e.softIron), symmetric(e.softIron), symmetric(e.softIron))
        let softIron = Matrix3(
            Vector3(1 + symmetric(e.softIron), a, b),
            Vector3(a, 1 + symmetric(e.softIron), c),
            Vector3(b, c, 1 + symmetric(e.softIron)))
        // Fixed values replace the drawn ones after every draw, so the other draws stay the same.
        return DrawnErrors(
            gyroscopeBias: e.fixedGyroscopeBias ?? gyroBias, accelerometerBias: accBias,
            gyroscopeMatrix: gyroMatrix, accelerometerMatrix: accMatrix,
            hardIron: e.fixedHardIron ?? hardIron, softIron: e.fixedSoftIron ?? softIron)
    }

    /// Number of samples a run produces.
    public var sampleCount: Int {
        let n = settings.duration * settings.rate
        return n.isFinite && n < 9e18 ? Int(n.rounded()) + 1 : Int.max
    }

    /// Runs the simulation and returns the trace (with `truth` and `moving` on every sample).
    public func run() -> Trace {
        var samples = [SensorSample]()
        samples.reserveCapacity(min(sampleCount, 10_000_000))
        generate { samples.append($0) }
        return Trace(
            samples: samples, format: "simulated",
            source: "simulate:\(settings.scenario.rawValue):seed=\(settings.seed)")
    }

    /// Runs the simulation, handing each sample to `body` as it is made (constant memory).
    public func generate(_ body: (SensorSample) throws -> Void) rethrows {
        let s = settings
        let e = s.errors
        var rng = Self.generator(s.seed)
        let motion = makeMotion(&rng)
        let drawn = drawErrors()
        var gyroBias = drawn.gyroscopeBias
        let accBias = drawn.accelerometerBias
        let gyroMatrix = drawn.gyroscopeMatrix
        let accMatrix = drawn.accelerometerMatrix
        let hardIron = drawn.hardIron
        let softIron = drawn.softIron
        let dtNominal = 1 / s.rate
        let count = sampleCount
        let gyroSigma = e.gyroscopeNoiseDensity * s.rate.squareRoot()
        let accSigma = e.accelerometerNoiseDensity * s.rate.squareRoot()
        let field = earthField
        let g = Vector3(0, 0, s.gravity)
        let drives = motion.hasBodyAcceleration

        var q = s.initialAttitude.normalized
        var tTrue = 0.0
        var lastT = -Double.infinity
        func quantise(_ v: Vector3, _ step: Double, _ range: Double) -> Vector3 {
            var r = v
            for k in 0..<3 {
                var x = r[k]
                if step > 0 { x = (x / step).rounded() * step }
                r[k] = min(range, max(-range, x))
            }
            return r
        }
        for k in 0..<count {
            var t = Double(k) * dtNominal
            if e.timestampJitter > 0 && k > 0 {
                t += e.timestampJitter * rng.gaussian()
                t = max(t, lastT + dtNominal * 0.1)
            }
            // Integrate the true attitude from tTrue to t with small midpoint exponential steps.
            let span = t - tTrue
            if span > 0 {
                let steps = max(1, Int((span / 0.0005).rounded(.up)))
                let h = span / Double(steps)
                for j in 0..<steps {
                    let mid = tTrue + (Double(j) + 0.5) * h
                    q = q * Quaternion(rotationVector: motion.omega(mid) * h)
                }
                q = q.normalized
            }
            tTrue = t
            lastT = t
            let omega = motion.omega(t)
            if e.gyroscopeBiasRandomWalk > 0 {
                gyroBias +=
                    Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian())
                    * (e.gyroscopeBiasRandomWalk * dtNominal.squareRoot())
            }
            var gyro = gyroMatrix * omega + gyroBias
            gyro += Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * gyroSigma
            var specificForce = q.inverseRotate(motion.acceleration(t) + g)
            if drives { specificForce += motion.bodyAcceleration(t) }
            var acc = accMatrix * specificForce + accBias
            acc += Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * accSigma
            let magTrue = q.inverseRotate(field + motion.disturbance(t))
            var mag = softIron * magTrue + hardIron
            mag += Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()) * e.magnetometerNoise
            gyro = quantise(gyro, e.gyroscopeQuantum, e.gyroscopeRange)
            acc = quantise(acc, e.accelerometerQuantum, e.accelerometerRange)
            mag = quantise(mag, e.magnetometerQuantum, e.magnetometerRange)
            var sample = SensorSample(
                t: t, gyroscope: gyro, accelerometer: acc, magnetometer: mag, truth: q.canonical,
                moving: true)
            if e.dropoutProbability > 0 {
                if rng.uniform() < e.dropoutProbability { sample.gyroscope = nil }
                if rng.uniform() < e.dropoutProbability { sample.accelerometer = nil }
                if rng.uniform() < e.dropoutProbability { sample.magnetometer = nil }
            }
            try body(sample)
        }
    }
}
