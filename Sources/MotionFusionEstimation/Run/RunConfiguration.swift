/// Everything that decides how a recording becomes attitudes: the filter and its tuning (with the
/// fusion mode and any expected field), sensor calibration, runner settings, the output rate, and
/// how outputs are referenced (earth frame, magnetic or true north).
///
/// It is built once, by the command line or by a library user, and every run path consumes it:
/// `replay` (one trace, a folder, standard input), ``MotionReplayManager``, `reconstruct`, and
/// the C and Python bindings.
///
/// ```swift
/// var run = RunConfiguration(.ekf, mode: .nineD)
/// run.declinationDegrees = 3.2          // outputs referenced to true north
/// for e in run.estimates(trace.samples) { print(e.t, e.attitude) }
/// ```
public struct RunConfiguration: Sendable {
    /// The estimator and its tuning, including the fusion mode. Default: the EKF in 9D.
    public var filter = FilterSetup(.default)
    /// Calibration applied to every sample before filtering. Default none.
    public var calibration: SensorCalibration?
    /// How samples are fed to the filter (gaps, held gyroscope values).
    public var runner = FilterRunnerSettings()
    /// Longest opening stretch of a recording, s, over which the magnetometer calibration the
    /// filter starts with is decided (EKF and complementary filter, 9D). A copy of the run goes
    /// ahead, holding the samples, until its on-line calibration reaches medium level, the
    /// stretch ends, or ``MagnetometerLookAhead/mostSamples`` (40 000) are held; that calibration,
    /// when the held readings bear it out from the start (``MagnetometerLookAhead/decided(_:)``),
    /// is in use from the first sample, as in a device calibrated before the recording started.
    /// Each sample is then run once, in order. 0 runs strictly sample by sample, as live data
    /// needs (no estimate waits for later samples); the command line does so for standard input
    /// and FIFOs. Default 120.
    public var magnetometerLookAhead = 120.0
    /// Output rate, Hz: estimates are interpolated onto a regular grid from the first sample's time,
    /// so the number of outputs follows the duration, not the input rows. `nil` gives one estimate
    /// per input sample. Default nil.
    public var outputRate: Double?
    /// The resampler onto ``outputRate`` (interpolating across gaps up to the runner's
    /// `maximumGap`), or `nil` for one estimate per sample: the one every run of this configuration
    /// uses, online or offline.
    package var resampler: Resampler? { outputRate.map { Resampler(rate: $0, maximumGap: runner.maximumGap) } }
    /// Earth frame of written attitudes and Euler angles. Default ENU.
    public var frame = EarthFrame.enu
    /// Declination, degrees east; when set, written attitudes and `heading` are referenced to true
    /// north. Estimates themselves stay referenced to magnetic north. Default nil.
    public var declinationDegrees: Double?

    /// The default configuration: the EKF in 9D, one estimate per sample, ENU, magnetic north.
    public init() {}

    /// A configuration running `kind` with default parameters in `mode` (default: the filter's
    /// own default mode).
    public init(_ kind: FilterKind, mode: FusionMode? = nil) {
        filter = FilterSetup(kind, mode: mode)
    }

    /// Sensors fused.
    public var mode: FusionMode {
        get { filter.mode }
        set { filter.mode = newValue }
    }

    /// Runs the configured filter over the samples `next` yields until it returns nil, calling
    /// `body` with each estimate and the input it belongs to (for resampled outputs, the input
    /// interpolated to the output time: ground truth slerped, sensors absent). `eachSample`, when
    /// given, sees every input sample's own estimate, before any resampling. Memory is bounded:
    /// at most the ``magnetometerLookAhead`` stretch is held (set it to 0 for live data).
    public func run(
        next: () throws -> SensorSample?, eachSample: ((MotionEstimate, SensorSample) -> Void)? = nil,
        _ body: (MotionEstimate, SensorSample) throws -> Void
    ) throws {
        try withoutActuallyEscaping(next) { next in
            try withoutActuallyEscaping(body) { body in
                let sink = EstimatesToClosure(resampler: resampler, eachSample: eachSample, body: body)
                _ = try filter.withFilter(RunLoop(source: YieldedSamples(yield: next), sink: sink, configuration: self))
            }
        }
    }

    /// The configuration adjusted to the sensors a recording has: 9D without a magnetometer runs
    /// (and is scored and reported) as 6D; `fellBack` says so. The e-compass without a magnetometer
    /// and any filter without an accelerometer cannot run: an error. Without a gyroscope the
    /// filters run on the other sensors alone (``GyroscopeAbsence/followsOtherSensors``).
    public func adjusted(toSensors sensors: Set<SensorKind>) throws -> (configuration: RunConfiguration, fellBack: Bool)
    {
        guard sensors.contains(.accelerometer) else {
            throw ParameterError(
                description:
                    "no accelerometer: every filter needs it to find the vertical (a gyroscope alone gives only changes of attitude)"
            )
        }
        guard mode == .nineD && !sensors.contains(.magnetometer) else { return (self, false) }
        if filter.needsMagnetometer {
            throw ParameterError(description: "no magnetometer: the e-compass needs one (try the tilt filter)")
        }
        var c = self
        c.mode = .sixD
        return (c, true)
    }

    /// Runs the configured filter over the samples of `samples` in order and calls `body` with each
    /// sample's index and estimate (one per sample: the output rate does not apply), or only the
    /// attitude when `attitudeOnly` (the rest of the estimate is not built). Calibration applies.
    public func run<Samples: SampleArray>(
        _ samples: Samples, attitudeOnly: Bool = false, _ body: (Int, MotionEstimate?, Quaternion) throws -> Void
    ) rethrows {
        try runIndexed(samples, attitudeOnly: attitudeOnly, body)
    }

    /// ``run(_:attitudeOnly:_:)`` over caller-owned arrays (the C ABI's and Python's path),
    /// specialised here: called generically from another module, the loop read every sample and
    /// copied the filter's state through the protocols' witnesses (`mf_replay`, EKF 6D, trial 21:
    /// 4 232 instructions a sample generic, 3 106 specialised).
    public func run(
        _ samples: SensorArrays, attitudeOnly: Bool = false, _ body: (Int, MotionEstimate?, Quaternion) throws -> Void
    ) rethrows {
        try runIndexed(samples, attitudeOnly: attitudeOnly, body)
    }

    @inline(__always)
    func runIndexed<Samples: SampleArray>(
        _ samples: Samples, attitudeOnly: Bool, _ body: (Int, MotionEstimate?, Quaternion) throws -> Void
    ) rethrows {
        try withoutActuallyEscaping(body) { body in
            let sink = IndexedEstimatesToClosure(attitudeOnly: attitudeOnly, body: body)
            let loop = RunLoop(source: IndexedSamples(samples: samples), sink: sink, configuration: self)
            _ = try filter.withFilter(loop)
        }
    }

    /// One estimate per output instant (per sample unless ``outputRate`` is set).
    public func estimates(_ samples: [SensorSample]) -> [MotionEstimate] {
        var out = [MotionEstimate]()
        out.reserveCapacity(outputRate == nil ? samples.count : 0)
        var i = 0
        // `next` and `body` do not throw, so neither does the run.
        try! run(
            next: {
                guard i < samples.count else { return nil }
                i += 1
                return samples[i - 1]
            }
        ) { e, _ in out.append(e) }
        return out
    }

    /// The attitude after every sample (the lean batch path: no other output is built; calibration
    /// applies, the output rate does not).
    public func attitudes(_ samples: [SensorSample]) -> [Quaternion] {
        // Straight into the result's storage: no call per sample.
        attitudes(of: samples)
    }
}

/// Samples addressed by index (an array of samples, or caller-owned sensor arrays read in place).
public protocol SampleArray {
    /// Number of samples.
    var count: Int { get }
    /// The sample at `index`, 0 ≤ index < count.
    func sample(at index: Int) -> SensorSample
}

extension Array: SampleArray where Element == SensorSample {
    /// The sample at `index`.
    @inlinable
    public func sample(at index: Int) -> SensorSample { self[index] }
}
