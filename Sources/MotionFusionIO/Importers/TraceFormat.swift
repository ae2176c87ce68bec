import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The recording formats MotionFusion reads, and detection from headers and folder layouts.
public enum TraceFormat: String, CaseIterable, Sendable {
    /// MotionFusion's native CSV (the BROAD layout: `t,gyr_x,…,acc_x,…,mag_x,…,gt_qw,…,moving`).
    case native
    /// Any delimited text file (`,` `;` tab or spaces; decimal point or comma) whose columns are
    /// named by common header names (`Gyroscope X (deg/s)`, `accel_x`, …) or chosen with
    /// `--columns`; units from header hints or `--units`.
    case delimited
    /// EuRoC / ASL folder (`mav0/imu0/data.csv`, ground truth from `state_groundtruth_estimate0`).
    case euroc
    /// x-io Fusion example CSV (`Time (s),Gyroscope X (deg/s),…`).
    case xioFusion = "xio-fusion"
    /// x-IMU3 GUI log folder (`Inertial.csv`, `Magnetometer.csv`).
    case ximu3 = "x-imu3"
    /// phyphox per-sensor CSV export: a folder or a `.zip`.
    case phyphox
    /// Sensor Logger per-sensor CSV recording: a folder or a `.zip`.
    case sensorLogger = "sensor-logger"
    /// Any folder or `.zip` of per-sensor files named for their sensors (`Accelerometer.csv`,
    /// `gyro.txt`, `Compass.csv`, …), each with a time column and x, y, z.
    case sensorFiles = "sensor-files"

    /// Whether the format is several files (a folder or an archive) rather than one text stream.
    public var isMultiFile: Bool { self == .ximu3 || self == .phyphox || self == .sensorLogger || self == .sensorFiles }

    /// Opens the trace at `path` (a file, a folder, a `.zip`, or `-` for standard input) for
    /// streaming, in `format` or the detected one. `--columns` reads any file as delimited text.
    /// The first samples are checked for implausible units (see ``UnitCheck``).
    public static func open(path: String, format: TraceFormat? = nil, options: DelimitedReadOptions = .init()) throws
        -> SampleReader
    {
        if path == "-" || isStream(path) {
            return try open(stream: ByteLineReader(path: path), format: format, options: options)
        }
        if let refusal = ROSBag.refusal(path: path) { throw refusal }
        let f =
            try format
            ?? (options.columns != nil && !isDirectory(path) ? .delimited : detect(path: path, options: options))
        let reader: SampleReader
        var findings: UnitEvidence.Findings?
        switch f {
        case .native, .delimited, .xioFusion:
            // Units the first readings prove are applied from the first row on: a file can be read
            // twice, so it is looked at before it is read.
            let lines = try textLines(path)
            findings = try UnitEvidence.find(lines: lines, format: f.rawValue, options: options)
            reader = try DelimitedTraceReader(
                lines: lines(), format: f.rawValue, options: options, known: nil, evident: findings?.units ?? [],
                probe: false)
        case .euroc: reader = try EuRoCReader(path: path, options: options)
        case .ximu3: reader = try XIMU3Importer.open(RecordingFiles(path), options: options)
        case .phyphox: reader = try PhyphoxImporter.open(RecordingFiles(path), options: options)
        case .sensorLogger: reader = try SensorLoggerImporter.open(RecordingFiles(path), options: options)
        case .sensorFiles:
            guard isDirectory(path) || isArchive(path) else {
                let folder = PathText.folder(path)
                throw TraceError(
                    .unknownFormat, SourceLocation(file: path, line: 0, column: 0),
                    "--format sensor-files reads a folder (or a .zip) of per-sensor files, and this is one file: pass its folder ('\((folder.isEmpty ? "." : folder).escapedForMessage)') to read the files there together, or leave --format out to read this file alone"
                )
            }
            (reader, findings) = try SensorFilesImporter.open(RecordingFiles(path), options: options)
        }
        return UnitCheckingReader(reader, findings: findings)
    }

    /// Opens a stream (standard input, a pipe, a FIFO or a device), which can be read only once:
    /// the format is detected from the header held in the reader that then reads the rows, and
    /// each sample is handed on as soon as its row is in.
    public static func open(stream lines: ByteLineReader, format: TraceFormat? = nil, options: DelimitedReadOptions)
        throws -> SampleReader
    {
        // A ROS bag is told by its first bytes, whatever --format says.
        if let refusal = try ROSBag.refusal(stream: lines) { throw refusal }
        // Only the lines detection needs are waited for: the header and the first row of
        // numbers (with a second header row before it, if any).
        let f =
            try format
            ?? (options.columns != nil
                ? .delimited
                : detect(
                    header: Preamble.headerAndRows(lines, options: options, following: 2, untilData: true),
                    name: lines.name))
        guard f != .phyphox && f != .sensorLogger && f != .sensorFiles else {
            throw TraceError(
                .unknownFormat, SourceLocation(file: lines.name, line: 0, column: 0),
                "\(f.rawValue) recordings are folders or archives of several files and cannot come from a stream; pass the path"
            )
        }
        // One file of a multi-file format (an EuRoC or x-IMU3 IMU file) reads as delimited text.
        // Its units are judged on the rows a file's look ahead reads, as they pass.
        let evidence = StreamUnitEvidence(lines, format: f.rawValue, options: options)
        return UnitCheckingReader(
            try DelimitedTraceReader(lines: lines, format: f.rawValue, options: options), live: true, findings: nil,
            streamEvidence: evidence)
    }

    /// Opens the text of a single-file trace: the file at `path`, or the one trace file a `.zip`
    /// holds (``singleTrace(in:)``).
    static func textLines(_ path: String) throws -> () throws -> ByteLineReader {
        guard isArchive(path) else { return { try ByteLineReader(path: path) } }
        let files = try RecordingFiles(path)
        guard let name = singleTrace(in: files) else {
            throw TraceError(
                .unknownFormat, SourceLocation(file: path, line: 0, column: 0),
                "the archive holds \(files.memberNames.count) files, not one trace file: leave --format and --columns out to read it as a recording, or unzip it and pass one file"
            )
        }
        return { try files.lines(name) }
    }

    /// The one trace file (`.csv`, `.txt`, `.tsv`, `.dat` or `.log`, each optionally `.gz`) of
    /// an archive holding no other file, if any: such a `.zip` reads as that file.
    static func singleTrace(in files: RecordingFiles) -> String? {
        guard files.archive != nil, files.memberNames.count == 1, let name = files.memberNames.first else { return nil }
        var stem = name.lowercased()
        if stem.hasSuffix(".gz") { stem.removeLast(3) }
        guard let dot = stem.lastIndex(of: "."),
            SensorFilesImporter.extensions.contains(String(stem[stem.index(after: dot)...]))
        else { return nil }
        return name
    }

    /// Whether `path` names a `.zip` archive (not a folder so named).
    static func isArchive(_ path: String) -> Bool { path.lowercased().hasSuffix(".zip") && !isDirectory(path) }

    /// Whether `path` is a ROS recording (a bag, an MCAP or `.db3` file, a ROS 2 bag folder), which
    /// reading refuses with the route that reads it.
    public static func isROSRecording(_ path: String) -> Bool { ROSBag.refusal(path: path) != nil }

    /// Whether `path` (followed through links) is a pipe, FIFO, socket or character device: data
    /// that can be read only once.
    public static func isStream(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        let type = st.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK
    }

    /// Reads the whole trace at `path` into memory (a convenience for programs and tests; commands
    /// stream with ``open(path:format:options:)``).
    public static func load(path: String, format: TraceFormat? = nil, options: DelimitedReadOptions = .init()) throws
        -> Trace
    {
        try open(path: path, format: format, options: options).readTrace()
    }

    /// The header line of a file (after any preamble; without BOM and line ending), or nil.
    static func firstLine(_ path: String) -> String? {
        // A FIFO or device would block or never end: detection reads files only.
        guard !isStream(path), let lines = try? ByteLineReader(path: path, chunkSize: 4096),
            let line = try? Preamble.header(lines, options: .init())
        else {
            return nil
        }
        return String(decoding: DelimitedRows.withoutBOM(line), as: UTF8.self)
    }

    /// The names of the header's columns as the delimited reader reads them (its dialect, quotes,
    /// preamble), or nil when it reads none: for what an error says of a file no layout took. Files
    /// only: a FIFO or device would block, or hand over what the failed read left.
    public static func headerNames(path: String) -> [String]? {
        guard !isStream(path), let lines = try? ByteLineReader(path: path, chunkSize: 4096),
            let rows = try? DelimitedRows(lines)
        else { return nil }
        return rows.names
    }

    static func isDirectory(_ path: String) -> Bool {
        var dir = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &dir) && dir
    }

    /// Files read with the file at `path` besides itself, when it belongs to a recording of
    /// several files: an EuRoC IMU file's ground truth, the folder of a file of a multi-file
    /// recording (x-IMU3's `Inertial.csv`, a phyphox or per-sensor file). Outputs must not
    /// replace them (``InputFiles``). Empty for a folder, an archive, a stream or a single-file trace.
    public static func companions(of path: String) -> [String] {
        guard !isDirectory(path), !isStream(path), !path.lowercased().hasSuffix(".zip"),
            let format = try? detect(path: path)
        else { return [] }
        if format == .euroc { return [EuRoCReader.groundTruthPath(imu: path)] }
        return format.isMultiFile ? [PathText.folder(path)] : []
    }

    /// The recording of several files (phyphox, Sensor Logger, x-IMU3, per-sensor files) in the
    /// folder of the file at `path`: the folder, its format and the sensors the whole recording
    /// has; nil for a folder, an archive, a stream, or a file whose folder is no such recording.
    /// For saying what reading one of its files alone leaves out.
    public static func recording(besides path: String) -> (
        folder: String, format: TraceFormat, sensors: Set<SensorKind>
    )? {
        guard path != "-", !isStream(path), !isDirectory(path), !isArchive(path) else { return nil }
        let parent = PathText.folder(path)
        let folder = parent.isEmpty ? "." : parent
        guard let format = try? detect(path: folder), format.isMultiFile,
            let reader = try? open(path: folder, format: format)
        else { return nil }
        return (folder, format, reader.description.sensors)
    }

    /// The recording of several files a file named for one sensor (Sensor Logger's
    /// `Gyroscope.csv`, phyphox's `Accelerometer.csv`) belongs to: its folder, when that reads as
    /// such a recording (``recording(besides:)``), else nil.
    public static func recording(ofSensorFile path: String) -> (
        folder: String, format: TraceFormat, sensors: Set<SensorKind>
    )? {
        guard SensorFilesImporter.sensor(ofFile: PathText.name(path)) != nil else { return nil }
        return recording(besides: path)
    }

    /// The files of the folder `path` named for one sensor and holding its columns alone, when the
    /// folder is not one per-sensor recording because whole traces sit beside them: each is read
    /// as a trace of its own (a folder of traces).
    public static func oddSensorFiles(inFolder path: String) -> [(name: String, sensor: SensorKind)] {
        guard isDirectory(path), let files = try? RecordingFiles(path) else { return [] }
        return SensorFilesImporter.oddSensorFiles(files)
    }

    /// Detects the format of a file, folder or `.zip` from its header line (after any preamble,
    /// or `options.skipLines`) and layout.
    public static func detect(path: String, options: DelimitedReadOptions = .init()) throws -> TraceFormat {
        let here = SourceLocation(file: path, line: 0, column: 0)
        guard FileManager.default.fileExists(atPath: path) else {
            throw TraceError(.unreadable, here, "no such file or folder")
        }
        if let refusal = ROSBag.refusal(path: path) { throw refusal }
        if isDirectory(path) || path.lowercased().hasSuffix(".zip") {
            if isDirectory(path), EuRoCReader.imuFile(in: path) != nil { return .euroc }
            let files = try RecordingFiles(path)
            if files.has("Inertial.csv") { return .ximu3 }
            for name in ["Accelerometer.csv", "Gyroscope.csv", "Magnetometer.csv"] {
                guard let header = try files.firstLine(name) else { continue }
                if header.hasPrefix("time,seconds_elapsed") { return .sensorLogger }
                if header.hasPrefix("\"Time (s)\"") || header.hasPrefix("Time (s)") { return .phyphox }
            }
            if SensorFilesImporter.holdsSensorFiles(files) { return .sensorFiles }
            if let name = singleTrace(in: files) {
                // One trace file zipped: read as that file (one of a recording of several files,
                // an EuRoC or x-IMU3 IMU file, reads as delimited text, as from a stream).
                let header = try Preamble.headerAndRows(files.lines(name), options: options, following: proposalRows)
                let f = try detect(header: header, name: files.path(name))
                return f == .native || f == .xioFusion ? f : .delimited
            }
            let archives = files.archive == nil ? [] : files.memberNames.filter { $0.lowercased().hasSuffix(".zip") }
            if !archives.isEmpty {
                throw TraceError(
                    .unknownFormat, here,
                    "the archive holds archives (\(archives.prefix(3).map { $0.escapedForMessage }.joined(separator: ", "))\(archives.count > 3 ? ", …" : "")), which are not opened inside it: unzip it and pass one of them"
                )
            }
            throw TraceError(
                .unknownFormat, here,
                "\(isDirectory(path) ? "folder" : "archive") holds no recognised recording (expected EuRoC mav0/imu0/data.csv, x-IMU3 Inertial.csv, phyphox / Sensor Logger Accelerometer.csv, or files named for their sensors such as Accelerometer.csv, gyro.csv, Compass.csv\(isDirectory(path) ? "" : "; or one trace file alone, such as imu.csv or imu.csv.gz"))"
            )
        }
        guard
            let header = try Preamble.headerAndRows(
                ByteLineReader(path: path, chunkSize: 4096), options: options, following: proposalRows)
        else {
            let skipped = options.skipLines ?? 0
            throw TraceError(
                .empty, SourceLocation(file: path, line: skipped + 1, column: 0),
                skipped > 0
                    ? "no header line after skipping \(skipped) lines: the file has no more (check --skip-lines)"
                    : "file is empty; expected a header line")
        }
        return try detect(header: header, name: path)
    }

    /// Data rows read to propose `--columns` for a file whose header names nothing known.
    static let proposalRows = 20

    /// Detects the format from the header line (nil: none, an empty file), at its line number,
    /// and the lines after it (a second header row, the first data rows).
    static func detect(header: (bytes: [UInt8], line: Int, following: [[UInt8]])?, name: String) throws
        -> TraceFormat
    {
        try detect(
            firstLine: header?.bytes ?? [], following: header?.following ?? [], name: name, line: header?.line ?? 1)
    }

    /// Detects the format of a single text file from its header line, line `line` of the file,
    /// and the non-blank lines after it.
    static func detect(firstLine: [UInt8], following: [[UInt8]] = [], name: String, line: Int = 1) throws
        -> TraceFormat
    {
        let bytes = DelimitedRows.withoutBOM(firstLine)
        if let kind = ROSBag.kind(firstBytes: bytes) { throw ROSBag.error(path: name, kind: kind) }
        if bytes.contains(0) || bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            throw TraceError(
                .unknownFormat, SourceLocation(file: name, line: line, column: 1),
                "binary data, not a text trace\(bytes.starts(with: [0x50, 0x4B]) ? " (a zip archive: pass it as a file path ending in .zip)" : "")"
            )
        }
        // A CR LF inside a quoted field (a name over two lines) is a line break of its own.
        let loneCR = bytes.indices.first { bytes[$0] == 0x0D && ($0 + 1 == bytes.count || bytes[$0 + 1] != 0x0A) }
        if let cr = loneCR {
            throw TraceError(
                .unknownFormat, SourceLocation(file: name, line: line, column: 1 + cr),
                "the line breaks are carriage returns only (classic Mac text); convert them to LF first, e.g. tr '\\r' '\\n' < IN > OUT"
            )
        }
        let header = String(decoding: bytes, as: UTF8.self)
        let lower = header.lowercased()
        if lower.hasPrefix("#timestamp") && lower.contains("w_rs_s_x") { return .euroc }
        if lower.hasPrefix("time (s),gyroscope x (deg/s)") { return .xioFusion }
        if lower.hasPrefix("timestamp (us),gyroscope x") { return .ximu3 }
        let dialect = TextDialect.detect(header: bytes, data: following.first)
        let split = FieldSplitter(dialect: dialect)
        var headerRows = [split.texts(bytes)]
        var data = following
        if following.count >= 2,
            Preamble.isSecondHeaderRow(following[0], under: bytes, over: following[1], separator: nil)
        {
            headerRows.append(split.texts(following[0]))
            data.removeFirst()
        }
        let names = DelimitedRows.joinedNames(headerRows)
        if headerRows[0].contains(where: { ColumnLayout.nativeNames[$0.lowercased()] != nil }) { return .native }
        do {
            let layout = try ColumnLayout.fromHeader(names, file: name)
            // A time, or a sensor without a time (the reader then says how to time the rows).
            if layout.columns[.time] != nil
                || ColumnLayout.groups.prefix(3).contains(where: { layout.has($0.slots[0]) })
            {
                return .delimited
            }
        } catch let error as TraceError where error.kind == .duplicateColumn {
            // A header that names the time (or an axis) twice is recognised, but ambiguous.
            throw error
        } catch {}
        let here = SourceLocation(file: name, line: line, column: 1)
        let shape = Preamble.Shape(bytes, dialect)
        if shape.numbers > shape.texts {
            // No header: the first line is data.
            let rows = ([bytes] + following).map { split.texts($0) }
            let proposal = ColumnLayout.proposal(names: [], rows: rows) ?? "--header-rows 0 --columns t=1,gyr=2,acc=5"
            throw TraceError(
                .unknownFormat, here,
                "the header line is numbers, not names of columns: read the file with \(proposal) (a guess from the first rows: check it; each sensor names its x column, and y and z follow)"
            )
        }
        let rows = data.map { split.texts($0) }
        let proposal = ColumnLayout.proposal(names: names, rows: rows).map {
            "; the columns may be \($0) (a guess from the names and the first rows: check it; each sensor names its x column, and y and z follow)"
        }
        throw TraceError(
            .unknownFormat, here,
            "unrecognised header '\(String(header.prefix(80)).escapedForMessage)': no column is named as a time or a sensor's x, y and z (docs/TraceFormat.md lists the names read)\(proposal ?? "; pass --format NAME for a recording format (\(TraceFormat.allCases.map(\.rawValue).joined(separator: ", "))), or --columns t=1,gyr=2,acc=5 for any delimited file")"
        )
    }
}
