import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A filter on the run path of `mf_replay` (a ``FilterRunner``: steps from timestamps, the last
/// gyroscope value held for samples without one, gaps re-initialising), behind a protocol so that
/// each filter type's loop is specialised.
protocol Stepper: AnyObject {
    func step(_ sample: SensorSample)
    var attitude: Quaternion { get }
    var gyroscopeBias: Vector3 { get }
    var diagnostics: FilterDiagnostics { get }
    var mode: FusionMode { get }
    /// Time of the last accepted sample, s (NaN before the first).
    var lastTime: Double { get }
    var memory: FilterRunnerMemory { get set }
    func savedState() throws -> Data
    func restoreState(_ data: Data) throws
}

final class RunnerBox<Filter: AttitudeFilter>: Stepper {
    var runner: FilterRunner<Filter>

    init(_ filter: Filter, settings: FilterRunnerSettings) { runner = FilterRunner(filter, settings: settings) }

    func step(_ sample: SensorSample) { runner.step(sample) }
    var attitude: Quaternion { runner.filter.attitude }
    var gyroscopeBias: Vector3 { runner.filter.gyroscopeBias }
    var diagnostics: FilterDiagnostics { runner.filter.diagnostics }
    var mode: FusionMode { runner.filter.mode }
    var lastTime: Double { runner.lastTime }
    var memory: FilterRunnerMemory {
        get { runner.memory }
        set { runner.memory = newValue }
    }
    func savedState() throws -> Data { try runner.filter.savedState() }
    func restoreState(_ data: Data) throws { try runner.filter.restoreState(data) }
}

/// A per-sample filter for `mf_filter_*`: a filter on the run path of `mf_replay`, sample for
/// sample, with the samples screened as a trace reader screens a file's values.
final class FilterObject {
    let stepper: any Stepper
    let setup: FilterSetup
    var screen = SampleScreen(unit: "sample", window: SampleScreen.liveWindow)

    /// What a saved state belongs to, written before it: `{"filter":…,"mode":…,"parameters":{…}`.
    /// A state restores only into a filter with the same text (kind, mode and every parameter).
    var stateHeader: String {
        #"{"filter":"\#(setup.kind.rawValue)","mode":"\#(stepper.mode.rawValue)","parameters":"# + parameters.text
    }

    /// The numeric parameters by name (nested names dotted), keys sorted; a value that is not
    /// finite is the string "nan", "inf" or "-inf" (JSON has no such numbers).
    var parameters: JSONValue {
        func value(_ v: Double) -> JSONValue {
            v.isFinite ? .number(v) : .string(v.isNaN ? "nan" : v > 0 ? "inf" : "-inf")
        }
        return .object(Dictionary(uniqueKeysWithValues: setup.parameterValues.map { ($0.name, value($0.value)) }))
    }

    /// The separators between the header, the runner's memory and the filter's state.
    static let runnerKey = #","runner":"#
    static let stateKey = #","state":"#

    init(_ setup: FilterSetup) {
        struct Make: FilterVisitor {
            func visit<F: AttitudeFilter>(_ filter: F) -> any Stepper {
                RunnerBox(filter, settings: RunConfiguration().runner)
            }
        }
        self.setup = setup
        stepper = try! setup.withFilter(Make())
    }

    /// One sample through the screen and the runner; whether there are new warnings.
    @inline(__always)
    func update(
        _ t: Double, _ g: (Double, Double, Double), _ a: (Double, Double, Double), _ m: (Double, Double, Double)
    ) -> Bool {
        stepper.step(screen.screen(t, g, a, m))
        return screen.pending
    }

    static func encoder() -> JSONEncoder { SavedStateCoding.encoder() }

    static func decoder() -> JSONDecoder { SavedStateCoding.decoder() }
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
    reporting(error, errorCapacity) {
        let o = object(filter)
        let state = String(decoding: try o.stepper.savedState(), as: UTF8.self)
        let runner = String(decoding: try FilterObject.encoder().encode(o.stepper.memory), as: UTF8.self)
        json?.pointee = cString(o.stateHeader + FilterObject.runnerKey + runner + FilterObject.stateKey + state + "}")
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
        guard let key = text.firstRange(of: FilterObject.stateKey), text.hasSuffix("}") else {
            throw CallError.input(
                "not a saved state of this filter (\(o.setup.kind.rawValue)): expected what mf_filter_save_state wrote")
        }
        // The runner's memory sits between the header and the state (a state saved before the
        // filter object ran through the runner has none: the runner then starts afresh).
        var header = String(text[..<key.lowerBound])
        var memory: Substring?
        if let r = header.firstRange(of: FilterObject.runnerKey) {
            memory = header[r.upperBound...]
            header = String(header[..<r.lowerBound])
        }
        guard header == o.stateHeader else {
            let saved = try? JSONValue.parse(Array((header + "}").utf8))
            let kind = saved?["filter"]?.stringValue ?? "?"
            let mode = saved?["mode"]?.stringValue ?? "?"
            let same = kind == o.setup.kind.rawValue && mode == o.stepper.mode.rawValue
            throw CallError.input(
                "not a saved state of this filter (\(o.setup.kind.rawValue) \(o.stepper.mode.rawValue)): it belongs to a \(kind) \(mode) filter\(same ? " with other parameters" : "")"
            )
        }
        let state = text[key.upperBound..<text.index(before: text.endIndex)]
        do {
            let restored =
                try memory.map { try FilterObject.decoder().decode(FilterRunnerMemory.self, from: Data($0.utf8)) }
                ?? FilterObject(o.setup).stepper.memory
            try o.stepper.restoreState(Data(state.utf8))
            o.stepper.memory = restored
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
