import MotionFusion

/// Samples read in place from caller-owned arrays: `t[n]`, and rows of three for each sensor
/// (absent pointer: no such sensor; a non-finite row: no value at that sample).
struct ArrayInput {
    let count: Int
    let t: UnsafePointer<Double>
    let gyroscope: UnsafePointer<Double>?
    let accelerometer: UnsafePointer<Double>?
    let magnetometer: UnsafePointer<Double>?

    @inline(__always)
    static func row(_ p: UnsafePointer<Double>?, _ i: Int) -> Vector3? {
        guard let p else { return nil }
        let v = Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2])
        return v.isFinite ? v : nil
    }

    @inline(__always)
    func sample(_ i: Int) -> SensorSample {
        SensorSample(
            t: t[i], gyroscope: Self.row(gyroscope, i), accelerometer: Self.row(accelerometer, i),
            magnetometer: Self.row(magnetometer, i))
    }

    /// A pull function over the samples, as the run paths take.
    func reader() -> () -> SensorSample? {
        var i = 0
        return {
            guard i < count else { return nil }
            defer { i += 1 }
            return sample(i)
        }
    }
}

/// Outputs written in place into caller-owned arrays, one row per estimate: exactly the columns
/// `EstimateWriter` writes (frame, north reference, canonical sign, heading), unrounded.
struct ArrayOutput {
    var quaternion: UnsafeMutablePointer<Double>?
    var euler: UnsafeMutablePointer<Double>?
    var heading: UnsafeMutablePointer<Double>?
    var used: UnsafeMutablePointer<UInt8>?
    var bias: UnsafeMutablePointer<Double>?
    var sigmaAttitude: UnsafeMutablePointer<Double>?
    var sigmaHeading: UnsafeMutablePointer<Double>?
    /// Rows there is room for.
    let count: Int
    let frame: EarthFrame
    let declinationDegrees: Double?
    /// Rz(−D): magnetic-north ENU to true-north ENU (as `EstimateWriter`).
    let northRotation: Quaternion
    /// Whether the run has an uncertainty (the EKF, reconstruction); NaN is written otherwise.
    let uncertainty: Bool

    init(
        _ q: UnsafeMutablePointer<Double>?, _ e: UnsafeMutablePointer<Double>?, _ h: UnsafeMutablePointer<Double>?,
        _ u: UnsafeMutablePointer<UInt8>?, _ b: UnsafeMutablePointer<Double>?, _ sa: UnsafeMutablePointer<Double>?,
        _ sh: UnsafeMutablePointer<Double>?, count: Int, configuration: RunConfiguration, uncertainty: Bool
    ) {
        (quaternion, euler, heading, used, bias, sigmaAttitude, sigmaHeading) = (q, e, h, u, b, sa, sh)
        self.count = count
        frame = configuration.frame
        declinationDegrees = configuration.declinationDegrees
        northRotation = Quaternion(axis: .unitZ, angle: -(declinationDegrees ?? 0).radians)
        self.uncertainty = uncertainty
    }

    /// One-sigma in degrees as the estimate file has it: 180 when unknown.
    @inline(__always)
    func degrees(_ s: Double) -> Double {
        guard uncertainty else { return .nan }
        return s.isFinite
            ? min(s.degrees, EstimateWriter.unknownUncertaintyDegrees) : EstimateWriter.unknownUncertaintyDegrees
    }

    /// Whether the quaternion is the only output asked for.
    var attitudeOnly: Bool {
        euler == nil && heading == nil && used == nil && bias == nil && sigmaAttitude == nil && sigmaHeading == nil
    }

    /// The written attitude (frame, north reference, canonical sign) of an ENU magnetic-north one,
    /// and the true-north ENU attitude it comes from.
    @inline(__always)
    func written(_ attitude: Quaternion) -> (q: Quaternion, qENU: Quaternion) {
        let qENU = declinationDegrees == nil ? attitude : (northRotation * attitude).normalized
        return (frame.attitude(fromENU: qENU).canonical, qENU)
    }

    @inline(__always)
    func write(attitude: Quaternion, at i: Int) {
        guard let p = quaternion else { return }
        let q = written(attitude).q
        p[4 * i] = q.w
        p[4 * i + 1] = q.x
        p[4 * i + 2] = q.y
        p[4 * i + 3] = q.z
    }

    @inline(__always)
    func write(_ e: MotionEstimate, at i: Int) {
        let (q, qENU) = written(e.attitude)
        if let p = quaternion {
            p[4 * i] = q.w
            p[4 * i + 1] = q.x
            p[4 * i + 2] = q.y
            p[4 * i + 3] = q.z
        }
        if euler != nil || heading != nil {
            let a = EulerAngles(q)
            if let p = euler {
                p[3 * i] = a.roll.degrees
                p[3 * i + 1] = a.pitch.degrees
                p[3 * i + 2] = a.yaw.degrees
            }
            if let p = heading { p[i] = frame == .enu ? (-a.yaw).degrees.wrappedTo360 : qENU.headingDegrees() }
        }
        if let p = used { p[i] = e.used ? 1 : 0 }
        if let p = bias {
            p[3 * i] = e.gyroscopeBias.x
            p[3 * i + 1] = e.gyroscopeBias.y
            p[3 * i + 2] = e.gyroscopeBias.z
        }
        if let p = sigmaAttitude { p[i] = degrees(e.diagnostics.attitudeUncertainty) }
        if let p = sigmaHeading { p[i] = degrees(e.diagnostics.headingUncertainty) }
    }
}

/// The configuration adjusted to the sensors given, as the command line does: 9D without a
/// magnetometer runs 6D; the e-compass without one is an error.
func adjusted(_ configuration: RunConfiguration, hasMagnetometer: Bool) throws -> RunConfiguration {
    var c = configuration
    if c.mode == .nineD && !hasMagnetometer {
        if c.filter.kind == .ecompass {
            throw CallError.input("no magnetometer: the e-compass needs one (try filter tilt)")
        }
        c.mode = .sixD
    }
    return c
}

/// The offline reconstruction behind `mf_reconstruct` (and so Python's `reconstruct`), in one
/// place: every sample of `next`, in order, to `body` with its estimate.
func reconstruct(
    _ configuration: RunConfiguration, next: () throws -> SensorSample?,
    _ body: (MotionEstimate, SensorSample) throws -> Void
) throws {
    guard case .ekf = configuration.filter else { throw CallError.usage("reconstruct runs the EKF (filter ekf)") }
    try configuration.reconstruct(next: next) { r in try body(r.estimate, r.input) }
}

/// The shared body of `mf_replay` and `mf_reconstruct`.
func batch(
    offline: Bool, _ filter: UnsafePointer<CChar>?, _ mode: UnsafePointer<CChar>?,
    _ parameters: UnsafePointer<CChar>?, _ frame: UnsafePointer<CChar>?, _ declination: Double, _ n: Int,
    _ t: UnsafePointer<Double>?, _ gyr: UnsafePointer<Double>?, _ acc: UnsafePointer<Double>?,
    _ mag: UnsafePointer<Double>?, _ q: UnsafeMutablePointer<Double>?, _ euler: UnsafeMutablePointer<Double>?,
    _ heading: UnsafeMutablePointer<Double>?, _ used: UnsafeMutablePointer<UInt8>?,
    _ bias: UnsafeMutablePointer<Double>?, _ sigmaAttitude: UnsafeMutablePointer<Double>?,
    _ sigmaHeading: UnsafeMutablePointer<Double>?, _ error: UnsafeMutablePointer<CChar>?, _ capacity: Int
) -> Int32 {
    reporting(error, capacity) {
        var run = try Arguments.run(
            filter: filter, mode: mode, parameters: parameters, frame: frame, declination: declination)
        run = try adjusted(run, hasMagnetometer: mag != nil)
        guard n >= 0 else { throw CallError.usage("negative sample count") }
        guard n > 0 else { return }
        guard let t else { throw CallError.usage("t is missing") }
        let input = ArrayInput(count: n, t: t, gyroscope: gyr, accelerometer: acc, magnetometer: mag)
        let output = ArrayOutput(
            q, euler, heading, used, bias, sigmaAttitude, sigmaHeading, count: n, configuration: run,
            uncertainty: offline || run.filter.kind == .ekf)
        if offline {
            var i = 0
            try reconstruct(run, next: input.reader()) { e, _ in
                // One estimate per sample: the output rate is never set here.
                precondition(i < output.count, "more estimates than samples")
                output.write(e, at: i)
                i += 1
            }
        } else {
            try run.filter.withFilter(ReplayLoop(configuration: run, input: input, output: output))
        }
    }
}

/// The per-sample loop of `mf_replay`, specialised for each filter: the loop of
/// ``RunConfiguration/run(next:_:)`` (a ``FilterRunner`` with the configured settings, one
/// estimate per sample) without its per-sample closures, reading and writing the arrays in place.
struct ReplayLoop: FilterVisitor {
    let configuration: RunConfiguration
    let input: ArrayInput
    let output: ArrayOutput

    func visit<Filter: AttitudeFilter>(_ filter: Filter) {
        // What the C ABI cannot set, so the loop has no branch for it.
        precondition(configuration.calibration == nil && configuration.outputRate == nil)
        var runner = FilterRunner(filter, settings: configuration.runner)
        if output.attitudeOnly {
            // The attitude alone: the runner's step without building the rest of the estimate.
            for i in 0..<input.count {
                runner.step(input.sample(i))
                output.write(attitude: runner.filter.attitude, at: i)
            }
            return
        }
        for i in 0..<input.count {
            output.write(runner.update(input.sample(i)), at: i)
        }
    }
}

@_cdecl("mf_replay")
public func mf_replay(
    _ filter: UnsafePointer<CChar>?, _ mode: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
    _ frame: UnsafePointer<CChar>?, _ declinationDegrees: Double, _ n: Int, _ t: UnsafePointer<Double>?,
    _ gyr: UnsafePointer<Double>?, _ acc: UnsafePointer<Double>?, _ mag: UnsafePointer<Double>?,
    _ quaternion: UnsafeMutablePointer<Double>?, _ eulerDegrees: UnsafeMutablePointer<Double>?,
    _ headingDegrees: UnsafeMutablePointer<Double>?, _ used: UnsafeMutablePointer<UInt8>?,
    _ gyroBias: UnsafeMutablePointer<Double>?, _ sigmaAttitudeDegrees: UnsafeMutablePointer<Double>?,
    _ sigmaHeadingDegrees: UnsafeMutablePointer<Double>?, _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    batch(
        offline: false, filter, mode, parameters, frame, declinationDegrees, n, t, gyr, acc, mag, quaternion,
        eulerDegrees, headingDegrees, used, gyroBias, sigmaAttitudeDegrees, sigmaHeadingDegrees, error, errorCapacity)
}

@_cdecl("mf_reconstruct")
public func mf_reconstruct(
    _ filter: UnsafePointer<CChar>?, _ mode: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
    _ frame: UnsafePointer<CChar>?, _ declinationDegrees: Double, _ n: Int, _ t: UnsafePointer<Double>?,
    _ gyr: UnsafePointer<Double>?, _ acc: UnsafePointer<Double>?, _ mag: UnsafePointer<Double>?,
    _ quaternion: UnsafeMutablePointer<Double>?, _ eulerDegrees: UnsafeMutablePointer<Double>?,
    _ headingDegrees: UnsafeMutablePointer<Double>?, _ used: UnsafeMutablePointer<UInt8>?,
    _ gyroBias: UnsafeMutablePointer<Double>?, _ sigmaAttitudeDegrees: UnsafeMutablePointer<Double>?,
    _ sigmaHeadingDegrees: UnsafeMutablePointer<Double>?, _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    batch(
        offline: true, filter, mode, parameters, frame, declinationDegrees, n, t, gyr, acc, mag, quaternion,
        eulerDegrees, headingDegrees, used, gyroBias, sigmaAttitudeDegrees, sigmaHeadingDegrees, error, errorCapacity)
}

@_cdecl("mf_evaluate")
public func mf_evaluate(
    _ n: Int, _ quaternion: UnsafePointer<Double>?, _ frame: UnsafePointer<CChar>?, _ truth: UnsafePointer<Double>?,
    _ moving: UnsafePointer<UInt8>?, _ mode: UnsafePointer<CChar>?, _ result: UnsafeMutablePointer<Double>?,
    _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        let f = try Arguments.choice(frame, "frame", EarthFrame.self) ?? .enu
        let m = try Arguments.choice(mode, "mode", FusionMode.self) ?? .nineD
        guard n > 0, let quaternion, let truth else {
            throw CallError.input("no samples with ground truth (and moving = 1) to score")
        }
        func row(_ p: UnsafePointer<Double>, _ i: Int) -> Quaternion? {
            let q = Quaternion(w: p[4 * i], x: p[4 * i + 1], y: p[4 * i + 2], z: p[4 * i + 3])
            return q.isFinite && q.squaredNorm > 0 ? q : nil
        }
        let estimates = (0..<n).map { i in row(quaternion, i).map { f.attitudeToENU($0.normalized) } }
        let truths = (0..<n).map { i in row(truth, i) }
        let flags = moving.map { p in (0..<n).map { p[$0] != 0 } }
        guard let r = AttitudeErrorMetric.evaluate(estimates: estimates, truth: truths, moving: flags, mode: m) else {
            throw CallError.input("no samples with ground truth (and moving = 1) to score")
        }
        if let result {
            result[0] = r.totalRMSE
            result[1] = r.headingRMSE
            result[2] = r.inclinationRMSE
            result[3] = Double(r.samplesUsed)
            result[4] = r.headingOffset
        }
    }
}
