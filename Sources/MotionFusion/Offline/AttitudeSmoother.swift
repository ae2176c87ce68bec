/// Offline attitude reconstruction: the best attitude a whole recording allows, using past and
/// future samples.
///
/// A two-filter (forward–backward) smoother around ``KalmanFilter``: the forward filter runs over
/// the trace; a second filter runs backwards in time (samples reversed, gyroscope negated), starting
/// from the forward filter's final attitude, bias and covariance; at each sample the two estimates
/// are fused by their covariances, `q = exp(K·δ) ⊗ q_forward` with `δ = log(q_backward ⊗ q_forward*)`
/// and `K = P_f (P_f + P_b)⁻¹`. Early samples, where the forward filter has not yet learnt the
/// gyroscope bias or the heading, take their attitude from the backward pass, and vice versa.
/// Cost is linear in the trace length; memory holds one attitude and covariance per sample.
public struct AttitudeSmoother: Sendable {
    /// Tuning.
    public struct Parameters: Sendable {
        /// The filter run in both directions, with the fusion mode. Default ``KalmanFilter/Parameters``
        /// defaults (9D).
        public var filter = KalmanFilter.Parameters()
        /// How much later the gyroscope samples are stamped than the motion they measure, s
        /// (internal filter group delay). Offline, each sample takes the gyroscope value from this
        /// much later, interpolated linearly. Default 0.
        public var gyroscopeDelay = 0.0
        /// As ``gyroscopeDelay``, for the magnetometer, s; `nil` estimates it from the data with
        /// ``SensorDelayEstimator`` (the field is fixed in the earth frame, so its rotation in the
        /// sensor frame must match the gyroscope). Default nil (estimated).
        public var magnetometerDelay: Double? = nil
        /// As ``gyroscopeDelay``, for the accelerometer, s. Default 0.
        public var accelerometerDelay = 0.0
        /// Samples reconstructed per window. Long traces are processed window by window so memory
        /// stays bounded (about 1 kB per sample of window plus margin). Default 200 000.
        public var windowLength = 200_000
        /// How far past a window's end (s) the backward pass starts, so it has converged by the
        /// time it reaches the window. Default 60.
        public var margin = 60.0
        /// How long after a sample the forward pass must still see the device still for the sample
        /// to count as at rest, s: a rest detector ends a rest only once the motion shows in its
        /// smoothed rates, and its flags run on into the motion meanwhile (the batch's rest factor
        /// would then pin a turning device). Default 0.25.
        public var restEndLag = 0.25
        /// The largest turn of the specific force (``RestForceTurn``) and, in 9D, of the horizontal
        /// field (``RestFieldTurn``) across a still stretch for the stretch to count as at rest, rad;
        /// also the largest change of the field's dip for its turn to count. Default 3°.
        public var restFieldTurn = 3.0.radians
        /// In 9D, the largest relative change of the field's strength across a still stretch for its
        /// turn to count (a magnet moved near a resting device changes it). Default 0.05.
        public var restFieldStrength = 0.05
        /// The smallest mean rate, rad/s, at which the force or (9D) the field must turn across a
        /// still stretch for the turn to count (a nearby field drifting does not). Default 0.2 °/s.
        public var restFieldRate = 0.2.radians
        /// Default parameters.
        public init() {}
    }

    /// One reconstructed sample.
    public struct Sample: Sendable {
        /// The estimate: the fused attitude, the forward filter's bias and diagnostics (rejections,
        /// rest), and the smoothed one-sigma uncertainties.
        public var estimate: MotionEstimate
        /// The input sample as read (before delay compensation).
        public var input: SensorSample
        /// Time, s.
        public var t: Double { estimate.t }
        /// Attitude, earth (ENU) from sensor.
        public var attitude: Quaternion { estimate.attitude }
    }

    /// Tuning in use.
    public var parameters: Parameters

    /// Creates a smoother.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// One pass of the filter over a run of samples: attitude, covariance, bias and diagnostics
    /// after each sample, and the runner after the last.
    public struct Pass {
        /// Attitude after each sample.
        public var attitude: [Quaternion] = []
        /// Attitude error covariance (earth frame) after each sample.
        public var covariance: [Matrix3] = []
        /// Gyroscope bias estimate after each sample.
        public var bias: [Vector3] = []
        /// Diagnostics after each sample.
        public var diagnostics: [FilterDiagnostics] = []
        /// Whether each sample stayed within the rest detector's stillness bands.
        public var still: [Bool] = []
        /// The runner after the last sample.
        public var final: FilterRunner<KalmanFilter>
        /// The runner after sample `snapshotIndex − 1`, when requested.
        public var snapshot: FilterRunner<KalmanFilter>?
    }

    /// Runs `runner` over the samples in order, recording attitude, covariance and bias, and keeps
    /// a copy of the runner as it stands before sample `snapshotIndex`.
    public func pass(
        _ samples: ArraySlice<SensorSample>, runner start: FilterRunner<KalmanFilter>, snapshotIndex: Int? = nil
    )
        -> Pass
    {
        var runner = start
        var out = Pass(final: start)
        out.attitude.reserveCapacity(samples.count)
        out.covariance.reserveCapacity(samples.count)
        out.bias.reserveCapacity(samples.count)
        out.diagnostics.reserveCapacity(samples.count)
        out.still.reserveCapacity(samples.count)
        for (i, s) in samples.enumerated() {
            if i == snapshotIndex { out.snapshot = runner }
            let e = runner.update(s)
            out.attitude.append(e.attitude)
            let f = runner.filter.state
            out.covariance.append(f.initialised ? f.pqq : Matrix3.diagonal(10))
            out.bias.append(e.gyroscopeBias)
            out.diagnostics.append(e.diagnostics)
            out.still.append(runner.filter.state.rest.still)
        }
        if snapshotIndex == samples.count { out.snapshot = runner }
        out.final = runner
        return out
    }

    /// The samples in reverse time order as a forward filter sees them: time negated, and each
    /// sample carrying the negated gyroscope of the sample after it (the rate over the interval
    /// it now integrates backwards).
    public static func reversed(_ samples: ArraySlice<SensorSample>) -> [SensorSample] {
        var out = [SensorSample]()
        out.reserveCapacity(samples.count)
        var lastGyro: Vector3?
        for k in stride(from: samples.endIndex - 1, through: samples.startIndex, by: -1) {
            var s = samples[k]
            let own = s.gyroscope
            s.gyroscope = lastGyro.map { -$0 }
            if let own, own.isFinite { lastGyro = own }
            s.t = -s.t
            s.moving = nil
            s.truth = nil
            out.append(s)
        }
        return out
    }

    /// The samples with each sensor's value taken `delay` seconds later (linear interpolation
    /// between that sensor's neighbouring values), compensating sensor group delays.
    public static func compensatingDelays(
        _ samples: [SensorSample], gyroscope: Double, accelerometer: Double, magnetometer: Double
    )
        -> [SensorSample]
    {
        var out = samples
        func shift(_ delay: Double, _ get: (SensorSample) -> Vector3?, _ set: (inout SensorSample, Vector3?) -> Void) {
            guard delay != 0 else { return }
            let idx = samples.indices.filter { get(samples[$0]) != nil }
            guard idx.count > 1 else { return }
            var j = 0
            for k in samples.indices where get(samples[k]) != nil {
                let t = samples[k].t + delay
                while j + 1 < idx.count && samples[idx[j + 1]].t < t { j += 1 }
                let a = samples[idx[j]]
                let b = samples[idx[min(j + 1, idx.count - 1)]]
                if t <= a.t || b.t <= a.t {
                    set(&out[k], get(a))
                } else if t >= b.t {
                    set(&out[k], get(b))
                } else {
                    let u = (t - a.t) / (b.t - a.t)
                    set(&out[k], get(a)! * (1 - u) + get(b)! * u)
                }
            }
        }
        shift(gyroscope, { $0.gyroscope }, { $0.gyroscope = $1 })
        shift(accelerometer, { $0.accelerometer }, { $0.accelerometer = $1 })
        shift(magnetometer, { $0.magnetometer }, { $0.magnetometer = $1 })
        return out
    }

    /// Reconstructs the attitude of every sample of `trace`.
    public func reconstruct(_ trace: Trace) -> [Sample] {
        reconstruct(trace.samples)
    }

    /// Reconstructs the attitude of every sample, exactly as the streaming call would.
    public func reconstruct(_ samples: [SensorSample]) -> [Sample] {
        var out = [Sample]()
        out.reserveCapacity(samples.count)
        var i = 0
        reconstruct(next: {
            guard i < samples.count else { return nil }
            i += 1
            return samples[i - 1]
        }) { out.append($0) }
        return out
    }

    /// Streaming reconstruction: pulls samples from `next` until it returns nil and hands each
    /// reconstructed sample to `body`, in order. Memory is bounded by the window and margin, not
    /// by the trace length.
    public func reconstruct(next: () throws -> SensorSample?, _ body: (Sample) throws -> Void) rethrows {
        let mode = parameters.filter.mode
        var forwardStart = FilterRunner(KalmanFilter(parameters: parameters.filter))
        var buffer = [SensorSample]()
        var exhausted = false
        var magnetometerDelay = parameters.magnetometerDelay
        let window = max(1, parameters.windowLength)
        while true {
            // Fill the window plus the margin.
            while !exhausted {
                if buffer.count >= window, let first = buffer.last, buffer.count > window,
                    first.t - buffer[window - 1].t >= parameters.margin
                {
                    break
                }
                if let s = try next() { buffer.append(s) } else { exhausted = true }
            }
            if buffer.isEmpty { return }
            if magnetometerDelay == nil {
                magnetometerDelay =
                    mode == .nineD
                    ? (SensorDelayEstimator.estimate(buffer, sensor: .magnetometer) ?? 0) + parameters.gyroscopeDelay
                    : 0
            }
            let samples = Self.compensatingDelays(
                buffer, gyroscope: parameters.gyroscopeDelay, accelerometer: parameters.accelerometerDelay,
                magnetometer: magnetometerDelay ?? 0)
            let emit = exhausted ? samples.count : min(window, samples.count)
            let forward = pass(samples[...], runner: forwardStart, snapshotIndex: emit)
            // The backward filter starts where the forward one ended, with its gyroscope negated.
            var startBackward = forward.final.filter
            startBackward.reverseTime()
            let backward = pass(Self.reversed(samples[...])[...], runner: FilterRunner(startBackward))
            let n = samples.count
            let rest = rest(forward, samples)
            for k in 0..<emit {
                try body(fuse(buffer[k], forward, k, backward, n - 1 - k, atRest: rest[k]))
            }
            if exhausted && emit == samples.count { return }
            forwardStart = forward.snapshot ?? forward.final
            buffer.removeFirst(emit)
        }
    }

    /// The samples at rest, seen offline: each run of the forward pass's rest verdicts reaches back
    /// to the start of its still stretch (a pass judges rest only after the device has been still
    /// for the rest detector's minimum time, and the stretch was as still before), and ends
    /// ``Parameters/restEndLag`` before the pass ended it (the motion shows in the smoothed rates
    /// only after a while, and the flags run on into it meanwhile). A run still on at the end of
    /// the samples keeps its end. A run over which the specific force turned (``RestForceTurn``)
    /// or, in 9D, the horizontal field turned (``RestFieldTurn``) is a slow turn, not a rest.
    func rest(_ forward: Pass, _ samples: [SensorSample]) -> [Bool] {
        let n = samples.count
        let lag = parameters.restEndLag
        let field =
            parameters.filter.mode == .nineD
            ? RestFieldTurn(
                threshold: parameters.restFieldTurn, strengthTolerance: parameters.restFieldStrength,
                minimumRate: parameters.restFieldRate,
                biasClip: parameters.filter.restBias.biasClip,
                scaleTolerance: parameters.filter.restBias.scaleTolerance)
            : nil
        let force = RestForceTurn(
            threshold: parameters.restFieldTurn, strengthTolerance: parameters.filter.restBias.gravityTolerance,
            minimumRate: parameters.restFieldRate)
        var rest = [Bool](repeating: false, count: n)
        var k = 0
        while k < n {
            guard forward.diagnostics[k].atRest else {
                k += 1
                continue
            }
            var start = k
            while start > 0 && forward.still[start - 1] && !rest[start - 1] { start -= 1 }
            var end = k
            while end < n && forward.diagnostics[end].atRest { end += 1 }
            let last = end == n ? Double.infinity : samples[end - 1].t - lag
            if field?.turned(samples[start..<end]) != true && !force.turned(samples[start..<end]) {
                for i in start..<end where samples[i].t <= last { rest[i] = true }
            }
            k = end
        }
        return rest
    }

    /// Fuses the forward estimate `k` and the backward estimate `j` by their covariances.
    func fuse(
        _ input: SensorSample, _ forward: Pass, _ k: Int, _ backward: Pass, _ j: Int, atRest: Bool
    ) -> Sample {
        let qf = forward.attitude[k]
        let qb = backward.attitude[j]
        let pf = forward.covariance[k]
        let pb = backward.covariance[j]
        var q = qf
        var pSmooth = pf
        if let inv = (pf + pb).inverse {
            var gain = pf * inv
            var delta = (qb * qf.conjugate).rotationVector
            if parameters.filter.mode == .sixD {
                // The heading is unobservable and the two passes drift apart in it: fuse tilt only,
                // after turning the backward attitude to the forward heading. Without that turn a
                // large heading difference leaks into the horizontal part of the difference.
                gain.row2 = .zero
                delta = (qb.withHeading(of: qf) * qf.conjugate).rotationVector
            }
            q = (Quaternion(rotationVector: gain * delta) * qf).normalized
            pSmooth = (pf - gain * pf).symmetrized
        }
        var d = forward.diagnostics[k]
        d.atRest = atRest
        d.attitudeUncertainty = max(0, pSmooth.trace).squareRoot()
        d.headingUncertainty = max(0, pSmooth.row2.z).squareRoot()
        let e = MotionEstimate(
            t: input.t, attitude: q.canonical, gyroscopeBias: forward.bias[k], diagnostics: d,
            gyroscope: input.gyroscope, accelerometer: input.accelerometer, magnetometer: input.magnetometer)
        return Sample(estimate: e, input: input)
    }
}
