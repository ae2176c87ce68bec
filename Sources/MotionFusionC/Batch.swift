import Glibc
import MotionFusion
import Synchronization

/// Outputs written in place into caller-owned arrays, one row per estimate: the columns of the
/// estimate file (``OutputReference``), unrounded.
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
    let reference: OutputReference
    /// Whether the run has an uncertainty (the EKF, reconstruction); NaN is written otherwise.
    let uncertainty: Bool

    init(
        _ q: UnsafeMutablePointer<Double>?, _ e: UnsafeMutablePointer<Double>?, _ h: UnsafeMutablePointer<Double>?,
        _ u: UnsafeMutablePointer<UInt8>?, _ b: UnsafeMutablePointer<Double>?, _ sa: UnsafeMutablePointer<Double>?,
        _ sh: UnsafeMutablePointer<Double>?, count: Int, configuration: RunConfiguration, uncertainty: Bool
    ) {
        (quaternion, euler, heading, used, bias, sigmaAttitude, sigmaHeading) = (q, e, h, u, b, sa, sh)
        self.count = count
        reference = OutputReference(configuration)
        self.uncertainty = uncertainty
    }

    /// Whether the quaternion is the only output asked for.
    var attitudeOnly: Bool {
        euler == nil && heading == nil && used == nil && bias == nil && sigmaAttitude == nil && sigmaHeading == nil
    }

    @inline(__always)
    func write(attitude: Quaternion, at i: Int) {
        guard let p = quaternion else { return }
        let q = reference.attitude(attitude).written
        p[4 * i] = q.w
        p[4 * i + 1] = q.x
        p[4 * i + 2] = q.y
        p[4 * i + 3] = q.z
    }

    @inline(__always)
    func write(_ e: MotionEstimate, at i: Int) {
        if euler == nil && heading == nil {
            // No angle asked for: the Euler angles and heading (three `atan2` and an `asin`) are
            // not computed.
            write(attitude: e.attitude, at: i)
        } else {
            let row = reference.row(e)
            if let p = quaternion {
                p[4 * i] = row.attitude.w
                p[4 * i + 1] = row.attitude.x
                p[4 * i + 2] = row.attitude.y
                p[4 * i + 3] = row.attitude.z
            }
            if let p = euler {
                p[3 * i] = row.rollDegrees
                p[3 * i + 1] = row.pitchDegrees
                p[3 * i + 2] = row.yawDegrees
            }
            if let p = heading { p[i] = row.heading }
        }
        if let p = used { p[i] = e.used ? 1 : 0 }
        if let p = bias {
            p[3 * i] = e.gyroscopeBias.x
            p[3 * i + 1] = e.gyroscopeBias.y
            p[3 * i + 2] = e.gyroscopeBias.z
        }
        let d = e.diagnostics
        if let p = sigmaAttitude {
            p[i] = uncertainty ? OutputReference.uncertaintyDegrees(d.attitudeUncertainty) : .nan
        }
        if let p = sigmaHeading { p[i] = uncertainty ? OutputReference.uncertaintyDegrees(d.headingUncertainty) : .nan }
    }
}

/// The offline reconstruction behind `mf_reconstruct` (and so Python's `reconstruct`), in one
/// place: every sample of `next`, in order, to `body` with its estimate.
func reconstruct(
    _ configuration: RunConfiguration, batch: BatchAttitudeEstimator.Parameters, next: () throws -> SensorSample?,
    _ body: (MotionEstimate, SensorSample) throws -> Void
) throws {
    guard configuration.filter.reconstructionFilter != nil else {
        throw CallError.usage("reconstruct runs the EKF (filter ekf)")
    }
    let result = try configuration.reconstruct(batch: batch, next: next) { r in try body(r.estimate, r.input) }
    // Never a silent fallback: windows whose solve failed kept the initialising smoother's attitude.
    if let st = result.statistics, st.failedWindows > 0 {
        throw CallError.input(
            "the normal equations of \(st.failedWindows) of \(st.windows) windows could not be solved (\(st.firstFailure ?? "unknown cause")); the outputs hold the initialising smoother's attitude for their samples. BLAS/LAPACK in use: \(LinearAlgebra.libraryOrigin); check that library (or name another with MOTIONFUSION_LAPACK), or use the smoother ('motionfusion reconstruct --method smoother') which needs no band solves"
        )
    }
}

/// Tallies the magnetometer's use over a 9D run and keeps the command line's warning when it was
/// rejected on most samples, as `motionfusion replay` prints it (without the source's name).
/// `offline`: a reconstruction's estimates (robust weights under one half count as rejections).
func magnetometerWarnings(_ use: MagnetometerUse, _ run: RunConfiguration, offline: Bool = false) -> [String] {
    guard run.mode == .nineD, use.mostlyRejected else { return [] }
    let line = use.warning(
        source: "", calibrated: run.calibration?.magnetometer != nil, arrays: true, offline: offline)
    return [line.hasPrefix(": warning: ") ? String(line.dropFirst(": warning: ".count)) : line]
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
    RunWarnings.set([])
    return reporting(error, capacity) {
        var run: RunConfiguration
        var tuning = BatchAttitudeEstimator.Parameters()
        if offline {
            (run, tuning) = try Arguments.reconstruction(
                filter: filter, mode: mode, parameters: parameters, frame: frame, declination: declination)
        } else {
            run = try Arguments.run(
                filter: filter, mode: mode, parameters: parameters, frame: frame, declination: declination)
        }
        do {
            run = try run.adjusted(toSensors: mag == nil ? [.gyroscope, .accelerometer] : Set(SensorKind.allCases))
                .configuration
        } catch {
            throw CallError.input("\(error)")
        }
        guard n >= 0 else { throw CallError.usage("negative sample count") }
        guard n > 0 else { return }
        guard let t else { throw CallError.usage("t is missing") }
        let input = SensorArrays(count: n, t: t, gyroscope: gyr, accelerometer: acc, magnetometer: mag)
        let output = ArrayOutput(
            q, euler, heading, used, bias, sigmaAttitude, sigmaHeading, count: n, configuration: run,
            uncertainty: offline || run.filter.hasUncertainty)
        if offline {
            var i = 0
            var use = MagnetometerUse()
            // Read once: the mode is computed from the filter's parameters (about 560 instructions).
            let tally = run.mode == .nineD
            try reconstruct(run, batch: tuning, next: input.reader()) { e, s in
                // One estimate per sample: the output rate is never set here.
                precondition(i < output.count, "more estimates than samples")
                output.write(e, at: i)
                if tally { use.add(e, s) }
                i += 1
            }
            RunWarnings.set(magnetometerWarnings(use, run, offline: true))
        } else {
            // A 9D run builds every estimate, whatever the outputs: its magnetometer use is tallied.
            let tally = run.mode == .nineD && mag != nil
            let attitudeOnly = output.attitudeOnly && !tally
            var use = MagnetometerUse()
            run.run(input, attitudeOnly: attitudeOnly) { i, e, q in
                if let e {
                    output.write(e, at: i)
                    if tally { use.add(e, input.sample(at: i)) }
                } else {
                    output.write(attitude: q, at: i)
                }
            }
            RunWarnings.set(magnetometerWarnings(use, run))
        }
    }
}

/// The warnings of each thread's last `mf_replay` or `mf_reconstruct` call, until fetched with
/// `mf_run_warnings`.
enum RunWarnings {
    static let byThread = Mutex<[UInt: [String]]>([:])

    static func set(_ lines: [String]) {
        let id = UInt(pthread_self())
        byThread.withLock { if lines.isEmpty { $0[id] = nil } else { $0[id] = lines } }
    }

    static func take() -> [String] {
        let id = UInt(pthread_self())
        return byThread.withLock { $0.removeValue(forKey: id) ?? [] }
    }
}

@_cdecl("mf_run_warnings")
public func mf_run_warnings() -> UnsafeMutablePointer<CChar> {
    cString(RunWarnings.take().joined(separator: "\n"))
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

@_cdecl("mf_replay_many")
public func mf_replay_many(
    _ filter: UnsafePointer<CChar>?, _ mode: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
    _ frame: UnsafePointer<CChar>?, _ declinationDegrees: Double, _ traces: Int, _ n: UnsafePointer<Int>?,
    _ t: UnsafePointer<UnsafePointer<Double>?>?, _ gyr: UnsafePointer<UnsafePointer<Double>?>?,
    _ acc: UnsafePointer<UnsafePointer<Double>?>?, _ mag: UnsafePointer<UnsafePointer<Double>?>?,
    _ quaternion: UnsafePointer<UnsafeMutablePointer<Double>?>?, _ workers: Int, _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    RunWarnings.set([])
    return reporting(error, errorCapacity) {
        let run = try Arguments.run(
            filter: filter, mode: mode, parameters: parameters, frame: frame, declination: declinationDegrees)
        guard traces >= 0 else { throw CallError.usage("negative trace count") }
        guard workers >= 0 else { throw CallError.usage("negative worker count") }
        guard traces > 0 else { return }
        guard let n, let t, let quaternion else { throw CallError.usage("n, t and quaternion are required") }
        // Traces with and without a magnetometer run in separate configurations (9D without one
        // runs 6D, as in mf_replay); each configuration's traces run together, `workers` at a time.
        var groups: [Bool: [Int]] = [:]
        for i in 0..<traces {
            guard n[i] >= 0 else { throw CallError.usage("negative sample count for trace \(i)") }
            guard n[i] == 0 || (t[i] != nil && quaternion[i] != nil) else {
                throw CallError.usage("t or quaternion is missing for trace \(i)")
            }
            groups[mag?[i] != nil, default: []].append(i)
        }
        var warned: [(trace: Int, line: String)] = []
        for (hasMagnetometer, members) in groups.sorted(by: { !$0.key && $1.key }) {
            let sensors: Set<SensorKind> = hasMagnetometer ? Set(SensorKind.allCases) : [.gyroscope, .accelerometer]
            let configuration: RunConfiguration
            do {
                configuration = try run.adjusted(toSensors: sensors).configuration
            } catch {
                throw CallError.input("\(error)")
            }
            let present = members.filter { n[$0] > 0 }
            let inputs = present.map { i in
                SensorArrays(count: n[i], t: t[i]!, gyroscope: gyr?[i], accelerometer: acc?[i], magnetometer: mag?[i])
            }
            // The quaternion column of mf_replay, written the same way, each trace by its own thread.
            let outputs = present.map { i in
                ArrayOutput(
                    quaternion[i], nil, nil, nil, nil, nil, nil, count: n[i], configuration: configuration,
                    uncertainty: false)
            }
            // As in mf_replay, a 9D run builds every estimate to tally its magnetometer use, one
            // tally per trace, each written only by the thread that runs the trace.
            let tally = hasMagnetometer && configuration.mode == .nineD
            let uses = UnsafeMutableBufferPointer<MagnetometerUse>.allocate(capacity: present.count)
            uses.initialize(repeating: MagnetometerUse())
            // A tally holds the readings its warning fits: released with the buffer.
            defer {
                uses.deinitialize()
                uses.deallocate()
            }
            configuration.run(eachOf: inputs, workers: workers, attitudeOnly: !tally) { j, k, e, q in
                outputs[j].write(attitude: q, at: k)
                if let e { uses[j].add(e, inputs[j].sample(at: k)) }
            }
            for (j, i) in present.enumerated() {
                warned += magnetometerWarnings(uses[j], configuration).map { (i, $0) }
            }
        }
        RunWarnings.set(warned.sorted { $0.trace < $1.trace }.map { "trace \($0.trace): \($0.line)" })
    }
}
