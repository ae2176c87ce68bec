extension GyroscopeAidedCalibration {
    /// The gyroscope-aided calibration of a whole recording (`reconstruct`, `calibrate`), for
    /// readings whose directions cannot determine a fit over the sphere: the turns are followed
    /// sample by sample, fitted every refit interval with new turns, and the fit that makes the
    /// field strength steadiest relative to the raw readings' over the same turns is kept (the
    /// turns kept last may be a disturbance's, which no calibration fits).
    public struct Recording: Sendable {
        var turns = GyroscopeAidedCalibration()
        /// Time of the last sample followed, s.
        var time = Double.nan
        let parameters: MagnetometerSelfCalibration.Parameters
        let evidence: Double
        let longestGap: Double
        /// The steadiest fit so far, and how many times steadier it makes the strength over its
        /// turns than the raw readings'.
        public private(set) var steadiest: (fit: Fit, improvement: Double)?

        /// Follows turns with the on-line calibration's `parameters` (``MagnetometerSelfCalibration/Parameters/gyroscopeTurn``,
        /// ``MagnetometerSelfCalibration/Parameters/refitInterval``); keeps only fits at least
        /// `evidence` times steadier than the raw readings; a step over `longestGap` seconds
        /// starts a new turn.
        public init(parameters: MagnetometerSelfCalibration.Parameters, evidence: Double, longestGap: Double) {
            self.parameters = parameters
            self.evidence = evidence
            self.longestGap = longestGap
        }

        /// Follows one sample at time `t`: its raw magnetometer reading and its bias-corrected
        /// angular rate, rad/s, either of which may be missing (a merged timeline's rows). A step
        /// back in time or over the longest gap starts a new turn.
        public mutating func add(t: Double, magnetometer: Vector3?, rate: Vector3?) {
            guard parameters.gyroscopeAided, t.isFinite, magnetometer != nil || rate != nil else { return }
            let dt = time.isFinite ? t - time : 0
            time = t
            if dt < 0 || dt > longestGap { turns.interrupt() }
            guard let m = magnetometer, m.isFinite else {
                turns.rotate(rate: rate, dt: max(0, dt))
                return
            }
            guard
                turns.observe(
                    m, rate: rate, dt: max(0, dt), minimumTurn: parameters.gyroscopeTurn,
                    refitInterval: parameters.refitInterval),
                let fit = turns.fit(maximumAxisRatio: parameters.maximumAxisRatio)
            else { return }
            let scatter = turns.scatter(fit.hardIron, fit.softIron)
            let improvement = turns.scatter(.zero, .identity) / max(scatter, .leastNormalMagnitude)
            guard improvement > evidence, improvement > steadiest?.improvement ?? 0 else { return }
            steadiest = (fit, improvement)
        }

        /// The steadiest fit as a calibration, when it also makes the strength of all `readings`
        /// `evidence` times steadier than the raw readings' (a magnet attached to the device for a
        /// while is a hard iron only while it is there): residual and coverage over those readings,
        /// and whether the turns determined every direction (turns about one axis leave the hard
        /// iron along it at zero and the soft iron at the identity).
        public func calibration(holdingFor readings: [Vector3]) -> (
            calibration: MagnetometerCalibration, improvement: Double, complete: Bool
        )? {
            guard let (fit, improvement) = steadiest, !readings.isEmpty else { return nil }
            let calibrated = readings.map { fit.softIron * ($0 - fit.hardIron) }
            guard Self.spread(calibrated.map(\.norm)) * evidence < Self.spread(readings.map(\.norm)) else { return nil }
            let strength = calibrated.reduce(0) { $0 + $1.norm } / Double(calibrated.count)
            let residual =
                (calibrated.reduce(0) { $0 + ($1.norm - strength) * ($1.norm - strength) } / Double(calibrated.count))
                .squareRoot()
            let c = MagnetometerCalibration(
                hardIron: fit.hardIron, softIron: fit.softIron, fieldStrength: strength, residual: residual,
                coverage: MagnetometerCalibration.directionCoverage(calibrated).coverage,
                samplesUsed: readings.count, samplesOffered: readings.count)
            return (c, improvement, fit.directions == 3)
        }

        /// Standard deviation over mean (infinite without a positive mean).
        static func spread(_ values: [Double]) -> Double {
            let mean = values.reduce(0, +) / Double(max(1, values.count))
            let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(1, values.count))
            return mean > 0 ? variance.squareRoot() / mean : .infinity
        }
    }
}
