import Foundation
import MotionFusion

/// Time series of one run for diagnosis: per sample the signed heading error and the inclination
/// error (degrees, earth frame, heading offset not removed), the bias estimate (°/s), whether the
/// filter judged the device at rest and rejected each sensor, and the filter's stated heading
/// uncertainty (degrees). The offline reconstruction's estimates carry its bias and the
/// diagnostics it sets.
enum Series {
    /// What `--series` runs: `reconstruct` (the offline reconstruction), or a filter kind.
    static let estimators = ["reconstruct"] + FilterKind.allCases.map(\.rawValue)

    /// Writes the series of `estimator` (a filter kind or `reconstruct`) in `mode` on the first
    /// trial of `condition` whose name starts with `trial`. Names that match nothing are errors
    /// naming what there is.
    static func write(condition: String, trial: String, estimator: String, mode: String, to path: String) throws {
        guard let m = FusionMode(rawValue: mode) else { usageError("unknown mode '\(mode)': 9d or 6d") }
        guard estimators.contains(estimator) else {
            usageError("unknown estimator '\(estimator)': \(estimators.joined(separator: ", "))")
        }
        let all = Datasets.conditions + Datasets.scenarioConditions
        guard let c = all.first(where: { $0.name == condition }) else {
            usageError("unknown condition '\(condition)': \(all.map(\.name).joined(separator: ", "))")
        }
        let trials = try c.make()
        guard let t = trials.first(where: { $0.name.hasPrefix(trial) }) else {
            usageError("no trial of \(condition) starts with '\(trial)': \(trials.map(\.name).joined(separator: ", "))")
        }
        if let kind = FilterKind(rawValue: estimator), !kind.modes.contains(m) {
            usageError("\(estimator) runs in \(kind.modes.map(\.rawValue).joined(separator: " or ")) only")
        }
        let estimates: [MotionEstimate]
        if let kind = FilterKind(rawValue: estimator) {
            var run = RunConfiguration()
            run.filter = Overrides.setup(kind, m)
            estimates = run.estimates(t.trace.samples)
        } else {
            estimates = try reconstructedEstimates(t.trace, mode: m)
        }
        var text = "t,heading_err,incl_err,bias_x,bias_y,bias_z,rest,acc_rejected,mag_rejected,heading_sigma,moving\n"
        for (e, s) in zip(estimates, t.trace.samples) {
            var h = Double.nan
            var inc = Double.nan
            if let q = s.truth {
                let err = (e.attitude * q.conjugate).normalized
                h = (2 * Double.atan2(err.z, err.w)).wrappedToPi.degrees
                inc = (2 * (err.w * err.w + err.z * err.z).squareRoot().acosClamped).degrees
            }
            let b = e.gyroscopeBias * (180 / .pi)
            let d = e.diagnostics
            text +=
                "\(s.t),\(h),\(inc),\(b.x),\(b.y),\(b.z),\(d.atRest ? 1 : 0),\(d.accelerometerRejected ? 1 : 0),"
                + "\(d.magnetometerRejected ? 1 : 0),\(d.headingUncertainty.degrees),\((s.moving ?? true) ? 1 : 0)\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

/// Prints `message` as the program's error and exits with status 2 (a mistake in the call).
func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Foundation.Data("AccuracyMatrix: error: \(message)\n".utf8))
    exit(2)
}
