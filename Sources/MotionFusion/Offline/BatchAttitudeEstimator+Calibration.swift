import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension BatchAttitudeEstimator {
    /// What magnetometer readings show about their calibration: the ellipsoid fit (or why there is
    /// none), how much steadier it makes the field strength, and whether that is
    /// ``Parameters/calibrationEvidence`` times or more (the readings need calibrating).
    public struct CalibrationEvidence: Sendable {
        public var fit: MagnetometerCalibration?
        public var problem: String?
        /// The raw strength's spread over the fit's residual.
        public var improvement: Double?
        public var evident = false

        public init(_ readings: [Vector3], parameters p: Parameters) {
            do {
                fit = try MagnetometerCalibration.fit(readings, arbitraryUnits: true)
            } catch {
                problem = "\(error)"
                return
            }
            guard let fit else { return }
            let norms = readings.map(\.norm)
            let mean = norms.reduce(0, +) / Double(norms.count)
            let spread = (norms.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(norms.count)).squareRoot()
            improvement = spread / max(fit.residual, .leastNormalMagnitude)
            evident = fit.residual * p.calibrationEvidence < spread
        }
    }
}

extension GyroscopeAidedCalibration.Recording {
    /// The turns of a recording as `reconstruct` follows them: the on-line calibration's turn and
    /// refit interval, the batch's calibration evidence and longest bridged gap.
    init(batch p: BatchAttitudeEstimator.Parameters) {
        self.init(
            parameters: p.filter.magnetometerCalibration, evidence: p.calibrationEvidence,
            longestGap: p.longestBridgedGap)
    }
}

extension BatchAttitudeEstimator.Driver {

    /// Keeps about 20 000 raw magnetometer readings spread over the recording.
    mutating func keepCalibrationReadings(_ w: BatchWindow) {
        for i in w.mag.indices where w.magValid[i] && w.magWeight[i] >= 0.5 { calibrationReadings.add(w.mag[i]) }
    }

    /// Decides whether to calibrate the magnetometer jointly, from the readings emitted so far
    /// and those pending: yes when their ellipsoid fit succeeds and is ``BatchAttitudeEstimator/Parameters/calibrationEvidence``
    /// times steadier than the raw strength, no when it succeeds without that (a calibrated
    /// sensor). While the readings cannot determine a fit (a device that has not yet turned through
    /// enough directions), yes when the gyroscope's turns determine one that steady, and undecided
    /// otherwise. On the switch a new solution starts: the constants
    /// from the fit, the heading from the calibrated field, the reference field learnt again
    /// from the calibrated readings.
    mutating func decideCalibration() {
        let p = parameters
        guard useMagnetometer && p.estimateMagnetometerCalibration else {
            calibration = (false, nil)
            return
        }
        var kept = rawReadings
        for s in pending { if let m = s.input.magnetometer { kept.add(m) } }
        let evidence = BatchAttitudeEstimator.CalibrationEvidence(kept.values, parameters: p)
        statistics.calibrationProblem = evidence.problem
        let turned = evidence.fit == nil ? turns.calibration(holdingFor: kept.values) : nil
        guard let fit = evidence.fit ?? turned?.calibration else { return }
        statistics.calibrationImprovement = evidence.improvement
        if let t = turned {
            statistics.calibrationProblem = nil
            statistics.calibrationImprovement = t.improvement
            calibrationFromTurns = true
            statistics.calibrationAxisUnknown = !t.complete
        }
        plainFit = fit
        guard evidence.evident || turned != nil else {
            calibration = (false, nil)
            return
        }
        calibration = (true, fit)
        rawReadings = ThinnedReadings()
        statistics.jointCalibrationStart = pending.first { $0.t.isFinite }?.t
        // A new solution from here: the carried heading and its prior came from the raw field.
        fieldReference = nil
        carriedQ = []
        carriedB = []
        carriedV = []
        carriedD = []
        prior = nil
    }

    /// The calibration in the form `calibrate` writes: `W·(raw − h)` with det W = 1 and the
    /// field strength in reading units.
    func calibration(_ w: BatchWindow) -> Result<MagnetometerCalibration, CalibrationRefusal> {
        guard !statistics.calibrationAxisUnknown else {
            return .failure(
                CalibrationRefusal(
                    description:
                        "the device turned about one axis only, which cannot tell the hard iron along it (the joint estimate was applied, but the recording cannot state it)"
                ))
        }
        let soft = w.softIron
        let det = soft.determinant
        let g = w.globals
        guard det > 0, det.isFinite, g.allSatisfy(\.isFinite) else {
            return .failure(CalibrationRefusal(description: "the joint estimate of the soft iron is degenerate"))
        }
        let norm = Glibc.cbrt(det)
        let normalised = Matrix3(soft.row0 / norm, soft.row1 / norm, soft.row2 / norm)
        let strength = (g[9] * g[9] + g[10] * g[10]).squareRoot() / norm
        let calibrated = calibrationReadings.values.map { normalised * ($0 - w.hardIron) }
        guard !calibrated.isEmpty else {
            return .failure(CalibrationRefusal(description: "no magnetometer reading was kept while calibrating"))
        }
        let residual =
            (calibrated.reduce(0.0) { $0 + ($1.norm - strength) * ($1.norm - strength) }
            / Double(calibrated.count)).squareRoot()
        // Directions too few to determine it (a device that hardly turns): the priors, not a fit,
        // unless the gyroscope's turns about every axis determined it.
        let coverage = MagnetometerCalibration.directionCoverage(calibrated).coverage
        guard coverage >= MagnetometerCalibration.minimumCoverage || calibrationFromTurns else {
            return .failure(
                CalibrationRefusal(
                    description:
                        "the calibrated field directions cover \(Int((100 * coverage).rounded())) % of the sphere, \(Int((100 * MagnetometerCalibration.minimumCoverage).rounded())) % is needed to state the fit (the joint estimate was applied, but the recording cannot confirm it)"
                ))
        }
        return .success(
            MagnetometerCalibration(
                hardIron: w.hardIron, softIron: normalised, fieldStrength: strength, residual: residual,
                coverage: coverage, samplesUsed: calibrated.count, samplesOffered: calibrationReadings.values.count))
    }
}

/// Why a joint magnetometer calibration is not stated as a fit.
struct CalibrationRefusal: Error, CustomStringConvertible {
    var description: String
}

/// Finite readings thinned evenly over all that were offered: every `stride`-th is kept, and the
/// stride doubles (keeping every other one) whenever more than ``capacity`` are held.
struct ThinnedReadings {
    static let capacity = 20_000
    private(set) var values: [Vector3] = []
    private var stride = 1
    private var offered = 0

    /// The readings' strength: standard deviation over mean (nil without readings).
    var strengthSpread: Double? {
        guard !values.isEmpty else { return nil }
        let norms = values.map(\.norm)
        let mean = norms.reduce(0, +) / Double(norms.count)
        guard mean > 0 else { return nil }
        return (norms.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(norms.count)).squareRoot() / mean
    }

    mutating func add(_ m: Vector3) {
        guard m.isFinite else { return }
        if offered % stride == 0 { values.append(m) }
        offered += 1
        if values.count > Self.capacity {
            values = Swift.stride(from: 0, to: values.count, by: 2).map { values[$0] }
            stride *= 2
        }
    }
}
