import Foundation
import MotionFusion

/// Leave-one-group-out tuning of the EKF on the BROAD dev trials: for each motion group (rotation,
/// translation, combined, disturbed), the grid point that scores best on that group alone is
/// scored on the other groups, next to the defaults and the best grid point for those groups (the
/// oracle). Defaults that come from physics sit near the oracle; defaults fitted to one kind of
/// motion would lose to it by a margin.
enum LeaveOneGroupOut {
    /// A tuning knob: a parameter, scaled by each factor of the grid.
    struct Knob {
        var name: String
        var factors: [Double]
        var apply: (inout KalmanFilter.Parameters, Double) -> Void
    }

    static let knobs: [Knob] = [
        Knob(name: "accelerometerNoise", factors: [0.5, 1, 2]) { $0.accelerometerNoise *= $1 },
        Knob(name: "accelerationFilterTime", factors: [0.5, 1, 2]) { $0.accelerationFilterTime *= $1 },
        Knob(name: "magnetometerNoise", factors: [0.5, 1, 2]) { $0.magnetometerNoise *= $1 },
        Knob(name: "biasRandomWalk", factors: [0.3, 1, 3]) { $0.biasRandomWalk *= $1 },
    ]

    static func grid() -> [[Double]] {
        var points: [[Double]] = [[]]
        for k in knobs { points = points.flatMap { p in k.factors.map { p + [$0] } } }
        return points
    }

    static func parameters(_ point: [Double], _ mode: FusionMode) -> KalmanFilter.Parameters {
        var p = KalmanFilter.Parameters()
        p.mode = mode
        for (k, f) in zip(knobs, point) { k.apply(&p, f) }
        return p
    }

    static func run() throws {
        let trials = try Datasets.broad()
        let groups = ["rotation", "translation", "combined", "disturbed"]
        let points = grid()
        let defaultPoint = knobs.map { _ in 1.0 }
        print("## Leave-one-group-out tuning (EKF, BROAD dev trials)\n")
        print(
            "Grid: "
                + knobs.map { "\($0.name) × {\($0.factors.map { String(format: "%g", $0) }.joined(separator: ", "))}" }
                .joined(separator: ", ")
                + "; \(points.count) points. Mean total RMSE over the held-out groups, degrees.\n")
        print(
            "| mode | tuned on | held-out trials | defaults | tuned on the group | oracle (best for held-out) | chosen factors |"
        )
        print("|---|---|---|---|---|---|---|")
        for mode in [FusionMode.nineD, .sixD] {
            // scores[point][trial]
            let scores: [[Double]] = points.map { point in
                let p = parameters(point, mode)
                return parallelMap(trials.count) { i in score(.ekf(p), trials[i].trace) }
            }
            let defaultIndex = points.firstIndex(of: defaultPoint)!
            for g in groups {
                let inGroup = trials.indices.filter { trials[$0].group == g }
                let heldOut = trials.indices.filter { trials[$0].group != g }
                func meanOver(_ point: Int, _ idx: [Int]) -> Double {
                    idx.map { scores[point][$0] }.reduce(0, +) / Double(idx.count)
                }
                let tuned = points.indices.min { meanOver($0, inGroup) < meanOver($1, inGroup) }!
                let oracle = points.indices.min { meanOver($0, heldOut) < meanOver($1, heldOut) }!
                print(
                    "| \(mode.rawValue) | \(g) (\(inGroup.count)) | \(heldOut.count) | "
                        + String(
                            format: "%.2f | %.2f | %.2f | ", meanOver(defaultIndex, heldOut), meanOver(tuned, heldOut),
                            meanOver(oracle, heldOut))
                        + points[tuned].map { String(format: "%g", $0) }.joined(separator: ", ") + " |")
            }
        }
        print()
    }
}
