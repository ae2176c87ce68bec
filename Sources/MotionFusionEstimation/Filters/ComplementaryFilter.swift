/// A quaternion complementary filter with gyroscope-bias estimation.
///
/// The gyroscope is integrated; then the attitude is turned a fraction `dt/τ` of the way towards
/// the accelerometer's up direction (an earth-frame tilt correction that never touches heading),
/// and in 9D a fraction towards magnetic north about the vertical only (a heading correction that
/// never touches tilt). The corrections also feed an integral bias estimate, and at rest the bias
/// follows the low-passed gyroscope directly; rest is judged in physical units (``RestBiasJudge``),
/// so a steady turn is never taken for a bias, a proven gyroscope offset is taken at once, and the
/// bias stays within a physical bound of it. Accelerometer samples far from 1 g and magnetometer
/// samples far from the learnt field strength and dip are skipped; the field strength is learnt,
/// so the magnetometer's units do not matter. The first magnetometer sample after a start without
/// one sets the heading at once.
public struct ComplementaryFilter: AttitudeFilter {
    /// Tuning; every time constant is in seconds and independent of the sample rate.
    public struct Parameters: FilterParameters {
        /// Tilt correction time constant, s. Default 2.
        public var accelerometerTime = 2.0
        /// Heading correction time constant, s. Default 6.
        public var magnetometerTime = 6.0
        /// Integral bias time constant, s (0 disables). Default 40.
        public var biasTime = 40.0
        /// Corrections implying a rate error above this (rad/s) do not feed the bias. Default 0.05.
        public var maximumBiasCorrection = 0.05
        /// Largest accepted deviation of the low-passed specific force from 1 g, m/s². Default 1.5.
        public var accelerationRejection = 1.5
        /// Time constant of the earth-frame low-pass applied to the specific force before the tilt
        /// correction, s (0 disables). Default 1.
        public var accelerationFilterTime = 1.0
        /// Largest accepted relative deviation of |mag| from the learnt norm. Default 0.1.
        public var fieldNormRejection = 0.1
        /// Largest accepted deviation of the dip from the learnt dip, rad. Default 8°.
        public var dipRejection = 8.0.radians
        /// Time constant with which the learnt field strength and dip follow slow changes, s. Default 60.
        public var fieldTrackingTime = 60.0
        /// Time constant with which the bias follows the low-passed gyroscope at rest, s; until a
        /// rest has measured the bias, it is the mean of that rate since the rest began. Default 1.
        public var restBiasTime = 1.0
        /// 6D or 9D. Default 9D.
        public var mode = FusionMode.nineD
        /// Rest detection used for bias estimation.
        public var rest = RestDetector.Parameters()
        /// What a still stretch says about the bias: rest, a steady turn, or an initial offset; and
        /// the bound on the bias.
        public var restBias = RestBiasJudge.Parameters()
        /// On-line hard- and soft-iron calibration of the magnetometer (9D).
        public var magnetometerCalibration = MagnetometerSelfCalibration.Parameters()
        /// Gyroscope integration across irregular steps and lost samples.
        public var integration = GyroscopeIntegrator.Parameters()
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "accelerometerTime": .timeConstant, "magnetometerTime": .timeConstant, "biasTime": .duration,
            "maximumBiasCorrection": .rate, "accelerationRejection": .above(0, upTo: 100),
            "accelerationFilterTime": .duration, "fieldNormRejection": .above(0, upTo: 10), "dipRejection": .angle,
            "fieldTrackingTime": .timeConstant, "restBiasTime": .timeConstant,
        ].adding(
            part("rest", RestDetector.Parameters.self), part("restBias", RestBiasJudge.Parameters.self),
            part("magnetometerCalibration", MagnetometerSelfCalibration.Parameters.self),
            part("integration", GyroscopeIntegrator.Parameters.self))
        /// Default parameters.
        public init() {}
    }

    /// The evolving state.
    public struct State: Sendable, Codable {
        /// Attitude, ENU from sensor.
        public var attitude = Quaternion.identity
        /// Gyroscope bias estimate, rad/s.
        public var bias = Vector3.zero
        /// Learnt field strength (µT, or the file's units) and dip (rad), or NaN until learnt.
        public var fieldNorm = Double.nan, fieldDip = Double.nan
        /// Rest detector.
        public var rest: RestDetector
        /// How far the bias may still be from the truth, rad/s: the bias clip over the rest gate at
        /// first, shrinking as the bias follows the rate at rest.
        public var biasSigma: Double
        /// Rest and offset judgement, and the initial offset the bias is bounded around.
        public var restBias: RestBiasJudge
        /// On-line magnetometer calibration.
        public var magnetometerCalibration: MagnetometerSelfCalibration
        /// Earth-frame low-pass of the specific force.
        public var accelerationLowPass: ButterworthLowPass
        /// Mean rate over each step (bridges lost samples).
        public var integrator = GyroscopeIntegrator()
        /// Whether the attitude has been initialised.
        public var initialised = false
        /// Whether a magnetometer sample has set the heading since the attitude was initialised.
        public var headingReferenced = false
        /// Time since the last magnetometer reading: the time a reading's heading correction
        /// covers, at most ``MagnetometerPairing/longestWait`` (nil in states saved before it was
        /// kept, read as none since).
        public var magnetometerInterval: ReadingInterval?
        /// What the last update did with the sensors.
        public var use = SensorUse()
        /// Time since the attitude was initialised from a first reading in motion with no field
        /// reference learnt yet, s, counted up to three ``Parameters/accelerometerTime`` (nil after
        /// a still first reading, after a re-initialisation that keeps a reference, and in states
        /// saved before it was kept).
        public var sinceStart: Double?
        /// How far the strength of the readings used swings as an iron across the vertical makes
        /// it: while it does, heading corrections leave the bias alone (nil until the first
        /// reading used, and in states saved before it was kept).
        public var horizontalDeviation: HorizontalFieldDeviation?
    }

    /// Tuning in use.
    public let parameters: Parameters
    /// The state.
    public var state: State

    /// Creates the filter.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        state = State(
            rest: RestDetector(parameters: parameters.rest),
            biasSigma: parameters.restBias.biasClip / parameters.restBias.gate,
            restBias: RestBiasJudge(parameters: parameters.restBias),
            magnetometerCalibration: MagnetometerSelfCalibration(parameters: parameters.magnetometerCalibration),
            accelerationLowPass: ButterworthLowPass(
                cutoff: 1 / (2 * .pi * max(parameters.accelerationFilterTime, 1e-3))))
    }

    /// Current attitude.
    public var attitude: Quaternion { state.attitude }
    /// Gyroscope bias estimate, rad/s.
    public var gyroscopeBias: Vector3 { state.bias }
    /// The on-line magnetometer calibration (9D).
    public var magnetometerSelfCalibration: MagnetometerSelfCalibration? {
        parameters.mode == .nineD ? state.magnetometerCalibration : nil
    }

    /// A new calibration (at the raw reading `m`): learn the field strength and dip, and the
    /// strength's swing (``HorizontalFieldDeviation``), again from calibrated readings, and let a
    /// large correction set the heading at once when the calibrated reading puts north more than
    /// 30° from where the heading has it (closer, the heading corrections converge on it over many
    /// readings, where one reading taken in fast motion could set it several degrees off).
    mutating func calibrationChanged(_ m: Vector3) {
        state.fieldNorm = .nan
        state.horizontalDeviation?.recalibrated()
        let c = state.magnetometerCalibration
        let mE = state.attitude.rotate(c.apply(m))
        if c.hardIron.norm > 0.1 * c.strength && abs(Double.atan2(mE.x, mE.y)) > 30.0.radians {
            state.headingReferenced = false
        }
    }

    /// Starts with `calibration` (its calibration in use and what it has learnt).
    public mutating func startCalibrated(_ calibration: MagnetometerSelfCalibration) {
        state.magnetometerCalibration.resume(from: calibration)
    }

    /// Diagnostics of the last update.
    public var diagnostics: FilterDiagnostics {
        var d = FilterDiagnostics(state.use, initialised: state.initialised)
        d.magnetometerAccuracy = state.magnetometerCalibration.accuracy
        return d
    }

    /// One step.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        let p = parameters
        var mag = p.mode == .nineD ? magnetometer : nil
        var interval = state.magnetometerInterval ?? ReadingInterval()
        let covered = interval.advance(dt, reading: mag != nil, limit: MagnetometerPairing.longestWait) ?? dt
        state.magnetometerInterval = interval
        if let m = mag {
            // The bias is known once a rest has measured it: this filter keeps no covariance, so a
            // zero one stands for that (nil, before: unknown).
            let attitude = state.initialised ? state.attitude : nil
            if state.magnetometerCalibration.observe(
                m, rate: gyroscope.map { $0 - state.bias }, dt: dt, attitude: attitude,
                biasCovariance: state.restBias.established ? .zero : nil)
            {
                calibrationChanged(m)
            }
            mag = state.magnetometerCalibration.apply(m)
        } else if p.mode == .nineD, let g = gyroscope {
            state.magnetometerCalibration.rotate(rate: g - state.bias, dt: dt)
        }
        state.use = SensorUse()
        if !state.initialised {
            guard let start = VectorAttitude.initial(accelerometer: accelerometer, magnetometer: mag) else { return }
            state.attitude = start.attitude
            state.headingReferenced = start.headingReferenced
            state.initialised = true
            // A first reading in motion leaves the tilt to be found (a still one gives it), and the
            // reference about to be learnt through it. A reference kept from before (a gap
            // re-initialises) was learnt through the tilt of its time: it does not follow.
            let still = accelerometer.map { VectorAttitude.readsStill(rate: gyroscope?.norm ?? 0, force: $0) } ?? false
            state.sinceStart = still || state.fieldNorm.isFinite ? nil : 0
            return
        }
        // The first readings' tilt converges over a few `accelerometerTime` from the start.
        let findingTilt = (state.sinceStart ?? .infinity) < 3 * p.accelerometerTime
        if findingTilt { state.sinceStart! += max(0, dt) }
        state.rest.update(gyroscope: gyroscope, accelerometer: accelerometer, dt: dt)
        let verdict = state.restBias.judge(
            rest: state.rest, bias: state.bias, biasSigma: Vector3(state.biasSigma, state.biasSigma, state.biasSigma),
            magnetometer: mag, dt: dt)
        if case .offset(let b) = verdict {
            // A proven offset: the device has been still, so the attitude starts again from the
            // accelerometer (and magnetometer), or keeps its heading turned back by the offset.
            let unturn = -state.attitude.rotate(b - state.bias).z * state.rest.stillTime
            state.bias = b
            state.biasSigma = p.restBias.biasClip / p.restBias.gate
            if let start = VectorAttitude.initial(accelerometer: state.rest.accelerometerSmoothed, magnetometer: mag) {
                state.headingReferenced = start.headingReferenced
                state.attitude =
                    start.headingReferenced
                    ? start.attitude
                    : Quaternion(axis: .unitZ, angle: unturn) * start.attitude.withHeading(of: state.attitude)
                state.accelerationLowPass.reset()
            }
        }
        let atRest = verdict == .rest
        state.use.atRest = atRest
        if let g = gyroscope, dt > 0 {
            let rate = state.integrator.meanRate(g, dt: dt, p.integration)
            state.attitude = state.attitude * Quaternion(rotationVector: (rate - state.bias) * dt)
        } else if gyroscope == nil {
            state.integrator.interrupt()
        }
        if let m = mag, !state.headingReferenced,
            let q = VectorAttitude.headingAligned(state.attitude, magnetometer: m)
        {
            // The first magnetometer sample after a start without one sets the heading at once.
            state.accelerationLowPass.rotate(by: (q * state.attitude.conjugate).normalized)
            state.attitude = q
            state.headingReferenced = true
            state.fieldNorm = .nan
        }
        var correction = Vector3.zero
        // Whether the heading's part of the correction may teach the bias (the magnetometer's).
        var headingTeachesBias = true
        var filtered: Vector3?
        if let a = accelerometer {
            // In a proven steady turn the steady specific force across the axis is centripetal.
            let tilt = state.restBias.tiltSpecificForce(a, rest: state.rest, bias: state.bias)
            state.use.centripetal = a - tilt
            let fE = state.attitude.rotate(tilt)
            if state.accelerationLowPass.warmingUp,
                VectorAttitude.readsStill(rate: gyroscope.map { ($0 - state.bias).norm } ?? 0, force: tilt)
            {
                state.accelerationLowPass.endWarmUp()
            }
            filtered = p.accelerationFilterTime > 0 ? state.accelerationLowPass.update(fE, dt: dt) : fE
        }
        if let fE = filtered, abs(fE.norm - standardGravity) < p.accelerationRejection, let up = fE.normalized {
            // Earth-frame rotation taking the measured up to +z: axis up × z, angle ≈ |up × z|.
            let axis = Vector3(up.y, -up.x, 0)
            let angle = Double.atan2(axis.norm, up.z)
            let s = axis.norm > 1e-12 ? angle / axis.norm : 0
            correction += axis * (s * firstOrderSmoothing(dt, time: p.accelerometerTime))
            state.use.accelerometerRejected = false
        }
        if let m = mag {
            let mE = state.attitude.rotate(m)
            let horizontal = (mE.x * mE.x + mE.y * mE.y).squareRoot()
            let norm = m.norm
            let dip = Double.atan2(-mE.z, horizontal)
            if !state.fieldNorm.isFinite {
                state.fieldNorm = norm
                state.fieldDip = dip
            }
            var departure = FieldDeparture()
            if !(abs(norm - state.fieldNorm) < p.fieldNormRejection * state.fieldNorm) { departure.insert(.strength) }
            if !(abs(dip - state.fieldDip) < p.dipRejection) { departure.insert(.dip) }
            state.use.fieldDeparture = departure
            if horizontal > 0 && departure.isEmpty {
                // Heading error: azimuth of the field, which should point to +y (north).
                let psi = Double.atan2(mE.x, mE.y)
                correction.z += psi * firstOrderSmoothing(covered, time: p.magnetometerTime)
                state.use.magnetometerRejected = false
                headingTeachesBias = HorizontalFieldDeviation.headingTeachesBias(
                    &state.horizontalDeviation, squaredStrength: m.squaredNorm, horizontal: horizontal,
                    dt: covered, biasMeasured: state.restBias.established)
                // Track slow changes of the reference field.
                let k = firstOrderSmoothing(covered, time: p.fieldTrackingTime)
                state.fieldNorm += (norm - state.fieldNorm) * k
                state.fieldDip += (dip - state.fieldDip) * k
            }
        }
        if correction.squaredNorm > 0 {
            let turn = Quaternion(rotationVector: correction)
            let before = state.attitude
            state.attitude = turn * state.attitude
            if let m = mag, state.fieldDip.isFinite,
                state.accelerationLowPass.warmingUp || findingTilt
            {
                // While the tilt is still being found (the low-pass warming up in motion, and the
                // tilt converging over `accelerometerTime` after it), a tilt correction changes the
                // dip the readings show by as much: the reference moves with it (learnt at a first
                // reading in motion, it rejected the true tilt's readings).
                state.fieldDip += VectorAttitude.dip(m, state.attitude) - VectorAttitude.dip(m, before)
            }
            state.accelerationLowPass.rotate(by: turn)
            if p.biasTime > 0 && dt > 0 && !atRest {
                // The sensor-frame rate that would have produced the correction is −bias error: the
                // heading's part (the magnetometer's, about the vertical) over the time its reading
                // covers. Large corrections (after a fault or a disturbance) say nothing about the bias.
                // The heading's part is left out while the field's strength swings as an iron
                // across the vertical makes it, after a rest measured the bias
                // (``HorizontalFieldDeviation``).
                let heading = headingTeachesBias ? correction.z * (dt / covered) : 0
                let spread = Vector3(correction.x, correction.y, heading)
                let rateError = state.attitude.inverseRotate(spread) * (1 / dt)
                if rateError.norm < p.maximumBiasCorrection { state.bias -= rateError * min(1, dt / p.biasTime) }
            }
        }
        if atRest {
            // The bias follows the low-passed rate with `restBiasTime`. While no rest has yet
            // measured it (its uncertainty still above half the first), it is the mean of that rate
            // since the rest began instead: a bias learnt in motion says little, and a first rest
            // may be short (2 s before a turn).
            let k = firstOrderSmoothing(dt, time: p.restBiasTime)
            var follow = k
            if state.biasSigma > 0.5 * p.restBias.biasClip / p.restBias.gate {
                let atRestFor = max(dt, state.rest.stillTime - state.rest.parameters.minimumDuration)
                follow = max(k, min(1, dt / atRestFor))
            }
            state.bias += (state.rest.gyroscopeMean - state.bias) * follow
            state.biasSigma *= 1 - k
        }
        state.bias = state.restBias.clip(state.bias)
        state.attitude = state.attitude.renormalized
    }

    /// Re-initialise the attitude from the next accelerometer sample.
    public mutating func reinitialise() {
        state.initialised = false
        state.integrator.interrupt()
        state.magnetometerInterval = ReadingInterval()
        state.rest.reset()
        state.restBias.interrupt()
        state.accelerationLowPass.reset()
    }
}
