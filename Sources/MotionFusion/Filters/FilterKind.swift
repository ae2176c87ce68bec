/// The estimators by name, for command lines and batch runs. Running through this type keeps every
/// per-sample call statically dispatched: each case runs its own specialised loop.
public enum FilterKind: String, CaseIterable, Sendable {
    /// Multiplicative extended Kalman filter (the default, most accurate).
    case ekf
    /// Quaternion complementary filter with bias estimation.
    case complementary
    /// Mahony's nonlinear complementary filter.
    case mahony
    /// Madgwick's gradient-descent filter.
    case madgwick
    /// Tilt-compensated e-compass (accelerometer + magnetometer, no gyroscope).
    case ecompass
    /// Accelerometer tilt only (roll and pitch).
    case tilt

    /// The default filter for `replay`: the most accurate.
    public static let `default` = FilterKind.ekf

    /// Runs the filter in `mode` over `samples` and calls `body` with each estimate.
    public func run(
        _ samples: [SensorSample], mode: FusionMode, runner: FilterRunnerSettings = .init(),
        _ body: (MotionEstimate) throws -> Void
    ) rethrows {
        switch self {
        case .ekf:
            var p = KalmanFilter.Parameters()
            p.mode = mode
            DevTuning.apply(&p)
            var r = FilterRunner(KalmanFilter(parameters: p), settings: runner)
            try r.run(samples, body)
        case .complementary:
            var p = ComplementaryFilter.Parameters()
            p.mode = mode
            var r = FilterRunner(ComplementaryFilter(parameters: p), settings: runner)
            try r.run(samples, body)
        case .mahony:
            var p = MahonyFilter.Parameters()
            p.mode = mode
            var r = FilterRunner(MahonyFilter(parameters: p), settings: runner)
            try r.run(samples, body)
        case .madgwick:
            var p = MadgwickFilter.Parameters()
            p.mode = mode
            var r = FilterRunner(MadgwickFilter(parameters: p), settings: runner)
            try r.run(samples, body)
        case .ecompass:
            var r = FilterRunner(ECompass(), settings: runner)
            try r.run(samples, body)
        case .tilt:
            var r = FilterRunner(AccelerometerTilt(), settings: runner)
            try r.run(samples, body)
        }
    }

    /// The attitudes only, one per sample.
    public func attitudes(_ samples: [SensorSample], mode: FusionMode) -> [Quaternion] {
        var out = [Quaternion]()
        out.reserveCapacity(samples.count)
        run(samples, mode: mode) { out.append($0.attitude) }
        return out
    }

    /// The modes the filter supports.
    public var modes: [FusionMode] {
        switch self {
        case .ecompass: return [.nineD]
        case .tilt: return [.sixD]
        default: return [.sixD, .nineD]
        }
    }
}


import Foundation
enum DevTuning {
    static func apply(_ p: inout KalmanFilter.Parameters) {
        guard let text = ProcessInfo.processInfo.environment["MF_EKF"] else { return }
        for kv in text.split(separator: ",") {
            let parts = kv.split(separator: "=")
            guard parts.count == 2, let v = Double(parts[1]) else { continue }
            switch parts[0] {
            case "gn": p.gyroscopeNoise = v
            case "rs": p.rateScaleUncertainty = v
            case "bw": p.biasRandomWalk = v
            case "an": p.accelerometerNoise = v
            case "at": p.accelerationTolerance = v
            case "ag": p.accelerometerGate = v
            case "mn": p.magnetometerNoise = v
            case "rb": p.restBiasNoise = v
            case "aw": p.accelerationWindow = v
            case "af": p.accelerationFilterTime = v
            case "mu": p.minimumUndisturbedTime = v
            case "nt": p.fieldNormTolerance = v
            case "dt": p.dipTolerance = v.radians
            case "fn": p.fieldNormRejection = v
            case "fd": p.dipRejection = v.radians
            case "nf": p.newFieldTime = v
            case "mr": p.maximumRejectionTime = v
            case "bi": p.initialBiasUncertainty = v
            default: break
            }
        }
    }
}

enum DevFlags {
    static let trapezoid = ProcessInfo.processInfo.environment["MF_TRAP"] != nil
}
