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
        /// The filter run in both directions. Default ``KalmanFilter/Parameters`` defaults.
        public var filter = KalmanFilter.Parameters()
        /// Sensors fused. Default 9D.
        public var mode = FusionMode.nineD
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
        /// Default parameters.
        public init() {}
    }

    /// One reconstructed sample.
    public struct Sample: Sendable {
        /// Time, s.
        public var t: Double
        /// Attitude, earth (ENU) from sensor.
        public var attitude: Quaternion
        /// Gyroscope bias estimate, rad/s.
        public var gyroscopeBias: Vector3
        /// One-sigma attitude uncertainty (tilt and heading combined), rad.
        public var attitudeUncertainty: Double
        /// One-sigma heading uncertainty, rad.
        public var headingUncertainty: Double
        /// The forward filter's diagnostics at this sample (rejections, rest).
        public var diagnostics: FilterDiagnostics
    }

    /// Tuning in use.
    public var parameters: Parameters

    /// Creates a smoother.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    public struct Pass {
        public var attitude: [Quaternion]
        public var covariance: [Matrix3]
        public var bias: [Vector3]
        public var diagnostics: [FilterDiagnostics]
        public var final: KalmanFilter
    }

    /// Runs the filter over the samples in order, recording attitude, covariance and bias.
    public func pass(_ samples: [SensorSample], start: KalmanFilter) -> Pass {
        var runner = FilterRunner(start)
        var out = Pass(attitude: [], covariance: [], bias: [], diagnostics: [], final: start)
        out.attitude.reserveCapacity(samples.count)
        out.covariance.reserveCapacity(samples.count)
        out.bias.reserveCapacity(samples.count)
        out.diagnostics.reserveCapacity(samples.count)
        for s in samples {
            let e = runner.update(s)
            out.attitude.append(e.attitude)
            let f = runner.filter.state
            out.covariance.append(f.initialised ? f.pqq : Matrix3.diagonal(10))
            out.bias.append(e.gyroscopeBias)
            out.diagnostics.append(e.diagnostics)
        }
        out.final = runner.filter
        return out
    }

    /// The samples in reverse time order as a forward filter sees them: time negated, and each
    /// sample carrying the negated gyroscope of the sample after it (the rate over the interval
    /// it now integrates backwards).
    public static func reversed(_ samples: [SensorSample]) -> [SensorSample] {
        var out = [SensorSample]()
        out.reserveCapacity(samples.count)
        var lastGyro: Vector3?
        for k in stride(from: samples.count - 1, through: 0, by: -1) {
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

    /// Reconstructs the attitude of every sample of `trace`.
    public func reconstruct(_ trace: Trace) -> [Sample] {
        reconstruct(trace.samples)
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

    /// Reconstructs the attitude of every sample.
    public func reconstruct(_ input: [SensorSample]) -> [Sample] {
        guard !input.isEmpty else { return [] }
        var magnetometerDelay = parameters.magnetometerDelay ?? 0
        if parameters.magnetometerDelay == nil && parameters.mode == .nineD {
            // Relative to the gyroscope; the gyroscope's own delay is added on top.
            magnetometerDelay =
                (SensorDelayEstimator.estimate(input, sensor: .magnetometer) ?? 0) + parameters.gyroscopeDelay
        }
        let samples = Self.compensatingDelays(
            input, gyroscope: parameters.gyroscopeDelay, accelerometer: parameters.accelerometerDelay,
            magnetometer: magnetometerDelay)
        var p = parameters.filter
        p.mode = parameters.mode
        let forward = pass(samples, start: KalmanFilter(parameters: p))
        // The backward filter starts where the forward one ended; its gyroscope is negated, so is the bias.
        var startBackward = forward.final
        startBackward.state.bias = -startBackward.state.bias
        startBackward.state.pqb = startBackward.state.pqb * -1
        startBackward.state.rest.reset()
        let backward = pass(Self.reversed(samples), start: startBackward)
        let n = samples.count
        var out = [Sample]()
        out.reserveCapacity(n)
        for k in 0..<n {
            let j = n - 1 - k
            let qf = forward.attitude[k]
            let qb = backward.attitude[j]
            let pf = forward.covariance[k]
            let pb = backward.covariance[j]
            var q = qf
            var pSmooth = pf
            if let inv = (pf + pb).inverse {
                var gain = pf * inv
                // In 6D the heading is unobservable and the two passes drift differently: fuse tilt only.
                if parameters.mode == .sixD { gain.r2 = .zero }
                let delta = (qb * qf.conjugate).rotationVector
                q = (Quaternion(rotationVector: gain * delta) * qf).normalized
                pSmooth = (pf - gain * pf).symmetrized
            }
            out.append(
                Sample(
                    t: samples[k].t, attitude: q.canonical, gyroscopeBias: forward.bias[k],
                    attitudeUncertainty: max(0, pSmooth.trace).squareRoot(),
                    headingUncertainty: max(0, pSmooth.r2.z).squareRoot(), diagnostics: forward.diagnostics[k]))
        }
        return out
    }
}
