/// Reads a folder (or a `.zip`) of per-sensor files from any app or logger: files whose names map
/// to one sensor (`Accelerometer.csv`, `accel.csv`, `Gyroscope.txt`, `gyro.csv`, `Compass.csv`,
/// `mag.csv`, `imu_magnetometer.tsv`, …), each with a time column (seconds, a unit the name or
/// the readings give, or date-times) and the sensor's x, y and z (named for the sensor, or bare
/// `x,y,z`). The files are merged on time (``MergedSampleReader``), at whatever rates they were
/// written. Units follow the single-file rules: hints in the names, `--units`, and what the first
/// readings prove (``UnitEvidence``, over the files merged).
enum SensorFilesImporter {
    /// The extensions a member file may have (before an optional `.gz`).
    static let extensions: Set<String> = ["csv", "txt", "tsv", "dat", "log"]

    /// The sensor a file name maps to, or nil: its words name exactly one sensor and nothing that
    /// is not a raw reading (gravity, linear or user acceleration, orientation, …).
    static func sensor(ofFile name: String) -> SensorKind? {
        var stem = Substring(name)
        if stem.lowercased().hasSuffix(".gz") { stem = stem.dropLast(3) }
        guard let dot = stem.lastIndex(of: "."), extensions.contains(stem[stem.index(after: dot)...].lowercased())
        else { return nil }
        let words = ColumnLayout.words(String(stem[..<dot]))
        let joined = words.joined()
        let excluded = [
            "linear", "gravity", "user", "orientation", "quaternion", "attitude", "vector", "euler", "game", "heading",
            "calibration", "bias",
        ]
        // Android loggers' calibration parameters (`acce_calib.txt`), rotation vectors
        // (`magnetic_rv.txt`) and linear acceleration (`lin_acc.txt`): whole words only, so
        // `calibrated` and `rv…` names still read.
        let excludedWords = ["calib", "rv", "lin"]
        // A bias removed is a reading still (`bias_corrected_gyro.csv`).
        let corrected = words.contains { ["corrected", "compensated", "removed", "free"].contains($0) }
        guard
            !words.contains(where: { w in
                excluded.contains { w.hasPrefix($0) && !(corrected && $0 == "bias") } || excludedWords.contains(w)
            })
        else { return nil }
        var found = Set<SensorKind>()
        if joined.contains("accel")
            || words.contains(where: { ["acc", "acce", "acceleration", "accelerations"].contains($0) })
        {
            found.insert(.accelerometer)
        }
        if joined.contains("gyr") || joined.contains("rotationrate") || joined.contains("angularvelocity") {
            found.insert(.gyroscope)
        }
        if joined.contains("magnet") || joined.contains("compass")
            || words.contains(where: { ["mag", "magn", "mags"].contains($0) })
        {
            found.insert(.magnetometer)
        }
        return found.count == 1 ? found.first : nil
    }

    /// Whether the members are one recording of per-sensor files: some member file is one
    /// sensor's and none is a whole trace (``isWholeTrace(_:in:)``). A folder of whole traces
    /// beside one file named for a sensor (a ROS magnetometer export among IMU exports) is a
    /// folder of traces, that file one of them (``oddSensorFiles(_:)``).
    static func holdsSensorFiles(_ files: RecordingFiles) -> Bool {
        files.memberNames.contains { sensor(ofMember: $0, in: files) != nil }
            && !files.memberNames.contains { isWholeTrace($0, in: files) }
    }

    /// The members named for one sensor whose header names that sensor's columns alone, in a
    /// folder that is not a per-sensor recording because whole traces sit beside them: each is
    /// read as a trace of its own.
    static func oddSensorFiles(_ files: RecordingFiles) -> [(name: String, sensor: SensorKind)] {
        guard !holdsSensorFiles(files) else { return [] }
        return files.memberNames.compactMap { n in sensor(ofMember: n, in: files).map { (n, $0) } }
    }

    /// The sensor a member file holds: the one its name maps to, unless it is a whole trace
    /// (``isWholeTrace(_:in:)``) whose name happens to hold a sensor's word (BROAD's
    /// `29_disturbed_stationary_magnet_B.csv`); its folder is then a folder of traces.
    static func sensor(ofMember name: String, in files: RecordingFiles) -> SensorKind? {
        guard let sensor = sensor(ofFile: name) else { return nil }
        return isWholeTrace(name, in: files) ? nil : sensor
    }

    /// Whether a member file (of a trace file's extension) is a whole trace: its header names the
    /// columns of two sensors or more.
    static func isWholeTrace(_ name: String, in files: RecordingFiles) -> Bool {
        var stem = Substring(name.lowercased())
        if stem.hasSuffix(".gz") { stem = stem.dropLast(3) }
        guard extensions.contains(PathText.fileExtension(String(stem))), let header = try? files.firstLine(name)
        else { return false }
        let bytes = Array(header.utf8)
        let names = FieldSplitter(dialect: TextDialect.detect(header: bytes, data: nil)).texts(bytes)
        guard let layout = try? ColumnLayout.fromHeader(names, file: name) else { return false }
        return [ColumnLayout.Slot.gyroscopeX, .accelerometerX, .magnetometerX].filter { layout.has($0) }.count >= 2
    }

    /// The member files that map to sensors, one per sensor. Of two for one sensor, an
    /// uncalibrated or raw one gives way to the other, unless the other has no rows (a logger
    /// stopped before writing any); otherwise they are an error naming both.
    static func members(_ files: RecordingFiles) throws -> [(name: String, sensor: SensorKind)] {
        // A file that cannot be opened counts as having rows: it is chosen, and its error reported.
        func hasRows(_ n: String) -> Bool { (try? files.lines(n)).map { Self.hasRows($0) } ?? true }
        var chosen = [SensorKind: String]()
        for name in files.memberNames {
            guard let sensor = sensor(ofMember: name, in: files) else { continue }
            guard let other = chosen[sensor] else {
                chosen[sensor] = name
                continue
            }
            func secondary(_ n: String) -> Bool {
                ColumnLayout.words(n).contains { ["uncalibrated", "uncalib", "uncal", "raw"].contains($0) }
            }
            if secondary(name) && !secondary(other) {
                if !hasRows(other) && hasRows(name) { chosen[sensor] = name }
                continue
            }
            if secondary(other) && !secondary(name) {
                if hasRows(name) || !hasRows(other) { chosen[sensor] = name }
                continue
            }
            throw TraceError(
                .duplicateColumn, SourceLocation(file: files.location, line: 0, column: 0),
                "files '\(files.inside(other).escapedForMessage)' and '\(files.inside(name).escapedForMessage)' both hold the \(sensor.rawValue), so neither is read; keep one in the \(files.archive == nil ? "folder" : "archive") (or read one of them as a single file)"
            )
        }
        return SensorKind.allCases.compactMap { s in chosen[s].map { ($0, s) } }
    }

    /// Whether column `c` is a bare axis (`X [G]`, `x-axis (g)`) whose unit is also one of
    /// `sensor`'s: Polar Sensor Logger's `X [G]` in a `…_MAGN.txt` is gauss, not g. A lower-case
    /// `g` or `mg` stays an acceleration, whatever the file's name: only `G` and `mG` are gauss.
    static func bareAxis(_ c: Int?, _ names: [String], fits sensor: SensorKind) -> Bool {
        guard let c, c < names.count, ["x", "xaxis"].contains(ColumnLayout.key(names[c])),
            let hint = ColumnLayout.unitHint(names[c]),
            sensor != .magnetometer || !["g", "mg"].contains(hint.trimmingSpaces)
        else { return false }
        let key = ColumnLayout.groups[SensorKind.allCases.firstIndex(of: sensor)!].key
        var probe = SensorUnits()
        return (try? probe.set(key, hint, strictly: true)) != nil && !probe.magnetometerArbitrary
    }

    /// A single file named for one sensor (`…_MAGN.txt`) whose header names another by bare axes
    /// alone (`X [G]`, read as g) with a unit that is also the named sensor's: the layout with those
    /// columns moved to the named sensor's, in that unit, and a note saying so; nil otherwise.
    static func bareAxesOfNamedSensor(_ found: ColumnLayout, _ names: [String], file: String) throws -> (
        layout: ColumnLayout, note: String
    )? {
        guard let sensor = sensor(ofFile: PathText.name(file)) else { return nil }
        let group = ColumnLayout.groups[SensorKind.allCases.firstIndex(of: sensor)!]
        let others = ColumnLayout.groups.prefix(3).filter { found.has($0.slots[0]) }
        guard !found.has(group.slots[0]), others.count == 1, let other = others.first,
            bareAxis(found.columns[other.slots[0]], names, fits: sensor),
            let hint = ColumnLayout.unitHint(names[found.columns[other.slots[0]]!])
        else { return nil }
        var layout = found
        for (from, to) in zip(other.slots, group.slots) {
            layout.columns[to] = found.columns[from]
            layout.columns[from] = nil
        }
        layout.units = SensorUnits()
        layout.units.take("t", from: found.units)
        try layout.units.set(group.key, hint, strictly: true)
        let x = names[found.columns[other.slots[0]]!]
        return (
            layout,
            "the file's name says \(sensor.rawValue): its bare axes ('\(x.escapedForMessage)'…) are the \(group.label)'s in \(hint), not the \(other.label)'s"
        )
    }

    /// The layout of a member file holding `sensor`: the time the header names, and the sensor's
    /// axes as the header names them or as bare `x,y,z` (a common stem and the axis); units from
    /// the names' hints, then `--units`.
    /// A file without a header (``headerless(_:file:)``, `names` empty) has its clock in column
    /// `headerlessClock.column` and the sensor's x, y and z in the others of the four from
    /// `headerlessClock.offset`.
    static func layout(
        _ names: [String], file: String, sensor: SensorKind, units: String?,
        headerlessClock: (column: Int, offset: Int)? = nil
    ) throws -> ColumnLayout {
        let found = (try? ColumnLayout.fromHeader(names, file: file)) ?? ColumnLayout()
        let index = SensorKind.allCases.firstIndex(of: sensor)!
        let group = ColumnLayout.groups[index]
        var layout = ColumnLayout()
        if names.isEmpty {
            let (clock, offset) = headerlessClock ?? (0, 0)
            layout.columns[.time] = clock
            let axes = (offset..<offset + 4).filter { $0 != clock }
            for (axis, slot) in group.slots.enumerated() { layout.columns[slot] = axes[axis] }
            if let units { try layout.units.set(spec: units) }
            return layout
        }
        if let c = found.columns[.time] {
            layout.columns[.time] = c
            layout.units.take("t", from: found.units)
            layout.columns[.timeNanoseconds] = found.columns[.timeNanoseconds]
        }
        if found.has(group.slots[0]) {
            for slot in group.slots { layout.columns[slot] = found.columns[slot] }
            layout.units.take(group.key, from: found.units)
        } else if let other = ColumnLayout.groups.prefix(3).first(where: { found.has($0.slots[0]) }),
            !bareAxis(found.columns[other.slots[0]], names, fits: sensor)
        {
            throw TraceError(
                .missingColumn, SourceLocation(file: file, line: 1, column: 0),
                "the file's name says \(sensor.rawValue) but its header names the \(other.label) ('\(names[found.columns[other.slots[0]]!].escapedForMessage)'); rename the file or read it as a single file"
            )
        } else {
            // The axis last (`x`, `acc_x`) or first (MetaBase's `x-axis (g)`): its unit is the
            // file's sensor's whatever sensor the unit alone would suggest.
            let keys = names.map { ColumnLayout.key($0) }.map { $0.hasSuffix("axis") ? String($0.dropLast(4)) : $0 }
            let lettered = keys.indices.contains { c in
                keys[c].hasSuffix("x") && keys.contains(String(keys[c].dropLast()) + "y")
                    && keys.contains(String(keys[c].dropLast()) + "z")
            }
            // Axes numbered under any name (Android's `values[0]`…`values[2]`).
            if !lettered, let columns = ColumnLayout.numberedColumns(names) {
                for (slot, c) in zip(group.slots, columns) { layout.columns[slot] = c }
                if let hint = ColumnLayout.unitHint(names[columns[0]]) {
                    try layout.units.set(group.key, hint, strictly: false)
                }
                if let units { try layout.units.set(spec: units) }
                return layout
            }
            guard
                let x = keys.indices.first(where: { c in
                    keys[c].hasSuffix("x") && keys.contains(String(keys[c].dropLast()) + "y")
                        && keys.contains(String(keys[c].dropLast()) + "z")
                })
            else {
                throw TraceError(
                    .missingColumn, SourceLocation(file: file, line: 1, column: 0),
                    "no x, y and z columns of the \(sensor.rawValue) (named for it, e.g. \(group.key)_x, bare x,y,z, or numbered, values[0]…values[2]); the header has: \(names.map { $0.escapedForMessage }.joined(separator: ","))"
                )
            }
            let stem = String(keys[x].dropLast())
            for (axis, slot) in group.slots.enumerated() {
                layout.columns[slot] = keys.firstIndex(of: stem + ["x", "y", "z"][axis])
            }
            if let hint = ColumnLayout.unitHint(names[x]) { try layout.units.set(group.key, hint, strictly: false) }
        }
        if let units { try layout.units.set(spec: units) }
        return layout
    }

    static func open(_ files: RecordingFiles, options: DelimitedReadOptions) throws -> (
        SampleReader, UnitEvidence.Findings?
    ) {
        if options.columns != nil {
            // One --columns cannot fit files of different layouts: not silently ignored.
            throw TraceError(
                .columnSpecification, SourceLocation(file: files.location, line: 0, column: 0),
                "--columns reads one file; this is a folder of per-sensor files, read by their names: leave --columns out, or pass one file with it"
            )
        }
        let members = try members(files)
        guard !members.isEmpty else {
            throw TraceError(
                .missingColumn, SourceLocation(file: files.location, line: 0, column: 0),
                "no file named for a sensor (Accelerometer.csv, gyro.csv, Compass.csv, mag.txt, …)")
        }
        // How each file without a header is read, unless the header is given; a file no way
        // reads is left out with a warning (below).
        let headerless: [Result<Headerless?, TraceError>] = members.map { m in
            guard options.headerRows == nil && options.skipLines == nil else { return .success(nil) }
            do {
                return .success(try Self.headerless(files.lines(m.name), file: files.path(m.name)))
            } catch let e as TraceError {
                return .failure(e)
            } catch {
                return .success(nil)
            }
        }
        // One recording's files write their clock in one place.
        let clocks = members.indices.compactMap { k in
            (try? headerless[k].get()).flatMap { $0?.names == nil ? $0.map { (k, $0.clock - $0.offset) } : nil }
        }
        if Set(clocks.map(\.1)).count > 1 {
            throw TraceError(
                .inconsistentClocks, SourceLocation(file: files.location, line: 0, column: 0),
                "files without a header disagree on where the time is: \(clocks.map { "\(members[$0.0].name) (\($0.1 == 0 ? "first" : "last") column)" }.joined(separator: ", ")); give each file a header line (e.g. t,x,y,z)"
            )
        }
        func reader(_ name: String, _ sensor: SensorKind, evident: [UnitEvidence.Unit], probe: Bool) throws
            -> DelimitedTraceReader
        {
            var o = options
            if probe { o.strict = false }
            var clock: (column: Int, offset: Int)?
            var commented: [String]?
            if let k = members.firstIndex(where: { $0.name == name }), let h = try headerless[k].get() {
                o.headerRows = 0
                o.skipLines = h.skip
                o.separator = o.separator ?? h.separator
                if let names = h.names { commented = names } else { clock = (h.clock, h.offset) }
            }
            let file = files.path(name)
            return try DelimitedTraceReader(
                lines: files.lines(name), format: TraceFormat.sensorFiles.rawValue, options: o,
                known: {
                    try layout(
                        commented ?? $0, file: file, sensor: sensor, units: options.units, headerlessClock: clock)
                }, evident: evident, probe: probe)
        }
        let findings = try evidence(members.map { m in { try reader(m.name, m.sensor, evident: [], probe: true) } })
        if let clocks = findings.clocks {
            throw TraceError(.inconsistentClocks, SourceLocation(file: files.location, line: 0, column: 0), clocks)
        }
        let here = SourceLocation(file: files.location, line: 0, column: 0)
        // A file named for a sensor whose columns are not a clock and x, y, z (a compass file
        // holding a heading) is left out with a warning while another file reads.
        var parts = [SampleReader]()
        // Each file read, and how when it has no header line.
        var read = [(name: String, sensor: SensorKind, how: String)]()
        var unreadable = [TraceError]()
        for (k, m) in members.enumerated() {
            do {
                parts.append(try reader(m.name, m.sensor, evident: findings.perFile[k], probe: false))
                let how = (try? headerless[k].get())?.map { h in
                    h.names != nil
                        ? "; the header a comment"
                        : h.clock == h.offset ? "; no header: time, x, y, z" : "; no header: x, y, z, time"
                }
                read.append((m.name, m.sensor, how ?? ""))
            } catch let e as TraceError where e.kind == .missingColumn || e.kind == .empty {
                unreadable.append(e)
            }
        }
        guard !parts.isEmpty else { throw unreadable[0] }
        var warnings = findings.clockWarnings.map { TraceWarning(here, $0) }
        let ignored = files.memberNames.filter { n in !members.contains { $0.name == n } }
        warnings.append(
            TraceWarning(
                here,
                "read as per-sensor files: \(read.map { "\($0.name) (\($0.sensor.rawValue)\($0.how))" }.joined(separator: ", "))\(ignored.isEmpty ? "" : "; not read: \(ignored.prefix(8).map { $0.escapedForMessage }.joined(separator: ", "))\(ignored.count > 8 ? ", …" : "")")",
                note: true))
        for e in unreadable {
            warnings.append(TraceWarning(e.location, "\(e.message); this file is not read, the others are"))
        }
        if !read.contains(where: { $0.sensor == .accelerometer }) {
            warnings.append(TraceWarning(here, "no accelerometer file: no filter can find the vertical"))
        }
        return (
            MergedSampleReader(
                parts, format: TraceFormat.sensorFiles.rawValue, source: files.location, warnings: warnings,
                strict: options.strict, partWarnings: true),
            findings.all
        )
    }

    /// What the first readings of the files show.
    struct Evidence {
        /// Per file, the units to apply.
        var perFile: [[UnitEvidence.Unit]]
        /// All the units found, for the note.
        var all: UnitEvidence.Findings?
        /// Why the files cannot share one clock (an error), or nil.
        var clocks: String?
        /// Files whose time steps look like another unit's without proving it (warnings).
        var clockWarnings: [String] = []
    }

    /// The units the first readings prove: each file's time on its own, then against the other
    /// files' (``slowClocks(_:)``), the sensors over the files merged (a gyroscope in °/s is told
    /// by the accelerometer's turns).
    static func evidence(_ probes: [() throws -> DelimitedTraceReader]) throws -> Evidence {
        let first = try evidence(probes, rows: UnitEvidence.rows)
        // No turn in the first rows (a recording that starts with a long rest): look further for
        // the gyroscope's unit, as for a single file.
        guard first.filled, let found = first.result.all, found.gyroscopeUndecided else { return first.result }
        let further = try evidence(probes, rows: UnitEvidence.turnRows).result
        return further.all?.units.contains { $0.key == "gyr" } == true ? further : first.result
    }

    /// The evidence of each file's first `rows` rows, merged; `filled`: some file had that many.
    static func evidence(_ probes: [() throws -> DelimitedTraceReader], rows: Int) throws -> (
        result: Evidence, filled: Bool
    ) {
        var result = Evidence(perFile: [[UnitEvidence.Unit]](repeating: [], count: probes.count))
        var read = [(k: Int, file: String, sensor: SensorKind, samples: [SensorSample], seconds: Bool)]()
        var combined = SensorUnits()
        var keys = [String?](repeating: nil, count: probes.count)
        // Each file's path and time column's name, for a clock no unit reads.
        var clockNames = [Int: (file: String, column: String, at: SourceLocation?)]()
        var filled = false
        for (k, open) in probes.enumerated() {
            guard let probe = try? open(), let sensor = probe.description.sensors.first else { continue }
            var samples = [SensorSample]()
            // Where the first row's time is, for a clock no unit reads.
            var at: SourceLocation?
            while samples.count < rows, let s = try? probe.next() {
                if at == nil { at = probe.location(.time) }
                samples.append(s)
            }
            if samples.count == rows { filled = true }
            let key = SensorRemap.key(sensor)
            keys[k] = key
            combined.take(key, from: probe.layout.units)
            var seconds = false
            // A headerless file's clock has no name.
            let names = probe.rows.columnNames
            let timeColumn = probe.layout.columns[.time]
            let timeName = timeColumn.map { $0 < names.count ? names[$0] : "" } ?? ""
            if case .column = probe.clock, probe.layout.columns[.time] != nil, probe.rows.dateTimeSlot < 0 {
                if let unit = try UnitEvidence.timeUnit(
                    samples, units: probe.layout.units, timeColumn: ColumnLayout.key(timeName), byStep: false)
                {
                    result.perFile[k].append(unit)
                    try UnitEvidence.scaleTimes(&samples, to: unit, from: probe.layout.units)
                } else {
                    // Read as seconds because nothing says otherwise.
                    seconds = !probe.layout.units.explicit.contains("t") && probe.layout.units.time == 1
                }
            }
            read.append((k, PathText.name(probe.description.source), sensor, samples, seconds))
            clockNames[k] = (probe.rows.name, timeName.isEmpty ? "column \((timeColumn ?? 0) + 1)" : timeName, at)
        }
        let steps = read.map { f in medianStep(f.samples) }
        let slow = slowClocks(read.indices.map { (read[$0].file, steps[$0], read[$0].seconds) })
        result.clockWarnings = slow.warnings
        for (i, unit) in slow.units {
            result.perFile[read[i].k].append(unit)
            try UnitEvidence.scaleTimes(&read[i].samples, to: unit, from: SensorUnits())
        }
        // A clock the other files do not prove is judged by its own steps, as a single file's is;
        // one its steps leave open (a magnetometer at 2 Hz in ms steps as one at 2 kHz in µs), or
        // read otherwise than all the files (two or more) whose steps prove a unit, takes theirs when it gives
        // that file a rate (0.1 Hz–10 kHz): the files are one recording.
        var own = [Int: Result<UnitEvidence.Unit?, UnitEvidence.ClockRefusal>]()
        for i in read.indices where read[i].seconds && !slow.units.contains(where: { $0.0 == i }) {
            do {
                own[i] = .success(
                    try UnitEvidence.stepUnit(read[i].samples.map(\.t).filter(\.isFinite), step: steps[i]))
            } catch let refusal as UnitEvidence.ClockRefusal {
                own[i] = .failure(refusal)
            }
        }
        for i in own.keys.sorted() {
            let proven = own.compactMap { j, r -> (String, String)? in
                guard j != i, case .success(let u?) = r else { return nil }
                return (u.unit, read[j].file)
            }
            let shared = Set(proven.map(\.0))
            var unit: UnitEvidence.Unit?
            let mine: String?
            switch own[i]! {
            case .success(let u): mine = u?.unit ?? "s"
            case .failure: mine = nil
            }
            // A unit a file's own steps prove yields only to two files or more.
            if shared.count == 1, let other = shared.first, other != mine, mine == nil || proven.count >= 2,
                let scale = UnitEvidence.timeUnits.first(where: { $0.unit == other })?.scale,
                let step = steps[i], (0.1...10_000).contains(1 / (step * scale))
            {
                let spelled = other == "us" ? "µs" : other
                unit = UnitEvidence.Unit(
                    key: "t", unit: other,
                    reason:
                        "\(read[i].file): its times step by \(String(printf: "%.6g", step)) per sample, \(spelled) (\(UnitEvidence.hz(1 / (step * scale)))) as the clocks of \(proven.map(\.1).joined(separator: ", ")) prove"
                )
            } else {
                switch own[i]! {
                case .success(let u):
                    unit = u
                    unit?.reason = "\(read[i].file): " + (u?.reason ?? "")
                case .failure(let refusal):
                    let (file, column, at) = clockNames[read[i].k] ?? (read[i].file, "", nil)
                    throw TraceError(
                        .implausibleClock, at ?? SourceLocation(file: file, line: 0, column: 0),
                        "the time column '\(column.escapedForMessage)': \(refusal.message)")
                }
            }
            guard let unit else {
                if let warning = UnitEvidence.secondsWarning(read[i].samples.map(\.t).filter(\.isFinite)) {
                    result.clockWarnings.append("\(read[i].file): \(warning)")
                }
                continue
            }
            result.perFile[read[i].k].append(unit)
            try UnitEvidence.scaleTimes(&read[i].samples, to: unit, from: SensorUnits())
        }
        result.clocks = clockDisagreement(
            read.compactMap { f in f.samples.first(where: { $0.t.isFinite }).map { (f.file, $0.t) } })
        guard !read.isEmpty else { return (result, filled) }
        let streams = read.map { f in
            TimelineMerger.Stream(
                sensor: f.sensor, times: f.samples.map(\.t), values: f.samples.map { $0.value(f.sensor) })
        }
        var found = try UnitEvidence.find(TimelineMerger().merge(streams), units: combined, timeColumn: nil)
        for unit in found.units {
            for k in probes.indices where keys[k] == unit.key { result.perFile[k].append(unit) }
        }
        found.units = result.perFile.flatMap { $0 }.reduce(into: [UnitEvidence.Unit]()) { all, u in
            if !all.contains(where: { $0.key == u.key && $0.unit == u.unit }) { all.append(u) }
        }
        result.all = found
        return (result, filled)
    }

    /// The median step between increasing times, or nil.
    static func medianStep(_ samples: [SensorSample]) -> Double? {
        var steps = [Double]()
        for (a, b) in zip(samples, samples.dropFirst()) where a.t.isFinite && b.t.isFinite && b.t > a.t {
            steps.append(b.t - a.t)
        }
        return UnitCheck.median(steps)
    }

    /// Largest factor between the rates of two files recorded together once the slower file's
    /// clock is read in its unit (an accelerometer at 400 Hz beside a magnetometer at 100 Hz).
    static let rateSpread = 4.0
    /// Shortest step, s, read as seconds, that decides a file's clock is in ms, µs or ns: a sensor
    /// slower than 2 Hz beside one 250 times faster or more. A shorter step is only warned about.
    static let slowestStep = 0.5

    /// The files whose times, read as seconds, step 10³, 10⁶ or 10⁹ times as far as the fastest
    /// file's (within ``rateSpread`` either way): a clock in ms, µs or ns beside clocks in
    /// seconds. `files`: each file's name, median step as read, and whether it was read as
    /// seconds only because nothing said otherwise. A step longer than ``slowestStep`` proves
    /// the unit (by index into `files`); a shorter one is a warning naming the file.
    static func slowClocks(_ files: [(name: String, step: Double?, seconds: Bool)]) -> (
        units: [(Int, UnitEvidence.Unit)], warnings: [String]
    ) {
        var units = [(Int, UnitEvidence.Unit)]()
        var warnings = [String]()
        guard
            let fastest = files.indices.filter({ files[$0].step.map { $0 > 0 } ?? false })
                .min(by: { files[$0].step! < files[$1].step! })
        else { return ([], []) }
        let reference = files[fastest].step!
        func g(_ v: Double) -> String { String(printf: "%.4g", v) }
        for (i, f) in files.enumerated() where f.seconds {
            guard let step = f.step else { continue }
            for (unit, factor) in [("ms", 1e3), ("us", 1e6), ("ns", 1e9)] {
                let ratio = step / reference
                guard ratio >= factor / rateSpread && ratio <= factor * rateSpread else { continue }
                let spelled = unit == "us" ? "µs" : unit
                let facts =
                    "\(f.name)'s times step by \(g(step)) per sample, \(g(ratio))× the \(g(reference)) s of \(files[fastest].name)"
                if step > slowestStep {
                    units.append(
                        (
                            i,
                            UnitEvidence.Unit(
                                key: "t", unit: unit,
                                reason:
                                    "\(facts): \(spelled) (\(g(factor / step)) Hz), not seconds (\(g(1 / step)) Hz)"
                            )
                        ))
                } else {
                    warnings.append(
                        "\(facts): read as seconds (\(g(1 / step)) Hz); if its times are in \(spelled), give its time column the unit, e.g. 'time (\(unit))', in a copy of the folder (--units sets every file's)"
                    )
                }
            }
        }
        return (units, warnings)
    }

    /// Largest difference between the files' first times, s, for one recording: files recorded
    /// together start within it; a day apart, their clocks differ (an epoch in one, time since
    /// the start in another).
    static let clockTolerance = 86_400.0

    /// Why the files' first times cannot be one recording's clock, or nil.
    static func clockDisagreement(_ starts: [(file: String, t: Double)]) -> String? {
        guard let early = starts.min(by: { $0.t < $1.t }), let late = starts.max(by: { $0.t < $1.t }),
            late.t - early.t > clockTolerance
        else { return nil }
        return
            "the files do not share one clock: \(late.file) starts at t = \(late.t) s and \(early.file) at t = \(early.t) s (after each file's time unit); give every file the same clock (an epoch in each, or time since the same start)"
    }
}
