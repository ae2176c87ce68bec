/// The EKF's accelerometer: the tilt correction, with its acceleration-aware noise and innovation
/// gate, and the bias measured at rest.
extension KalmanFilter {
    /// Corrects the tilt from the specific force `a` (sensor frame; the low-pass runs over the
    /// sample's own step `rawDt`), unless the gate rejects it.
    mutating func correctTilt(_ a: Vector3, _ dt: Double, rawDt: Double, _ c: inout Correction) {
        let p = parameters
        // Before the rest detector has its first sample its forces are zero, not a departure.
        let departure =
            state.rest.primed && abs(state.rest.accelerometerSmoothed.norm - standardGravity) > p.accelerationTolerance
        let departed = departure ? (state.accelerationDepartureTime ?? 0) + dt : 0
        state.accelerationDepartureTime = departed
        // In a proven steady turn the steady specific force across the axis is centripetal.
        let tilt = state.restBias.tiltSpecificForce(a, rest: state.rest, bias: state.bias)
        state.use.centripetal = a - tilt
        let a = tilt
        let norm = a.norm
        guard norm > 0 else { return }
        var fE = state.attitude.rotate(a)
        if p.accelerationFilterTime > 0 {
            if state.accelerationLowPass.warmingUp && VectorAttitude.readsStill(rate: state.lastRate, force: a) {
                state.accelerationLowPass.endWarmUp()
                if modelsDelay { state.accelerationDelay?.endWarmUp() }
            }
            fE = state.accelerationLowPass.update(fE, dt: rawDt)
            if modelsDelay { state.accelerationDelay?.update(dt: rawDt) }
        }
        let still = p.unfilteredTiltAtRest && state.use.atRest
        if still {
            // At rest there is no linear acceleration to average out: the noise-smoothed specific
            // force gives the tilt without the low-pass delay.
            fE = state.attitude.rotate(state.rest.accelerometerSmoothed)
        }
        let fNorm = fE.norm
        // Far below gravity, held for the low-pass's time (free fall, a throw): the direction of
        // what is left is not up.
        guard fNorm > 0.5 * standardGravity else { return }
        let u = fE * (1 / fNorm)
        // Energy of the (filtered) linear acceleration: specific force minus gravity, earth frame.
        let linear = Vector3(fE.x, fE.y, fE.z - standardGravity)
        state.accelerationEnergy +=
            (linear.squaredNorm - state.accelerationEnergy) * firstOrderSmoothing(dt, time: p.accelerationWindow)
        let excess =
            max(state.accelerationEnergy, linear.squaredNorm) / (p.accelerationTolerance * p.accelerationTolerance)
        // Horizontal components: u ≈ (−δy, δx, 1).
        let nuX = u.y
        let nuY = -u.x
        // With the delay modelled, each also measures the bias error (``AccelerationDelay``); the
        // noise-smoothed force at rest has none to speak of.
        let delay = still || !modelsDelay ? nil : state.accelerationDelay?.rows
        let r = accelerometerNoiseSquared / dt * (1 + excess)
        // The gate judges the low-passed force, whose noise does not fall with the sample
        // interval: as if sampled no closer than `accelerometerGateInterval`.
        let rGate = accelerometerNoiseSquared / max(dt, p.accelerometerGateInterval) * (1 + excess)
        let varianceX = delay.map { tiltVariance(axis: 0, $0.x) } ?? state.pqq.row0.x
        let varianceY = delay.map { tiltVariance(axis: 1, $0.y) } ?? state.pqq.row1.y
        let d2 = nuX * nuX / (varianceX + rGate) + nuY * nuY / (varianceY + rGate)
        // While the low-pass still averages its first time constant (``ButterworthLowPass``), its
        // force is the mean of the readings so far, whose linear accelerations have not averaged
        // out: the tilt is known no better than at the start, and no innovation is an outlier
        // yet (a start in motion was gated as one for as long as the acceleration lasted).
        let warmingUp = state.accelerationLowPass.warmingUp
        if warmingUp {
            let floor = p.initialTiltUncertainty * p.initialTiltUncertainty
            state.pqq.row0.x = max(state.pqq.row0.x, floor)
            state.pqq.row1.y = max(state.pqq.row1.y, floor)
        }
        if !warmingUp && d2 > p.accelerometerGate * p.accelerometerGate {
            // A wrong tilt shows as a force of gravity's strength pointing elsewhere: while the
            // low-passed force departs from g by more than `accelerationTolerance` (a vehicle
            // speeding up), the inconsistency is acceleration and does not count towards judging
            // the tilt wrong.
            if state.rest.primed && abs(state.rest.accelerometerMean.norm - standardGravity) > p.accelerationTolerance {
                return
            }
            // At rest with the force fixed in the sensor since the still stretch began, the
            // force is gravity: an inconsistency that outlasts the rest detector's filter time is
            // a wrong tilt (the earth-frame low-pass carried the motion's accelerations into the
            // stillness before the verdict, or a bias no rest has measured yet turned it). A force
            // that moved without a turn (a car pulling away under a rest verdict, which a smooth
            // acceleration keeps for seconds) is an acceleration, judged as in motion.
            let recovery =
                state.use.atRest && state.restBias.upAxisSteady
                ? min(p.rest.filterTime, p.accelerometerRecoveryTime) : p.accelerometerRecoveryTime
            if state.accelerometerRejectionTime < recovery
                || state.restBias.steadyTurnPending(rest: state.rest, bias: state.bias)
            {
                state.accelerometerRejectionTime += dt
                return
            }
            // Inconsistent for 2 s: not a passing acceleration but a wrong tilt (after a gyroscope
            // fault). Widen the tilt variance to the innovation and let the accelerometer correct it.
            let widen = nuX * nuX + nuY * nuY
            state.pqq.row0.x += widen
            state.pqq.row1.y += widen
            // After a start from a force that showed no tilt, the heading aligned and the field's
            // reference learnt through it may be as wrong (``State/realignHeading``).
            if p.mode == .nineD && state.realignHeading == false { state.realignHeading = true }
        }
        state.accelerometerRejectionTime = 0
        // Accepted after the warm-up without being judged wrong first: the first tilt was found.
        if state.realignHeading == false && !warmingUp { state.realignHeading = nil }
        let before = c.bias
        let headingBefore = c.theta.z
        if let delay {
            tiltUpdate(axis: 0, delay.x, nu: nuX, r: r, &c)
            tiltUpdate(axis: 1, delay.y, nu: nuY, r: r, &c)
        } else {
            attitudeUpdate(axis: 0, nu: nuX, r: r, &c)
            attitudeUpdate(axis: 1, nu: nuY, r: r, &c)
        }
        if p.mode == .sixD && state.rest.still && !state.use.atRest && state.restBias.upAxisSteady {
            // Still but not at rest, with the specific force fixed in the sensor: a steady turn
            // about the sensor's up axis. A steady force across the turn's axis is either gravity
            // seen through a bias error across it or a steady acceleration (centripetal in a
            // vehicle's bend): the accelerometer cannot tell a bias across the axis from it, and
            // gravity shows no bias along the axis (only a changing up axis makes the bias
            // observable; a slow turn about a horizontal axis, still too, sweeps it and keeps
            // learning it). So in 6D the tilt corrections put no bias into the estimate here, and
            // no heading: what they would put is the turn's own error. (A 20 °/s turn from the
            // first sample learnt the vertical bias up to its bound; with consumer-grade errors
            // the heading turned 2 °/s off the gyroscope's rate; a car in a 4.8 °/s bend learnt a
            // bias across the axis that tilted it by 12°.) In 9D the field, turning about the true
            // axis, keeps the bias across it honest, and a turntable's tilted axis needs it learnt.
            c.bias = before
            c.theta.z = headingBefore
        }
        if departed > p.sustainedAccelerationTime {
            // A sustained acceleration (a vehicle speeding up): what the tilt corrections would put
            // into the bias is the acceleration's tilt of the force.
            c.bias = before
        }
        state.use.accelerometerRejected = false
    }

    /// Variance of the tilt measurement on `axis` (0 or 1) without its noise, `h P hᵀ` with
    /// `h = (e_axis, m)`. Inlined: as a call it copied the filter's whole state twice a sample.
    @inline(__always)
    func tiltVariance(axis: Int, _ m: Vector3) -> Double {
        let row = axis == 0 ? state.pqb.row0 : state.pqb.row1
        return state.pqq[axis, axis] + 2 * row.dot(m) + m.dot(state.pbb * m)
    }

    /// Scalar update measuring the tilt error on `axis` (0 or 1) plus `m` times the bias error
    /// (`h = (e_axis, m)`; ``AccelerationDelay``): with `m` zero, ``attitudeUpdate(axis:nu:r:_:)``.
    mutating func tiltUpdate(axis: Int, _ m: Vector3, nu: Double, r: Double, _ c: inout Correction) {
        guard m != .zero else { return attitudeUpdate(axis: axis, nu: nu, r: r, &c) }
        let row = axis == 0 ? state.pqb.row0 : state.pqb.row1
        let u1 = Vector3(state.pqq[0, axis], state.pqq[1, axis], state.pqq[2, axis]) + state.pqb * m
        let u2 = row + state.pbb * m
        let s = u1[axis] + m.dot(u2) + r
        guard s > 0, s.isFinite else { return }
        scalarUpdate(u1, u2, innovation: nu - c.theta[axis] - m.dot(c.bias), inverse: 1 / s, &c)
    }

    /// At rest, the low-passed gyroscope measures the bias directly.
    ///
    /// In 6D, a rest that begins a still stretch after an earlier rest measured the bias
    /// (``State/restDeparture``) also checks the estimate: once the low-pass has settled
    /// (``RestDetector/Parameters/filterTime`` twice over after the rest began), the mean departure
    /// of the low-passed rate from the estimate is compared, per axis, with
    /// ``RestBiasJudge/Parameters/gate`` standard deviations of the estimate and of that mean (the
    /// gyroscope noise density measured while still, ``restBiasNoise`` until then, over the time
    /// averaged, at least the low-pass's). Beyond them the bias wandered further than the random
    /// walk allows (a part warming up over a long run, the vertical part unobservable in motion
    /// without a magnetometer; in 9D the field shows it, and a slow turn the judge took for a rest
    /// would be learnt against the field): that axis's variance is raised to the squared
    /// departure, so the rest measures the bias afresh instead of nudging an estimate the walk
    /// keeps overconfident, and the average starts again.
    mutating func correctBiasAtRest(_ dt: Double, _ c: inout Correction) {
        let p = parameters
        let mean = state.rest.gyroscopeMean
        let floor = p.restBiasNoise * p.restBiasNoise
        let measured = state.noise.gyroscopeDensitySquared
        let r = max(floor, measured.finiteOrZero) / dt
        // The check, once the rest's low-pass has settled.
        var departure =
            state.rest.stillTime >= p.rest.minimumDuration + 2 * p.rest.filterTime ? state.restDeparture : nil
        departure?.time += dt
        let meanVariance = departure.map {
            (measured.isFinite && measured > 0 ? measured : floor) / max($0.time, 2 * p.rest.filterTime)
        }
        let gate = p.restBias.gate * p.restBias.gate
        var fresh = false
        for axis in 0..<3 {
            let nu = mean[axis] - state.bias[axis]
            if var d = departure, let v = meanVariance {
                d.angle[axis] += (nu - c.bias[axis]) * dt
                let average = d.angle[axis] / d.time
                if average * average > gate * (state.pbb[axis, axis] + v) {
                    state.pbb[axis, axis] = average * average
                    fresh = true
                }
                departure = d
            }
            biasUpdate(axis: axis, nu: nu, r: r, &c)
        }
        if let d = departure { state.restDeparture = fresh ? RestDeparture() : d }
    }
}
