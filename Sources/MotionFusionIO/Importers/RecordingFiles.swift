import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The files of a multi-file recording: a folder on disk, or a `.zip` export read in place.
/// Each file is read through the one delimited reader, so every format shares its parsing, value
/// faults and error locations.
struct RecordingFiles {
    /// The folder or archive.
    let location: String
    let archive: ZipArchive?

    /// The recording at `path`: a folder, a `.zip` archive, or a file inside a folder (its folder).
    init(_ path: String) throws {
        if TraceFormat.isArchive(path) {
            location = path
            archive = try ZipArchive(path: path)
        } else {
            let folder = TraceFormat.isDirectory(path) ? path : PathText.folder(path)
            location = folder.isEmpty ? "." : folder
            archive = nil
        }
    }

    /// The names of the member files (an archive's entries by their last path component, each
    /// name once; no hidden files, folders, FIFOs or devices), sorted.
    var memberNames: [String] {
        if let archive {
            var seen = Set<String>()
            return archive.entries.compactMap { e in
                guard !e.name.hasSuffix("/"), !e.name.hasPrefix("__MACOSX/") else { return nil }
                let name = e.name.split(separator: "/").last.map(String.init) ?? e.name
                return name.hasPrefix(".") || !seen.insert(name.lowercased()).inserted ? nil : name
            }.sorted()
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: location)) ?? []
        return names.filter { n in
            !n.hasPrefix(".") && !TraceFormat.isDirectory(PathText.join(location, n))
                && !TraceFormat.isStream(PathText.join(location, n))
        }.sorted()
    }

    /// The name of a member file in messages: `folder/name` or `archive.zip:entry`.
    func path(_ name: String) -> String {
        if let archive, let e = archive.entry(named: name) { return location + ":" + e.name }
        return PathText.join(location.isEmpty ? "." : location, name)
    }

    /// The name of a member file inside the recording: `name`, or the archive's entry
    /// (`run1/Accelerometer.csv`).
    func inside(_ name: String) -> String { archive?.entry(named: name)?.name ?? name }

    /// Whether the recording has the file (a FIFO or device in a folder is not a member file: it
    /// would block or never end).
    func has(_ name: String) -> Bool {
        if let archive { return archive.entry(named: name) != nil }
        return FileManager.default.fileExists(atPath: path(name)) && !TraceFormat.isStream(path(name))
    }

    /// The first line of a member file, if any (for format detection). An archive entry whose
    /// start cannot be decoded is an error (it would otherwise look like a missing file); an
    /// unreadable file on disk is nil.
    func firstLine(_ name: String) throws -> String? {
        guard has(name) else { return nil }
        let lines = try archive != nil ? self.lines(name) : (try? self.lines(name))
        guard let line = try lines?.peekLine() else { return nil }
        return String(decoding: DelimitedRows.withoutBOM(line), as: UTF8.self)
    }

    /// A line reader over a member file. An archive whose folders hold two files of that name
    /// (two recordings zipped together) is an error naming them: which one is meant is not known.
    func lines(_ name: String) throws -> ByteLineReader {
        if let archive, let e = archive.entry(named: name) {
            let same = archive.entries(named: name)
            guard same.count == 1 else {
                throw TraceError(
                    .duplicateColumn, SourceLocation(file: location, line: 0, column: 0),
                    "the archive holds \(same.count) files named \(PathText.name(e.name).escapedForMessage) (\(same.map { "'\($0.name.escapedForMessage)'" }.joined(separator: ", "))), in different folders: none is read, as which one belongs to the recording is not known; unzip it and pass the folder of one recording"
                )
            }
            return try archive.lines(e, name: path(name))
        }
        return try ByteLineReader(path: path(name))
    }

    /// A reader of one sensor's samples from a member file, with the layout `known` gives from
    /// its column names (read as the file is read: see ``MergedSampleReader``).
    func stream(
        _ name: String, format: TraceFormat, options: DelimitedReadOptions,
        known: @escaping ([String]) throws -> ColumnLayout
    ) throws -> SampleReader {
        try DelimitedTraceReader(lines: lines(name), format: format.rawValue, options: options, known: known)
    }

    /// A layout: the time column named `time` (in `timeUnit` unless its name has a unit hint) and
    /// the three axis columns of `sensor` named by `axes`, in the unit of the x column's hint or
    /// `unit`.
    static func layout(
        _ names: [String], file: String, time: (String) -> Bool, timeUnit: String, sensor: SensorKind,
        axes: [(String) -> Bool], unit: String? = nil
    ) throws -> ColumnLayout {
        func find(_ what: String, _ match: (String) -> Bool) throws -> Int {
            guard let c = names.firstIndex(where: match) else {
                throw TraceError(
                    .missingColumn, SourceLocation(file: file, line: 1, column: 0),
                    "missing the \(what) column; the header has: \(names.map { $0.escapedForMessage }.joined(separator: ","))"
                )
            }
            return c
        }
        var layout = ColumnLayout()
        let tc = try find("time", time)
        layout.columns[.time] = tc
        try layout.units.set("t", ColumnLayout.unitHint(names[tc]) ?? timeUnit, strictly: true)
        let first: ColumnLayout.Slot
        let key: String
        switch sensor {
        case .gyroscope: (first, key) = (.gyroscopeX, "gyr")
        case .accelerometer: (first, key) = (.accelerometerX, "acc")
        case .magnetometer: (first, key) = (.magnetometerX, "mag")
        }
        for (k, match) in axes.enumerated() {
            let c = try find("\(sensor.rawValue) \(["x", "y", "z"][k])", match)
            layout.columns[ColumnLayout.Slot(rawValue: first.rawValue + k)!] = c
            if k == 0, let hint = ColumnLayout.unitHint(names[c]) ?? unit {
                try layout.units.set(key, hint, strictly: false)
            }
        }
        return layout
    }
}

/// Whole-file reads for small files (archives, calibration JSON), as byte arrays: Foundation's
/// `Data` leaked its buffer when an error left `withUnsafeBytes` (found by fuzzing).
enum FileBytes {
    /// The whole file, or an `unreadable` error naming it.
    static func read(_ path: String) throws -> [UInt8] {
        if path == "-" { return try ByteLineReader(path: "-").readAll() }
        let fail = { (reason: String) in
            TraceError(.unreadable, SourceLocation(file: path, line: 0, column: 0), "cannot read: \(reason)")
        }
        var st = stat()
        if stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR { throw fail("is a folder, expected a file") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw fail(String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw fail(String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }
}
