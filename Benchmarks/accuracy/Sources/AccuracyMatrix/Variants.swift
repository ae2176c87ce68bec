import MotionFusion

/// The variants' generator: the library's SplitMix64, seeded the variants' way, so they are
/// reproducible to the bit.
typealias Random = SplitMix64

extension SplitMix64 {
    init(seed: UInt64) { self.init(state: seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678) }
    /// Uniform in [a, b).
    mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }
    mutating func gaussianVector() -> Vector3 { Vector3(gaussian(), gaussian(), gaussian()) }
    mutating func direction() -> Vector3 { gaussianVector().normalized ?? .unitX }
}

/// The signals of a high-rate recording (BROAD at 285.7 Hz, or a simulation at 1 kHz), readable at
/// any instant the way an IMU samples them. Every sample of the source must have all three sensors.
///
/// - Gyroscope: the mean rate over an integration window `(a, b]`, i.e. the rotation the source's
///   gyroscope integrates to over the window, as a rotation vector divided by its length. A filter
///   that integrates each sample over its own step is then exact when the window is the step; this
///   is what integrating IMUs deliver and, with their anti-alias filters' delay, what MEMS
///   gyroscopes approximate.
/// - Accelerometer and magnetometer: the mean over a window centred on the sample time (an
///   anti-alias filter without delay).
/// - Truth: slerp between the neighbouring source samples (missing when either is); `moving` when
///   both neighbours are.
struct SignalSource {
    let t: [Double]
    /// Attitude integrated from the gyroscope (arbitrary start): `q[i]` at `t[i]`; sample `i`'s rate
    /// covers `(t[i-1], t[i]]`.
    var integrated: [Quaternion] = []
    let gyro: [Vector3]
    /// Boundaries between samples for the piecewise-constant accelerometer and magnetometer, and
    /// their running integrals at the boundaries.
    var bounds: [Double] = []
    var accIntegral: [Vector3] = []
    var magIntegral: [Vector3] = []
    let acc: [Vector3]
    let mag: [Vector3]
    let truth: [Quaternion?]
    let moving: [Bool]

    init(_ trace: Trace) {
        let s = trace.samples
        t = s.map(\.t)
        gyro = s.map { $0.gyroscope! }
        acc = s.map { $0.accelerometer! }
        mag = s.map { $0.magnetometer ?? .zero }
        truth = s.map(\.truth)
        moving = s.map { $0.moving ?? true }
        let n = t.count
        integrated.reserveCapacity(n)
        var q = Quaternion.identity
        for i in 0..<n {
            if i > 0 { q = (q * Quaternion(rotationVector: gyro[i] * (t[i] - t[i - 1]))).normalized }
            integrated.append(q)
        }
        // Sample i holds over [bounds[i], bounds[i+1]).
        bounds = [t[0] - (t[1] - t[0]) / 2]
        for i in 1..<n { bounds.append((t[i - 1] + t[i]) / 2) }
        bounds.append(t[n - 1] + (t[n - 1] - t[n - 2]) / 2)
        var a = Vector3.zero
        var m = Vector3.zero
        accIntegral = [a]
        magIntegral = [m]
        for i in 0..<n {
            let w = bounds[i + 1] - bounds[i]
            a += acc[i] * w
            m += mag[i] * w
            accIntegral.append(a)
            magIntegral.append(m)
        }
    }

    var start: Double { t.first! }
    var end: Double { t.last! }

    /// Index `i` with `t[i] ≤ x < t[i+1]` (clamped).
    func index(_ x: Double, in grid: [Double]) -> Int {
        var lo = 0
        var hi = grid.count - 1
        if x <= grid[0] { return 0 }
        if x >= grid[hi] { return hi - 1 }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if grid[mid] <= x { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// The gyroscope-integrated attitude at `x`.
    func attitude(at x: Double) -> Quaternion {
        if x <= t[0] { return integrated[0] }
        let i = index(x, in: t)
        guard i + 1 < t.count else { return integrated[t.count - 1] }
        return (integrated[i] * Quaternion(rotationVector: gyro[i + 1] * (x - t[i]))).normalized
    }

    /// Mean rate over `(a, b]`, rad/s.
    func gyroscope(from a: Double, to b: Double) -> Vector3 {
        let qa = attitude(at: a)
        let qb = attitude(at: b)
        return (qa.conjugate * qb).rotationVector * (1 / (b - a))
    }

    func integral(_ x: Double, _ values: [Vector3], _ integralValues: [Vector3]) -> Vector3 {
        let xc = min(max(x, bounds[0]), bounds[bounds.count - 1])
        let i = min(index(xc, in: bounds), values.count - 1)
        return integralValues[i] + values[i] * (xc - bounds[i])
    }

    /// Mean accelerometer and magnetometer over `[x − w/2, x + w/2]`.
    func accelerometerAndMagnetometer(at x: Double, window w: Double) -> (Vector3, Vector3) {
        let a = x - w / 2
        let b = x + w / 2
        let inv = 1 / (b - a)
        let acc = (integral(b, acc, accIntegral) - integral(a, acc, accIntegral)) * inv
        let mag = (integral(b, mag, magIntegral) - integral(a, mag, magIntegral)) * inv
        return (acc, mag)
    }

    /// Truth and moving flag at `x`.
    func truth(at x: Double) -> (Quaternion?, Bool) {
        let i = index(x, in: t)
        let j = min(i + 1, t.count - 1)
        guard let a = truth[i], let b = truth[j] else { return (nil, moving[i] && moving[j]) }
        let u = j > i ? max(0, min(1, (x - t[i]) / (t[j] - t[i]))) : 0
        return (a.slerp(to: b, t: u).canonical, moving[i] && moving[j])
    }

    /// A sample at `x` whose gyroscope integrates over `(x − gyroWindow, x]` and whose accelerometer
    /// and magnetometer average over `window` centred on `x`.
    func sample(at x: Double, gyroWindow: Double, window: Double) -> SensorSample {
        let (a, m) = accelerometerAndMagnetometer(at: x, window: window)
        let (q, moving) = truth(at: x)
        return SensorSample(
            t: x, gyroscope: gyroscope(from: x - gyroWindow, to: x), accelerometer: a, magnetometer: m, truth: q,
            moving: moving)
    }

    /// The recording sampled at a constant rate (Hz).
    func resampled(rate: Double) -> Trace {
        let step = 1 / rate
        var out = [SensorSample]()
        var k = 1
        while true {
            let x = start + Double(k) * step
            if x + step / 2 > end { break }
            out.append(sample(at: x, gyroWindow: step, window: step))
            k += 1
        }
        return Trace(samples: out, format: "variant")
    }

    /// The recording sampled at irregular instants: steps uniform in `nominal · [1 − spread, 1 + spread]`,
    /// and on average once every `gapInterval` seconds a long step of a length uniform in `gapRange`.
    /// With `lost == false` the timestamps are irregular but nothing is lost: every gyroscope sample
    /// integrates over its whole step, however long (an integrating IMU read at irregular times).
    /// With `lost == true` the samples inside a long step are lost: the sample after it integrates only
    /// its own short step (a radio link dropping packets). Accelerometer and magnetometer average over
    /// `nominal` around each sample time.
    func irregular(
        nominal: Double, spread: Double, gapInterval: Double, gapRange: ClosedRange<Double>, lost: Bool, seed: UInt64
    ) -> Trace {
        var rng = Random(seed: seed)
        var out = [SensorSample]()
        var x = start + nominal
        while true {
            let step = nominal * rng.uniform(1 - spread, 1 + spread)
            var next = x + step
            if rng.uniform() < step / gapInterval { next += rng.uniform(gapRange.lowerBound, gapRange.upperBound) }
            if next + nominal > end { break }
            out.append(sample(at: next, gyroWindow: lost ? step : next - x, window: nominal))
            x = next
        }
        return Trace(samples: out, format: "variant")
    }
}

/// Transformations of whole traces.
enum Transform {
    /// Magnetometer multiplied by `factor`.
    static func scaleMagnetometer(_ trace: Trace, by factor: Double) -> Trace {
        var t = trace
        for i in t.samples.indices { t.samples[i].magnetometer = t.samples[i].magnetometer.map { $0 * factor } }
        return t
    }

    /// Magnetometer in units of its median strength (|m| ≈ 1, an arbitrary unit).
    static func unitMagnetometer(_ trace: Trace) -> Trace {
        let norms = trace.samples.compactMap { $0.magnetometer?.norm }.sorted()
        guard !norms.isEmpty else { return trace }
        return scaleMagnetometer(trace, by: 1 / norms[norms.count / 2])
    }

    /// Every magnetometer sample scaled to unit norm (the field strength is lost).
    static func normalisedMagnetometer(_ trace: Trace) -> Trace {
        var t = trace
        for i in t.samples.indices { t.samples[i].magnetometer = t.samples[i].magnetometer.flatMap(\.normalized) }
        return t
    }

    /// A constant gyroscope bias of `degreesPerSecond` in a direction drawn from `seed`.
    static func addGyroscopeBias(_ trace: Trace, degreesPerSecond: Double, seed: UInt64) -> Trace {
        var rng = Random(seed: seed)
        let b = rng.direction() * degreesPerSecond.radians
        var t = trace
        for i in t.samples.indices { t.samples[i].gyroscope = t.samples[i].gyroscope.map { $0 + b } }
        return t
    }

    /// The magnetometer removed from the first `seconds` (a recording whose magnetometer starts late).
    static func lateMagnetometer(_ trace: Trace, seconds: Double) -> Trace {
        var t = trace
        guard let t0 = t.samples.first?.t else { return t }
        for i in t.samples.indices where t.samples[i].t - t0 < seconds { t.samples[i].magnetometer = nil }
        return t
    }
}
