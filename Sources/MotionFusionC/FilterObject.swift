import Foundation
import MotionFusion

/// A per-sample filter for `mf_filter_*`. Per-call overhead is irrelevant at this boundary, so the
/// filter is held as an existential.
final class FilterObject {
    var filter: any AttitudeFilter
    let setup: FilterSetup

    /// What a saved state belongs to, written before it: `{"filter":…,"mode":…,"parameters":{…}`.
    /// A state restores only into a filter with the same text (kind, mode and every parameter).
    var stateHeader: String {
        #"{"filter":"\#(setup.kind.rawValue)","mode":"\#(filter.mode.rawValue)","parameters":"# + parameters.text
    }

    /// The numeric parameters by name (nested names dotted), keys sorted; a value that is not
    /// finite is the string "nan", "inf" or "-inf" (JSON has no such numbers).
    var parameters: JSONValue {
        func value(_ v: Double) -> JSONValue {
            v.isFinite ? .number(v) : .string(v.isNaN ? "nan" : v > 0 ? "inf" : "-inf")
        }
        return .object(Dictionary(uniqueKeysWithValues: setup.parameterValues.map { ($0.name, value($0.value)) }))
    }

    /// The separator between the header and the state itself.
    static let stateKey = #","state":"#

    init(_ setup: FilterSetup) {
        struct Make: FilterVisitor {
            func visit<F: AttitudeFilter>(_ filter: F) -> any AttitudeFilter { filter }
        }
        self.setup = setup
        filter = try! setup.withFilter(Make())
    }
}

func object(_ p: OpaquePointer) -> FilterObject {
    Unmanaged<FilterObject>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
}

@_cdecl("mf_filter_create")
public func mf_filter_create(
    _ kind: UnsafePointer<CChar>?, _ mode: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
    _ filter: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard let filter else { throw CallError.usage("no place for the filter") }
        let o = FilterObject(try Arguments.filter(kind, mode, parameters))
        filter.pointee = OpaquePointer(Unmanaged.passRetained(o).toOpaque())
    }
}

@_cdecl("mf_filter_update")
public func mf_filter_update(
    _ filter: OpaquePointer, _ gyr: UnsafePointer<Double>?, _ acc: UnsafePointer<Double>?,
    _ mag: UnsafePointer<Double>?, _ dt: Double, _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard dt.isFinite && dt >= 0 else {
            throw CallError.usage("dt must be finite and not negative (seconds since the previous sample); got \(dt)")
        }
        object(filter).filter.update(
            gyroscope: SensorArrays.row(gyr, 0), accelerometer: SensorArrays.row(acc, 0),
            magnetometer: SensorArrays.row(mag, 0), dt: dt)
    }
}

@_cdecl("mf_filter_read")
public func mf_filter_read(
    _ filter: OpaquePointer, _ quaternion: UnsafeMutablePointer<Double>?, _ gyroBias: UnsafeMutablePointer<Double>?,
    _ sigma: UnsafeMutablePointer<Double>?, _ flags: UnsafeMutablePointer<UInt32>?
) {
    let f = object(filter).filter
    if let p = quaternion {
        let q = f.attitude.canonical
        (p[0], p[1], p[2], p[3]) = (q.w, q.x, q.y, q.z)
    }
    if let p = gyroBias {
        let b = f.gyroscopeBias
        (p[0], p[1], p[2]) = (b.x, b.y, b.z)
    }
    let d = f.diagnostics
    if let p = sigma {
        p[0] = d.attitudeUncertainty.degrees
        p[1] = d.headingUncertainty.degrees
    }
    if let flags {
        var bits: UInt32 = 0
        if d.accelerometerRejected { bits |= 1 }
        if d.magnetometerRejected { bits |= 2 }
        if d.atRest { bits |= 4 }
        if d.initialising { bits |= 8 }
        flags.pointee = bits
    }
}

@_cdecl("mf_filter_parameters")
public func mf_filter_parameters(
    _ filter: OpaquePointer, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) { json?.pointee = cString(object(filter).parameters.text) }
}

@_cdecl("mf_filter_save_state")
public func mf_filter_save_state(
    _ filter: OpaquePointer, _ json: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        let o = object(filter)
        let state = String(decoding: try o.filter.savedState(), as: UTF8.self)
        json?.pointee = cString(o.stateHeader + FilterObject.stateKey + state + "}")
    }
}

@_cdecl("mf_filter_restore_state")
public func mf_filter_restore_state(
    _ filter: OpaquePointer, _ json: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard let json else { throw CallError.usage("no state given") }
        let o = object(filter)
        let text = String(cString: json)
        // The header names the filter the state belongs to; the state itself is restored verbatim
        // (bit-exact), so it is cut out of the text rather than re-encoded.
        guard let key = text.range(of: FilterObject.stateKey), text.hasSuffix("}") else {
            throw CallError.input(
                "not a saved state of this filter (\(o.setup.kind.rawValue)): expected what mf_filter_save_state wrote")
        }
        let header = String(text[..<key.lowerBound])
        guard header == o.stateHeader else {
            let saved = (try? JSONSerialization.jsonObject(with: Data((header + "}").utf8))) as? [String: Any]
            let kind = saved?["filter"] as? String ?? "?"
            let mode = saved?["mode"] as? String ?? "?"
            let same = kind == o.setup.kind.rawValue && mode == o.filter.mode.rawValue
            throw CallError.input(
                "not a saved state of this filter (\(o.setup.kind.rawValue) \(o.filter.mode.rawValue)): it belongs to a \(kind) \(mode) filter\(same ? " with other parameters" : "")"
            )
        }
        let state = text[key.upperBound..<text.index(before: text.endIndex)]
        do {
            try o.filter.restoreState(Data(state.utf8))
        } catch {
            throw CallError.input("not a saved state of this filter (\(o.setup.kind.rawValue)): \(error)")
        }
    }
}

@_cdecl("mf_filter_free")
public func mf_filter_free(_ filter: OpaquePointer?) {
    guard let filter else { return }
    Unmanaged<FilterObject>.fromOpaque(UnsafeRawPointer(filter)).release()
}
