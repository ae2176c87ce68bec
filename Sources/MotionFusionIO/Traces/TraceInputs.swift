#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Expands a TRACE argument: a trace file, a recording folder or archive, or `-` stays as is; a
/// folder of traces becomes its trace files (`.csv`, `.txt`, `.zip`) and recording sub-folders,
/// sorted.
public enum TraceInputs {
    /// The traces a TRACE argument names.
    public static func expand(_ path: String, format: TraceFormat?) throws -> [String] {
        var skipped = [String]()
        var notes = [String]()
        return try expand(path, format: format, skipped: &skipped, notes: &notes)
    }

    /// The traces a TRACE argument names; entries of a folder that are not traces (a FIFO or
    /// device, which would block or never end, and sub-folders that hold no recording) are added
    /// to `skipped` with the reason, and `notes` names the files of a folder of traces that are
    /// named for one sensor (each is read as a trace of its own, not as part of a per-sensor
    /// recording).
    static func expand(_ path: String, format: TraceFormat?, skipped: inout [String], notes: inout [String]) throws
        -> [String]
    {
        if path == "-" { return [path] }
        var isDir = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw StatusError.input("\(path.escapedForMessage): no such file or folder")
        }
        if !isDir { return [path] }
        if format != nil || TraceFormat.isROSRecording(path) || (try? TraceFormat.detect(path: path)) != nil {
            return [path]
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw StatusError.input("\(path.escapedForMessage): the folder cannot be listed (\(error))")
        }
        var result = [String]()
        for e in entries.sorted() where !e.hasPrefix(".") {
            let p = PathText.join(path, e)
            var sub = false
            _ = FileManager.default.fileExists(atPath: p, isDirectory: &sub)
            let lower = e.lowercased()
            if sub {
                if (try? TraceFormat.detect(path: p)) != nil {
                    result.append(p)
                } else {
                    skipped.append("\(p.escapedForMessage): a folder that holds no recording")
                }
            } else if lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || lower.hasSuffix(".tsv")
                || lower.hasSuffix(".zip")
            {
                if TraceFormat.isStream(p) {
                    skipped.append("\(p.escapedForMessage): a FIFO or device, not a file")
                } else {
                    result.append(p)
                }
            }
        }
        guard !result.isEmpty else { throw StatusError.input("\(path.escapedForMessage): folder holds no traces") }
        for (name, sensor) in TraceFormat.oddSensorFiles(inFolder: path) {
            notes.append(
                "\(PathText.join(path, name).escapedForMessage) is named for one sensor (\(sensor.rawValue)) but read as a trace of its own: the folder holds whole traces too, so it is a folder of traces, not one recording of per-sensor files"
            )
        }
        return result
    }
}

extension TraceInputs {
    /// The traces `source` names, and the notices a run over them prints first (`note: skipping …`
    /// for entries of a folder that are not traces, `note: …` for files named for one sensor).
    public static func select(_ source: String, format: TraceFormat?) throws -> (traces: [String], notes: [String]) {
        var skipped = [String]()
        var notes = [String]()
        let traces = try expand(source, format: format, skipped: &skipped, notes: &notes)
        return (traces, skipped.map { "note: skipping \($0)" } + notes.map { "note: \($0)" })
    }

    /// Whether `traces`, what ``expand(_:format:)`` made of `source`, are a folder of traces rather
    /// than the one trace `source` names.
    public static func isFolder(_ traces: [String], source: String) -> Bool {
        traces.count > 1 || traces.first != source
    }
}
