import Foundation
import MotionFusion

/// Time series of one run for diagnosis: per sample the signed heading error and the inclination
/// error (degrees, earth frame, heading offset not removed), the bias estimate (°/s), whether the
/// filter judged the device at rest and rejected each sensor, and the filter's stated heading
/// uncertainty (degrees).
enum Series {
    static func write(condition: String, trial: String, filter: FilterKind, mode: FusionMode, to path: String) throws {
        guard let c = (Datasets.conditions + Datasets.scenarioConditions).first(where: { $0.name == condition }) else {
            return
        }
        guard let t = try c.make().first(where: { $0.name.hasPrefix(trial) }) else { return }
        var run = RunConfiguration()
        run.filter = Overrides.setup(filter, mode)
        var text = "t,heading_err,incl_err,bias_x,bias_y,bias_z,rest,acc_rejected,mag_rejected,heading_sigma,moving\n"
        let estimates = run.estimates(t.trace.samples)
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
