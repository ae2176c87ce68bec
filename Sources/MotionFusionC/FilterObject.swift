import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A per-sample filter for `mf_filter_*`: a filter on the run path of `mf_replay`, sample for
/// sample, with the samples screened as a trace reader screens a file's values.
final class FilterObject {
    let stepper: FilterStepper
    let setup: FilterSetup
    var screen = SampleScreen(unit: "sample", window: SampleScreen.liveWindow)

    /// What a saved state belongs to, saved with it as its `"setup"`: the kind, mode and every
    /// parameter. A state restores only into a filter with the same setup.
    var savedSetup: JSONValue {
        ["kind": .string(setup.kind.rawValue), "mode": .string(stepper.mode.rawValue), "parameters": parameters]
    }

    /// The numeric parameters by name (nested names dotted), keys sorted; a value that is not
    /// finite is the string "nan", "inf" or "-inf" (JSON has no such numbers).
    var parameters: JSONValue { .object(Self.parameterValues(setup)) }

    /// The numeric parameters of `setup` by name, as ``parameters`` writes them.
    static func parameterValues(_ setup: FilterSetup) -> [String: JSONValue] {
        func value(_ v: Double) -> JSONValue {
            v.isFinite ? .number(v) : .string(v.isNaN ? "nan" : v > 0 ? "inf" : "-inf")
        }
        return Dictionary(uniqueKeysWithValues: setup.parameterValues.map { ($0.name, value($0.value)) })
    }

    /// The key of the setup a saved state belongs to, added after the runner's own keys (`filter`,
    /// `runner`), so that the text stays what a sorted-keys encoder writes.
    static let setupKey = #","setup":"#

    init(_ setup: FilterSetup) {
        self.setup = setup
        stepper = FilterStepper(setup, settings: RunConfiguration().runner)
    }

    /// One sample through the screen and the runner; whether there are new warnings.
    @inline(__always)
    func update(
        _ t: Double, _ g: (Double, Double, Double), _ a: (Double, Double, Double), _ m: (Double, Double, Double)
    ) -> Bool {
        stepper.step(screen.screen(t, g, a, m))
        return screen.pending
    }

    /// The saved state: what ``FilterRunner/savedState()`` writes (`{"filter":…,"runner":…}`),
    /// with the setup it belongs to as one more key, `"setup"`. Any runner around the same kind of
    /// filter restores it (a decoder skips the extra key).
    func savedState() throws -> String {
        let run = String(decoding: try stepper.savedState(), as: UTF8.self)
        guard run.hasPrefix("{"), run.hasSuffix("}") else {
            throw CallError.input("the runner's saved state is not a JSON object")
        }
        return run.dropLast() + Self.setupKey + savedSetup.text + "}"
    }

    /// Restores `text`, a state ``savedState()`` wrote, or one in the earlier format of the C ABI
    /// (`{"filter":KIND,"mode":…,"parameters":{…},"runner":{…},"state":{…}}`, `runner` absent in the
    /// oldest), so that states saved before still restore. A state restores only
    /// into a filter of the same setup.
    func restore(_ text: String) throws {
        let refused = "not a saved state of this filter (\(setup.kind.rawValue))"
        let value: JSONValue
        do {
            value = try JSONValue.parse(Array(text.utf8))
        } catch {
            throw CallError.input("\(refused): \(error); expected what mf_filter_save_state wrote")
        }
        guard case .object = value else {
            throw CallError.input("\(refused): expected what mf_filter_save_state wrote")
        }
        // The old format names the kind in "filter"; the runner's own format keeps the filter's
        // state there.
        let old = value["filter"]?.stringValue != nil
        let saved = old ? value : value["setup"]
        guard let saved, case .object = saved, saved["parameters"] != nil else {
            throw CallError.input("\(refused): it names no filter setup; expected what mf_filter_save_state wrote")
        }
        let kind = (old ? saved["filter"] : saved["kind"])?.stringValue ?? "?"
        let mode = saved["mode"]?.stringValue ?? "?"
        // A parameter added since the state was saved takes its default: the filter that saved it
        // ran with that value.
        var savedParameters = Self.parameterValues(FilterSetup(setup.kind, mode: stepper.mode))
        for (name, value) in saved["parameters"]?.objectValue ?? [:] { savedParameters[name] = value }
        guard kind == setup.kind.rawValue, mode == stepper.mode.rawValue,
            JSONValue.object(savedParameters).text == parameters.text
        else {
            let same = kind == setup.kind.rawValue && mode == stepper.mode.rawValue
            throw CallError.input(
                "not a saved state of this filter (\(setup.kind.rawValue) \(stepper.mode.rawValue)): it belongs to a \(kind) \(mode) filter\(same ? " with other parameters" : "")"
            )
        }
        do {
            try stepper.restoreState(Data((old ? try Self.runnerState(old: text) : text).utf8))
        } catch let e as StatusError {
            throw e
        } catch {
            throw CallError.input("\(refused): \(error)")
        }
    }

    /// The runner's format (`{"filter":STATE,"runner":MEMORY}`) of a state in the old format, its
    /// texts cut out verbatim so that the state restores bit for bit; a fresh runner's memory when
    /// the old state has none.
    static func runnerState(old text: String) throws -> String {
        guard let state = text.firstRange(of: #","state":"#), text.hasSuffix("}") else {
            throw CallError.input("a saved state in the old format without its \"state\"")
        }
        let header = text[..<state.lowerBound]
        let memory =
            try header.firstRange(of: #","runner":"#).map { String(header[$0.upperBound...]) }
            ?? String(decoding: try SavedStateCoding.encoder().encode(FilterRunnerMemory()), as: UTF8.self)
        return #"{"filter":"# + text[state.upperBound..<text.index(before: text.endIndex)] + #","runner":"# + memory
            + "}"
    }
}

func object(_ p: OpaquePointer) -> FilterObject {
    Unmanaged<FilterObject>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
}

/// Writes the canonical attitude as w, x, y, z.
@inline(__always)
func write(_ q: Quaternion, to p: UnsafeMutablePointer<Double>, row i: Int = 0) {
    let c = q.canonical
    p[4 * i] = c.w
    p[4 * i + 1] = c.x
    p[4 * i + 2] = c.y
    p[4 * i + 3] = c.z
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

@_cdecl("mf_filter_step")
public func mf_filter_step(
    _ filter: OpaquePointer, _ sample: UnsafePointer<Double>?, _ quaternion: UnsafeMutablePointer<Double>?
) -> Int32 {
    guard let p = sample else { return 0 }
    let o = object(filter)
    let warn = o.update(p[0], (p[1], p[2], p[3]), (p[4], p[5], p[6]), (p[7], p[8], p[9]))
    if let quaternion { write(o.stepper.attitude, to: quaternion) }
    return warn ? 1 : 0
}

@_cdecl("mf_filter_update_many")
public func mf_filter_update_many(
    _ filter: OpaquePointer, _ n: Int, _ t: UnsafePointer<Double>?, _ gyr: UnsafePointer<Double>?,
    _ acc: UnsafePointer<Double>?, _ mag: UnsafePointer<Double>?, _ quaternion: UnsafeMutablePointer<Double>?,
    _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard n >= 0 else { throw CallError.usage("negative sample count") }
        guard n > 0 else { return }
        guard let t else { throw CallError.usage("t is missing") }
        let o = object(filter)
        for i in 0..<n {
            _ = o.update(t[i], triple(gyr, i), triple(acc, i), triple(mag, i))
            if let quaternion { write(o.stepper.attitude, to: quaternion, row: i) }
        }
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
        // The time since the previous sample, on the filter's clock (from 0 at the first sample).
        let o = object(filter)
        let last = o.stepper.lastTime
        _ = o.update((last.isFinite ? last : 0) + dt, triple(gyr, 0), triple(acc, 0), triple(mag, 0))
    }
}

@_cdecl("mf_filter_warnings")
public func mf_filter_warnings(_ filter: OpaquePointer) -> UnsafeMutablePointer<CChar> {
    cString(object(filter).screen.takeWarnings().joined(separator: "\n"))
}

@_cdecl("mf_filter_read")
public func mf_filter_read(
    _ filter: OpaquePointer, _ quaternion: UnsafeMutablePointer<Double>?, _ gyroBias: UnsafeMutablePointer<Double>?,
    _ sigma: UnsafeMutablePointer<Double>?, _ flags: UnsafeMutablePointer<UInt32>?
) {
    let f = object(filter).stepper
    if let p = quaternion { write(f.attitude, to: p) }
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
    reporting(error, errorCapacity) { json?.pointee = cString(try object(filter).savedState()) }
}

@_cdecl("mf_filter_restore_state")
public func mf_filter_restore_state(
    _ filter: OpaquePointer, _ json: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard let json else { throw CallError.usage("no state given") }
        try object(filter).restore(String(cString: json))
    }
}

@_cdecl("mf_filter_free")
public func mf_filter_free(_ filter: OpaquePointer?) {
    guard let filter else { return }
    Unmanaged<FilterObject>.fromOpaque(UnsafeRawPointer(filter)).release()
}
