import Foundation

/// Where the batch estimator's iterations start.
public enum BatchInitialiser: String, CaseIterable, Sendable, Codable {
    /// The forward–backward smoother (``AttitudeSmoother``): the best start, at about twice the
    /// cost of one filter pass.
    case smoother
    /// One forward pass of ``KalmanFilter``: the cheapest start; the early samples, before the
    /// filter has learnt the bias and heading, take one or two more iterations.
    case filter
}

/// Offline attitude reconstruction as a robust batch maximum-a-posteriori estimate of the whole
/// recording, solved on banded normal equations with LAPACK.
///
/// **States.** Knots every ``Parameters/knotInterval`` (at sample instants): the attitude (earth
/// ENU from sensor), the gyroscope bias (a random walk) and the horizontal velocity of the sensor
/// in the earth frame; optionally the magnetometer hard iron, a constant shared by all knots.
/// Between knots the gyroscope is integrated (preintegration, with its derivative with respect to
/// the bias), so every sample's attitude follows from its knot.
///
/// **Factors.**
/// - Gyroscope: the rotation between consecutive knots equals the integrated, bias-corrected rate,
///   with the gyroscope noise (and a rate-proportional scale-error term) as covariance.
/// - Bias random walk between knots, and a wide prior on the first bias.
/// - Accelerometer, as physics: the earth-frame specific force integrated over an interval is the
///   change of velocity (horizontal components; gravity is vertical). The velocity itself has a
///   weak zero-mean prior (a hand-held or mounted device does not travel fast for long), which is
///   what makes the tilt observable, and a zero-velocity factor at rest. Linear accelerations are
///   then not noise to be filtered but motion to be explained; a robust (Cauchy) weight on each
///   interval's velocity increment discounts what cannot be explained (impacts, clipping).
/// - Magnetometer: each sample's azimuth in the earth frame should be zero (magnetic north),
///   constraining the heading only. Its weight falls with a robust (Cauchy) function of the
///   azimuth residual and with the departure of the field strength and dip from values learnt
///   from the recording, so disturbances fade out. Only the direction is used and the strength is
///   learnt, so the unit (µT, gauss, normalised) never matters.
/// - Rest: no rotation between knots that are at rest (which pins the bias), zero velocity.
///
/// **Solver.** Gauss–Newton on the manifold (attitude errors in the earth frame) with robust
/// reweighting at every iteration (IRLS), starting from the online filter or ``AttitudeSmoother``
/// (``Parameters/initialiser``), until the largest
/// attitude step is below ``Parameters/tolerance``. The normal equations are block-banded
/// (bandwidth 15 with 8 unknowns per knot), bordered by the constants: assembled into LAPACK band
/// storage and solved with `dpbtrf`/`dpbtrs` (``BorderedBandedSystem``).
///
/// **Memory.** Long recordings are solved in windows that overlap by ``Parameters/lookahead``;
/// the data before a window's boundary is carried into the next window as an exact Gaussian
/// marginal on the boundary knot (the Schur complement of the band factor), so memory is bounded
/// by the window and cost is linear in the length.
///
/// **Uncertainty.** Per-sample one-sigma attitude and heading from the diagonal blocks of the
/// inverse normal matrix, by selected inversion on the band factor (Takahashi recurrence), mapped
/// to each sample through the preintegration Jacobian.
public struct BatchAttitudeEstimator: Sendable {
    /// Tuning. Every value is in SI units (or relative), independent of the sample rate.
    public struct Parameters: Sendable {
        /// The filter of the initialising smoother; its ``KalmanFilter/Parameters/mode`` selects 6D
        /// or 9D and its `expectedFieldNorm`/`expectedDip` give the expected field. Default
        /// ``KalmanFilter/Parameters`` defaults (9D).
        public var filter = KalmanFilter.Parameters()
        /// Where the Gauss–Newton iterations start. Default ``BatchInitialiser/smoother``: the
        /// robust losses need a start near the right heading, and the online filter alone can be
        /// far off (BROAD trial 33 with a unit-norm magnetometer: 85° online, 1.5° from the
        /// smoother, 157° from the filter).
        public var initialiser = BatchInitialiser.smoother
        /// Time between knots, s. Default 0.1 (accuracy on the dev recordings is the same from
        /// 0.05 to 0.2 s; the cost of the band solve falls with it).
        public var knotInterval = 0.1
        /// Gyroscope white noise density, rad/s/√Hz. Default 0.002 (as the online filter).
        public var gyroscopeNoise = 0.002
        /// Relative rate error (scale factor, misalignment): adds `(s·|ω|)²` per second to the
        /// attitude noise between knots. Default 0.0015 (with the gyroscope noise, it sets the
        /// one-sigma uncertainty so that 70 % of the BROAD samples lie within it).
        public var rateScaleUncertainty = 0.0015
        /// Gyroscope bias random walk, rad/s/√s. Default 1e-5.
        public var biasRandomWalk = 1e-5
        /// Standard deviation of the zero-mean prior on the first bias, rad/s. Default 5 °/s.
        public var initialBiasUncertainty = 5.0.radians
        /// Noise density of the integrated specific force (accelerometer noise and model error),
        /// m/s²/√Hz. Default 0.05.
        public var accelerometerNoise = 0.05
        /// Typical horizontal speed of the device, m/s, and how long a speed typically lasts, s: the
        /// zero-mean velocity prior has density `|v|² / (2·speed²·time)` per second. Defaults 0.5
        /// and 1.
        public var typicalSpeed = 0.5
        public var speedCorrelationTime = 1.0
        /// Noise density of the gravity direction (each knot's mean specific force should point
        /// up), rad·√s; 0 leaves the factor out. With the velocity factors it makes the tilt
        /// respond within seconds, which lets the bias follow the gyroscope's drift during motion.
        /// Default 0.01.
        public var gravityNoise = 0.01
        /// Scale of the robust loss on a knot's gravity direction, rad. Default 5°.
        public var gravityOutlierScale = 5.0.radians
        /// Scale of the robust loss on an interval's velocity increment, in its standard
        /// deviations. Default 5.
        public var accelerometerOutlierScale = 5.0
        /// Magnetometer azimuth noise density, rad·√s (includes the slowly varying, orientation
        /// dependent error of a real field). Default 0.1.
        public var magnetometerNoise = 0.1
        /// Standard deviation (rad) and correlation time (s) of the slowly varying error of the
        /// magnetic azimuth (field inhomogeneity, orientation-dependent calibration error), a
        /// first-order Gauss–Markov state per knot: the magnetometer is an absolute heading
        /// reference only to within this. Defaults 0.5° and 30 s.
        public var magneticDisturbance = 0.5.radians
        public var magneticDisturbanceTime = 30.0
        /// Scale of the robust loss on a sample's azimuth residual, rad. Default 10°.
        public var headingOutlierScale = 10.0.radians
        /// Relative departure of the field strength from the learnt strength that halves a
        /// magnetometer sample's weight. Default 0.03.
        public var fieldNormTolerance = 0.03
        /// Departure of the dip from the learnt dip that halves a sample's weight, rad. Default 3°.
        public var dipTolerance = 3.0.radians
        /// Learn the reference field strength and dip (from which disturbances are judged) from the
        /// samples at rest when there are at least ``minimumRestForReference`` seconds of them
        /// (the device lying still gives the cleanest field); otherwise from all samples. Default true.
        public var fieldReferenceFromRest = true
        public var minimumRestForReference = 5.0
        /// The robust loss. Default Cauchy.
        public var robustLoss = RobustLoss.cauchy
        /// Rate noise density while at rest, rad/s·√s (the rest factor's strength). Default 0.002.
        public var restRateNoise = 0.002
        /// Velocity standard deviation at a knot at rest, m/s. Default 0.02.
        public var restVelocityNoise = 0.02
        /// Prior standard deviations on the first knot's tilt and heading, rad (the heading prior
        /// fixes the arbitrary heading in 6D). Defaults 0.3, 1 (9D) and 0.001 (6D).
        public var initialTiltUncertainty = 0.3
        public var initialHeadingUncertainty = 1.0
        public var sixDHeadingUncertainty = 0.001
        /// Estimate the magnetometer hard iron as a constant. Default false.
        public var estimateHardIron = false
        /// Estimate the magnetometer hard and soft iron (and the earth field) jointly with the
        /// attitude, with a full-vector field factor (heading-only in the attitude), once the readings
        /// show the magnetometer needs it: from the first window at which the ellipsoid fit
        /// (``MagnetometerCalibration/fit(_:arbitraryUnits:)``) of the readings so far succeeds and
        /// makes the field strength ``calibrationEvidence`` times steadier than the raw readings. The
        /// fit starts the joint estimate; windows before it run uncalibrated. Reported as
        /// ``Statistics/magnetometerCalibration``. Default true.
        public var estimateMagnetometerCalibration = true
        /// How many times smaller than the raw readings' strength spread (RMS) the ellipsoid fit's
        /// residual must be before the magnetometer is calibrated jointly: the evidence that its
        /// iron errors exceed what the robust weights absorb. 2 (dimensionless) by default; a
        /// calibrated sensor's readings are already as steady as any fit makes them (ratio near 1).
        public var calibrationEvidence = 2.0
        /// Standard deviation of the hard-iron prior, relative to the field strength. Default 0.5.
        public var hardIronUncertainty = 0.5
        /// Gauss–Newton stops when the largest attitude step is below this, rad. Default 1e-3
        /// (0.06°, a tenth of the best accuracy reached on real recordings).
        public var tolerance = 1e-3
        /// Most Gauss–Newton iterations per window. Default 8.
        public var maximumIterations = 8
        /// Longest window emitted at once, s and samples. Defaults 300 s and 300 000.
        public var windowDuration = 300.0
        public var windowSamples = 300_000
        /// How far past the emitted part a window reaches, s and samples. Defaults 60 s and 60 000.
        public var lookahead = 60.0
        public var lookaheadSamples = 60_000
        /// Magnetometer delay relative to the gyroscope, s; nil estimates it from the data
        /// (``SensorDelayEstimator``). Default nil.
        public var magnetometerDelay: Double? = nil
        /// Longest time a gyroscope or accelerometer value is held for samples without one, s.
        /// Default 0.1.
        public var maximumHold = 0.1
        /// Longest forward gap in the timestamps bridged within one solution, s: across a shorter
        /// gap the rotation is unknown but the bias and the heading carry on; a longer one (a
        /// recording paused, a clock that jumped) ends the solution and the samples after it are
        /// solved as a recording of their own. Default 10.
        public var longestBridgedGap = 10.0
        /// A timestamp more than this earlier than the latest one (a clock reset), s, also starts a
        /// new solution; a smaller step back is a timing glitch whose sample is not integrated (as
        /// in ``FilterRunner``). Default 1.
        public var clockStepBack = 1.0
        /// Default parameters.
        public init() {}
    }

    /// One reconstructed sample.
    public struct Sample: Sendable {
        /// The estimate (attitude, bias, one-sigma uncertainties; diagnostics flag the samples whose
        /// accelerometer or magnetometer weight fell below one half as rejected).
        public var estimate: MotionEstimate
        /// The input sample as read.
        public var input: SensorSample
        /// Robust weight of the accelerometer factor this sample belongs to, 0…1.
        public var accelerometerWeight: Double
        /// Robust weight of this sample's magnetometer factor, 0…1 (0 without a magnetometer value
        /// and in 6D).
        public var magnetometerWeight: Double
    }

    /// Figures of one run.
    public struct Statistics: Sendable {
        /// Windows solved.
        public var windows = 0
        /// Gauss–Newton iterations over all windows.
        public var iterations = 0
        /// Windows whose normal equations could not be solved (the initialiser's attitude was kept).
        public var failedWindows = 0
        /// Why the first failed window failed (LAPACK's routine and info code), when one did.
        public var firstFailure: String?
        /// Magnetometer delay used, s.
        public var magnetometerDelay = 0.0
        /// Estimated hard iron (reading units), when estimated.
        public var hardIron: Vector3?
        /// The magnetometer calibration: the joint estimate when the magnetometer was calibrated
        /// with the attitude, otherwise the ellipsoid fit of its readings (not applied: they were
        /// steady enough), when determinable (the readings cover at least
        /// ``MagnetometerCalibration/minimumCoverage``).
        public var magnetometerCalibration: MagnetometerCalibration?
        /// Recording time (s) from which the magnetometer was calibrated jointly with the attitude;
        /// nil when it never was.
        public var jointCalibrationStart: Double?
        /// How many times steadier the ellipsoid fit made the field strength than the raw readings,
        /// when a fit was determinable (the evidence weighed against ``Parameters/calibrationEvidence``).
        public var calibrationImprovement: Double?
        /// Why the readings determined no ellipsoid fit, when they did not.
        public var calibrationProblem: String?
        /// Learnt field strength (reading units) and dip (rad) of the last window.
        public var fieldNorm = Double.nan, fieldDip = Double.nan
    }

    /// Tuning in use.
    public var parameters: Parameters

    /// Creates an estimator.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Reconstructs every sample of an in-memory recording. Throws when OpenBLAS or LAPACKE
    /// cannot be loaded (``LinearAlgebraError/unavailable(_:)``).
    public func reconstruct(_ samples: [SensorSample]) throws -> [Sample] {
        var out = [Sample]()
        out.reserveCapacity(samples.count)
        var i = 0
        try reconstruct(
            next: {
                guard i < samples.count else { return nil }
                i += 1
                return samples[i - 1]
            }, progress: nil
        ) { out.append($0) }
        return out
    }

    /// Streaming reconstruction: pulls samples from `next` until it returns nil and hands each
    /// reconstructed sample to `body` in input order (one output per input). Memory is bounded by
    /// the window, not by the recording. `progress` receives the number of samples emitted so far
    /// after each window.
    @discardableResult
    public func reconstruct(
        next: () throws -> SensorSample?, progress: ((Int) -> Void)?, _ body: (Sample) throws -> Void
    ) throws -> Statistics {
        var driver = Driver(parameters: parameters)
        try driver.run(next: next, progress: progress, body)
        return driver.statistics
    }
}

extension BatchAttitudeEstimator {
    /// The streaming window driver.
    struct Driver {
        let parameters: Parameters
        let useMagnetometer: Bool
        var statistics = Statistics()
        /// Samples (with the initialiser's estimate) not yet emitted, from the current window's start.
        var pending: [AttitudeSmoother.Sample] = []
        /// States carried from the previous window for the knots of its overlap.
        var carriedQ: [Quaternion] = []
        var carriedB: [Vector3] = []
        var carriedV: [SIMD2<Double>] = []
        var carriedD: [Double] = []
        var carriedGlobals: [Double] = []
        /// The reference field strength and dip learnt in the first window.
        var fieldReference: (norm: Double, dip: Double)?
        /// Whether the magnetometer is calibrated jointly and the fit it starts from; nil while the
        /// readings cannot tell yet (see ``decideCalibration()``).
        var calibration: (enabled: Bool, start: MagnetometerCalibration?)?
        /// Raw magnetometer readings kept (thinned) for the calibration's coverage and residual.
        var calibrationReadings = ThinnedReadings()
        /// Raw magnetometer readings of the emitted samples (thinned), while the calibration is undecided.
        var rawReadings = ThinnedReadings()
        /// The latest ellipsoid fit of the raw readings.
        var plainFit: MagnetometerCalibration?
        var prior: BatchWindow.Prior?
        var magnetometerDelay = 0.0
        var emitted = 0
        /// Longest lookahead gap seen (for window triggering).
        var latestTime = -Double.infinity
        /// The latest finite time of the current solution (the clock it follows).
        var segmentTime = Double.nan

        init(parameters: Parameters) {
            self.parameters = parameters
            useMagnetometer = parameters.filter.mode == .nineD
        }

        mutating func run(
            next: () throws -> SensorSample?, progress: ((Int) -> Void)?, _ body: (Sample) throws -> Void
        ) throws {
            let p = parameters
            // Read the first window to estimate the magnetometer delay before initialising.
            var head = [SensorSample]()
            var exhausted = false
            let firstSpan = p.windowDuration + p.lookahead
            let firstCount = p.windowSamples + p.lookaheadSamples
            while head.count < firstCount {
                guard let s = try next() else {
                    exhausted = true
                    break
                }
                head.append(s)
                if let f = head.first?.t, s.t.isFinite, f.isFinite, s.t - f >= firstSpan { break }
            }
            if let d = p.magnetometerDelay {
                magnetometerDelay = d
            } else if useMagnetometer {
                magnetometerDelay = SensorDelayEstimator.estimate(head, sensor: .magnetometer) ?? 0
            }
            statistics.magnetometerDelay = magnetometerDelay
            var headIndex = 0
            switch p.initialiser {
            case .smoother:
                var smootherParameters = AttitudeSmoother.Parameters()
                smootherParameters.filter = p.filter
                smootherParameters.magnetometerDelay = magnetometerDelay
                try AttitudeSmoother(parameters: smootherParameters).reconstruct(next: {
                    if headIndex < head.count {
                        headIndex += 1
                        return head[headIndex - 1]
                    }
                    return exhausted ? nil : try next()
                }) { s in try accept(s, progress: progress, body) }
            case .filter:
                var runner = FilterRunner(KalmanFilter(parameters: p.filter))
                while true {
                    let input: SensorSample
                    if headIndex < head.count {
                        input = head[headIndex]
                        headIndex += 1
                    } else if !exhausted, let s = try next() {
                        input = s
                    } else {
                        break
                    }
                    try accept(
                        AttitudeSmoother.Sample(estimate: runner.update(input), input: input), progress: progress, body)
                }
            }
            while !pending.isEmpty {
                try processWindow(final: true, body)
                progress?(emitted)
            }
        }

        /// Takes one initialised sample; solves and emits a window when one is complete.
        mutating func accept(
            _ s: AttitudeSmoother.Sample, progress: ((Int) -> Void)?, _ body: (Sample) throws -> Void
        ) throws {
            let p = parameters
            if s.t.isFinite {
                let jumped = s.t - segmentTime > p.longestBridgedGap || s.t < segmentTime - p.clockStepBack
                if segmentTime.isFinite && jumped { try finishSegment(progress: progress, body) }
                if !segmentTime.isFinite || s.t > segmentTime { segmentTime = s.t }
            }
            pending.append(s)
            if s.t.isFinite { latestTime = max(latestTime, s.t) }
            if windowIsFull {
                try processWindow(final: false, body)
                progress?(emitted)
            }
        }

        /// Solves and emits everything pending as the end of a solution, and starts the next one
        /// afresh: no state or prior is carried across a long gap or a clock reset, except what
        /// belongs to the sensors (the magnetometer's calibration and reference field).
        mutating func finishSegment(progress: ((Int) -> Void)?, _ body: (Sample) throws -> Void) throws {
            while !pending.isEmpty {
                try processWindow(final: true, body)
                progress?(emitted)
            }
            startNewSolution()
        }

        /// Forgets the states and prior carried between windows, so the next samples start a
        /// solution of their own.
        mutating func startNewSolution() {
            carriedQ = []
            carriedB = []
            carriedV = []
            carriedD = []
            prior = nil
            latestTime = -.infinity
            segmentTime = .nan
        }

        /// Whether the pending samples reach past a whole window and its lookahead.
        var windowIsFull: Bool {
            let p = parameters
            if pending.count >= p.windowSamples + p.lookaheadSamples { return true }
            guard let first = pending.first?.t, first.isFinite else { return false }
            return latestTime - first >= p.windowDuration + p.lookahead
        }

        /// Knot sample indices over `samples` (a knot every knot interval, at sample instants).
        static func knots(_ samples: ArraySlice<AttitudeSmoother.Sample>, interval: Double) -> [Int] {
            var out = [Int]()
            out.reserveCapacity(samples.count / 4 + 1)
            var lastT = -Double.infinity
            for (i, s) in samples.enumerated() {
                if out.isEmpty {
                    out.append(i)
                    if s.t.isFinite { lastT = s.t }
                    continue
                }
                guard s.t.isFinite else { continue }
                if !lastT.isFinite {
                    lastT = s.t
                } else if s.t - lastT >= interval * (1 - 1e-9) {
                    out.append(i)
                    lastT = s.t
                }
            }
            return out
        }

        /// Solves the window at the head of `pending`, emits its first part (all of it when final)
        /// and carries the rest.
        mutating func processWindow(final: Bool, _ body: (Sample) throws -> Void) throws {
            let p = parameters
            guard !pending.isEmpty else { return }
            if calibration == nil { decideCalibration() }
            let allKnots = Self.knots(pending[...], interval: p.knotInterval)
            // A full window within one knot interval (timestamps repeated or far closer than the
            // knot interval) has no knot to split at: it is solved whole and ends the solution.
            let unsplittable = !final && allKnots.count < 2
            let final = final || unsplittable
            // Boundary knot E (first emitted sample of the next window) and the window's last knot.
            var boundary = allKnots.count
            var lastKnot = allKnots.count - 1
            if !final {
                let t0 = pending[0].t
                boundary =
                    allKnots.firstIndex {
                        $0 >= p.windowSamples
                            || (pending[$0].t.isFinite && t0.isFinite && pending[$0].t - t0 >= p.windowDuration)
                    } ?? allKnots.count - 1
                boundary = max(1, min(boundary, allKnots.count - 1))
                let tb = pending[allKnots[boundary]].t
                lastKnot =
                    allKnots.firstIndex {
                        $0 - allKnots[boundary] >= p.lookaheadSamples
                            || (pending[$0].t.isFinite && tb.isFinite && pending[$0].t - tb >= p.lookahead)
                    } ?? allKnots.count - 1
                lastKnot = max(boundary, lastKnot)
            }
            let sampleEnd = final ? pending.count : allKnots[lastKnot] + 1
            var window = makeWindow(
                pending[0..<sampleEnd], knots: Array(allKnots[0...lastKnot]))
            let (iterations, system, failure) = window.optimise()
            if case .unavailable = failure { throw failure! }
            statistics.windows += 1
            statistics.iterations += iterations
            var inverse: BorderedBandedSystem.SelectedInverse?
            var failedBecause = failure.map { "\($0)" }
            if let system {
                do { inverse = try system.selectedInverse() } catch { failedBecause = failedBecause ?? "\(error)" }
            }
            if inverse == nil {
                statistics.failedWindows += 1
                if statistics.firstFailure == nil {
                    statistics.firstFailure = failedBecause ?? "the normal equations were not solved"
                }
                window = makeWindow(pending[0..<sampleEnd], knots: Array(allKnots[0...lastKnot]))
            }
            if fieldReference == nil && window.fieldNorm.isFinite && window.fieldDip.isFinite {
                fieldReference = (window.fieldNorm, window.fieldDip)
            }
            statistics.fieldNorm = window.fieldNorm
            statistics.fieldDip = window.fieldDip
            if window.estimateHardIron { statistics.hardIron = window.hardIron }
            if window.calibrating {
                keepCalibrationReadings(window)
                if final { statistics.magnetometerCalibration = calibration(window) }
            } else if final {
                statistics.magnetometerCalibration = plainFit
            }
            let emitEnd = final ? pending.count : allKnots[boundary]
            if calibration == nil {
                for s in pending[0..<emitEnd] { if let m = s.input.magnetometer { rawReadings.add(m) } }
            }
            try emit(window, inverse, upTo: emitEnd, body)
            if final {
                pending.removeAll()
                if unsplittable { startNewSolution() }
                return
            }
            // Carry: the marginal prior on the boundary knot and the overlap's states.
            prior = window.marginal(at: boundary)
            if prior == nil {
                // Fall back to a loose prior around the solution.
                prior = initialPrior(window, knot: boundary)
            }
            carriedQ = Array(window.q[boundary...])
            carriedB = Array(window.b[boundary...])
            carriedV = Array(window.v[boundary...])
            carriedD = Array(window.d[boundary...])
            carriedGlobals = window.globals
            pending.removeFirst(emitEnd)
        }

        /// A loose prior on a knot's state (the first window's, or a fallback).
        func initialPrior(_ w: BatchWindow, knot k: Int) -> BatchWindow.Prior {
            let p = parameters
            let m = BatchWindow.knotSize + w.borderWidth
            var info = Matrix(rows: m, columns: m)
            let tilt = 1 / (p.initialTiltUncertainty * p.initialTiltUncertainty)
            let headingSigma = useMagnetometer ? p.initialHeadingUncertainty : p.sixDHeadingUncertainty
            info[0, 0] = tilt
            info[1, 1] = tilt
            info[2, 2] = 1 / (headingSigma * headingSigma)
            for a in 3..<6 { info[a, a] = 1 / (p.initialBiasUncertainty * p.initialBiasUncertainty) }
            for a in 6..<8 { info[a, a] = 1 / (p.typicalSpeed * p.typicalSpeed) }
            info[8, 8] = 1 / (p.magneticDisturbance * p.magneticDisturbance)
            let s = w.fieldNorm.isFinite && w.fieldNorm > 0 ? w.fieldNorm : 1
            if w.borderWidth >= 3 {
                let sigma = p.hardIronUncertainty * s
                for a in 9..<12 { info[a, a] = 1 / (sigma * sigma) }
            }
            if w.calibrating {
                // Soft iron: 0.3 per element around the start; its scale is tied to the field
                // strength by a stiff prior on its trace.
                for a in 12..<18 { info[a, a] = 1 / (0.3 * 0.3) }
                for a in 12..<15 { for c in 12..<15 { info[a, c] += 1e6 } }
                for a in 18..<20 { info[a, a] = 1 / (0.5 * s * 0.5 * s) }
            }
            return BatchWindow.Prior(
                attitude: w.q[k], bias: k == 0 ? .zero : w.b[k], velocity: k == 0 ? .zero : w.v[k],
                disturbance: k == 0 ? 0 : w.d[k], globals: w.globals, information: info)
        }

        /// Builds a window from samples and knots, with the initial states.
        func makeWindow(_ samples: ArraySlice<AttitudeSmoother.Sample>, knots: [Int]) -> BatchWindow {
            let p = parameters
            var w = BatchWindow(
                parameters: p, useMagnetometer: useMagnetometer, calibrating: calibration?.enabled ?? false)
            let n = samples.count
            let base = samples.startIndex
            w.t.reserveCapacity(n)
            w.rate.reserveCapacity(n)
            w.step.reserveCapacity(n)
            w.blind.reserveCapacity(n)
            w.acc.reserveCapacity(n)
            w.accValid.reserveCapacity(n)
            w.mag = [Vector3](repeating: .zero, count: n)
            w.magValid = [Bool](repeating: false, count: n)
            w.magTime = [Double](repeating: 0, count: n)
            w.rest.reserveCapacity(n)
            let missing2 = p.filter.missingRateUncertainty * p.filter.missingRateUncertainty
            var lastTime = Double.nan
            var lastGyro: Vector3?
            var lastGyroTime = -Double.infinity
            var lastAcc: Vector3?
            var lastAccTime = -Double.infinity
            // The typical step: a step well beyond it is a dropout, over which the motion is unknown.
            var steps = [Double]()
            var previousT = Double.nan
            for s in samples.prefix(2000) {
                if previousT.isFinite, s.input.t.isFinite, s.input.t > previousT { steps.append(s.input.t - previousT) }
                if s.input.t.isFinite { previousT = s.input.t }
            }
            let nominal = steps.isEmpty ? 0.01 : Self.median(&steps)
            var previousGyro: Vector3?
            for s in samples {
                let input = s.input
                var dt = 0.0
                if input.t.isFinite {
                    if lastTime.isFinite, input.t > lastTime { dt = input.t - lastTime }
                    if !lastTime.isFinite || input.t > lastTime { lastTime = input.t }
                }
                w.t.append(input.t)
                w.step.append(dt)
                var omega = Vector3.zero
                var blind = 0.0
                if let g = input.gyroscope, g.isFinite {
                    // The sample's rate stands for the step ending at it (the rate a sensor reports
                    // is its mean over the last sample period), as in the online filters.
                    omega = g
                    if dt > 2.5 * nominal, let previous = previousGyro {
                        // A dropout: take the mean of the rates on either side, and let the attitude
                        // move by the rotation that may have been missed.
                        omega = (g + previous) * 0.5
                        let missed = dt - nominal
                        let change = (g - previous).norm * missed
                        blind = missing2 * missed + change * change
                    }
                    lastGyro = g
                    previousGyro = g
                    if input.t.isFinite { lastGyroTime = input.t }
                } else if let g = lastGyro, input.t.isFinite, input.t - lastGyroTime <= p.maximumHold {
                    omega = g
                } else {
                    blind = missing2 * dt
                }
                w.rate.append(omega)
                w.blind.append(blind)
                if let a = input.accelerometer, a.isFinite {
                    // Less the centripetal force of a steady turn the initialiser proved.
                    w.acc.append(a - s.estimate.diagnostics.centripetal)
                    w.accValid.append(true)
                    lastAcc = w.acc.last
                    if input.t.isFinite { lastAccTime = input.t }
                } else if let a = lastAcc, input.t.isFinite, input.t - lastAccTime <= p.maximumHold {
                    w.acc.append(a)
                    w.accValid.append(true)
                } else {
                    w.acc.append(.zero)
                    w.accValid.append(false)
                }
                w.rest.append(s.estimate.diagnostics.atRest)
            }
            // Magnetometer at its delay-compensated instant, and the time each value stands for.
            if useMagnetometer {
                let idx = samples.indices.filter {
                    if let m = samples[$0].input.magnetometer, m.isFinite, samples[$0].input.t.isFinite { return true }
                    return false
                }
                var j = 0
                var previousT = Double.nan
                for k in idx {
                    let tk = samples[k].input.t
                    let target = tk + magnetometerDelay
                    while j + 1 < idx.count && samples[idx[j + 1]].input.t < target { j += 1 }
                    let a = samples[idx[j]].input
                    let bSample = samples[idx[min(j + 1, idx.count - 1)]].input
                    var m = a.magnetometer!
                    if target > a.t && bSample.t > a.t {
                        let u = min(1, (target - a.t) / (bSample.t - a.t))
                        m = a.magnetometer! * (1 - u) + bSample.magnetometer! * u
                    }
                    let local = k - base
                    w.mag[local] = m
                    w.magValid[local] = true
                    let span = previousT.isFinite ? tk - previousT : w.step[local]
                    w.magTime[local] = min(max(span, 0), p.maximumHold)
                    previousT = tk
                }
            }
            w.magWeight = [Float](repeating: 1, count: n)
            w.magNorm = w.mag.map(\.norm)
            // Knots and initial states: carried from the previous window where it overlapped, the
            // initialiser's beyond (turned about the vertical to continue the carried heading).
            w.knots = knots
            let k = knots.count
            w.q.reserveCapacity(k)
            w.b.reserveCapacity(k)
            w.v.reserveCapacity(k)
            var turn = Quaternion.identity
            for (j, i) in knots.enumerated() {
                let s = samples[base + i]
                if j < carriedQ.count {
                    w.q.append(carriedQ[j])
                    w.b.append(carriedB[j])
                    w.v.append(carriedV[j])
                    w.d.append(carriedD[j])
                    let yaw = EulerAngles(carriedQ[j]).yaw - EulerAngles(s.estimate.attitude).yaw
                    turn = Quaternion(axis: .unitZ, angle: yaw)
                } else {
                    w.q.append((turn * s.estimate.attitude).normalized)
                    w.b.append(s.estimate.gyroscopeBias)
                    w.v.append(.zero)
                    w.d.append(0)
                }
            }
            w.accWeight = [Double](repeating: 1, count: k)
            w.gravityWeight = [Double](repeating: 1, count: k)
            // Constants are carried unless the joint calibration starts with this window.
            let carryGlobals = !carriedQ.isEmpty && carriedGlobals.count == w.globals.count
            if carryGlobals {
                w.globals = carriedGlobals
            } else if w.calibrating, let fit = calibration?.start {
                // Start the calibration from the ellipsoid fit.
                do {
                    w.globals[0] = fit.hardIron.x
                    w.globals[1] = fit.hardIron.y
                    w.globals[2] = fit.hardIron.z
                    let m = fit.softIron
                    w.globals[3] = m[0, 0]
                    w.globals[4] = m[1, 1]
                    w.globals[5] = m[2, 2]
                    w.globals[6] = m[0, 1]
                    w.globals[7] = m[0, 2]
                    w.globals[8] = m[1, 2]
                }
            }
            // Field reference: median strength and dip at the initial attitudes (first window only;
            // later windows keep it).
            if useMagnetometer, let reference = fieldReference {
                w.fieldNorm = reference.norm
                w.fieldDip = reference.dip
                w.fieldReferenceFixed = true
            } else if useMagnetometer {
                var norms = [Double]()
                var dips = [Double]()
                var restNorms = [Double]()
                var restDips = [Double]()
                let soft = w.softIron
                for i in 0..<n where w.magValid[i] {
                    let m = soft * (w.mag[i] - w.hardIron)
                    let mE = samples[base + i].estimate.attitude.rotate(m)
                    let h = (mE.x * mE.x + mE.y * mE.y).squareRoot()
                    norms.append(m.norm)
                    dips.append(Double.atan2(-mE.z, h))
                    if w.rest[i] {
                        restNorms.append(norms.last!)
                        restDips.append(dips.last!)
                    }
                }
                let restTime = w.magTime.indices.reduce(0.0) { w.rest[$1] && w.magValid[$1] ? $0 + w.magTime[$1] : $0 }
                if let reference = fieldReference {
                    // Learnt in the first window and kept, so every window judges disturbances alike.
                    w.fieldNorm = reference.norm
                    w.fieldDip = reference.dip
                    w.fieldReferenceFixed = true
                } else if p.fieldReferenceFromRest && restTime >= p.minimumRestForReference {
                    w.fieldNorm = Self.median(&restNorms)
                    w.fieldDip = Self.median(&restDips)
                    w.fieldReferenceFixed = true
                } else if !norms.isEmpty {
                    w.fieldNorm = Self.median(&norms)
                    w.fieldDip = Self.median(&dips)
                }
                if w.calibrating && !carryGlobals && w.fieldNorm.isFinite && w.fieldDip.isFinite {
                    w.globals[9] = w.fieldNorm * Foundation.cos(w.fieldDip)
                    w.globals[10] = w.fieldNorm * Foundation.sin(w.fieldDip)
                }
            }
            if w.calibrating && !carryGlobals {
                // The calibration starts here: each knot's initial heading from the calibrated
                // field (the initialiser's came from the raw readings, off by the iron).
                let soft = w.softIron
                let hard = w.hardIron
                for (j, i) in knots.enumerated() {
                    guard let m = (i..<min(n, i + 20)).first(where: { w.magValid[$0] }).map({ w.mag[$0] }) else {
                        continue
                    }
                    let mE = w.q[j].rotate(soft * (m - hard))
                    guard mE.x != 0 || mE.y != 0 else { continue }
                    w.q[j] = (Quaternion(axis: .unitZ, angle: Double.atan2(mE.x, mE.y)) * w.q[j]).normalized
                }
            }
            w.prior = prior ?? (k > 0 ? initialPrior(w, knot: 0) : nil)
            return w
        }

        /// Keeps about 20 000 raw magnetometer readings spread over the recording.
        mutating func keepCalibrationReadings(_ w: BatchWindow) {
            for i in w.mag.indices where w.magValid[i] && w.magWeight[i] >= 0.5 { calibrationReadings.add(w.mag[i]) }
        }

        /// Decides whether to calibrate the magnetometer jointly, from the readings emitted so far
        /// and those pending: yes when their ellipsoid fit succeeds and is ``Parameters/calibrationEvidence``
        /// times steadier than the raw strength, no when it succeeds without that (a calibrated
        /// sensor), undecided while the readings cannot determine a fit (a device that has not yet
        /// turned through enough directions). On the switch a new solution starts: the constants
        /// from the fit, the heading from the calibrated field, the reference field learnt again
        /// from the calibrated readings.
        mutating func decideCalibration() {
            let p = parameters
            guard useMagnetometer && p.estimateMagnetometerCalibration else {
                calibration = (false, nil)
                return
            }
            var kept = rawReadings
            for s in pending { if let m = s.input.magnetometer { kept.add(m) } }
            let readings = kept.values
            let fit: MagnetometerCalibration
            do {
                fit = try MagnetometerCalibration.fit(readings, arbitraryUnits: true)
            } catch {
                statistics.calibrationProblem = "\(error)"
                return
            }
            plainFit = fit
            statistics.calibrationProblem = nil
            let norms = readings.map(\.norm)
            let mean = norms.reduce(0, +) / Double(norms.count)
            let spread = (norms.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(norms.count)).squareRoot()
            statistics.calibrationImprovement = spread / max(fit.residual, .leastNormalMagnitude)
            guard fit.residual * p.calibrationEvidence < spread else {
                calibration = (false, nil)
                return
            }
            calibration = (true, fit)
            rawReadings = ThinnedReadings()
            statistics.jointCalibrationStart = pending.first { $0.t.isFinite }?.t
            // A new solution from here: the carried heading and its prior came from the raw field.
            fieldReference = nil
            carriedQ = []
            carriedB = []
            carriedV = []
            carriedD = []
            prior = nil
        }

        /// The calibration in the form `calibrate` writes: `W·(raw − h)` with det W = 1 and the
        /// field strength in reading units.
        func calibration(_ w: BatchWindow) -> MagnetometerCalibration? {
            let soft = w.softIron
            let det = soft.determinant
            let g = w.globals
            guard det > 0, det.isFinite, g.allSatisfy(\.isFinite) else { return nil }
            let norm = Foundation.cbrt(det)
            let normalised = Matrix3(soft.row0 / norm, soft.row1 / norm, soft.row2 / norm)
            let strength = (g[9] * g[9] + g[10] * g[10]).squareRoot() / norm
            let calibrated = calibrationReadings.values.map { normalised * ($0 - w.hardIron) }
            guard !calibrated.isEmpty else { return nil }
            let residual =
                (calibrated.reduce(0.0) { $0 + ($1.norm - strength) * ($1.norm - strength) }
                / Double(calibrated.count)).squareRoot()
            // Directions too few to determine it (a device that hardly turns): the priors, not a fit.
            let coverage = MagnetometerCalibration.directionCoverage(calibrated).coverage
            guard coverage >= MagnetometerCalibration.minimumCoverage else { return nil }
            return MagnetometerCalibration(
                hardIron: w.hardIron, softIron: normalised, fieldStrength: strength, residual: residual,
                coverage: coverage, samplesUsed: calibrated.count, samplesOffered: calibrationReadings.values.count)
        }

        static func median(_ values: inout [Double]) -> Double {
            values.sort()
            return values[values.count / 2]
        }

        /// Emits samples `0 ..< end` of the window.
        mutating func emit(
            _ w: BatchWindow, _ inverse: BorderedBandedSystem.SelectedInverse?, upTo end: Int,
            _ body: (Sample) throws -> Void
        ) throws {
            let ks = BatchWindow.knotSize
            let noise2 = parameters.gyroscopeNoise * parameters.gyroscopeNoise
            // Attitude variance (trace) and heading variance at a knot, from the selected inverse.
            func variances(_ k: Int) -> (trace: Double, heading: Double) {
                guard let inverse, k < w.knotCount else { return (.nan, .nan) }
                let o = k * ks
                let x = o + BatchWindow.slot(0)
                let y = o + BatchWindow.slot(1)
                let z = o + BatchWindow.slot(2)
                let h = inverse.element(z, z)
                return (inverse.element(x, x) + inverse.element(y, y) + h, h)
            }
            var rotations = [Quaternion]()
            var elapsed = [Double]()
            var next = variances(0)
            for k in 0..<w.knotCount {
                let r = w.range(k)
                guard r.lowerBound < end else { break }
                let bias = w.b[k]
                let here = next
                next = k + 1 < w.knotCount ? variances(k + 1) : here
                // Integrate once over the knot (and to the next knot's sample).
                rotations.removeAll(keepingCapacity: true)
                elapsed.removeAll(keepingCapacity: true)
                var pre = BatchWindow.Preintegration()
                for i in r {
                    if i > r.lowerBound { w.advance(&pre, i, bias: bias) }
                    rotations.append(pre.quaternion)
                    elapsed.append(pre.duration)
                }
                // Spread the gyroscope residual to the next knot over the interval.
                var correction = Vector3.zero
                var duration = 0.0
                if k + 1 < w.knotCount {
                    w.advance(&pre, r.upperBound, bias: bias)
                    correction = (w.q[k + 1] * (w.q[k] * pre.quaternion).conjugate).rotationVector
                    duration = pre.duration
                }
                for i in r where i < end {
                    let j = i - r.lowerBound
                    let alpha = duration > 0 ? min(1, elapsed[j] / duration) : 0
                    var q = w.q[k] * rotations[j]
                    if alpha > 0 { q = Quaternion(rotationVector: correction * alpha) * q }
                    q = q.normalized
                    let s = pending[i]
                    var d = s.estimate.diagnostics
                    d.initialising = false
                    let accW = w.accWeight[k] * (parameters.gravityNoise > 0 ? w.gravityWeight[k] : 1)
                    let magW = w.magValid[i] ? Double(w.magWeight[i]) : 0
                    d.accelerometerRejected = !w.accValid[i] || accW < 0.5
                    d.magnetometerRejected = !useMagnetometer || !w.magValid[i] || magW < 0.5
                    if inverse != nil {
                        // Between knots: the knots' variances interpolated, plus the gyroscope noise of
                        // a bridge pinned at both knots (the bias adds less than 1e-4 rad within a knot).
                        let bridge = noise2 * duration * alpha * (1 - alpha)
                        let trace = here.trace * (1 - alpha) + next.trace * alpha + 3 * bridge
                        let heading = here.heading * (1 - alpha) + next.heading * alpha + bridge
                        d.attitudeUncertainty = max(0, trace).squareRoot()
                        d.headingUncertainty = max(0, heading).squareRoot()
                    }
                    let input = s.input
                    let e = MotionEstimate(
                        t: input.t, attitude: q.canonical, gyroscopeBias: bias, diagnostics: d,
                        gyroscope: input.gyroscope, accelerometer: input.accelerometer,
                        magnetometer: input.magnetometer)
                    try body(
                        Sample(
                            estimate: e, input: input, accelerometerWeight: w.accValid[i] ? accW : 0,
                            magnetometerWeight: magW))
                    emitted += 1
                }
            }
        }
    }
}

/// Finite readings thinned evenly over all that were offered: every `stride`-th is kept, and the
/// stride doubles (keeping every other one) whenever more than ``capacity`` are held.
struct ThinnedReadings {
    static let capacity = 20_000
    private(set) var values: [Vector3] = []
    private var stride = 1
    private var offered = 0

    mutating func add(_ m: Vector3) {
        guard m.isFinite else { return }
        if offered % stride == 0 { values.append(m) }
        offered += 1
        if values.count > Self.capacity {
            values = Swift.stride(from: 0, to: values.count, by: 2).map { values[$0] }
            stride *= 2
        }
    }
}
