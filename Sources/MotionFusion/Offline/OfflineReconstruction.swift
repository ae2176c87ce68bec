/// How an offline reconstruction is computed.
public enum ReconstructionMethod: String, CaseIterable, Sendable, Codable {
    /// Robust batch MAP estimate of the whole recording (``BatchAttitudeEstimator``). The default.
    case batch
    /// Forward–backward Kalman smoother (``AttitudeSmoother``); also the batch's initialiser.
    case smoother

    /// The default method.
    public static let `default` = ReconstructionMethod.batch
}

/// One reconstructed sample, whichever the method.
public struct ReconstructedSample: Sendable {
    /// The estimate: attitude, bias, diagnostics with the one-sigma attitude and heading
    /// uncertainties (rad).
    public var estimate: MotionEstimate
    /// The input sample as read.
    public var input: SensorSample
    /// Weight (0…1) of the accelerometer in the estimate at this sample: the batch's robust weight,
    /// or for the smoother 1 when its forward filter used the accelerometer and 0 when it rejected it.
    public var accelerometerWeight: Double
    /// As ``accelerometerWeight``, for the magnetometer (0 in 6D and without a value).
    public var magnetometerWeight: Double

    /// Creates a sample.
    public init(estimate: MotionEstimate, input: SensorSample, accelerometerWeight: Double, magnetometerWeight: Double)
    {
        self.estimate = estimate
        self.input = input
        self.accelerometerWeight = accelerometerWeight
        self.magnetometerWeight = magnetometerWeight
    }
}

/// The one entry point of offline reconstruction: the method, its parameters, streaming input and
/// output, progress, and the magnetometer calibration fitted along the way.
public struct OfflineReconstruction: Sendable {
    /// Everything a reconstruction needs.
    public struct Parameters: Sendable {
        /// Method. Default ``ReconstructionMethod/default`` (batch).
        public var method = ReconstructionMethod.default
        /// The batch estimator's parameters. Its `filter` (``KalmanFilter/Parameters``) holds the
        /// fusion mode and the expected field and is the filter of the smoother in both methods.
        public var batch = BatchAttitudeEstimator.Parameters()
        /// The smoother's parameters when ``method`` is `.smoother` (its `filter` is taken from
        /// ``filter``).
        public var smoother = AttitudeSmoother.Parameters()
        /// Fit the magnetometer hard and soft iron jointly with the attitude when its readings show
        /// it is needed (batch method, 9D; ``BatchAttitudeEstimator/Parameters/calibrationEvidence``).
        /// Default true.
        public var estimateMagnetometerCalibration: Bool {
            get { batch.estimateMagnetometerCalibration }
            set { batch.estimateMagnetometerCalibration = newValue }
        }

        /// The Kalman filter parameters (mode, expected field) shared by both methods.
        public var filter: KalmanFilter.Parameters {
            get { batch.filter }
            set { batch.filter = newValue }
        }

        /// 6D or 9D.
        public var mode: FusionMode {
            get { batch.filter.mode }
            set { batch.filter.mode = newValue }
        }

        /// Default parameters (batch, 9D).
        public init() {}
    }

    /// What a reconstruction reports besides the samples.
    public struct Result: Sendable {
        /// Samples reconstructed (one per input sample).
        public var samples = 0
        /// The magnetometer calibration (batch method): fitted with the attitude when it was applied,
        /// otherwise the ellipsoid fit of the readings; nil when the readings cannot determine one
        /// (apply it as `SensorCalibration(magnetometer:)` to write a `calibrate`-compatible file).
        public var magnetometerCalibration: MagnetometerCalibration?
        /// Figures of the batch estimator (nil for the smoother).
        public var statistics: BatchAttitudeEstimator.Statistics?
    }

    /// Parameters in use.
    public var parameters: Parameters

    /// Creates a reconstruction.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Reconstructs the samples `next` yields (until nil) and hands each to `body` in input order,
    /// one output per input, with bounded memory whatever the length.
    ///
    /// - Parameters:
    ///   - expectedSampleCount: the number of samples `next` will yield, when known (for progress).
    ///   - progress: called after each processed window with the fraction done, 0…1 (with
    ///     `expectedSampleCount`; otherwise only with 1 at the end).
    /// - Returns: the sample count and, when asked for, the fitted magnetometer calibration.
    @discardableResult
    public func reconstruct(
        next: () throws -> SensorSample?, expectedSampleCount: Int? = nil, progress: ((Double) -> Void)? = nil,
        _ body: (ReconstructedSample) throws -> Void
    ) throws -> Result {
        var result = Result()
        func report(_ done: Int) {
            guard let progress, let total = expectedSampleCount, total > 0 else { return }
            progress(min(1, Double(done) / Double(total)))
        }
        switch parameters.method {
        case .smoother:
            var p = parameters.smoother
            p.filter = parameters.filter
            var count = 0
            try AttitudeSmoother(parameters: p).reconstruct(next: next) { s in
                let d = s.estimate.diagnostics
                try body(
                    ReconstructedSample(
                        estimate: s.estimate, input: s.input, accelerometerWeight: d.accelerometerRejected ? 0 : 1,
                        magnetometerWeight: d.magnetometerRejected ? 0 : 1))
                count += 1
                if count % 65_536 == 0 { report(count) }
            }
            result.samples = count
        case .batch:
            // The band solves need LAPACK: without it, fail before any output rather than keep the
            // initialiser's attitude in silence.
            try LinearAlgebra.load()
            let p = parameters.batch
            var count = 0
            let statistics = try BatchAttitudeEstimator(parameters: p).reconstruct(
                next: next, progress: { report($0) }
            ) { s in
                try body(
                    ReconstructedSample(
                        estimate: s.estimate, input: s.input, accelerometerWeight: s.accelerometerWeight,
                        magnetometerWeight: s.magnetometerWeight))
                count += 1
            }
            result.samples = count
            result.statistics = statistics
            result.magnetometerCalibration = statistics.magnetometerCalibration
        }
        progress?(1)
        return result
    }

    /// Reconstructs an in-memory recording.
    public func reconstruct(_ samples: [SensorSample]) throws -> (samples: [ReconstructedSample], result: Result) {
        var out = [ReconstructedSample]()
        out.reserveCapacity(samples.count)
        var i = 0
        let result = try reconstruct(
            next: {
                guard i < samples.count else { return nil }
                i += 1
                return samples[i - 1]
            }
        ) { out.append($0) }
        return (out, result)
    }
}
