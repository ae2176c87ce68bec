import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
///
/// **Code.** The tuning is in BatchAttitudeEstimator+Parameters.swift; the streaming driver (windows,
/// carried states, solutions) in +Driver, the windows it builds in +Windows, the magnetometer's
/// joint calibration in +Calibration and the output in +Emission; one window's states, factors and
/// solver in ``BatchWindow``.
public struct BatchAttitudeEstimator: Sendable {
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
        /// How many times steadier the ellipsoid fit (or, where the readings determine none, the
        /// gyroscope's turns' fit over its turns) made the field strength than the raw readings,
        /// when a fit was determinable (the evidence weighed against ``Parameters/calibrationEvidence``).
        public var calibrationImprovement: Double?
        /// Why the readings determined no ellipsoid fit, when they did not.
        public var calibrationProblem: String?
        /// Whether the joint calibration started from the gyroscope's turns about one axis only,
        /// which cannot tell the hard iron along that axis.
        public var calibrationAxisUnknown = false
        /// The field strength of the readings of the windows that did not calibrate jointly (raw, or
        /// calibrated by the on-line calibration's turns where it took them), standard deviation
        /// over mean (a calibrated sensor away from iron stays within a few percent).
        public var rawStrengthSpread: Double?
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
