/// The EKF's magnetometer: a new calibration, the reference field it learns, the heading it aligns, and the heading
/// correction with its disturbance checks.
extension KalmanFilter {
    /// A new magnetometer calibration was adopted: the reference field (strength, dip, azimuth) and
    /// the strength's swing (``HorizontalFieldDeviation``) are learnt again from calibrated
    /// readings, and the first calibration with a hard iron over a tenth of the field sets the
    /// heading at once when the calibrated reading `m` puts north more than three initial heading
    /// uncertainties (30°) from where the heading has it (the heading from raw readings was off by
    /// the hard iron); closer, the heading corrections converge on it over many readings, where
    /// one reading taken in fast motion could set it several degrees off.
    mutating func calibrationChanged(_ m: Vector3) {
        state.fieldNorm = parameters.expectedFieldNorm
        state.fieldDip = parameters.expectedDip
        state.fieldAzimuth = .nan
        state.candidateNorm = .nan
        state.candidateTime = 0
        state.rejectionTime = 0
        state.horizontalDeviation?.recalibrated()
        let c = state.magnetometerCalibration
        if c.hardIron.norm > 0.1 * c.strength && !state.calibratedHeading {
            let mE = state.attitude.rotate(c.apply(m))
            if abs(Double.atan2(mE.x, mE.y)) > 3 * parameters.initialHeadingUncertainty {
                state.headingReferenced = false
            }
            state.calibratedHeading = true
        }
    }

    /// Notes whether the raw field `m` changed during the current rest (see
    /// ``State/fieldChangedAtRest``); an accepted reading clears it.
    mutating func noteFieldAtRest(_ m: Vector3) {
        if !state.use.magnetometerRejected { state.fieldChangedAtRest = nil }
        guard state.use.atRest else {
            state.restField = nil
            return
        }
        guard let first = state.restField else {
            state.restField = m
            return
        }
        if (m - first).norm > parameters.fieldNormRejection * first.norm { state.fieldChangedAtRest = true }
    }

    /// Takes the field seen by `m` at the current attitude as the reference, unless it agrees with
    /// the expected one: an expected field (World Magnetic Model) that the sensor does not see,
    /// indoors, uncalibrated or in arbitrary units, gives way to the measured one.
    mutating func learnReferenceField(_ m: Vector3) {
        let p = parameters
        let mE = state.attitude.rotate(m)
        let dip = VectorAttitude.dip(earth: mE)
        if !state.fieldNorm.isFinite || abs(m.norm - state.fieldNorm) > p.fieldNormRejection * state.fieldNorm {
            state.fieldNorm = m.norm
        }
        if !state.fieldDip.isFinite || abs(dip - state.fieldDip) > p.dipRejection { state.fieldDip = dip }
    }

    /// Whether the reading `m` departs from the learnt field by more than the rejection limits of
    /// its strength (``Parameters/fieldNormRejection``) or dip (``Parameters/dipRejection``), the
    /// dip taken against the specific force `up` (a still device's up), not the filter's attitude,
    /// which may be what is wrong; false while no field is learnt.
    func departsFromField(_ m: Vector3, up: Vector3) -> Bool {
        guard state.fieldNorm.isFinite, state.fieldDip.isFinite, let u = up.normalized, m.norm > 0 else { return false }
        let vertical = m.dot(u)
        let dip = Double.atan2(-vertical, (m - u * vertical).norm)
        return strengthDeparts(m) || abs(dip - state.fieldDip) > parameters.dipRejection
    }

    /// Whether the strength of the reading `m` departs from the learnt field's by more than
    /// ``Parameters/fieldNormRejection`` (false while no strength is learnt): what no attitude
    /// error changes.
    func strengthDeparts(_ m: Vector3) -> Bool {
        state.fieldNorm.isFinite && abs(m.norm - state.fieldNorm) > parameters.fieldNormRejection * state.fieldNorm
    }

    /// The first magnetometer sample after an initialisation without one sets the heading at once
    /// (turning the attitude about the vertical), with the heading uncertainty of a magnetometer
    /// start.
    mutating func alignHeading(_ m: Vector3) {
        guard let q = VectorAttitude.headingAligned(state.attitude, magnetometer: m) else { return }
        let p = parameters
        let turn = (q * state.attitude.conjugate).normalized
        state.attitude = q
        state.accelerationLowPass.rotate(by: turn)
        // The heading error is now that of the magnetometer, independent of tilt and bias.
        state.pqq.row0.z = 0
        state.pqq.row1.z = 0
        state.pqq.row2 = Vector3(0, 0, p.initialHeadingUncertainty * p.initialHeadingUncertainty)
        state.pqb.row2 = .zero
        learnReferenceField(m)
        state.headingReferenced = true
        state.undisturbedTime = p.minimumUndisturbedTime
        state.rejectionTime = 0
        state.headingInnovation = 0
    }

    mutating func correctHeading(_ m: Vector3, _ dt: Double, _ c: inout Correction) {
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
        // The azimuth of a homogeneous field changes only as fast as the heading error drifts:
        // a sample far from its recent average comes from a field that moved.
        let azimuth = Double.atan2(mE.x, mE.y)
        if !state.fieldAzimuth.isFinite { state.fieldAzimuth = azimuth }
        let azimuthChange = (azimuth - state.fieldAzimuth).wrappedToPi
        state.fieldAzimuth =
            (state.fieldAzimuth + azimuthChange * firstOrderSmoothing(dt, time: p.azimuthAveragingTime)).wrappedToPi
        var departure = FieldDeparture()
        if !(abs(norm - state.fieldNorm) < p.fieldNormRejection * state.fieldNorm) { departure.insert(.strength) }
        if !(abs(dip - state.fieldDip) < p.dipRejection) { departure.insert(.dip) }
        if !(abs(azimuthChange) < p.azimuthRejection + state.lastRate * p.magnetometerTimingUncertainty) {
            departure.insert(.azimuth)
        }
        let undisturbed = departure.isEmpty
        if undisturbed { state.undisturbedTime += dt } else { state.undisturbedTime = 0 }
        var accept = undisturbed && state.undisturbedTime >= p.minimumUndisturbedTime
        if undisturbed {
            state.candidateTime = 0
            // Follow slow drifts of the reference field.
            let k = firstOrderSmoothing(dt, time: p.fieldTrackingTime)
            state.fieldNorm += (norm - state.fieldNorm) * k
            state.fieldDip += (dip - state.fieldDip) * k
        } else {
            state.rejectionTime += dt
            let steady =
                state.candidateNorm.isFinite
                && abs(norm - state.candidateNorm) < p.fieldNormRejection * state.candidateNorm
                && abs(dip - state.candidateDip) < p.dipRejection
            if steady {
                let k = firstOrderSmoothing(dt, time: p.candidateFieldTime)
                state.candidateNorm += (norm - state.candidateNorm) * k
                state.candidateDip += (dip - state.candidateDip) * k
                if state.lastRate >= p.newFieldMinimumRate { state.candidateTime += dt }
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
        if accept { state.rejectionTime = max(0, state.rejectionTime - 2 * dt) }
        let normExcess = (norm - state.fieldNorm) / (state.fieldNorm * p.fieldNormTolerance)
        let dipExcess = (dip - state.fieldDip) / p.dipTolerance
        let r = p.magnetometerNoise * p.magnetometerNoise / dt * (1 + normExcess * normExcess + dipExcess * dipExcess)
        if !accept && state.rejectionTime >= p.maximumRejectionTime {
            let f = p.longRejectionNoiseFactor
            attitudeUpdate(axis: 2, nu: azimuth, r: r * f * f, &c)
            state.use.magnetometerRejected = false
            return
        }
        guard accept else {
            state.use.fieldDeparture = departure
            return
        }
        // The heading innovation is the field's azimuth (it should point north).
        let psi = azimuth
        // Heading consistency: a low-passed innovation far outside its uncertainty, steady while
        // the device turns, for over a second means the heading itself is wrong (gyroscope
        // fault), not the field.
        state.headingInnovation +=
            (psi - state.headingInnovation) * firstOrderSmoothing(dt, time: p.headingConsistencyTime)
        let sigma = (state.pqq.row2.z + p.magnetometerNoise * p.magnetometerNoise).squareRoot()
        if abs(state.headingInnovation) > p.headingConsistencyGate * sigma {
            if state.headingInconsistentTime == 0
                || abs(state.headingInnovation - state.headingInconsistentStart) > p.headingConsistencyTolerance
            {
                // A new stretch, or the offset moved: not (yet) a steady heading error.
                state.headingInconsistentStart = state.headingInnovation
                state.headingInconsistentTime = 0
            }
            if state.lastRate >= p.newFieldMinimumRate { state.headingInconsistentTime += dt }
            if state.headingInconsistentTime > p.headingConsistencyTime {
                state.pqq.row2.z += state.headingInnovation * state.headingInnovation
                state.headingInconsistentTime = 0
            }
        } else {
            state.headingInconsistentTime = 0
        }
        // The heading teaches the bias unless the field's strength swings as an iron across the
        // vertical makes it, after a rest measured the bias (``HorizontalFieldDeviation``).
        let teachesBias = HorizontalFieldDeviation.headingTeachesBias(
            &state.horizontalDeviation, squaredStrength: m.squaredNorm, horizontal: horizontal, dt: dt,
            biasMeasured: state.restBias.established)
        attitudeUpdate(axis: 2, nu: psi, r: r, teachesBias: teachesBias, &c)
        state.use.magnetometerRejected = false
    }
}
