import Foundation
import MotionFusion

/// Parameter overrides from the command line (`--set ekf '{"gyroscopeNoise": 0.0001}'`), for
/// exploring: the JSON keys replace those of the filter's default parameters.
enum Overrides {
    nonisolated(unsafe) static var json: [FilterKind: [String: Any]] = [:]

    static func merged<P: Codable>(_ defaults: P, _ extra: [String: Any]) -> P {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let data = try! encoder.encode(defaults)
        var object = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
        func merge(_ a: inout [String: Any], _ b: [String: Any]) {
            for (k, v) in b {
                if var inner = a[k] as? [String: Any], let vb = v as? [String: Any] {
                    merge(&inner, vb)
                    a[k] = inner
                } else {
                    a[k] = v
                }
            }
        }
        merge(&object, extra)
        return try! decoder.decode(P.self, from: JSONSerialization.data(withJSONObject: object))
    }

    /// The filter of `kind` in `mode` with the overrides applied.
    static func setup(_ kind: FilterKind, _ mode: FusionMode) -> FilterSetup {
        var s = FilterSetup(kind, mode: mode)
        guard let extra = json[kind] else { return s }
        switch s {
        case .ekf(let p): s = .ekf(merged(p, extra))
        case .complementary(let p): s = .complementary(merged(p, extra))
        case .mahony(let p): s = .mahony(merged(p, extra))
        case .madgwick(let p): s = .madgwick(merged(p, extra))
        default: break
        }
        return s
    }
}
