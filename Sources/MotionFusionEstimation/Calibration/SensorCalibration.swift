import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A sensor calibration: what `motionfusion calibrate` writes and `--calibration FILE` applies.
/// Any part may be absent.
///
/// JSON layout (units: µT, rad/s, m/s²):
/// ```
/// { "magnetometer": { "hard_iron": [x, y, z], "soft_iron": [[…], […], […]], "field_strength_ut": …,
///                     "residual_ut": …, "coverage": …, "samples": … },
///   "gyroscope": { "bias": [x, y, z], "rest_samples": … },
///   "accelerometer": { "bias": [x, y, z], "scale": [x, y, z], "residual_m_s2": …, "poses": … } }
/// ```
/// Calibrated values are `soft_iron · (raw − hard_iron)`, `raw − bias`, and `scale ⊙ (raw − bias)`.
public struct SensorCalibration: Sendable, Equatable {
    /// Magnetometer hard and soft iron.
    public var magnetometer: MagnetometerCalibration?
    /// Gyroscope bias from rest periods, rad/s, and the number of rest samples it came from.
    public var gyroscopeBias: Vector3?
    /// Rest samples behind the gyroscope bias.
    public var gyroscopeRestSamples = 0
    /// Accelerometer six-position calibration.
    public var accelerometer: AccelerometerSixPositionCalibration?
    /// What could not be calibrated and why.
    public var warnings: [String] = []
    /// The sensors a fit was asked for but refused.
    public var refusals: Set<SensorKind> = []

    /// An empty calibration.
    public init() {}

    /// Applies the calibration to one sample.
    public func apply(_ s: SensorSample) -> SensorSample {
        var out = s
        if let m = s.magnetometer, let cal = magnetometer { out.magnetometer = cal.apply(m) }
        if let g = s.gyroscope, let b = gyroscopeBias { out.gyroscope = g - b }
        if let a = s.accelerometer, let cal = accelerometer { out.accelerometer = cal.apply(a) }
        return out
    }

    /// Applies the calibration to every sample of a trace.
    public func apply(_ trace: Trace) -> Trace {
        var t = trace
        t.samples = trace.samples.map(apply)
        return t
    }

    static func array(_ v: Vector3) -> JSONValue { [.number(v.x), .number(v.y), .number(v.z)] }

    /// The JSON text (non-finite numbers, which a fit never produces, would be written as null).
    public var json: String {
        var top = [String: JSONValue]()
        if let m = magnetometer {
            top["magnetometer"] = [
                "hard_iron": Self.array(m.hardIron),
                "soft_iron": [Self.array(m.softIron.row0), Self.array(m.softIron.row1), Self.array(m.softIron.row2)],
                "field_strength_ut": .number(m.fieldStrength), "residual_ut": .number(m.residual),
                "coverage": .number(m.coverage), "samples": .integer(m.samplesUsed),
            ]
        }
        if let b = gyroscopeBias {
            top["gyroscope"] = ["bias": Self.array(b), "rest_samples": .integer(gyroscopeRestSamples)]
        }
        if let a = accelerometer {
            top["accelerometer"] = [
                "bias": Self.array(a.bias), "scale": Self.array(a.scale), "residual_m_s2": .number(a.residual),
                "poses": .integer(a.poses),
            ]
        }
        top["warnings"] = .array(warnings.map { .string($0) })
        return JSONValue.object(top).text + "\n"
    }
}
