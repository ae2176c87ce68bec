import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension BatchAttitudeEstimator.Driver {
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
        var w = BatchWindow(
            parameters: parameters, useMagnetometer: useMagnetometer, calibrating: calibration?.enabled ?? false)
        readMotion(samples, into: &w)
        readMagnetometer(samples, into: &w)
        setInitialStates(samples, knots: knots, into: &w)
        // Constants are carried unless the joint calibration starts with this window.
        let carryGlobals = !carriedQ.isEmpty && carriedGlobals.count == w.globals.count
        if carryGlobals {
            w.globals = carriedGlobals
        } else if w.calibrating, let fit = calibration?.start {
            Self.startCalibration(from: fit, in: &w)
        }
        let calibrationStarts = w.calibrating && !carryGlobals
        if useMagnetometer { setFieldReference(samples, calibrationStarts: calibrationStarts, in: &w) }
        if calibrationStarts { Self.headingFromCalibratedField(&w) }
        w.prior = prior ?? (knots.count > 0 ? initialPrior(w, knot: 0) : nil)
        return w
    }

    /// Each sample's time, step, gyroscope rate (held over short gaps, averaged across dropouts
    /// with the rotation that may have been missed as extra variance), specific force (held over
    /// short gaps) and rest flag.
    func readMotion(_ samples: ArraySlice<AttitudeSmoother.Sample>, into w: inout BatchWindow) {
        let p = parameters
        let n = samples.count
        w.t.reserveCapacity(n)
        w.rate.reserveCapacity(n)
        w.step.reserveCapacity(n)
        w.blind.reserveCapacity(n)
        w.acc.reserveCapacity(n)
        w.accValid.reserveCapacity(n)
        w.rest.reserveCapacity(n)
        let missing2 = p.filter.missingRateUncertainty * p.filter.missingRateUncertainty
        var lastTime = Double.nan
        var lastGyro: Vector3?
        var lastGyroTime = -Double.infinity
        var lastAcc: Vector3?
        var lastAccTime = -Double.infinity
        let nominal = Self.typicalStep(samples)
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
    }

    /// The typical step (the median over the first 2000 samples, 0.01 s without one): a step well
    /// beyond it is a dropout, over which the motion is unknown.
    static func typicalStep(_ samples: ArraySlice<AttitudeSmoother.Sample>) -> Double {
        var steps = [Double]()
        var previousT = Double.nan
        for s in samples.prefix(2000) {
            if previousT.isFinite, s.input.t.isFinite, s.input.t > previousT { steps.append(s.input.t - previousT) }
            if s.input.t.isFinite { previousT = s.input.t }
        }
        return steps.isEmpty ? 0.01 : median(&steps)
    }

    /// The magnetometer (9D) at its delay-compensated instant, and the time each value stands for;
    /// every value's weight 1.
    func readMagnetometer(_ samples: ArraySlice<AttitudeSmoother.Sample>, into w: inout BatchWindow) {
        let n = samples.count
        w.mag = [Vector3](repeating: .zero, count: n)
        w.magValid = [Bool](repeating: false, count: n)
        w.magTime = [Double](repeating: 0, count: n)
        if useMagnetometer {
            let base = samples.startIndex
            let idx = samples.indices.filter {
                if let m = samples[$0].input.magnetometer, m.isFinite, samples[$0].input.t.isFinite { return true }
                return false
            }
            // Without a joint calibration, a reading the on-line calibration's turns calibrated is
            // taken calibrated (see ``pendingTurned``; `samples` is a prefix of `pending`, so its
            // indices are `pendingTurned`'s). At the sample where that calibration starts or ends,
            // the delay interpolation may blend a raw and a calibrated reading.
            let turned = calibration?.enabled == true ? nil : pendingTurned
            func reading(_ k: Int) -> Vector3 { turned?[k] ?? samples[k].input.magnetometer! }
            var j = 0
            var previousT = Double.nan
            for k in idx {
                let tk = samples[k].input.t
                let target = tk + magnetometerDelay
                while j + 1 < idx.count && samples[idx[j + 1]].input.t < target { j += 1 }
                let a = samples[idx[j]].input
                let bIndex = idx[min(j + 1, idx.count - 1)]
                let bSample = samples[bIndex].input
                var m = reading(idx[j])
                if target > a.t && bSample.t > a.t {
                    let u = min(1, (target - a.t) / (bSample.t - a.t))
                    m = m * (1 - u) + reading(bIndex) * u
                }
                let local = k - base
                w.mag[local] = m
                w.magValid[local] = true
                let span = previousT.isFinite ? tk - previousT : w.step[local]
                w.magTime[local] = min(max(span, 0), parameters.maximumHold)
                previousT = tk
            }
        }
        w.magWeight = [Float](repeating: 1, count: n)
        w.magNorm = w.mag.map(\.norm)
    }

    /// Knots and initial states: carried from the previous window where it overlapped, the
    /// initialiser's beyond (turned about the vertical to continue the carried heading); every
    /// robust weight 1.
    func setInitialStates(
        _ samples: ArraySlice<AttitudeSmoother.Sample>, knots: [Int], into w: inout BatchWindow
    ) {
        let base = samples.startIndex
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
                turn = (carriedQ[j] * s.estimate.attitude.conjugate).verticalTwist
            } else {
                w.q.append((turn * s.estimate.attitude).normalized)
                w.b.append(s.estimate.gyroscopeBias)
                w.v.append(.zero)
                w.d.append(0)
            }
        }
        w.accWeight = [Double](repeating: 1, count: k)
        w.gravityWeight = [Double](repeating: 1, count: k)
    }

    /// Starts the calibration's hard and soft iron from the ellipsoid fit.
    static func startCalibration(from fit: MagnetometerCalibration, in w: inout BatchWindow) {
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

    /// The field reference: the one learnt in the first window, kept so every window judges
    /// disturbances alike; else the median strength and dip at the initial attitudes, of the
    /// samples at rest when there are enough of them. A calibration that starts here starts its
    /// earth field from it.
    func setFieldReference(
        _ samples: ArraySlice<AttitudeSmoother.Sample>, calibrationStarts: Bool, in w: inout BatchWindow
    ) {
        if let reference = fieldReference {
            w.fieldNorm = reference.norm
            w.fieldDip = reference.dip
            w.fieldReferenceFixed = true
            return
        }
        let p = parameters
        let base = samples.startIndex
        var norms = [Double]()
        var dips = [Double]()
        var restNorms = [Double]()
        var restDips = [Double]()
        let soft = w.softIron
        for i in 0..<samples.count where w.magValid[i] {
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
        if p.fieldReferenceFromRest && restTime >= p.minimumRestForReference {
            w.fieldNorm = Self.median(&restNorms)
            w.fieldDip = Self.median(&restDips)
            w.fieldReferenceFixed = true
        } else if !norms.isEmpty {
            w.fieldNorm = Self.median(&norms)
            w.fieldDip = Self.median(&dips)
        }
        if calibrationStarts && w.fieldNorm.isFinite && w.fieldDip.isFinite {
            w.globals[9] = w.fieldNorm * Glibc.cos(w.fieldDip)
            w.globals[10] = w.fieldNorm * Glibc.sin(w.fieldDip)
        }
    }

    /// The calibration starts here: each knot's initial heading from the calibrated field (the
    /// initialiser's came from the raw readings, off by the iron).
    static func headingFromCalibratedField(_ w: inout BatchWindow) {
        let soft = w.softIron
        let hard = w.hardIron
        let n = w.sampleCount
        for (j, i) in w.knots.enumerated() {
            guard let m = (i..<min(n, i + 20)).first(where: { w.magValid[$0] }).map({ w.mag[$0] }) else {
                continue
            }
            let mE = w.q[j].rotate(soft * (m - hard))
            guard mE.x != 0 || mE.y != 0 else { continue }
            w.q[j] = (Quaternion(axis: .unitZ, angle: Double.atan2(mE.x, mE.y)) * w.q[j]).normalized
        }
    }
}
