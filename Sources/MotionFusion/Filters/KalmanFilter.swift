/// Multiplicative (error-state) extended Kalman filter for attitude and gyroscope bias.
///
/// The nominal state is the attitude `q` (ENU from sensor) and the gyroscope bias `b`. The error
/// state is `(δθ, δb)`, with the attitude error expressed in the earth frame,
/// `q_true = exp(δθ) ⊗ q`: its z component is exactly the heading error and its x, y components the
/// inclination error, so the accelerometer corrects only tilt and the magnetometer only heading.
///
/// - Propagation integrates `ω − b`. The attitude error grows with the gyroscope noise and with a
///   rate-proportional term for scale-factor and misalignment errors; bias errors feed into it
///   through `−R·dt`.
/// - The accelerometer measures the up direction in the earth frame, `R·f/|f|`, whose horizontal
///   components observe the tilt error. Its noise grows with the departure of `|f|` from 1 g, and an
///   innovation gate rejects samples inconsistent with the covariance (acceleration disturbances).
/// - The magnetometer measures the azimuth of the horizontal field, which observes the heading
///   error. A sample whose field strength or dip departs from the learnt reference field is rejected
///   (magnetic disturbance); a new field that stays steady for ``Parameters/newFieldTime`` while the
///   device moves is adopted, and after ``Parameters/maximumRejectionTime`` the current field is.
/// - At rest the low-passed gyroscope observes the bias directly.
///
/// All updates are sequential scalar updates on the 6×6 covariance, held as 3×3 blocks
/// (``Matrix3``) so the per-sample path never allocates.
public struct KalmanFilter: AttitudeFilter {
    /// Tuning; every parameter is in SI units and independent of the sample rate.
    public struct Parameters: Sendable {
        /// Gyroscope white noise density (angle random walk), rad/s/√Hz. Default 0.002.
        public var gyroscopeNoise = 0.002
        /// Relative rate error (scale factor, misalignment), dimensionless; adds `(s·|ω|)²·1 s` to
        /// the attitude error growth rate. Default 0.
        public var rateScaleUncertainty = 0.0
        /// Gyroscope bias random walk, rad/s/√s. Default 0.000003.
        public var biasRandomWalk = 0.000003
        /// Initial bias standard deviation, rad/s. Default 0.5 °/s.
        public var initialBiasUncertainty = 0.5.radians
        /// Accelerometer direction noise density, rad·√s (with the gyroscope noise it sets the tilt
        /// correction time constant at rest, about `accelerometerNoise / gyroscopeNoise`). Default 0.001.
        public var accelerometerNoise = 0.001
        /// Linear acceleration (m/s², RMS over ``accelerationWindow``) that doubles the
        /// accelerometer noise variance: the filter trusts the accelerometer less while the device
        /// translates or shakes. Default 1.
        public var accelerationTolerance = 1.0
        /// Time constant of the linear-acceleration energy estimate, s. Default 0.5.
        public var accelerationWindow = 0.5
        /// Time constant of the second-order low-pass applied to the specific force in the earth
        /// frame before it corrects the tilt, s (cutoff 1/(2π·τ)). Linear accelerations average out
        /// over it because velocity stays bounded. 0 disables. Default 2.
        public var accelerationFilterTime = 2.0
        /// Innovation gate for the accelerometer, in standard deviations (squared Mahalanobis
        /// distance limit is its square). Default 4.
        public var accelerometerGate = 4.0
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
        /// Time a new steady field must persist (while moving) before it is adopted, s. Default 20.
        public var newFieldTime = 20.0
        /// Longest magnetometer rejection before a field that has been steady for
        /// ``shortNewFieldTime`` is adopted, s. Default 60.
        public var maximumRejectionTime = 60.0
        /// Steadiness required after ``maximumRejectionTime``, s. Default 5.
        public var shortNewFieldTime = 5.0
        /// Time the field must look undisturbed again before the magnetometer is used, s. Default 0.5.
        public var minimumUndisturbedTime = 0.5
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
        /// Heading innovations (low-passed over 1 s) beyond this many standard deviations, for more
        /// than a second, widen the heading variance: recovery from gyroscope faults. Default 4.
        public var headingConsistencyGate = 8.0
        /// Bias pseudo-measurement noise density at rest, rad/s·√s. Default 0.002.
        public var restBiasNoise = 0.002
        /// Gravity, m/s². Default 9.81.
        public var gravity = 9.81
        /// 6D or 9D. Default 9D.
        public var mode = FusionMode.nineD
        /// Rest detection.
        public var rest = RestDetector.Parameters()
        /// Default parameters.
        public init() {}
    }

    /// The evolving state; read, set and restore it freely.
    public struct State: Sendable {
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
        /// Time the magnetometer has been rejected, s.
        public var rejectionTime = 0.0
        /// Time the field has looked undisturbed, s.
        public var undisturbedTime = 0.0
        /// Earth-frame low-pass of the specific force.
        public var accelerationLowPass = ButterworthLowPass(cutoff: 1)
        /// Low-passed squared linear acceleration in the earth frame, m²/s⁴.
        public var accelerationEnergy = 0.0
        /// Low-passed heading innovation (rad) and how long it has been inconsistent (s).
        public var headingInnovation = 0.0, headingInconsistentTime = 0.0
        /// Time the accelerometer has been rejected by the gate, s.
        public var accelerometerRejectionTime = 0.0
        /// Whether the attitude has been initialised.
        public var initialised = false
        /// Rest detector state.
        public var rest: RestDetector
    }

    /// Tuning in use.
    public var parameters: Parameters
    /// The state.
    public var state: State
    /// Diagnostics of the last update.
    public private(set) var diagnostics = FilterDiagnostics()
    // Error-state estimate accumulated by the sequential updates of one sample.
    var dTheta = Vector3.zero
    var dBias = Vector3.zero
    var lastRate = 0.0

    /// Creates the filter.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        state = State(rest: RestDetector(parameters: parameters.rest))
        state.accelerationLowPass.cutoff =
            parameters.accelerationFilterTime > 0 ? 1 / (2 * .pi * parameters.accelerationFilterTime) : .infinity
        state.fieldNorm = parameters.expectedFieldNorm
        state.fieldDip = parameters.expectedDip
    }

    /// Current attitude.
    public var attitude: Quaternion { state.attitude }
    /// Gyroscope bias estimate.
    public var gyroscopeBias: Vector3 { state.bias }
    /// Sensors fused.
    public var mode: FusionMode { parameters.mode }

    /// One step.
    public mutating func update(gyroscope: Vector3?, accelerometer: Vector3?, magnetometer: Vector3?, dt: Double) {
        let p = parameters
        let mag = p.mode == .nineD ? magnetometer : nil
        if !state.initialised {
            initialise(accelerometer: accelerometer, magnetometer: mag)
            diagnostics.accelerometerRejected = !state.initialised
            diagnostics.magnetometerRejected = mag == nil || !state.initialised
            return
        }
        state.rest.update(gyroscope: gyroscope, accelerometer: accelerometer, dt: dt)
        diagnostics.atRest = state.rest.atRest
        if let g = gyroscope, dt > 0 {
            propagate(g, dt)
        } else if gyroscope == nil, dt > 0 {
            // Blind step: the attitude is unknown to within the assumed rate times the time.
            let grow = p.missingRateUncertainty * p.missingRateUncertainty * dt
            state.pqq.r0.x += grow
            state.pqq.r1.y += grow
            state.pqq.r2.z = min(4, state.pqq.r2.z + grow)
        }
        if let g = gyroscope { lastRate = (g - state.bias).norm }
        let step = max(dt, 1e-4)
        dTheta = .zero
        dBias = .zero
        diagnostics.accelerometerRejected = true
        if let a = accelerometer { correctTilt(a, step, rawDt: dt) }
        diagnostics.magnetometerRejected = true
        if let m = mag { correctHeading(m, step) }
        if state.rest.atRest { correctBiasAtRest(step) }
        inject()
        diagnostics.attitudeUncertainty = max(0, state.pqq.trace).squareRoot()
        diagnostics.headingUncertainty = max(0, state.pqq.r2.z).squareRoot()
    }

    mutating func initialise(accelerometer: Vector3?, magnetometer: Vector3?) {
        guard let a = accelerometer else { return }
        let p = parameters
        var headingVariance = 1.0
        if let m = magnetometer, let q = VectorAttitude.compass(accelerometer: a, magnetometer: m) {
            state.attitude = q
            let mE = q.rotate(m)
            let dip = Double.atan2(-mE.z, (mE.x * mE.x + mE.y * mE.y).squareRoot())
            // An expected field (World Magnetic Model) that the sensor does not see at the start,
            // indoors, uncalibrated or in arbitrary units, gives way to the measured one.
            if !state.fieldNorm.isFinite || abs(m.norm - state.fieldNorm) > p.fieldNormRejection * state.fieldNorm {
                state.fieldNorm = m.norm
            }
            if !state.fieldDip.isFinite || abs(dip - state.fieldDip) > p.dipRejection { state.fieldDip = dip }
            headingVariance = 10.0.radians * 10.0.radians
        } else if let q = VectorAttitude.tilt(accelerometer: a) {
            // Keep the heading of the current attitude (it is arbitrary at first in 6D).
            let yaw = EulerAngles(state.attitude).yaw
            var e = EulerAngles(q)
            e.yaw = state.pqq.trace > 0 ? yaw : 0
            state.attitude = e.quaternion
        } else {
            return
        }
        let tilt = 3.0.radians * 3.0.radians
        state.pqq = Matrix3(Vector3(tilt, 0, 0), Vector3(0, tilt, 0), Vector3(0, 0, headingVariance))
        state.pqb = .zero
        if state.pbb.trace == 0 { state.pbb = Matrix3.diagonal(p.initialBiasUncertainty * p.initialBiasUncertainty) }
        state.initialised = true
        state.rejectionTime = 0
        state.accelerometerRejectionTime = 0
        diagnostics.initialising = false
    }

    mutating func propagate(_ g: Vector3, _ dt: Double) {
        let p = parameters
        let omega = g - state.bias
        state.attitude = state.attitude * Quaternion(rotationVector: omega * dt)
        // δθ' = δθ − R dt δb: G = −R dt.
        let gm = Matrix3(RotationMatrix(state.attitude)) * (-dt)
        let gmT = gm.transposed
        let rateTerm = p.rateScaleUncertainty * p.rateScaleUncertainty * omega.squaredNorm
        let qTheta = (p.gyroscopeNoise * p.gyroscopeNoise + rateTerm) * dt
        let gPbb = gm * state.pbb
        let gPbq = gm * state.pqb.transposed
        var pqq = state.pqq + gPbq + gPbq.transposed + gPbb * gmT
        pqq.r0.x += qTheta
        pqq.r1.y += qTheta
        pqq.r2.z += qTheta
        state.pqq = pqq.symmetrized
        state.pqb = state.pqb + gPbb
        let qb = p.biasRandomWalk * p.biasRandomWalk * dt
        state.pbb.r0.x += qb
        state.pbb.r1.y += qb
        state.pbb.r2.z += qb
        // Keep the unobserved heading variance bounded (6D, long disturbances).
        if state.pqq.r2.z > 4 {
            let s = (4 / state.pqq.r2.z).squareRoot()
            state.pqq.r2 = state.pqq.r2 * s
            state.pqq.r0.z *= s
            state.pqq.r1.z *= s
            state.pqb.r2 = state.pqb.r2 * s
        }
    }

    /// Sequential scalar update of the error state with measurement row `h = (hθ, hb)`, innovation
    /// `nu` (before subtracting the accumulated estimate) and noise variance `r`.
    mutating func scalarUpdate(hTheta: Vector3, hBias: Vector3, nu: Double, r: Double) {
        let u1 = state.pqq * hTheta + state.pqb * hBias
        let u2 = state.pqb.transposed * hTheta + state.pbb * hBias
        let s = hTheta.dot(u1) + hBias.dot(u2) + r
        guard s > 0, s.isFinite else { return }
        let innovation = nu - hTheta.dot(dTheta) - hBias.dot(dBias)
        let inv = 1 / s
        dTheta += u1 * (innovation * inv)
        dBias += u2 * (innovation * inv)
        state.pqq -= Matrix3.outer(u1, u1) * inv
        state.pqb -= Matrix3.outer(u1, u2) * inv
        state.pbb -= Matrix3.outer(u2, u2) * inv
    }

    /// Scalar update measuring one component of the attitude error (`h = e_axis`), exploiting the
    /// unit measurement row: `P hᵀ` is a column of the covariance, no products needed.
    @inline(__always)
    mutating func attitudeUpdate(axis: Int, nu: Double, r: Double) {
        let u1 = Vector3(state.pqq[0, axis], state.pqq[1, axis], state.pqq[2, axis])
        let u2 = axis == 0 ? state.pqb.r0 : (axis == 1 ? state.pqb.r1 : state.pqb.r2)
        let s = u1[axis] + r
        guard s > 0, s.isFinite else { return }
        let inv = 1 / s
        let k = (nu - dTheta[axis]) * inv
        dTheta += u1 * k
        dBias += u2 * k
        let a = u1 * inv
        state.pqq -= Matrix3.outer(a, u1)
        state.pqb -= Matrix3.outer(a, u2)
        state.pbb -= Matrix3.outer(u2 * inv, u2)
    }

    mutating func correctTilt(_ a: Vector3, _ dt: Double, rawDt: Double) {
        let p = parameters
        let norm = a.norm
        guard norm > 0 else { return }
        var fE = state.attitude.rotate(a)
        if p.accelerationFilterTime > 0 { fE = state.accelerationLowPass.update(fE, dt: rawDt) }
        let fNorm = fE.norm
        guard fNorm > 0 else { return }
        let u = fE * (1 / fNorm)
        // Energy of the (filtered) linear acceleration: specific force minus gravity, earth frame.
        let linear = Vector3(fE.x, fE.y, fE.z - p.gravity)
        state.accelerationEnergy += (linear.squaredNorm - state.accelerationEnergy) * (dt / (p.accelerationWindow + dt))
        let excess =
            max(state.accelerationEnergy, linear.squaredNorm) / (p.accelerationTolerance * p.accelerationTolerance)
        let r = p.accelerometerNoise * p.accelerometerNoise / dt * (1 + excess)
        // Horizontal components: u ≈ (−δy, δx, 1).
        let nuX = u.y
        let nuY = -u.x
        let d2 = nuX * nuX / (state.pqq.r0.x + r) + nuY * nuY / (state.pqq.r1.y + r)
        if d2 > p.accelerometerGate * p.accelerometerGate {
            if state.accelerometerRejectionTime < 2.0 {
                state.accelerometerRejectionTime += dt
                return
            }
            // Inconsistent for 2 s: not a passing acceleration but a wrong tilt (after a gyroscope
            // fault). Widen the tilt variance to the innovation and let the accelerometer correct it.
            let widen = nuX * nuX + nuY * nuY
            state.pqq.r0.x += widen
            state.pqq.r1.y += widen
        }
        state.accelerometerRejectionTime = 0
        attitudeUpdate(axis: 0, nu: nuX, r: r)
        attitudeUpdate(axis: 1, nu: nuY, r: r)
        diagnostics.accelerometerRejected = false
    }

    mutating func correctHeading(_ m: Vector3, _ dt: Double) {
        let p = parameters
        let mE = state.attitude.rotate(m)
        let horizontal = (mE.x * mE.x + mE.y * mE.y).squareRoot()
        let norm = m.norm
        guard horizontal > 0, norm > 0 else { return }
        let dip = Double.atan2(-mE.z, horizontal)
        if !state.fieldNorm.isFinite || !state.fieldDip.isFinite {
            state.fieldNorm = norm
            state.fieldDip = dip
        }
        let undisturbed =
            abs(norm - state.fieldNorm) < p.fieldNormRejection * state.fieldNorm
            && abs(dip - state.fieldDip) < p.dipRejection
        if undisturbed { state.undisturbedTime += dt } else { state.undisturbedTime = 0 }
        var accept = undisturbed && state.undisturbedTime >= p.minimumUndisturbedTime
        if undisturbed {
            state.candidateTime = 0
            // Follow slow drifts of the reference field.
            let k = dt / (30 + dt)
            state.fieldNorm += (norm - state.fieldNorm) * k
            state.fieldDip += (dip - state.fieldDip) * k
        } else {
            state.rejectionTime += dt
            let steady =
                state.candidateNorm.isFinite
                && abs(norm - state.candidateNorm) < p.fieldNormRejection * state.candidateNorm
                && abs(dip - state.candidateDip) < p.dipRejection
            if steady {
                let k = dt / (1 + dt)
                state.candidateNorm += (norm - state.candidateNorm) * k
                state.candidateDip += (dip - state.candidateDip) * k
                if lastRate >= p.newFieldMinimumRate { state.candidateTime += dt }
            } else {
                state.candidateNorm = norm
                state.candidateDip = dip
                state.candidateTime = 0
            }
            if state.candidateTime >= p.newFieldTime
                || (state.rejectionTime >= p.maximumRejectionTime && state.candidateTime >= p.shortNewFieldTime)
            {
                state.fieldNorm = norm
                state.fieldDip = dip
                state.rejectionTime = 0
                state.candidateTime = 0
                state.undisturbedTime = p.minimumUndisturbedTime
                accept = true
            }
        }
        if accept { state.rejectionTime = 0 }
        guard accept else { return }
        let psi = Double.atan2(mE.x, mE.y)
        // Heading consistency: a low-passed innovation far outside its uncertainty for over a
        // second means the heading itself is wrong (gyroscope fault), not the field.
        state.headingInnovation += (psi - state.headingInnovation) * (dt / (1 + dt))
        let sigma = (state.pqq.r2.z + p.magnetometerNoise * p.magnetometerNoise).squareRoot()
        if abs(state.headingInnovation) > p.headingConsistencyGate * sigma {
            state.headingInconsistentTime += dt
            if state.headingInconsistentTime > 1 {
                state.pqq.r2.z += state.headingInnovation * state.headingInnovation
                state.headingInconsistentTime = 0
            }
        } else {
            state.headingInconsistentTime = 0
        }
        let normExcess = (norm - state.fieldNorm) / (state.fieldNorm * p.fieldNormTolerance)
        let dipExcess = (dip - state.fieldDip) / p.dipTolerance
        let r = p.magnetometerNoise * p.magnetometerNoise / dt * (1 + normExcess * normExcess + dipExcess * dipExcess)
        attitudeUpdate(axis: 2, nu: psi, r: r)
        diagnostics.magnetometerRejected = false
    }

    mutating func correctBiasAtRest(_ dt: Double) {
        let p = parameters
        let mean = state.rest.gyroscopeMean
        let r = p.restBiasNoise * p.restBiasNoise / dt
        scalarUpdate(hTheta: .zero, hBias: .unitX, nu: mean.x - state.bias.x, r: r)
        scalarUpdate(hTheta: .zero, hBias: .unitY, nu: mean.y - state.bias.y, r: r)
        scalarUpdate(hTheta: .zero, hBias: .unitZ, nu: mean.z - state.bias.z, r: r)
    }

    mutating func inject() {
        if dTheta.squaredNorm > 0 {
            let correction = Quaternion(rotationVector: dTheta)
            state.attitude = correction * state.attitude
            // The filtered specific force is expressed in the estimated earth frame: turn it along.
            state.accelerationLowPass.rotate(by: correction)
        }
        state.bias += dBias
        state.attitude = state.attitude.normalized
        state.pqq = state.pqq.symmetrized
        state.pbb = state.pbb.symmetrized
    }

    /// Re-initialise the attitude from the next accelerometer sample, keeping the bias.
    public mutating func reinitialise() {
        state.initialised = false
        state.accelerationLowPass.reset()
        state.rest.reset()
    }

    /// Back to the initial state.
    public mutating func reset() { self = KalmanFilter(parameters: parameters) }
}
