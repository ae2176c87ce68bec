import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension BatchAttitudeEstimator {
    /// The streaming window driver.
    struct Driver {
        let parameters: Parameters
        let useMagnetometer: Bool
        var statistics = Statistics()
        /// Samples (with the initialiser's estimate) not yet emitted, from the current window's start.
        var pending: [AttitudeSmoother.Sample] = []
        /// For each pending sample, its magnetometer reading calibrated by the on-line calibration
        /// while that calibration came from the gyroscope's turns (nil otherwise): a magnet fixed to
        /// the device for a while is a hard iron only while it is there, which the joint calibration
        /// (one per recording) cannot follow and the turns can (see ``followOnLineCalibration(_:)``).
        var pendingTurned: [Vector3?] = []
        /// The on-line calibration run over the samples as they come, and the time of the last
        /// magnetometer reading it took.
        var onLineCalibration: MagnetometerSelfCalibration
        var onLineTime = Double.nan
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
        /// Raw readings of the windows that did not calibrate, thinned, for
        /// ``Statistics/rawStrengthSpread``.
        var uncalibratedReadings = ThinnedReadings()
        /// The latest ellipsoid fit of the raw readings.
        var plainFit: MagnetometerCalibration?
        /// The gyroscope's turns between raw readings while the calibration is undecided (see
        /// ``decideCalibration()``).
        var turns: GyroscopeAidedCalibration.Recording
        /// Whether the joint calibration started from the gyroscope's turns (they determine it
        /// where the readings' directions cover too little of the sphere to). Whether those turns
        /// were about one axis only (the calibration is then used but not stated as a fit) is
        /// ``Statistics/calibrationAxisUnknown``.
        var calibrationFromTurns = false
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
            onLineCalibration = MagnetometerSelfCalibration(parameters: parameters.filter.magnetometerCalibration)
            turns = GyroscopeAidedCalibration.Recording(batch: parameters)
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
            // The deciding head, then the rest of the input.
            var headIndex = 0
            func input() throws -> SensorSample? {
                if headIndex < head.count {
                    headIndex += 1
                    return head[headIndex - 1]
                }
                return exhausted ? nil : try next()
            }
            switch p.initialiser {
            case .smoother:
                var smootherParameters = AttitudeSmoother.Parameters()
                smootherParameters.filter = p.filter
                smootherParameters.magnetometerDelay = magnetometerDelay
                try AttitudeSmoother(parameters: smootherParameters).reconstruct(next: input) { s in
                    try accept(s, progress: progress, body)
                }
            case .filter:
                // The run path's own loop.
                var forward = RunConfiguration()
                forward.filter = .ekf(p.filter)
                // The batch decides the calibration itself (jointly, or from the whole recording).
                forward.magnetometerLookAhead = 0
                try forward.run(next: input) { e, input in
                    try accept(AttitudeSmoother.Sample(estimate: e, input: input), progress: progress, body)
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
            var s = s
            // A reading the initialiser's filter found clipped (``MagnetometerClipping``) is none.
            if s.estimate.diagnostics.magnetometerClipped { s.input.magnetometer = nil }
            if s.t.isFinite {
                let jumped = s.t - segmentTime > p.longestBridgedGap || s.t < segmentTime - p.clockStepBack
                if segmentTime.isFinite && jumped { try finishSegment(progress: progress, body) }
                if !segmentTime.isFinite || s.t > segmentTime { segmentTime = s.t }
            }
            pending.append(s)
            pendingTurned.append(followOnLineCalibration(s))
            if calibration == nil {
                // Bias-corrected with the initialiser's bias.
                turns.add(
                    t: s.t, magnetometer: s.input.magnetometer,
                    rate: s.input.gyroscope.map { $0 - s.estimate.gyroscopeBias })
            }
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
                if final {
                    switch calibration(window) {
                    case .success(let c): statistics.magnetometerCalibration = c
                    case .failure(let why): statistics.calibrationProblem = why.description
                    }
                }
            } else {
                for i in window.mag.indices where window.magValid[i] { uncalibratedReadings.add(window.mag[i]) }
                if final { statistics.magnetometerCalibration = plainFit }
            }
            if final { statistics.rawStrengthSpread = uncalibratedReadings.strengthSpread }
            let emitEnd = final ? pending.count : allKnots[boundary]
            if calibration == nil {
                for s in pending[0..<emitEnd] { if let m = s.input.magnetometer { rawReadings.add(m) } }
            }
            try emit(window, inverse, upTo: emitEnd, body)
            if final {
                pending.removeAll()
                pendingTurned.removeAll()
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
            pendingTurned.removeFirst(emitEnd)
        }

        /// Feeds `s` to the on-line calibration (the rate bias-corrected with the initialiser's bias;
        /// a sample without a magnetometer reading only turns it); its calibrated magnetometer
        /// reading while the calibration in use came from the turns. Not while the magnetometer is
        /// calibrated jointly (its readings are then the joint calibration's).
        mutating func followOnLineCalibration(_ s: AttitudeSmoother.Sample) -> Vector3? {
            guard useMagnetometer, calibration?.enabled != true, s.t.isFinite else { return nil }
            let dt = onLineTime.isFinite ? s.t - onLineTime : 0
            onLineTime = s.t
            if dt < 0 || dt > parameters.longestBridgedGap { onLineCalibration.interruptTurns() }
            let rate = s.input.gyroscope.map { $0 - s.estimate.gyroscopeBias }
            guard let m = s.input.magnetometer, m.isFinite else {
                onLineCalibration.rotate(rate: rate, dt: max(0, dt))
                return nil
            }
            _ = onLineCalibration.observe(m, rate: rate, dt: max(0, dt))
            return onLineCalibration.turnedInUse ? onLineCalibration.apply(m) : nil
        }

        /// The median of `values` (the upper middle one of an even count); sorts them.
        static func median(_ values: inout [Double]) -> Double {
            values.sort()
            return values[values.count / 2]
        }
    }
}
