// Evaluation of the offline reconstruction on the shared recordings.
//
//   offline-eval broad [--mode 9d|6d] [--method batch|smoother|online] [--trials 01,15]
//                      [--variant NAME] [--data DIR] [key=value ...]
//   offline-eval euroc [--method ...] [key=value ...]
//   offline-eval scale N [--method batch|smoother]
//
// Variants: rate50, rate100, rate200 (resampled), jitter (timestamp jitter and gaps), unitmag
// (magnetometer normalised to unit norm), bias1, bias3, bias5 (constant gyroscope bias, °/s),
// gauss (magnetometer in gauss).
import Foundation
import MotionFusion

var arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
    print("usage: offline-eval broad|euroc|scale ...")
    exit(2)
}
let command = arguments.removeFirst()
var options: [String: String] = [:]
var overrides: [(String, String)] = []
var positional: [String] = []
var k = 0
while k < arguments.count {
    let a = arguments[k]
    if a.hasPrefix("--") {
        options[String(a.dropFirst(2))] = k + 1 < arguments.count ? arguments[k + 1] : ""
        k += 2
    } else if let eq = a.firstIndex(of: "=") {
        overrides.append((String(a[..<eq]), String(a[a.index(after: eq)...])))
        k += 1
    } else {
        positional.append(a)
        k += 1
    }
}
let mode: FusionMode = options["mode"] == "6d" ? .sixD : .nineD
let method = options["method"] ?? "batch"
let dataRoot = options["data"] ?? "/work/shared/data"

func parameters() -> BatchAttitudeEstimator.Parameters {
    var p = BatchAttitudeEstimator.Parameters()
    p.filter.mode = mode
    for (key, value) in overrides {
        let d = Double(value) ?? .nan
        switch key {
        case "knot": p.knotInterval = d
        case "gyro": p.gyroscopeNoise = d
        case "scale": p.rateScaleUncertainty = d
        case "walk": p.biasRandomWalk = d
        case "bias0": p.initialBiasUncertainty = d.radians
        case "acc": p.accelerometerNoise = d
        case "speed": p.typicalSpeed = d
        case "speedtime": p.speedCorrelationTime = d
        case "accout": p.accelerometerOutlierScale = d
        case "mag": p.magnetometerNoise = d
        case "headout": p.headingOutlierScale = d.radians
        case "dist": p.magneticDisturbance = d.radians
        case "grav": p.gravityNoise = d
        case "gauge": p.sixDHeadingUncertainty = d.radians
        case "gravout": p.gravityOutlierScale = d.radians
        case "restref": p.fieldReferenceFromRest = d != 0
        case "disttime": p.magneticDisturbanceTime = d
        case "normtol": p.fieldNormTolerance = d
        case "diptol": p.dipTolerance = d.radians
        case "rest": p.restRateNoise = d
        case "zupt": p.restVelocityNoise = d
        case "hardiron": p.estimateHardIron = d != 0
        case "calib": p.estimateMagnetometerCalibration = d != 0
        case "init": p.initialiser = BatchInitialiser(rawValue: value) ?? .smoother
        case "iter": p.maximumIterations = Int(d)
        case "tol": p.tolerance = d
        case "window": p.windowDuration = d
        case "windowsamples": p.windowSamples = Int(d)
        case "lookahead": p.lookahead = d
        case "magdelay": p.magnetometerDelay = d
        case "loss": p.robustLoss = RobustLoss(rawValue: value) ?? .cauchy
        default:
            print("unknown parameter \(key)")
            exit(2)
        }
    }
    return p
}

struct Outcome {
    var attitudes: [Quaternion]
    var sigma: [Double]
    var seconds: Double
    var bias: [Vector3] = []
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func reconstruct(_ samples: [SensorSample], method: String) -> Outcome {
    let t0 = now()
    switch method {
    case "online":
        let q = RunConfiguration(FilterKind.default, mode: mode).attitudes(samples)
        return Outcome(attitudes: q, sigma: [], seconds: now() - t0)
    case "smoother":
        var p = AttitudeSmoother.Parameters()
        p.filter.mode = mode
        let out = AttitudeSmoother(parameters: p).reconstruct(samples)
        return Outcome(
            attitudes: out.map(\.attitude), sigma: out.map(\.estimate.diagnostics.attitudeUncertainty),
            seconds: now() - t0, bias: out.map(\.estimate.gyroscopeBias))
    default:
        let out: [BatchAttitudeEstimator.Sample]
        do { out = try BatchAttitudeEstimator(parameters: parameters()).reconstruct(samples) } catch {
            fatalError("reconstruct: \(error)")
        }
        return Outcome(
            attitudes: out.map(\.estimate.attitude), sigma: out.map(\.estimate.diagnostics.attitudeUncertainty),
            seconds: now() - t0, bias: out.map(\.estimate.gyroscopeBias))
    }
}

/// Fraction of scored samples whose error is within one sigma (6D: after the metric's heading offset).
func coverage(_ o: Outcome, _ samples: [SensorSample], offsetDegrees: Double) -> Double {
    guard o.sigma.count == samples.count else { return .nan }
    let offset = Quaternion(axis: .unitZ, angle: -offsetDegrees.radians)
    var inside = 0
    var total = 0
    for (i, s) in samples.enumerated() {
        guard s.moving != false, let truth = s.truth, truth.isFinite else { continue }
        var e = (o.attitudes[i] * truth.conjugate).normalized
        if mode == .sixD { e = offset * e }
        let angle = 2 * abs(e.w).acosClamped
        total += 1
        if angle <= o.sigma[i] { inside += 1 }
    }
    return total > 0 ? Double(inside) / Double(total) : .nan
}

// MARK: Variants

func resampled(_ samples: [SensorSample], rate: Double) -> [SensorSample] {
    // Integral-preserving: the gyroscope over each new interval is the mean rotation rate (the
    // rotation vector of the integrated rotation over the interval), accelerometer and
    // magnetometer are interval means; truth is interpolated at the new instants.
    guard let first = samples.first?.t, let last = samples.last?.t else { return samples }
    var out = [SensorSample]()
    var j = 0
    var t = first + 1 / rate
    var previous = first
    while t <= last {
        var rotation = Quaternion.identity
        var acc = Vector3.zero
        var mag = Vector3.zero
        var count = 0.0
        var moving = false
        while j + 1 < samples.count && samples[j + 1].t <= t {
            let s = samples[j + 1]
            let dt = s.t - samples[j].t
            if let g = s.gyroscope { rotation = rotation * Quaternion(rotationVector: g * dt) }
            if let a = s.accelerometer { acc += a }
            if let m = s.magnetometer { mag += m }
            if s.moving == true { moving = true }
            count += 1
            j += 1
        }
        let span = t - previous
        var sample = SensorSample(t: t)
        if count > 0 {
            sample.gyroscope = rotation.rotationVector / span
            sample.accelerometer = acc / count
            sample.magnetometer = mag / count
        }
        if let a = samples[j].truth, j + 1 < samples.count, let b = samples[j + 1].truth {
            let u = (t - samples[j].t) / (samples[j + 1].t - samples[j].t)
            sample.truth = a.slerp(to: b, t: max(0, min(1, u)))
        } else {
            sample.truth = samples[j].truth
        }
        sample.moving = moving
        out.append(sample)
        previous = t
        t += 1 / rate
    }
    return out
}

func variant(_ name: String, _ samples: [SensorSample]) -> [SensorSample] {
    var rng = SystemRandomNumberGenerator()
    _ = rng
    switch name {
    case "rate50": return resampled(samples, rate: 50)
    case "rate100": return resampled(samples, rate: 100)
    case "rate200": return resampled(samples, rate: 200)
    case "unitmag":
        return samples.map {
            var s = $0; s.magnetometer = s.magnetometer?.normalized; return s
        }
    case "gauss":
        return samples.map {
            var s = $0; s.magnetometer = s.magnetometer.map { $0 / 100 }; return s
        }
    case "bias1", "bias3", "bias5":
        let deg = Double(name.dropFirst(4))!
        let b = Vector3(0.6, -0.48, 0.64) * deg.radians
        return samples.map {
            var s = $0; s.gyroscope = s.gyroscope.map { $0 + b }; return s
        }
    case "jitter":
        // An irregular sensor: instants 6 ms ± 20 % apart with gaps of up to 0.19 s every ~5 s; each
        // value is the mean over the nominal period ending at its instant (so a gap loses the
        // motion inside it, as a real dropout does). Deterministic.
        var state: UInt64 = 12345
        func uniform() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        guard let first = samples.first?.t, let last = samples.last?.t else { return samples }
        let nominal = 0.006
        var out = [SensorSample]()
        var j = 0
        var t = first + nominal
        while t <= last {
            while j + 1 < samples.count && samples[j + 1].t <= t - nominal { j += 1 }
            var rotation = Quaternion.identity
            var acc = Vector3.zero
            var mag = Vector3.zero
            var count = 0.0
            var k = j
            while k + 1 < samples.count && samples[k + 1].t <= t {
                let s = samples[k + 1]
                let dt = s.t - samples[k].t
                if let g = s.gyroscope { rotation = rotation * Quaternion(rotationVector: g * dt) }
                if let a = s.accelerometer { acc += a }
                if let m = s.magnetometer { mag += m }
                count += 1
                k += 1
            }
            var sample = SensorSample(t: t)
            if count > 0 {
                sample.gyroscope = rotation.rotationVector / nominal
                sample.accelerometer = acc / count
                sample.magnetometer = mag / count
            }
            sample.truth = samples[k].truth
            sample.moving = samples[k].moving
            out.append(sample)
            t += nominal * (0.8 + 0.4 * uniform())
            if uniform() < 0.0012 { t += 0.19 * uniform() }
        }
        return out
    default:
        return samples
    }
}

// MARK: Commands

func broad() throws {
    let dir = dataRoot + "/broad"
    var files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
    if let t = options["trials"] {
        let wanted = t.split(separator: ",").map(String.init)
        files = files.filter { f in wanted.contains { f.hasPrefix($0) } }
    }
    let variantName = options["variant"] ?? ""
    var totals = [Double]()
    var coverages = [Double]()
    var seconds = 0.0
    var count = 0
    for f in files {
        let trace = try TraceFormat.load(path: dir + "/" + f)
        let samples = variant(variantName, trace.samples)
        let o = reconstruct(samples, method: method)
        seconds += o.seconds
        count += samples.count
        let hasMoving = samples.contains { $0.moving != nil }
        let r = AttitudeErrorMetric.evaluate(
            estimates: o.attitudes, truth: samples.map(\.truth),
            moving: hasMoving ? samples.map { $0.moving ?? false } : nil, mode: mode)!
        let c = coverage(o, samples, offsetDegrees: r.headingOffset)
        totals.append(r.totalRMSE)
        coverages.append(c)
        if let dump = options["dump"] {
            // t, signed heading error (deg), total error (deg), sigma (deg), moving
            var text = ""
            for (i, s) in samples.enumerated() {
                guard let truth = s.truth, truth.isFinite else { continue }
                let e = (o.attitudes[i] * truth.conjugate).normalized
                let h = 2 * Double.atan2(e.z, e.w)
                let total = 2 * abs(e.w).acosClamped
                let sg = i < o.sigma.count ? o.sigma[i] : .nan
                let b = i < o.bias.count ? o.attitudes[i].rotate(o.bias[i]) : .zero
                text +=
                    "\(s.t),\(h.degrees),\(total.degrees),\(sg.degrees),\(s.moving == true ? 1 : 0),\(b.z.degrees)\n"
            }
            try text.write(
                toFile: dump + "/" + String(f.prefix(2)) + "_" + method + ".csv", atomically: true, encoding: .utf8)
        }
        print(
            String(
                format: "%@ %@ %@ total %.2f heading %.2f incl %.2f  cover %.0f%%", String(f.prefix(2)), mode.rawValue,
                method, r.totalRMSE, r.headingRMSE, r.inclinationRMSE, c * 100))
    }
    let mean = totals.reduce(0, +) / Double(max(1, totals.count))
    let cover = coverages.filter(\.isFinite).reduce(0, +) / Double(max(1, coverages.filter(\.isFinite).count))
    print(
        String(
            format: "MEAN %@ %@ %@ %.3f  cover %.0f%%  %.2f µs/sample", mode.rawValue, method, variantName, mean,
            cover * 100, seconds / Double(max(1, count)) * 1e6))
}

func euroc() throws {
    let dir = dataRoot + "/formats/euroc"
    let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    var totals = [Double]()
    for name in names {
        let trace = try TraceFormat.load(path: dir + "/" + name, format: nil)
        let samples = variant(options["variant"] ?? "", trace.samples)
        let o = reconstruct(samples, method: method)
        let r = AttitudeErrorMetric.evaluate(
            estimates: o.attitudes, truth: samples.map(\.truth), moving: nil, mode: .sixD)!
        let c = coverage(o, samples, offsetDegrees: r.headingOffset)
        totals.append(r.totalRMSE)
        print(
            String(
                format: "%@ 6d %@ total %.2f heading %.2f incl %.2f  cover %.0f%%", name, method, r.totalRMSE,
                r.headingRMSE, r.inclinationRMSE, c * 100))
    }
    print(String(format: "MEAN euroc 6d %@ %.3f", method, totals.reduce(0, +) / Double(max(1, totals.count))))
}

func scale() throws {
    guard let total = positional.first.flatMap({ Int($0) }) else {
        print("scale N")
        exit(2)
    }
    let base = try TraceFormat.load(path: dataRoot + "/broad/21_undisturbed_fast_combined.csv").samples
    let period = base.last!.t - base.first!.t + (base[1].t - base[0].t)
    var i = 0
    var count = 0
    var acc = 0.0
    let t0 = now()
    let next: () -> SensorSample? = {
        guard i < total else { return nil }
        var s = base[i % base.count]
        s.t += Double(i / base.count) * period
        s.truth = nil
        i += 1
        return s
    }
    if method == "smoother" {
        var p = AttitudeSmoother.Parameters()
        p.filter.mode = mode
        AttitudeSmoother(parameters: p).reconstruct(next: next) { s in
            count += 1
            acc += s.attitude.w
        }
    } else {
        let st = try BatchAttitudeEstimator(parameters: parameters()).reconstruct(next: next, progress: nil) { s in
            count += 1
            acc += s.estimate.attitude.w
        }
        print("windows \(st.windows) iterations \(st.iterations) failed \(st.failedWindows)")
    }
    let seconds = now() - t0
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    print(
        String(
            format: "%@ %d samples %.2f s %.0f ns/sample peak RSS %.0f MiB (%g)", method, count, seconds,
            seconds / Double(max(1, count)) * 1e9, Double(usage.ru_maxrss) / 1024, acc))
}

/// Magnetometer calibration: joint (batch) against the ellipsoid fit, judged by the azimuth error of
/// the calibrated field at the true attitude and by the spread of its strength.
func calibrationComparison() throws {
    let dir = dataRoot + "/broad"
    var files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
    if let t = options["trials"] {
        let wanted = t.split(separator: ",").map(String.init)
        files = files.filter { f in wanted.contains { f.hasPrefix($0) } }
    }
    func judge(_ samples: [SensorSample], _ apply: (Vector3) -> Vector3) -> (azimuth: Double, norm: Double) {
        var az = [Double]()
        var norms = [Double]()
        for s in samples {
            guard let m = s.magnetometer, let q = s.truth, q.isFinite else { continue }
            let c = apply(m)
            let e = q.rotate(c)
            az.append(Double.atan2(e.x, e.y).degrees)
            norms.append(c.norm)
        }
        let mean = az.reduce(0, +) / Double(az.count)
        let rms = (az.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(az.count)).squareRoot()
        let nm = norms.reduce(0, +) / Double(norms.count)
        let ns = (norms.reduce(0) { $0 + ($1 - nm) * ($1 - nm) } / Double(norms.count)).squareRoot() / nm
        return (rms, ns * 100)
    }
    for f in files {
        let samples = try TraceFormat.load(path: dir + "/" + f).samples
        var p = parameters()
        p.estimateMagnetometerCalibration = true
        var estimates = [Quaternion]()
        var index = 0
        let stats = try BatchAttitudeEstimator(parameters: p).reconstruct(
            next: {
                guard index < samples.count else { return nil }
                index += 1
                return samples[index - 1]
            }, progress: nil
        ) { estimates.append($0.estimate.attitude) }
        let r = AttitudeErrorMetric.evaluate(estimates: estimates, trace: Trace(samples: samples), mode: .nineD)!
        let raw = judge(samples) { $0 }
        var line = String(format: "%@ raw az %.2f° norm %.1f%%", String(f.prefix(2)), raw.azimuth, raw.norm)
        if let fit = try? MagnetometerCalibration.fit(samples.compactMap(\.magnetometer)) {
            let j = judge(samples) { fit.apply($0) }
            line += String(format: " | ellipsoid az %.2f° norm %.1f%%", j.azimuth, j.norm)
        } else {
            line += " | ellipsoid refused"
        }
        if let c = stats.magnetometerCalibration {
            let j = judge(samples) { c.apply($0) }
            line += String(format: " | joint az %.2f° norm %.1f%% (|h| %.2f)", j.azimuth, j.norm, c.hardIron.norm)
        } else {
            line += " | joint none"
        }
        line += String(format: " | attitude total %.2f", r.totalRMSE)
        print(line)
    }
}

/// Simulated traces (the tests' settings: 120 s at 100 Hz, calibrated consumer errors, seed 7).
func simulated() {
    for name in positional {
        guard let scenario = MotionSimulator.Scenario(rawValue: name) else { continue }
        var settings = MotionSimulator.Settings()
        settings.scenario = scenario
        settings.duration = Double(options["duration"] ?? "120") ?? 120
        settings.rate = 100
        settings.errors = .calibrated
        settings.seed = UInt64(options["seed"] ?? "7") ?? 7
        let trace = MotionSimulator(settings: settings).run()
        let o = reconstruct(trace.samples, method: method)
        let r = AttitudeErrorMetric.evaluate(estimates: o.attitudes, trace: trace, mode: mode)!
        let c = coverage(o, trace.samples, offsetDegrees: r.headingOffset)
        print(
            String(
                format: "%@ %@ %@ total %.3f heading %.3f incl %.3f cover %.0f%%", name, mode.rawValue, method,
                r.totalRMSE, r.headingRMSE, r.inclinationRMSE, c * 100))
    }
}

switch command {
case "sim": simulated()
case "calib": try calibrationComparison()
case "broad": try broad()
case "euroc": try euroc()
case "scale": try scale()
default:
    print("unknown command \(command)")
    exit(2)
}
