import MotionFusion

/// A trace loaded for `mf_trace_*`: the samples and what the recording has.
final class LoadedTrace {
    let trace: Trace
    let contents: UInt32

    init(_ reader: SampleReader) throws {
        trace = try reader.readTrace()
        let d = reader.description
        var c: UInt32 = 0
        if d.sensors.contains(.gyroscope) { c |= 1 }
        if d.sensors.contains(.accelerometer) { c |= 2 }
        if d.sensors.contains(.magnetometer) { c |= 4 }
        if d.hasTruth || trace.hasGroundTruth { c |= 8 }
        if trace.samples.contains(where: { $0.moving != nil }) { c |= 16 }
        contents = c
    }
}

@_cdecl("mf_trace_load")
public func mf_trace_load(
    _ path: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?, _ trace: UnsafeMutablePointer<OpaquePointer?>?,
    _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    mf_trace_load_options(path, format, nil, nil, .nan, trace, error, errorCapacity)
}

@_cdecl("mf_trace_load_options")
public func mf_trace_load_options(
    _ path: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?, _ columns: UnsafePointer<CChar>?,
    _ units: UnsafePointer<CChar>?, _ sampleRate: Double, _ trace: UnsafeMutablePointer<OpaquePointer?>?,
    _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    mf_trace_load_ex(path, format, columns, units, sampleRate, nil, -1, trace, error, errorCapacity)
}

@_cdecl("mf_trace_load_ex")
public func mf_trace_load_ex(
    _ path: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?, _ columns: UnsafePointer<CChar>?,
    _ units: UnsafePointer<CChar>?, _ sampleRate: Double, _ remap: UnsafePointer<CChar>?, _ headerRows: Int32,
    _ trace: UnsafeMutablePointer<OpaquePointer?>?, _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard let path = text(path), let trace else { throw CallError.usage("a path is needed") }
        let f = try Arguments.choice(format, "format", TraceFormat.self)
        var options = DelimitedReadOptions()
        options.columns = text(columns).flatMap { $0.isEmpty ? nil : $0 }
        if let spec = text(units), !spec.isEmpty {
            var check = SensorUnits()
            do {
                try check.set(spec: spec)
            } catch {
                throw CallError.usage("units: \(error)")
            }
            options.units = spec
        }
        if !sampleRate.isNaN {
            guard sampleRate.isFinite && sampleRate > 0 else {
                throw CallError.usage("sample_rate must be a positive number of Hz; got \(sampleRate)")
            }
            options.sampleRate = sampleRate
        }
        if let spec = text(remap), !spec.isEmpty {
            do {
                options.remap = try SensorRemap(spec: spec)
            } catch {
                throw CallError.usage("\(error)")
            }
        }
        if headerRows >= 0 {
            guard headerRows <= 1000 else {
                throw CallError.usage("header_rows must be within 0...1000; got \(headerRows)")
            }
            options.headerRows = Int(headerRows)
        }
        let loaded = try LoadedTrace(TraceFormat.open(path: path, format: f, options: options))
        trace.pointee = OpaquePointer(Unmanaged.passRetained(loaded).toOpaque())
    }
}

func loaded(_ p: OpaquePointer) -> LoadedTrace {
    Unmanaged<LoadedTrace>.fromOpaque(UnsafeRawPointer(p)).takeUnretainedValue()
}

@_cdecl("mf_trace_count")
public func mf_trace_count(_ trace: OpaquePointer) -> Int { loaded(trace).trace.samples.count }

@_cdecl("mf_trace_contents")
public func mf_trace_contents(_ trace: OpaquePointer) -> UInt32 { loaded(trace).contents }

@_cdecl("mf_trace_format")
public func mf_trace_format(_ trace: OpaquePointer) -> UnsafeMutablePointer<CChar> {
    cString(loaded(trace).trace.format)
}

@_cdecl("mf_trace_warnings")
public func mf_trace_warnings(_ trace: OpaquePointer) -> UnsafeMutablePointer<CChar> {
    cString(loaded(trace).trace.warnings.map(\.description).joined(separator: "\n"))
}

@_cdecl("mf_trace_copy")
public func mf_trace_copy(
    _ trace: OpaquePointer, _ t: UnsafeMutablePointer<Double>?, _ gyr: UnsafeMutablePointer<Double>?,
    _ acc: UnsafeMutablePointer<Double>?, _ mag: UnsafeMutablePointer<Double>?,
    _ truth: UnsafeMutablePointer<Double>?, _ moving: UnsafeMutablePointer<UInt8>?
) {
    func put(_ v: Vector3?, _ p: UnsafeMutablePointer<Double>?, _ i: Int) {
        guard let p else { return }
        p[3 * i] = v?.x ?? .nan
        p[3 * i + 1] = v?.y ?? .nan
        p[3 * i + 2] = v?.z ?? .nan
    }
    for (i, s) in loaded(trace).trace.samples.enumerated() {
        t?[i] = s.t
        put(s.gyroscope, gyr, i)
        put(s.accelerometer, acc, i)
        put(s.magnetometer, mag, i)
        if let p = truth {
            p[4 * i] = s.truth?.w ?? .nan
            p[4 * i + 1] = s.truth?.x ?? .nan
            p[4 * i + 2] = s.truth?.y ?? .nan
            p[4 * i + 3] = s.truth?.z ?? .nan
        }
        moving?[i] = s.moving == true ? 1 : 0
    }
}

@_cdecl("mf_trace_free")
public func mf_trace_free(_ trace: OpaquePointer?) {
    guard let trace else { return }
    Unmanaged<LoadedTrace>.fromOpaque(UnsafeRawPointer(trace)).release()
}
