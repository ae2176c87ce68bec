import Foundation

extension BatchAttitudeEstimator {
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
}
