import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

// The C ABI of MotionFusion: `@_cdecl` functions declared in include/motionfusion.h. Only C types
// cross the boundary (numbers, pointers to caller-owned arrays, NUL-terminated strings, opaque
// handles); every error comes back as a status code and a message.

/// A failure reported to the C caller: a status code (`MF_ERROR_INPUT` 1, `MF_ERROR_USAGE` 2, the
/// command line's exit statuses) and a message, mapped from any error by the library's one table
/// (``StatusError/from(_:)``).
typealias CallError = StatusError

/// Runs `body`, returning 0, or the error's code after writing its message into `error`.
func reporting(_ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int, _ body: () throws -> Void) -> Int32 {
    do {
        try body()
        return 0
    } catch {
        let e = StatusError.from(error)
        write(e.message, into: buffer, capacity)
        return e.status
    }
}

/// Copies `text` as NUL-terminated UTF-8 into `buffer`, cut at a character boundary to fit.
func write(_ text: String, into buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int) {
    guard let buffer, capacity > 0 else { return }
    var bytes = Array(text.utf8)
    if bytes.count > capacity - 1 {
        var end = capacity - 1
        // Back off over continuation bytes (10xxxxxx) to the start of a character.
        while end > 0 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        bytes.removeSubrange(end...)
    }
    bytes.withUnsafeBufferPointer { b in
        b.withMemoryRebound(to: CChar.self) { c in
            if let base = c.baseAddress { buffer.update(from: base, count: c.count) }
        }
    }
    buffer[bytes.count] = 0
}

/// A string the caller frees with `mf_string_free`.
func cString(_ text: String) -> UnsafeMutablePointer<CChar> { strdup(text)! }

/// An optional C string argument.
func text(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

/// The version string, allocated once for the life of the process.
nonisolated(unsafe) let versionText = cString(motionFusionVersion)

@_cdecl("mf_version")
public func mf_version() -> UnsafePointer<CChar> { UnsafePointer(versionText) }

/// The filters' names, comma-separated, allocated once for the life of the process.
nonisolated(unsafe) let filterNames = cString(FilterKind.allCases.map(\.rawValue).joined(separator: ","))

@_cdecl("mf_filters")
public func mf_filters() -> UnsafePointer<CChar> { UnsafePointer(filterNames) }

@_cdecl("mf_string_free")
public func mf_string_free(_ string: UnsafeMutablePointer<CChar>?) { free(string) }

/// Argument parsing shared by the entry points, with the command line's wording.
enum Arguments {
    /// A choice among an enumeration's raw values (case-insensitive), or `fallback` when absent.
    static func choice<E: RawRepresentable & CaseIterable>(_ p: UnsafePointer<CChar>?, _ name: String, _: E.Type)
        throws -> E? where E.RawValue == String
    {
        guard let given = text(p) else { return nil }
        guard let v = E.allCases.first(where: { $0.rawValue == given.lowercased() }) else {
            throw CallError.usage(
                "\(name) must be one of \(E.allCases.map(\.rawValue).joined(separator: ", ")); got '\(given.escapedForMessage)'"
            )
        }
        return v
    }

    /// The filter setup of `kind`, `mode` and `parameters` (each may be absent).
    static func filter(
        _ kind: UnsafePointer<CChar>?, _ mode: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?
    ) throws -> FilterSetup {
        try filter(kind, mode, spec: text(parameters))
    }

    /// The filter setup of `kind`, `mode` and the parameters `spec` (each may be absent).
    static func filter(_ kind: UnsafePointer<CChar>?, _ mode: UnsafePointer<CChar>?, spec: String?) throws
        -> FilterSetup
    {
        let k = try choice(kind, "filter", FilterKind.self) ?? .default
        var setup = FilterSetup(k)
        if let m = try choice(mode, "mode", FusionMode.self) {
            guard k.modes.contains(m) else {
                throw CallError.usage(
                    "filter \(k.rawValue) supports only mode \(k.modes.map(\.rawValue).joined(separator: "|"))")
            }
            setup.mode = m
        }
        if let spec, !spec.isEmpty {
            do {
                try setup.setParameters(spec)
            } catch {
                throw CallError.usage("parameters: \(error)")
            }
        }
        return setup
    }

    /// The run configuration of a batch call.
    static func run(
        filter: UnsafePointer<CChar>?, mode: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?,
        frame: UnsafePointer<CChar>?, declination: Double
    ) throws -> RunConfiguration {
        try run(filter: filter, mode: mode, spec: text(parameters), frame: frame, declination: declination)
    }

    /// The run configuration of a reconstruction and its batch estimator's tuning: the parameters
    /// named `batch.…` tune the batch estimator, the others the filter.
    static func reconstruction(
        filter: UnsafePointer<CChar>?, mode: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?,
        frame: UnsafePointer<CChar>?, declination: Double
    ) throws -> (run: RunConfiguration, batch: BatchAttitudeEstimator.Parameters) {
        var batch = BatchAttitudeEstimator.Parameters()
        var spec = text(parameters)
        if let given = spec {
            do {
                spec = try batch.takeParameters(from: given)
            } catch {
                throw CallError.usage("parameters: \(error)")
            }
        }
        return (try run(filter: filter, mode: mode, spec: spec, frame: frame, declination: declination), batch)
    }

    /// The run configuration of a batch call with the parameters `spec`.
    static func run(
        filter: UnsafePointer<CChar>?, mode: UnsafePointer<CChar>?, spec: String?, frame: UnsafePointer<CChar>?,
        declination: Double
    ) throws -> RunConfiguration {
        var c = RunConfiguration()
        c.filter = try Self.filter(filter, mode, spec: spec)
        c.frame = try choice(frame, "frame", EarthFrame.self) ?? .enu
        if !declination.isNaN {
            guard declination.isFinite && abs(declination) <= 180 else {
                throw CallError.usage("declination must be within -180...180 degrees; got \(declination)")
            }
            c.declinationDegrees = declination
        }
        return c
    }
}

@_cdecl("mf_use_lapack")
public func mf_use_lapack(_ path: UnsafePointer<CChar>?, _ error: UnsafeMutablePointer<CChar>?, _ errorCapacity: Int)
    -> Int32
{
    reporting(error, errorCapacity) {
        guard let path = text(path), !path.isEmpty else { throw CallError.usage("path is missing") }
        do {
            try LinearAlgebra.useLibrary(at: path)
        } catch {
            throw CallError.usage("\(error)")
        }
    }
}

@_cdecl("mf_lapack_library")
public func mf_lapack_library() -> UnsafeMutablePointer<CChar> { cString(LinearAlgebra.libraryOrigin) }
