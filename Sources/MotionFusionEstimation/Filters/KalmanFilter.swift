/// Multiplicative (error-state) extended Kalman filter for attitude and gyroscope bias.
///
/// The nominal state is the attitude `q` (ENU from sensor) and the gyroscope bias `b`. The error
/// state is `(δθ, δb)`, with the attitude error expressed in the earth frame,
/// `q_true = exp(δθ) ⊗ q`: its z component is exactly the heading error and its x, y components the
/// inclination error, so the accelerometer corrects only tilt and the magnetometer only heading.
///
/// - Propagation integrates `ω − b` over each sample's own step (``GyroscopeIntegrator``: lost
///   samples are bridged), so irregular timestamps and any sample rate work. The attitude error
///   grows with the gyroscope noise and with a rate-proportional term for scale-factor and
///   misalignment errors; bias errors feed into it through `−R·dt`.
/// - The accelerometer measures the up direction in the earth frame, `R·f/|f|`, low-passed in that
///   frame while the device moves (linear accelerations average out) and only noise-smoothed at
///   rest; the horizontal components observe the tilt error. Its noise grows with the linear
///   acceleration, and an innovation gate rejects samples inconsistent with the covariance. In 6D,
///   until a rest has measured the bias, the measurement models the low-pass's delay
///   (``AccelerationDelay``): it observes the bias error too.
/// - The magnetometer is used by direction: it measures the azimuth of the horizontal field, which
///   observes the heading error. A sample whose strength departs from the learnt reference strength
///   (relative, so units do not matter), whose dip departs from the learnt dip, or whose azimuth
///   jumps away from its recent average is rejected (magnetic disturbance); a new field that stays
///   steady for ``Parameters/newFieldTime`` while the device turns is adopted, and after
///   ``Parameters/maximumRejectionTime`` one steady for ``Parameters/shortNewFieldTime`` is; a
///   field that never steadies is then used down-weighted
///   (``Parameters/longRejectionNoiseFactor``). While a magnetometer calibrated at medium level or
///   better is rejected the on-line calibration learns only from the turns (the disturbance is not
///   the device's iron); at low level the readings are kept, and a fit from them must fit the
///   turns too. The first
///   magnetometer sample after a start without one sets the heading at once.
/// - At rest the low-passed gyroscope observes the bias directly. Rest is judged in physical units
///   (``RestBiasJudge``): a steady turn is never taken for a bias, a gyroscope offset far beyond
///   any bias is taken from the first still stretch that proves it, and the bias stays within a
///   physical bound of that offset.
/// - Noise levels: the gyroscope and accelerometer noise densities measured while the device is
///   still (``NoiseEstimator``) replace the noise parameters where they are larger.
///
/// All updates are sequential scalar updates on the 6×6 covariance, held as 3×3 blocks
/// (``Matrix3``) so the per-sample path never allocates.
public struct KalmanFilter: AttitudeFilter {
    /// Tuning; every parameter is in SI units and independent of the sample rate.
    public struct Parameters: FilterParameters {
        /// Attitude process noise density, rad/s/√Hz: the gyroscope's white noise with the model
        /// errors of the filter; raised to the gyroscope noise density measured at rest when that is
        /// larger. Default 0.002.
        public var gyroscopeNoise = 0.002
        /// Relative rate error (scale factor, misalignment), dimensionless; adds `(s·|ω|)²·1 s` to
        /// the attitude error growth rate. Default 0.
        public var rateScaleUncertainty = 0.0
        /// Gyroscope bias random walk in 9D, rad/s/√s: what lets the bias follow its wander (with
        /// temperature, over long runs) between rests, with the magnetometer and the accelerometer
        /// showing every axis. Default 0.00003 (a consumer part wanders faster still).
        public var biasRandomWalk = 0.00003
        /// Gyroscope bias random walk in 6D, rad/s/√s. Smaller than ``biasRandomWalk``: without a
        /// magnetometer the tilt corrections in motion are the one teacher of the bias between
        /// rests, and a faster walk lets them take accelerations for bias. Default 0.000003.
        public var sixDBiasRandomWalk = 0.000003
        /// Initial bias standard deviation, rad/s. Default 0.5 °/s.
        public var initialBiasUncertainty = 0.5.radians
        /// Initial tilt standard deviation per axis, rad. Default 3°.
        public var initialTiltUncertainty = 3.0.radians
        /// Initial heading standard deviation when the magnetometer sets it, rad. Default 10°.
        public var initialHeadingUncertainty = 10.0.radians
        /// Initial heading standard deviation when the accelerometer alone sets the attitude (6D, or
        /// no magnetometer value yet), rad. Default 1.
        public var unreferencedHeadingUncertainty = 1.0
        /// Largest heading standard deviation, rad: the variance of an unobserved heading (6D, long
        /// disturbances) is capped at its square, so it cannot grow without bound. Default 2.
        public var maximumHeadingUncertainty = 2.0
        /// Accelerometer direction noise density, rad·√s (with the gyroscope noise it sets the tilt
        /// correction time constant at rest, about `accelerometerNoise / gyroscopeNoise`); raised to
        /// the accelerometer noise density measured at rest over g when that is larger (vibration).
        /// Default 0.001.
        public var accelerometerNoise = 0.001
        /// Linear acceleration (m/s², RMS over ``accelerationWindow``) that doubles the
        /// accelerometer noise variance: the filter trusts the accelerometer less while the device
        /// translates or shakes; and the departure of the force's strength from g beyond which an
        /// inconsistent force is acceleration, not a sign of a wrong tilt (the rest detector's 0.5 s
        /// low-passed force, ``accelerometerRecoveryTime``), and a sustained one teaches no bias
        /// (its 0.05 s noise-smoothed force, ``sustainedAccelerationTime``). Default 1.
        public var accelerationTolerance = 1.0
        /// Time the specific force's strength must stay more than ``accelerationTolerance`` from g
        /// before the tilt corrections stop teaching the bias, s: a vehicle speeding up or braking,
        /// whose acceleration tilts the force as a bias would tilt the attitude (a hand's push
        /// reverses sooner). Default 0.5.
        public var sustainedAccelerationTime = 0.5
        /// Largest change of the bias estimate per second in motion, once a rest (or a proven
        /// offset) has measured it, rad/s², per axis in 6D and across the vertical in 9D: a consumer
        /// gyroscope's bias drifts with temperature far slower. Default 0.01 °/s per s.
        public var motionBiasRate = 0.01.radians
        /// Time over which the bias estimate may take up the gyroscope's scale error in motion
        /// (``RestBiasJudge/Parameters/scaleTolerance`` of the rate), s. Default 10.
        public var motionBiasScaleTime = 10.0
        /// Time constant of the linear-acceleration energy estimate, s. Default 0.5.
        public var accelerationWindow = 0.5
        /// Time constant of the second-order low-pass applied to the specific force in the earth
        /// frame before it corrects the tilt, s (cutoff 1/(2π·τ)). Linear accelerations average out
        /// over it because velocity stays bounded. 0 disables. Default 2.
        public var accelerationFilterTime = 2.0
        /// Whether the tilt measurement models the low-pass's delay in 6D until a rest has measured
        /// the bias: the low-passed force shows the attitude errors of its recent past, which a bias
        /// error turned by its integral since (``AccelerationDelay``), so the measurement depends
        /// on the bias error too, and a correction of the bias estimate corrects the past the
        /// low-pass holds. In 9D the field observes the heading and the vertical bias itself, and
        /// the model cost more than it gave (a car speeding up into a gentle bend with
        /// consumer-grade errors tilted 3.66° over the last minute, over the 3° its test allows).
        /// The model also ends when the bias bound (``RestBiasJudge/Parameters/biasClip``) holds
        /// back one of its corrections. Default true.
        public var modelsAccelerationDelay = true
        /// Whether the tilt at rest comes from the accelerometer smoothed only against noise (the rest
        /// detector's ``RestDetector/Parameters/noiseFilterTime``) instead of the low-pass above: at
        /// rest there is no linear acceleration to average out, and the low-pass would only delay
        /// the tilt while a large gyroscope bias is still unknown. Default true.
        public var unfilteredTiltAtRest = true
        /// Innovation gate for the accelerometer, in standard deviations (squared Mahalanobis
        /// distance limit is its square). Default 4.
        public var accelerometerGate = 4.0
        /// Shortest sample interval, s, the accelerometer gate assumes: the innovation comes from
        /// the low-passed specific force, which closer samples make no more precise, so without
        /// it a faster rate widened the gate (at 1000 Hz a car's centripetal force was never
        /// rejected). Default 0.01.
        public var accelerometerGateInterval = 0.01
        /// Time the accelerometer may stay outside its gate before the tilt itself is judged wrong
        /// (after a gyroscope fault) and its variance widened to the innovation, s; longer while a
        /// steady turn may yet be proven (``RestBiasJudge/steadyTurnPending(rest:bias:)``: the
        /// force may be centripetal). Counted only while the low-passed force's strength lies within
        /// ``accelerationTolerance`` of g. At rest, with the force fixed in the sensor since the
        /// still stretch began (``RestBiasJudge/upAxisSteady``), the rest detector's
        /// ``RestDetector/Parameters/filterTime`` (0.5 s) instead, when shorter: that force is
        /// gravity (a force that moved without a turn, a vehicle pulling away under a rest verdict,
        /// is an acceleration). Default 2.
        public var accelerometerRecoveryTime = 2.0
        /// Magnetometer heading noise density, rad·√s. Default 0.03.
        public var magnetometerNoise = 0.03
        /// Relative departure of |m| from the reference field strength that doubles the heading
        /// noise variance (soft down-weighting of suspect samples). Default 0.03.
        public var fieldNormTolerance = 0.03
        /// Departure of the dip from the reference dip that doubles the heading noise variance, rad.
        /// Default 3°.
        public var dipTolerance = 3.0.radians
        /// Largest accepted relative departure of |m| from the reference field strength. Default 0.1.
        public var fieldNormRejection = 0.1
        /// Largest accepted departure of the dip from the reference dip, rad. Default 10°.
        public var dipRejection = 10.0.radians
        /// Largest accepted departure of the field's azimuth from its recent average, rad. Default 10°.
        public var azimuthRejection = 10.0.radians
        /// Timing uncertainty of the magnetometer relative to the gyroscope, s: the azimuth rejection
        /// widens by the turn over this time (sampling delays between sensors). Default 0.02.
        public var magnetometerTimingUncertainty = 0.02
        /// Averaging time of the field's azimuth, s. Default 1.
        public var azimuthAveragingTime = 1.0
        /// Time a new steady field must persist (while moving) before it is adopted, s. Default 20.
        public var newFieldTime = 20.0
        /// Longest magnetometer rejection before a field that has been steady for
        /// ``shortNewFieldTime`` is adopted, s. Default 60.
        public var maximumRejectionTime = 60.0
        /// Steadiness required after ``maximumRejectionTime``, s. Default 5.
        public var shortNewFieldTime = 5.0
        /// Factor on the heading noise of a field rejected for longer than ``maximumRejectionTime``
        /// without a steady new field to adopt: such a field is used again, down-weighted by its
        /// strength and dip departures and by this factor, since the gyroscope's heading drift grows
        /// without bound while a disturbance's error does not (a magnet moving about averages out).
        /// 1e9 in effect never. Default 2.
        public var longRejectionNoiseFactor = 2.0
        /// Time the field must look undisturbed again before the magnetometer is used, s. Default 0.5.
        public var minimumUndisturbedTime = 0.5
        /// Time constant with which the reference field strength and dip follow slow changes of an
        /// undisturbed field, s. Default 30.
        public var fieldTrackingTime = 30.0
        /// Time constant of the running estimate of a candidate new field, s. Default 1.
        public var candidateFieldTime = 1.0
        /// Smallest rotation rate (rad/s) during which a new field's steadiness counts; a field only
        /// proves homogeneous when the device turns in it. Default 20 °/s.
        public var newFieldMinimumRate = 20.0.radians
        /// Expected field strength (µT) and dip (rad), e.g. from the World Magnetic Model; NaN to
        /// learn them from the first samples. Default NaN.
        public var expectedFieldNorm = Double.nan, expectedDip = Double.nan
        /// Rate uncertainty assumed while no gyroscope value is available, rad/s: the attitude
        /// variance grows by its square times the step, so the accelerometer and magnetometer take
        /// over quickly. Default 2.
        public var missingRateUncertainty = 2.0
        /// Heading innovations, low-passed over ``headingConsistencyTime``, beyond this many standard
        /// deviations for longer than that time, steady within ``headingConsistencyTolerance`` while
        /// the device turns at ``newFieldMinimumRate`` or faster, widen the heading variance:
        /// recovery from gyroscope faults. A wrong heading shows as the same azimuth offset however
        /// the device turns; a disturbance that passes the strength and dip checks (a magnet moving
        /// with the sensor, a magnetometer without strength information) does not. Default 8.
        public var headingConsistencyGate = 8.0
        /// Largest change of the low-passed heading innovation while it counts as steady, rad.
        /// Default 5°.
        public var headingConsistencyTolerance = 5.0.radians
        /// Low-pass time constant of the heading innovation, and how long it must stay inconsistent,
        /// s. Default 1.
        public var headingConsistencyTime = 1.0
        /// Bias pseudo-measurement noise density at rest, rad/s·√s; raised to the gyroscope noise
        /// density measured at rest when that is larger. Default 0.002.
        public var restBiasNoise = 0.002
        /// Shortest time step the corrections assume, s: a sample with a repeated timestamp still
        /// corrects, as if it came this long after the previous one. Default 0.1 ms.
        public var minimumCorrectionStep = 1e-4
        /// 6D or 9D. Default 9D.
        public var mode = FusionMode.nineD
        /// Rest detection.
        public var rest = RestDetector.Parameters()
        /// On-line hard- and soft-iron calibration of the magnetometer (9D).
        public var magnetometerCalibration = MagnetometerSelfCalibration.Parameters()
        /// What a still stretch says about the bias: rest, a steady turn, or an initial offset; and
        /// the bound on the bias.
        public var restBias = RestBiasJudge.Parameters()
        /// Gyroscope integration across irregular steps and lost samples.
        public var integration = GyroscopeIntegrator.Parameters()
        /// Noise measured while the device is still. Where it exceeds ``gyroscopeNoise``,
        /// ``restBiasNoise`` (gyroscope) or ``accelerometerNoise`` (accelerometer noise density over
        /// g), the measured density is used instead: those parameters are floors.
        public var noise = NoiseEstimator.Parameters()
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "gyroscopeNoise": .above(0, upTo: 1), "rateScaleUncertainty": ParameterRange(0...0.5),
            "biasRandomWalk": ParameterRange(0...0.1), "sixDBiasRandomWalk": ParameterRange(0...0.1),
            "initialBiasUncertainty": .above(0, upTo: 10),
            "initialTiltUncertainty": .angle, "initialHeadingUncertainty": .angle,
            "unreferencedHeadingUncertainty": .angle, "maximumHeadingUncertainty": .angle,
            "accelerometerNoise": .above(0, upTo: 1), "accelerationTolerance": .above(0, upTo: 100),
            "sustainedAccelerationTime": .duration, "motionBiasRate": ParameterRange(0...1),
            "motionBiasScaleTime": .timeConstant,
            "accelerationWindow": .timeConstant, "accelerationFilterTime": .duration,
            "accelerometerGate": .above(0, upTo: 100), "accelerometerRecoveryTime": .duration,
            "accelerometerGateInterval": .duration,
            "magnetometerNoise": .above(0, upTo: 10), "fieldNormTolerance": .above(0, upTo: 10),
            "dipTolerance": .angle, "fieldNormRejection": .above(0, upTo: 10), "dipRejection": .angle,
            "azimuthRejection": .angle, "magnetometerTimingUncertainty": ParameterRange(0...1),
            "azimuthAveragingTime": .timeConstant, "newFieldTime": .duration, "maximumRejectionTime": .duration,
            "shortNewFieldTime": .duration, "longRejectionNoiseFactor": .above(0, upTo: 1e9),
            "minimumUndisturbedTime": .duration, "fieldTrackingTime": .timeConstant,
            "candidateFieldTime": .timeConstant, "newFieldMinimumRate": .rate,
            "expectedFieldNorm": .above(0, upTo: 1000), "expectedDip": ParameterRange(-.pi / 2 ... .pi / 2),
            "missingRateUncertainty": .above(0, upTo: ValueFaults.gyroscopeLimit),
            "headingConsistencyGate": .above(0, upTo: 100), "headingConsistencyTolerance": .angle,
            "headingConsistencyTime": .timeConstant, "restBiasNoise": .above(0, upTo: 1),
            "minimumCorrectionStep": .above(0, upTo: 1),
        ].adding(
            part("rest", RestDetector.Parameters.self),
            part("magnetometerCalibration", MagnetometerSelfCalibration.Parameters.self),
            part("restBias", RestBiasJudge.Parameters.self), part("integration", GyroscopeIntegrator.Parameters.self),
            part("noise", NoiseEstimator.Parameters.self))
        /// Default parameters.
        public init() {}
    }

    /// The evolving state; read, set and restore it freely.
    public struct State: Sendable, Codable {
        /// Attitude, ENU from sensor.
        public var attitude = Quaternion.identity
        /// Gyroscope bias, rad/s.
        public var bias = Vector3.zero
        /// Covariance blocks: attitude–attitude, attitude–bias, bias–bias.
        public var pqq = Matrix3.zero, pqb = Matrix3.zero, pbb = Matrix3.zero
        /// Reference field strength (µT) and dip (rad); NaN until known.
        public var fieldNorm = Double.nan, fieldDip = Double.nan
        /// Candidate new field strength and dip while the field is disturbed, and how long it held.
        public var candidateNorm = Double.nan, candidateDip = Double.nan, candidateTime = 0.0
        /// Recent average azimuth of the measured field in the estimated earth frame, rad.
        public var fieldAzimuth = Double.nan
        /// Time the magnetometer has been rejected, s: rejected seconds, less two for each accepted
        /// one (brief agreements inside a long disturbance do not restart it).
        public var rejectionTime = 0.0
        /// Time the field has looked undisturbed, s.
        public var undisturbedTime = 0.0
        /// Earth-frame low-pass of the specific force.
        public var accelerationLowPass = ButterworthLowPass(cutoff: 1)
        /// What the low-pass's delay makes the tilt measurement depend on (nil without the model,
        /// once a rest has measured the bias, and in states saved before it was kept).
        var accelerationDelay: AccelerationDelay?
        /// Low-passed squared linear acceleration in the earth frame, m²/s⁴.
        public var accelerationEnergy = 0.0
        /// Low-passed heading innovation (rad) and how long it has been inconsistent (s).
        public var headingInnovation = 0.0, headingInconsistentTime = 0.0
        /// Low-passed heading innovation when the current inconsistent stretch began, rad.
        public var headingInconsistentStart = 0.0
        /// Time the accelerometer has been rejected by the gate, s.
        public var accelerometerRejectionTime = 0.0
        /// Time the noise-smoothed specific force's strength has departed from g by more than
        /// ``Parameters/accelerationTolerance``, s (0 while it does not; nil in states saved before
        /// it was kept, read as 0).
        public var accelerationDepartureTime: Double?
        /// Whether the attitude has been initialised.
        public var initialised = false
        /// Whether a magnetometer sample has set the heading since the attitude was initialised.
        public var headingReferenced = false
        /// Whether a calibrated magnetometer sample has set the heading.
        public var calibratedHeading = false
        /// Whether the heading aligned, and the field's reference learnt, at an initialisation
        /// from a force far from gravity's strength (a fall, an impact: more than
        /// ``Parameters/accelerationTolerance`` off; false) may be as wrong as that tilt, once the
        /// accelerometer's first verdict after the warm-up judges the tilt wrong (true); accepted
        /// instead, the tilt was found (nil). At the first rest after that with the force fixed in
        /// the sensor since the stillness began, accepted, and the tilt known to within
        /// ``Parameters/initialTiltUncertainty``: if true, a reference whose dip alone the reading
        /// departs from (judged against the still force's up; its strength agreeing, and no change
        /// of the field during the rest) is dropped and the reading aligns both anew; either way it
        /// is then nil, as after any other initialisation (and in states saved before it was kept).
        public var realignHeading: Bool?
        /// Whether the field changed during a rest (the raw reading moved by more than
        /// `fieldNormRejection` of its strength from the rest's first one), with no accepted reading
        /// since, and that first reading (nil outside a rest, and in states saved before them).
        public var fieldChangedAtRest: Bool?
        public var restField: Vector3?
        /// How far the current rest's rate has departed from the bias estimate (rad per axis),
        /// integrated from when the rest's low-pass settled or its last fresh measurement, and over
        /// how long (s); nil outside a rest and in a rest that does not check the estimate
        /// (``correctBiasAtRest(_:_:)``).
        public var restDeparture: RestDeparture?
        /// How far the strength of the readings used swings as an iron across the vertical makes
        /// it: while it does, heading corrections leave the bias alone (nil until the first
        /// reading used, and in states saved before it was kept).
        public var horizontalDeviation: HorizontalFieldDeviation?
        /// Rotation rate after bias removal at the last gyroscope sample, rad/s.
        public var lastRate = 0.0
        /// Time since the last magnetometer reading: the time a reading's heading correction and
        /// the disturbance checks' clocks cover, at most ``MagnetometerPairing/longestWait`` (nil
        /// in states saved before it was kept, read as none since).
        public var magnetometerInterval: ReadingInterval?
        /// What the last update did with the sensors.
        public var use = SensorUse()
        /// Rest detector state.
        public var rest: RestDetector
        /// Rest and offset judgement, and the initial offset the bias is bounded around.
        public var restBias: RestBiasJudge
        /// On-line magnetometer calibration.
        public var magnetometerCalibration: MagnetometerSelfCalibration
        /// Mean rate over each step (bridges lost samples).
        public var integrator = GyroscopeIntegrator()
        /// Sensor noise measured while still.
        public var noise = NoiseEstimator()
    }

    /// The integral of a rest's departure from the bias estimate (``State/restDeparture``).
    public struct RestDeparture: Sendable, Codable {
        /// Departure integrated per axis, rad.
        public var angle = Vector3.zero
        /// Time integrated over, s.
        public var time = 0.0
    }

    /// Error-state estimate accumulated by the sequential scalar updates of one sample.
    struct Correction {
        var theta = Vector3.zero
        var bias = Vector3.zero
    }

    /// Tuning in use.
    public let parameters: Parameters
    /// The state.
    public var state: State
    /// Heading variance limit, rad² (from ``Parameters/maximumHeadingUncertainty``).
    let maximumHeadingVariance: Double
    /// Whether the filter's parameters model the 6D low-pass delay (``State/accelerationDelay``;
    /// never in 9D). Checked before the model: every look at the optional model copies it, which
    /// cost the 9D EKF about 130 instructions a sample where the model is always nil. A model in a
    /// state restored from a filter with other parameters is not used.
    var modelsDelay: Bool {
        parameters.modelsAccelerationDelay && parameters.mode == .sixD && parameters.accelerationFilterTime > 0
    }

    /// Creates the filter.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        maximumHeadingVariance = parameters.maximumHeadingUncertainty * parameters.maximumHeadingUncertainty
        state = State(
            rest: RestDetector(parameters: parameters.rest), restBias: RestBiasJudge(parameters: parameters.restBias),
            magnetometerCalibration: MagnetometerSelfCalibration(parameters: parameters.magnetometerCalibration))
        state.accelerationLowPass.cutoff =
            parameters.accelerationFilterTime > 0 ? 1 / (2 * .pi * parameters.accelerationFilterTime) : .infinity
        if modelsDelay {
            state.accelerationDelay = AccelerationDelay(cutoff: state.accelerationLowPass.cutoff)
        }
        state.fieldNorm = parameters.expectedFieldNorm
        state.fieldDip = parameters.expectedDip
    }

    /// Current attitude.
    public var attitude: Quaternion { state.attitude }
    /// Gyroscope bias estimate.
    public var gyroscopeBias: Vector3 { state.bias }

    /// Makes the filter one for the same recording run backwards in time (samples in reverse
    /// order, gyroscope negated), from where it stands: the bias, its correlation with the attitude,
    /// the rest judge's offset and the integrator's last rate negated; the current still stretch
    /// forgotten. (The earth-frame specific-force low-pass keeps its state: its derivative's sign
    /// is a second-order matter over its 2 s.)
    public mutating func reverseTime() {
        state.bias = state.bias * -1
        state.pqb = state.pqb * -1
        state.rest.reset()
        state.restDeparture = nil
        state.restBias.reverseTime()
        state.integrator.reverseTime()
        state.accelerationDelay?.reverseTime()
        state.accelerationDepartureTime = 0
    }

    /// The on-line magnetometer calibration (9D).
    public var magnetometerSelfCalibration: MagnetometerSelfCalibration? {
        parameters.mode == .nineD ? state.magnetometerCalibration : nil
    }

    /// Starts with `calibration` (its calibration in use and what it has learnt): the heading is
    /// taken from calibrated readings from the first sample on, so no later calibration sets it
    /// at once (``calibrationChanged(_:)``).
    public mutating func startCalibrated(_ calibration: MagnetometerSelfCalibration) {
        state.magnetometerCalibration.resume(from: calibration)
        state.calibratedHeading = true
    }

    /// Diagnostics of the last update, with the one-sigma attitude and heading uncertainty.
    public var diagnostics: FilterDiagnostics {
        var d = FilterDiagnostics(state.use, initialised: state.initialised)
        d.magnetometerAccuracy = state.magnetometerCalibration.accuracy
        if state.initialised {
            d.attitudeUncertainty = max(0, state.pqq.trace).squareRoot()
            d.headingUncertainty = max(0, state.pqq.row2.z).squareRoot()
        }
        return d
    }

    /// One step.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        let p = parameters
        var mag = p.mode == .nineD ? magnetometer : nil
        var interval = state.magnetometerInterval ?? ReadingInterval()
        let covered = interval.advance(dt, reading: mag != nil, limit: MagnetometerPairing.longestWait)
        state.magnetometerInterval = interval
        if let m = mag {
            // While the magnetometer is rejected the calibration judges what that says of the
            // readings (``MagnetometerSelfCalibration/observe(_:rate:dt:rejected:changedAround:attitude:biasCovariance:)``).
            // Since the field changed during a rest (a device's own iron turns with it, so a change
            // without a turn happened around it), no calibration is taken from the turns.
            if state.magnetometerCalibration.observe(
                m, rate: gyroscope.map { $0 - state.bias }, dt: dt, rejected: state.rejectionTime > 0,
                changedAround: state.fieldChangedAtRest == true,
                attitude: state.initialised ? state.attitude : nil,
                biasCovariance: state.pbb)
            {
                calibrationChanged(m)
            }
            mag = state.magnetometerCalibration.apply(m)
        } else if p.mode == .nineD, let g = gyroscope {
            state.magnetometerCalibration.rotate(rate: g - state.bias, dt: dt)
        }
        state.use = SensorUse()
        if !state.initialised {
            initialise(accelerometer: accelerometer, magnetometer: mag)
            state.use.accelerometerRejected = !state.initialised
            state.use.magnetometerRejected = mag == nil || !state.initialised
            return
        }
        state.rest.update(gyroscope: gyroscope, accelerometer: accelerometer, dt: dt)
        let measured = state.restBias.established
        let verdict = state.restBias.judge(
            rest: state.rest, bias: state.bias,
            biasSigma: Vector3(
                state.pbb.row0.x.squareRoot(), state.pbb.row1.y.squareRoot(), state.pbb.row2.z.squareRoot()),
            magnetometer: mag, dt: dt)
        if case .offset(let b) = verdict { takeOffset(b, magnetometer: mag) }
        state.use.atRest = verdict == .rest
        if !state.use.atRest {
            state.restDeparture = nil
        } else if p.mode == .sixD && measured && state.restDeparture == nil
            && state.rest.stillTime < p.rest.minimumDuration + dt
        {
            // A rest that begins a still stretch after an earlier one measured the bias; in 6D
            // only (in 9D the field shows the vertical bias in motion, and a slow turn taken for a
            // rest would be learnt against it).
            state.restDeparture = RestDeparture()
        }
        if state.use.atRest && !measured && !state.headingReferenced { widenVerticalBiasForFirstRest() }
        if modelsDelay && state.restBias.established && state.accelerationDelay != nil {
            // What a rest leaves of the bias error turns the attitude over the low-pass's time by
            // less than what the delay model leaves out in motion (the rate's scale and alignment
            // errors, accelerations the low-pass has not averaged out), which it would teach the
            // bias and, through it, the heading (BROAD 6D half A 2.239 → 2.729 with the model
            // kept on). The rest ends it: there the force is not low-passed, and the bias is
            // measured directly.
            state.accelerationDelay = nil
        }
        if state.rest.still, let g = gyroscope, let a = accelerometer {
            state.noise.update(gyroscope: g, accelerometer: a, rest: state.rest, dt: dt, p.noise)
        }
        if let g = gyroscope, dt > 0 {
            propagate(state.integrator.meanRate(g, dt: dt, p.integration), dt)
        } else if gyroscope == nil, dt > 0 {
            state.integrator.interrupt()
            // Blind step: the attitude is unknown to within the assumed rate times the time.
            let grow = p.missingRateUncertainty * p.missingRateUncertainty * dt
            state.pqq.row0.x += grow
            state.pqq.row1.y += grow
            state.pqq.row2.z = min(maximumHeadingVariance, state.pqq.row2.z + grow)
        }
        if let g = gyroscope { state.lastRate = (g - state.bias).norm }
        if let judged = state.realignHeading, state.use.atRest, state.restBias.upAxisSteady,
            state.accelerometerRejectionTime == 0, let m = mag,
            max(state.pqq.row0.x, state.pqq.row1.y) <= p.initialTiltUncertainty * p.initialTiltUncertainty
        {
            // At rest, with the force fixed in the sensor since the stretch began and accepted, the
            // force shows the true up: a reading of the reference's strength (which no tilt
            // changes) whose dip departs from the reference's against it shows a reference learnt
            // through the wrong tilt. A strength that departs too, or a field that changed during
            // the rest, is a disturbance around the device (a magnet), which sets no heading. The
            // first such rest ends the question either way.
            if judged && !strengthDeparts(m) && state.fieldChangedAtRest != true
                && departsFromField(m, up: state.rest.accelerometerSmoothed)
            {
                state.headingReferenced = false
            }
            state.realignHeading = nil
        }
        if let m = mag, !state.headingReferenced { alignHeading(m) }
        let step = max(dt, p.minimumCorrectionStep)
        var correction = Correction()
        if let a = accelerometer { correctTilt(a, step, rawDt: dt, &correction) }
        if let m = mag, let raw = magnetometer {
            correctHeading(m, max(covered ?? dt, p.minimumCorrectionStep), &correction)
            noteFieldAtRest(raw)
        }
        if state.use.atRest {
            correctBiasAtRest(step, &correction)
        } else if state.restBias.established {
            limitMotionBias(&correction, step)
        }
        let before = state.attitude
        inject(correction)
        if let m = mag, state.accelerationLowPass.warmingUp, state.fieldDip.isFinite {
            // While the tilt is still being found (the accelerometer's low-pass warming up in
            // motion), a tilt correction changes the dip the readings show by as much: the
            // reference dip moves with it (learnt at a first reading in motion, 13–38° of tilt
            // off, it rejected the readings of the true tilt for tens of seconds).
            let (a, b) = (state.attitude.rotate(m), before.rotate(m))
            state.fieldDip += VectorAttitude.dip(earth: a) - VectorAttitude.dip(earth: b)
            // And the azimuth it shows, against which the next reading's is checked.
            if state.fieldAzimuth.isFinite {
                state.fieldAzimuth = (state.fieldAzimuth + Double.atan2(a.x, a.y) - Double.atan2(b.x, b.y)).wrappedToPi
            }
        }
    }

    /// Without a magnetometer referencing the heading (6D), a first rest is the one measurement of
    /// the bias along the vertical (gravity shows the horizontal components through the tilt too,
    /// a magnetometer the vertical one through the heading), so its reading is not pulled towards
    /// the prior's mean (zero, or what was taught in motion): the bias variance along the sensor's
    /// up axis becomes at least the square of the bound the rest judge allows
    /// (``RestBiasJudge/Parameters/biasClip``). Kept at the prior's
    /// ``Parameters/initialBiasUncertainty`` (0.5 °/s), a rest of 0.5 s after the 1.5 s the
    /// detector waits took 5–10 % less than the vertical bias it measured, and the heading drifted
    /// by the rest.
    ///
    /// The wider variance is added as if it had held since the still stretch began: a bias along
    /// up integrated over that time turned the heading, so the heading's variance and its
    /// correlation with that bias grow with it (a rank-one addition, `Δ·w·wᵀ` with
    /// `w = (−t·ẑ, up)`), and the rest's reading then turns back the heading the bias turned.
    mutating func widenVerticalBiasForFirstRest() {
        let up = state.attitude.inverseRotate(.unitZ)
        let v = parameters.restBias.biasClip * parameters.restBias.biasClip
        let along = up.dot(state.pbb * up)
        guard along < v else { return }
        let added = v - along
        let t = state.rest.stillTime
        state.pbb += Matrix3.outer(up, up) * added
        state.pqb.row2 -= up * (added * t)
        state.pqq.row2.z += added * t * t
    }

    /// The gyroscope reads an offset far beyond a bias (``RestBiasJudge``): take it as the bias, as
    /// uncertain as a fresh start. The device has been still, so the attitude starts again from the
    /// accelerometer (and magnetometer); without one the heading turned by the offset over the
    /// still stretch is turned back. A magnetometer reading that departs from the learnt field (a
    /// disturbed field, a magnet brought near) sets no heading: the heading is turned back as
    /// without one, stays referenced, and is as uncertain as it was plus the turn undone. Departing
    /// means a strength unlike the reference's, or a field that changed during the rest, or a dip
    /// unlike the reference's while the offset turned the attitude by less than
    /// ``unverifiableSpin`` over the still stretch; after a larger turn the reference dip, learnt
    /// through that attitude or moved with its tilt corrections while the low-pass warmed up, is no
    /// evidence (a gyroscope reading −9 rad/s per axis left the heading 147° off for a whole
    /// minute, every reading rejected against that dip), and the reading sets the heading and the
    /// reference again.
    mutating func takeOffset(_ b: Vector3, magnetometer: Vector3?) {
        let unturn = -state.attitude.rotate(b - state.bias).z * state.rest.stillTime
        // How far the offset turned the attitude over the still stretch, through which the
        // reference dip may have been learnt or moved.
        let spin = (b - state.bias).norm * state.rest.stillTime
        let disturbed =
            magnetometer.map {
                state.fieldChangedAtRest == true || strengthDeparts($0)
                    || (spin < Self.unverifiableSpin && departsFromField($0, up: state.rest.accelerometerSmoothed))
            } ?? false
        let (referenced, headingVariance) = (state.headingReferenced, state.pqq.row2.z)
        state.bias = b
        state.pqb = .zero
        state.pbb = Matrix3.diagonal(parameters.initialBiasUncertainty * parameters.initialBiasUncertainty)
        let field = disturbed ? nil : magnetometer
        initialise(accelerometer: state.rest.accelerometerSmoothed, magnetometer: field)
        if field == nil { state.attitude = Quaternion(axis: .unitZ, angle: unturn) * state.attitude }
        if disturbed && state.initialised {
            state.headingReferenced = referenced
            state.pqq.row2.z = min(maximumHeadingVariance, headingVariance + unturn * unturn)
        }
        state.accelerationLowPass.reset()
        state.accelerationDelay?.reset()
    }

    /// The turn of the attitude by a gyroscope offset, rad, beyond which a reference dip learnt
    /// through it is no evidence against a reading (``takeOffset(_:magnetometer:)``): half a turn,
    /// after which the attitude could be anything. Below it the dip still tells a magnet brought
    /// near at the first rest (a hostile review's 3–70 °/s offsets with a magnet tilting the field
    /// by 10–60° at unchanged strength: with no dip check 1 194 of 6 400 traces got worse, up to
    /// 134°; with this bound, of the traces that change moved, 42, all of them 500 °/s offsets on
    /// top of an uncalibrated hard iron or a magnet, against 349 better).
    static let unverifiableSpin = Double.pi

    mutating func initialise(accelerometer: Vector3?, magnetometer: Vector3?) {
        guard let a = accelerometer else { return }
        let p = parameters
        var headingVariance = p.unreferencedHeadingUncertainty * p.unreferencedHeadingUncertainty
        state.headingReferenced = false
        // A first force far from gravity's strength (a fall, an impact) shows no tilt.
        state.realignHeading = abs(a.norm - standardGravity) > p.accelerationTolerance ? false : nil
        if let m = magnetometer, let q = VectorAttitude.compass(accelerometer: a, magnetometer: m) {
            state.attitude = q
            learnReferenceField(m)
            state.headingReferenced = true
            headingVariance = p.initialHeadingUncertainty * p.initialHeadingUncertainty
        } else if let q = VectorAttitude.tilt(accelerometer: a) {
            // Keep the heading of the current attitude (it is arbitrary at first in 6D).
            state.attitude = state.pqq.trace > 0 ? q.withHeading(of: state.attitude) : q
        } else {
            return
        }
        let tilt = p.initialTiltUncertainty * p.initialTiltUncertainty
        state.pqq = Matrix3(Vector3(tilt, 0, 0), Vector3(0, tilt, 0), Vector3(0, 0, headingVariance))
        state.pqb = .zero
        if state.pbb.trace == 0 { state.pbb = Matrix3.diagonal(p.initialBiasUncertainty * p.initialBiasUncertainty) }
        state.initialised = true
        state.rejectionTime = 0
        state.accelerometerRejectionTime = 0
        state.accelerationDepartureTime = 0
    }

    /// Squared gyroscope noise density in use: the parameter, or the measured density when larger.
    var gyroscopeNoiseSquared: Double {
        max(parameters.gyroscopeNoise * parameters.gyroscopeNoise, state.noise.gyroscopeDensitySquared.finiteOrZero)
    }

    /// Squared accelerometer direction noise density in use, rad²·s: the parameter, or the measured
    /// accelerometer density over g when larger.
    var accelerometerNoiseSquared: Double {
        max(
            parameters.accelerometerNoise * parameters.accelerometerNoise,
            state.noise.accelerometerDensitySquared.finiteOrZero / (standardGravity * standardGravity))
    }

    mutating func propagate(_ g: Vector3, _ dt: Double) {
        let p = parameters
        let omega = g - state.bias
        state.attitude = state.attitude * Quaternion(rotationVector: omega * dt)
        // δθ' = δθ − R dt δb: G = −R dt.
        let gm = Matrix3(state.attitude) * (-dt)
        if modelsDelay { state.accelerationDelay?.integrate(gm * -1) }
        let gmT = gm.transposed
        let rateTerm = p.rateScaleUncertainty * p.rateScaleUncertainty * omega.squaredNorm
        let qTheta = (gyroscopeNoiseSquared + rateTerm) * dt
        let gPbb = gm * state.pbb
        let gPbq = gm * state.pqb.transposed
        var pqq = state.pqq + gPbq + gPbq.transposed + gPbb * gmT
        pqq.row0.x += qTheta
        pqq.row1.y += qTheta
        pqq.row2.z += qTheta
        state.pqq = pqq.symmetrized
        state.pqb = state.pqb + gPbb
        let walk = p.mode == .nineD ? p.biasRandomWalk : p.sixDBiasRandomWalk
        let qb = walk * walk * dt
        state.pbb.row0.x += qb
        state.pbb.row1.y += qb
        state.pbb.row2.z += qb
        // Keep the unobserved heading variance bounded (6D, long disturbances).
        if state.pqq.row2.z > maximumHeadingVariance {
            let s = (maximumHeadingVariance / state.pqq.row2.z).squareRoot()
            state.pqq.row2 = state.pqq.row2 * s
            state.pqq.row0.z *= s
            state.pqq.row1.z *= s
            state.pqb.row2 = state.pqb.row2 * s
        }
    }

    /// Scalar update measuring one component of the gyroscope bias (`h = (0, e_axis)`, innovation
    /// `nu` before subtracting the accumulated estimate, noise variance `r`): `P hᵀ` is the bias
    /// column of the covariance, so no products are needed. For a finite covariance and correction
    /// these are the general update's values with that measurement row to the bit (its products
    /// with exact zeros and ones change nothing); a non-finite covariance made the general update
    /// skip (0·∞ is NaN), where this one updates from the bias column.
    @inline(__always)
    mutating func biasUpdate(axis: Int, nu: Double, r: Double, _ c: inout Correction) {
        let u1 = Vector3(state.pqb[0, axis], state.pqb[1, axis], state.pqb[2, axis])
        let u2 = Vector3(state.pbb[0, axis], state.pbb[1, axis], state.pbb[2, axis])
        let s = u2[axis] + r
        guard s > 0, s.isFinite else { return }
        let innovation = nu - c.bias[axis]
        let inv = 1 / s
        c.theta += u1 * (innovation * inv)
        c.bias += u2 * (innovation * inv)
        state.pqq -= Matrix3.outer(u1, u1) * inv
        state.pqb -= Matrix3.outer(u1, u2) * inv
        state.pbb -= Matrix3.outer(u2, u2) * inv
    }

    /// Scalar update measuring one component of the attitude error (`h = e_axis`), exploiting the
    /// unit measurement row: `P hᵀ` is a column of the covariance, no products needed. Unless it
    /// `teachesBias`, the bias is held (``HorizontalFieldDeviation``).
    @inline(__always)
    mutating func attitudeUpdate(
        axis: Int, nu: Double, r: Double, teachesBias: Bool = true, _ c: inout Correction
    ) {
        let u1 = Vector3(state.pqq[0, axis], state.pqq[1, axis], state.pqq[2, axis])
        let u2 = axis == 0 ? state.pqb.row0 : (axis == 1 ? state.pqb.row1 : state.pqb.row2)
        let s = u1[axis] + r
        guard s > 0, s.isFinite else { return }
        scalarUpdate(u1, u2, innovation: nu - c.theta[axis], inverse: 1 / s, teachesBias: teachesBias, &c)
    }

    /// The gain step of a scalar update whose `P hᵀ` is `(u1, u2)` (attitude and bias parts), with
    /// the innovation less the correction so far and the inverse of its variance: the correction
    /// moves along `P hᵀ`, and the covariance loses `P hᵀ (P hᵀ)ᵀ / s`. Unless it `teachesBias`,
    /// the bias is held (a consider update): the attitude takes its own gain, its covariance with
    /// the bias shrinks with it, and the bias and its covariance stay.
    @inline(__always)
    mutating func scalarUpdate(
        _ u1: Vector3, _ u2: Vector3, innovation: Double, inverse inv: Double, teachesBias: Bool = true,
        _ c: inout Correction
    ) {
        let k = innovation * inv
        c.theta += u1 * k
        let a = u1 * inv
        state.pqq -= Matrix3.outer(a, u1)
        state.pqb -= Matrix3.outer(a, u2)
        guard teachesBias else { return }
        c.bias += u2 * k
        state.pbb -= Matrix3.outer(u2 * inv, u2)
    }

    /// Once a rest (or a proven offset) has measured the bias, a correction in motion changes it by at most
    /// ``Parameters/motionBiasRate`` per second, plus the share of the gyroscope's scale error the
    /// bias state carries (``RestBiasJudge/Parameters/scaleTolerance`` of the rate) per
    /// ``Parameters/motionBiasScaleTime``. A bias drifts slowly; what moves it faster in motion is
    /// an acceleration read as tilt (a vehicle speeding up pitched the force by 14° over 3 s and
    /// taught a bias 0.8 °/s off). In 6D each axis is limited; in 9D only the length of the part
    /// across the vertical: the field observes the vertical part, which an acceleration does not
    /// reach. While the field's heading does not teach the bias (``HorizontalFieldDeviation``),
    /// nothing observes the vertical part in motion, and each axis is limited as in 6D (with the
    /// heading held and no limit, a car in a 4.8 °/s bend learnt 0.9 °/s about the vertical from
    /// the bend's force within 10 s).
    func limitMotionBias(_ c: inout Correction, _ dt: Double) {
        let p = parameters
        let limit =
            (p.motionBiasRate + state.restBias.parameters.scaleTolerance * state.lastRate / p.motionBiasScaleTime) * dt
        // Most corrections are within the limit on every axis and across the vertical alike.
        guard c.bias.squaredNorm > limit * limit else { return }
        if p.mode == .nineD && state.horizontalDeviation?.teachesBias != false {
            let up = state.attitude.conjugate.rotate(Vector3(0, 0, 1))
            let v = up * c.bias.dot(up)
            let h = c.bias - v
            let hn = h.norm
            c.bias = v + (hn > limit ? h * (limit / hn) : h)
            return
        }
        c.bias = Vector3(
            min(limit, max(-limit, c.bias.x)), min(limit, max(-limit, c.bias.y)), min(limit, max(-limit, c.bias.z)))
    }

    mutating func inject(_ c: Correction) {
        if c.theta.squaredNorm > 0 {
            let turn = Quaternion(rotationVector: c.theta)
            state.attitude = turn * state.attitude
            // The filtered specific force is expressed in the estimated earth frame: turn it along.
            state.accelerationLowPass.rotate(by: turn)
        }
        let bias = state.restBias.clip(state.bias + c.bias)
        if modelsDelay, let d = state.accelerationDelay?.rows, bias != state.bias {
            // The past the low-pass holds was integrated with the earlier bias: with the new one
            // its attitudes differ by the bias change integrated from each to now.
            let change = bias - state.bias
            let past = Vector3(d.x.dot(change), d.y.dot(change), 0)
            state.accelerationLowPass.rotate(by: Quaternion(rotationVector: past))
        }
        if modelsDelay && state.accelerationDelay != nil && bias != state.bias + c.bias {
            // The bound held the bias where the model's correction would have taken it: the tilt
            // errors the model then explains by the bias are something else (a bias beyond the
            // bound, scale errors), and it would keep pushing there. It ends, as at a rest.
            state.accelerationDelay = nil
        }
        state.bias = bias
        state.attitude = state.attitude.renormalized
        state.pqq = state.pqq.symmetrized
        state.pbb = state.pbb.symmetrized
    }

    /// Re-initialise the attitude from the next accelerometer sample, keeping the bias.
    public mutating func reinitialise() {
        state.initialised = false
        state.integrator.interrupt()
        state.magnetometerInterval = ReadingInterval()
        state.accelerationLowPass.reset()
        state.accelerationDelay?.reset()
        state.rest.reset()
        state.restBias.interrupt()
    }
}

extension Double {
    /// The value, or 0 when not finite.
    var finiteOrZero: Double { isFinite ? self : 0 }
}
