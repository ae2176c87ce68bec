import Glibc

/// How to read a delimited text file: what the user said on the command line (or a binding), each
/// part optional. Empty options read the native format and the formats whose headers name their
/// columns.
public struct DelimitedReadOptions: Sendable {
    /// `--columns KEY=COL,…` (see ``ColumnLayout/setColumns(_:names:columnCount:)``).
    public var columns: String?
    /// `--units KEY=UNIT,…` (see ``SensorUnits/set(spec:)``), over the header's unit hints.
    public var units: String?
    /// `--remap`: an axis remap for every sensor, or one per sensor.
    public var remap: SensorRemap?
    /// `--header-rows N`: lines before the data; the first names the columns. Nil (the default):
    /// the first line names them, and the line under it is a second header row when it gives
    /// units or completes sensor headings (see ``Preamble/isSecondHeaderRow``).
    public var headerRows: Int?
    /// `--skip-lines N`: lines skipped before the header, or nil to detect a preamble (see
    /// ``Preamble``).
    public var skipLines: Int?
    /// `--delimiter`: the field separator, or nil to detect it.
    public var separator: TextDialect.Separator?
    /// `--strict`: value faults are errors.
    public var strict = false
    /// `--sample-rate HZ`: the rate of rows without a time column (row k at k / rate s), or of a
    /// sample counter read as time (`--units t=count`). Nil: the time column gives the times.
    public var sampleRate: Double?

    /// Default options.
    public init() {}
}

/// Streams the samples of a delimited text file or of standard input: the native trace format, any
/// delimited file whose columns are named by the header or by `--columns`, and single-file
/// recording formats (xio Fusion CSV, EuRoC IMU files). Memory is constant: one read buffer.
///
/// Time is the file's own clock converted to seconds (nothing is re-zeroed). Sensors are converted
/// to SI (rad/s, m/s², µT; an arbitrary-unit magnetometer is kept as is) and remapped. Value faults
/// (partly missing axes, infinities, values beyond any sensor's range, repeated or backward time,
/// invalid ground truth) never stop the reading: see ``ValueFaults``.
public final class DelimitedTraceReader: SampleReader {
    /// What is known about the input.
    public let description: TraceDescription
    /// The layout in use.
    public let layout: ColumnLayout
    /// Seconds per unit of the parsed time values (1 when the parser already converted them).
    let timeScale: Double
    /// Where times come from: the time column, a sample counter in it at a rate, or the row count
    /// at a rate.
    enum Clock { case column, counter(rate: Double), rows(rate: Double) }
    let clock: Clock
    /// Rows timed so far (``Clock/rows``); the counter's unwrapped offset and last raw value.
    @exclusivity(unchecked) var rowIndex = 0
    @exclusivity(unchecked) var counterOffset = 0.0
    @exclusivity(unchecked) var lastCount = Double.nan
    /// Value faults so far.
    @exclusivity(unchecked) public internal(set) var faults: ValueFaults
    /// Warnings so far (at most ``maxWarnings`` kept).
    @exclusivity(unchecked) public private(set) var warnings: [TraceWarning] = []
    /// Most warnings kept verbatim.
    public static let maxWarnings = 50
    /// The rows being parsed.
    public let rows: DelimitedRows

    let values: UnsafeMutablePointer<Double>
    @exclusivity(unchecked) var lastTime = -Double.infinity
    /// The sensors read at `lastTime` (a repeated time of another sensor's row is no duplicate).
    @exclusivity(unchecked) var sensorsAtTime = SensorsAtTime()
    @exclusivity(unchecked) var renormalisedTruth = 0
    @exclusivity(unchecked) var renormalisedReported = false
    @exclusivity(unchecked) var reportedJunk = 0
    @exclusivity(unchecked) var reportedForeign = 0
    @exclusivity(unchecked) var commentsReported = false
    let hasGyroscope: Bool, hasAccelerometer: Bool, hasMagnetometer: Bool, hasTruth: Bool, hasMoving: Bool
    /// Whether the time's nanoseconds are in a column of their own (`secs`, `nsecs`).
    let hasNanoseconds: Bool
    /// Whether Core Motion's gravity is added to its user acceleration to give the accelerometer
    /// (``ColumnLayout/Slot/gravityX``).
    let addsGravity: Bool
    /// The span, s, after which the time column wraps to zero (Xsens's 32-bit SampleTimeFine), if
    /// it does; the offset added for the wraps so far and the last time as read.
    let timeWrap: Double?
    @exclusivity(unchecked) var wrapOffset = 0.0
    @exclusivity(unchecked) var lastReadTime = Double.nan
    let remaps: Bool
    /// Whether every value is read as it is (``UnitEvidence``'s look at the first rows).
    let probe: Bool
    /// Each sensor's clock when a sensor has a time column of its own (``ColumnLayout/Slot/gyroscopeTime``…);
    /// empty when every reading is timed by the row's time.
    let sensorClocks: [SensorClock]
    /// The rows split into each sensor's readings, merged on time (with ``sensorClocks``).
    @exclusivity(unchecked) var clockRows: SensorClockRows?
    /// Rows holding no value to read (``skipsEmptyRow()``), where the first was, and whether
    /// the note counting them was given.
    @exclusivity(unchecked) var emptyRows = 0
    @exclusivity(unchecked) var firstEmptyRow: SourceLocation?
    @exclusivity(unchecked) var emptyRowsReported = false

    /// Opens `path` (`-` for standard input) and reads its header.
    public convenience init(path: String, format: String = "native", options: DelimitedReadOptions = .init()) throws {
        try self.init(lines: ByteLineReader(path: path), format: format, options: options)
    }

    /// Reads the header from `lines`. `known` gives the layout of a recording format's file from its
    /// column names (importers); otherwise the layout comes from `--columns` and the header.
    public convenience init(
        lines: ByteLineReader, format: String, options: DelimitedReadOptions,
        known: ((_ names: [String]) throws -> ColumnLayout)? = nil
    ) throws {
        try self.init(lines: lines, format: format, options: options, known: known, evident: [], probe: false)
    }

    /// The same, with units the readings proved (``UnitEvidence``) applied under `--units`; a
    /// `probe` reads every value as it is, with no range limits (for ``UnitEvidence``).
    init(
        lines: ByteLineReader, format: String, options: DelimitedReadOptions,
        known: ((_ names: [String]) throws -> ColumnLayout)?, evident: [UnitEvidence.Unit], probe: Bool
    ) throws {
        let rows = try DelimitedRows(
            lines, headerRows: options.headerRows ?? 1, separator: options.separator, skipLines: options.skipLines,
            detectSecondHeaderRow: options.headerRows == nil)
        rows.junkAllowed = !options.strict || probe
        self.rows = rows
        self.probe = probe
        rows.monthFirstDates = Preamble.statesMonthFirstDates(rows.preamble)
        let file = lines.name
        let headerLocation = SourceLocation(file: file, line: rows.headerLine, column: 0)
        let names = rows.columnNames
        var notes = [String]()
        var layout = try Self.layout(
            rows, names: names, file: file, headerLocation: headerLocation, options: options, known: known,
            evident: evident, notes: &notes)
        if let r = options.remap { layout.remap = r }
        hasGyroscope = layout.has(.gyroscopeX)
        hasAccelerometer = layout.has(.accelerometerX)
        hasMagnetometer = layout.has(.magnetometerX)
        addsGravity = hasAccelerometer && layout.columns[.gravityX] != nil
        guard hasGyroscope || hasAccelerometer || hasMagnetometer || (known != nil && layout.columns[.truthW] != nil)
        else {
            // One sensor per row, tagged by name in a column (Android GnssLogger exports'
            // `MessageType` of UncalAccel, UncalGyro and UncalMag rows): no one table reads it.
            if options.columns == nil, let tags = Self.sensorTags(names: names, rows: Self.firstRows(rows)) {
                let shown = tags.values.map { "'\($0.escapedForMessage)'" }.joined(separator: ", ")
                let split =
                    rows.dialect.separatorByte == UInt8(ascii: ",")
                    ? " (e.g., run there: awk -F, 'NR==1{h=$0;next} {f=$\(tags.column + 1)\".csv\"; if(!(f in s)){print h > f; s[f]=1} print >> f}' FILE)"
                    : ""
                throw TraceError(
                    .missingColumn, headerLocation,
                    "the rows are tagged by sensor in column '\(names[tags.column].escapedForMessage)' (\(shown)): a table of one sensor per row is not read as one; split it by that column into one file per tag in an empty folder\(split), which reads as a recording of per-sensor files"
                )
            }
            // With --columns the call named no sensor (a usage error); otherwise the header did not.
            let proposal = ColumnLayout.proposal(names: names, rows: Self.firstRows(rows)).map {
                "; the columns may be \($0) (a guess from the names and the first rows: check it)"
            }
            throw TraceError(
                options.columns != nil ? .columnSpecification : .missingColumn, headerLocation,
                "no sensor columns: expected gyr_x,gyr_y,gyr_z and/or acc_x,acc_y,acc_z and/or mag_x,mag_y,mag_z, or choose them with --columns; the header has: \(names.map { $0.escapedForMessage }.joined(separator: ","))\(proposal ?? "")"
            )
        }
        // Axes numbered instead of lettered, read by their numbers: said, since the order is assumed.
        if known == nil, case let numbered = ColumnLayout.numberedAxisNames(names), !numbered.isEmpty {
            for group in ColumnLayout.groups.prefix(3) {
                let columns = group.slots.compactMap { layout.columns[$0] }
                guard columns.count == 3, columns.allSatisfy({ numbered[$0] != nil }) else { continue }
                notes.append(
                    "read \(columns.map { "'\(names[$0].escapedForMessage)'" }.joined(separator: ", ")) as the \(group.label)'s x, y, z (axes numbered in that order)"
                )
            }
        }
        var timeName = layout.columns[.time].flatMap { $0 < names.count ? names[$0] : nil }
        if ColumnLayout.clockSlots.contains(where: { layout.columns[$0] != nil }) {
            clock = try Self.clockBesideSensorClocks(
                &layout, rows, names: names, timeName: timeName, options: options, headerLocation: headerLocation,
                notes: &notes)
        } else {
            clock = try Self.clock(
                &layout, rows, names: names, timeName: timeName, options: options, headerLocation: headerLocation,
                notes: &notes, folderMember: format == TraceFormat.sensorFiles.rawValue)
            timeName = layout.columns[.time].flatMap { $0 < names.count ? names[$0] : nil }
        }
        // Date-times in the time column (ISO 8601, or with a space; month first where the file
        // states it): seconds since the epoch.
        if case .column = clock, let c = layout.columns[.time], let text = Self.firstField(c, rows),
            Double(text.trimmingSpaces) == nil, DateTimeText.seconds(text, monthFirst: rows.monthFirstDates) != nil
        {
            rows.dateTimeSlot = ColumnLayout.Slot.time.rawValue
            rows.timeOfDay = DateTimeText.isTimeOfDay(text)
            layout.columns[.timeNanoseconds] = nil
            try layout.units.set("t", "s", strictly: true)
            notes.append(
                DateTimeText.isTimeOfDay(text)
                    ? "the time column '\(timeName?.escapedForMessage ?? "")' holds times of day without a date ('\(text.trimmingSpaces.escapedForMessage)'): read as seconds since the first row's midnight (a time 12 hours or more before the last is in the next day)"
                    : "the time column '\(timeName?.escapedForMessage ?? "")' holds date-times ('\(text.trimmingSpaces.escapedForMessage)'\(rows.monthFirstDates ? ", month first as the lines before the header state" : "")): read as seconds since 1970-01-01 UTC (UTC unless a row gives an offset)"
            )
        }
        // Xsens's SampleTimeFine is a 32-bit count that wraps (after 71.6 min in µs).
        if case .column = clock, let timeName, ColumnLayout.key(timeName) == "sampletimefine" {
            timeWrap = 4_294_967_296 * layout.units.time
        } else {
            timeWrap = nil
        }
        hasNanoseconds = layout.columns[.timeNanoseconds] != nil
        hasTruth = layout.columns[.truthW] != nil
        hasMoving = layout.columns[.moving] != nil
        self.layout = layout
        remaps = !layout.remap.isIdentity
        rows.select(layout.slotsByColumn(count: rows.columnCount))
        // Times in ms, µs or ns are converted while they are read, rounded once: the text of an
        // epoch in ns has more digits than a double, so converting the parsed value would round twice.
        if let exponent = layout.units.timeExponent {
            rows.scaledSlot = ColumnLayout.Slot.time.rawValue
            rows.scaledSlotExponent = exponent
            timeScale = 1
        } else {
            timeScale = layout.units.time
        }
        sensorClocks = try Self.sensorClocks(layout, rows, names: names, options: options)
        faults = ValueFaults(strict: options.strict)
        var sensors = Set<SensorKind>()
        if hasGyroscope { sensors.insert(.gyroscope) }
        if hasAccelerometer { sensors.insert(.accelerometer) }
        if hasMagnetometer { sensors.insert(.magnetometer) }
        var d = TraceDescription(format: format, source: file, sensors: sensors, hasTruth: hasTruth)
        d.magnetometerArbitrary = layout.units.magnetometerArbitrary
        d.units = layout.units
        description = d
        values = .allocate(capacity: ColumnLayout.slotCount)
        values.initialize(repeating: .nan, count: ColumnLayout.slotCount)
        let used = Set(layout.columns.values)
        let unknown = rows.names.enumerated().filter { !used.contains($0.offset) }.map(\.element)
        if rows.preambleLines > 0 {
            let lines = rows.preambleLines == 1 ? "1 line" : "\(rows.preambleLines) lines"
            warn(
                headerLocation,
                options.skipLines == nil
                    ? "skipped \(lines) before the header (comments, metadata or a sep= line); if the header is another line, pass --skip-lines N"
                    : options.headerRows == 0
                        ? "skipped \(lines) before the rows, which have no header"
                        : "skipped \(lines) before the header (--skip-lines)", note: true)
        }
        if rows.detectedSecondHeaderRow {
            warn(
                headerLocation,
                "read lines \(rows.headerLine) and \(rows.headerLine + 1) as the header (the second names or gives the unit of each column); if line \(rows.headerLine + 1) is data, pass --header-rows 1",
                note: true)
        }
        if known == nil, Preamble.isActiGraph(rows.preamble) {
            // The units --units gives are its own, not ActiLife's.
            let given = Set(
                (options.units ?? "").split(separator: ",").map {
                    String(String($0.split(separator: "=").first ?? "").trimmingSpaces.lowercased().prefix(3))
                })
            let stated = Self.actiGraphUnits(layout, names: names).filter { !given.contains($0.key) }
            if !stated.isEmpty {
                notes.append(
                    "an ActiGraph export (ActiLife's preamble): \(stated.map { "\($0.key) in \($0.unit)" }.joined(separator: ", ")), as ActiLife writes them (--units overrides)"
                )
            }
        }
        if let maker = layout.gravitySignedAccelerometer(names), layout.units.accelerometerSign < 0 {
            notes.append(
                "the accelerometer columns are \(maker.description) ('\(names[layout.columns[.accelerometerX]!].escapedForMessage)'), which read \(maker.restReading), the opposite of the specific force: read negated; the minus is \(maker.maker) sign convention, kept whatever unit --units gives (acc=g and acc=-g alike)"
            )
        }
        if addsGravity {
            let column = { (slot: ColumnLayout.Slot) in "'\(names[layout.columns[slot]!].escapedForMessage)'" }
            let stated = Self.statedUnit(options.units, keys: ["acc", "accel", "accelerometer"])
            let named = [.accelerometerX, .gravityX].lazy.compactMap {
                ColumnLayout.unitHint(names[layout.columns[$0]!])
            }
            let unit =
                stated.map { "the columns' unit as --units acc=\($0) states" }
                ?? named.first.map { "the columns' unit as the names state, \($0)" } ?? "g, Core Motion's unit"
            let sign =
                stated?.first.map { $0 == "-" || $0 == "−" } == true
                ? "the minus of --units acc=\(stated!) is this sign, applied once"
                : "kept whatever unit --units gives"
            notes.append(
                "no raw accelerometer: the specific force is formed from Core Motion's device motion as -(\(column(.gravityX)) + \(column(.accelerometerX)))… × \(layout.units.accelerometer) m/s² (\(unit)); the minus is Core Motion's sign convention (its gravity reads -1 g along z on a phone lying face up, the specific force +9.81 m/s²), \(sign)\(stated == nil && named.first == nil ? "; if these columns are in m/s², pass --units acc=m/s2" : "")"
            )
        }
        if let c = layout.px4Column(names) {
            var px4 = "PX4 columns ('\(names[c].escapedForMessage)'…, as ulog2csv writes its topics): "
            if let t = timeName, ColumnLayout.key(t) == "timestamp", layout.units.time == 1e-6,
                Self.statedUnit(options.units, keys: ["t", "time"]) == nil
            {
                px4 += "'\(t.escapedForMessage)' read as µs since boot, PX4's clock; "
            }
            px4 +=
                layout.remap.isIdentity
                ? "the axes are PX4's body frame, forward-right-down (FRD: z down, a vehicle level at rest reads -9.81 m/s² on z), read as written; for forward-left-up axes (z up) pass --remap x,-y,-z"
                : "the axes are PX4's body frame, forward-right-down (FRD), turned by --remap \(layout.remap.spec)"
            notes.append(px4)
        }
        for n in notes { warn(headerLocation, n, note: true) }
        if !unknown.isEmpty && format == "native" {
            warn(
                headerLocation,
                "ignoring unknown column(s): \(unknown.map { $0.escapedForMessage }.joined(separator: ", "))")
        } else if known == nil, case let unread = unknown.filter(ColumnLayout.looksLikeUnreadAxis), !unread.isEmpty {
            warn(
                headerLocation,
                "ignoring unknown column(s) whose names look like a sensor's axes but are not read as any: \(unread.map { "'\($0.escapedForMessage)'" }.joined(separator: ", ")); to read them, choose them with --columns (and their unit with --units)",
                note: true)
        }
        if !sensorClocks.isEmpty { clockRows = SensorClockRows(self) }
    }

    /// The units ActiLife writes in an ActiGraph export (``Preamble/isActiGraph(_:)``) under names
    /// without one (`Accelerometer X`, `Gyroscope X`, `Magnetometer X`): g, °/s and µT.
    static let actiGraphUnits: [(key: String, unit: String, slot: ColumnLayout.Slot)] = [
        ("acc", "g", .accelerometerX), ("gyr", "deg/s", .gyroscopeX), ("mag", "uT", .magnetometerX),
    ]

    /// Those of ``actiGraphUnits`` whose sensor the layout reads from a column without a unit.
    static func actiGraphUnits(_ layout: ColumnLayout, names: [String]) -> [(key: String, unit: String)] {
        actiGraphUnits.filter { u in
            layout.columns[u.slot].map { $0 < names.count && ColumnLayout.unitHint(names[$0]) == nil } ?? false
        }.map { ($0.key, $0.unit) }
    }

    /// The columns and units of the file: from the importer's `known` layout, or `--columns` and the
    /// header's names (their unit hints kept), or the header alone; then the units the readings
    /// proved (`evident`) and `--units`. A failure is a ``TraceError`` at the header, a usage error
    /// when it comes from the options.
    static func layout(
        _ rows: DelimitedRows, names: [String], file: String, headerLocation: SourceLocation,
        options: DelimitedReadOptions, known: ((_ names: [String]) throws -> ColumnLayout)?,
        evident: [UnitEvidence.Unit], notes: inout [String]
    ) throws -> ColumnLayout {
        var layout: ColumnLayout
        // Whether a failure comes from the caller's --columns or --units rather than from the file.
        var fromOptions = false
        do {
            if let known {
                layout = try known(rows.names)
            } else if let spec = options.columns {
                layout = ColumnLayout()
                fromOptions = true
                try layout.setColumns(spec, names: rows.names, columnCount: rows.columnCount, otherNames: names)
                fromOptions = false
                if !names.isEmpty {
                    // Unit hints of the named columns still apply unless --units overrides them.
                    for (slot, c) in layout.columns where c < names.count {
                        guard let hint = ColumnLayout.unitHint(names[c]) else { continue }
                        switch slot {
                        case .time where !ColumnLayout.isUTCOffset(hint):
                            try layout.units.set("t", hint, strictly: false)
                        case .gyroscopeX: try layout.units.set("gyr", hint, strictly: false)
                        case .accelerometerX: try layout.units.set("acc", hint, strictly: false)
                        case .magnetometerX: try layout.units.set("mag", hint, strictly: false)
                        default: break
                        }
                    }
                    // What --columns leaves is read from the names, as without it.
                    try layout.fill(fromNames: names, file: file)
                }
                // A sensor's own clock given without the sensor would time nothing.
                for (g, slot) in ColumnLayout.clockSlots.enumerated()
                where layout.columns[slot] != nil && !layout.has(ColumnLayout.groups[g].slots[0]) {
                    fromOptions = true
                    throw ColumnSpecError(
                        "--columns \(slot.name)=…: the \(ColumnLayout.groups[g].label) it would time is not read (give it too: --columns \(ColumnLayout.groups[g].key)=NAME)"
                    )
                }
            } else {
                guard !rows.names.isEmpty else {
                    fromOptions = true
                    throw ColumnSpecError(
                        "a file without a header (--header-rows 0) needs --columns, e.g. --columns t=1,gyr=2,acc=5")
                }
                layout = try ColumnLayout.fromHeader(names, file: file)
                // A file named for one sensor with bare axes in a unit of it (a `…_MAGN.txt` alone).
                if let moved = try SensorFilesImporter.bareAxesOfNamedSensor(layout, names, file: file) {
                    layout = moved.layout
                    notes.append(moved.note)
                }
                try refuseDerivedAcceleration(layout, names: names, file: file, headerLocation: headerLocation)
            }
            if known == nil, Preamble.isActiGraph(rows.preamble) {
                for u in actiGraphUnits(layout, names: names) { try layout.units.set(u.key, u.unit, strictly: true) }
            }
            for unit in evident where !layout.units.explicit.contains(unit.key) {
                try layout.units.set(unit.key, unit.unit, strictly: true)
                // Found in the readings, not stated: --units may still say otherwise.
                layout.units.explicit.remove(unit.key)
                layout.units.evident.insert(unit.key)
            }
            if let spec = options.units, known == nil {
                fromOptions = true
                try layout.units.set(spec: spec)
            }
            // Core Motion writes its accelerations opposite to the specific force whatever their
            // unit, the raw accelerometer (SensorLog) and the device motion (MotionSense) alike,
            // and so does an LPMS: `--units acc=UNIT` gives the unit, the minus stays (`acc=-g`
            // means `acc=g`).
            if layout.gravitySignedAccelerometer(names) != nil || layout.columns[.gravityX] != nil {
                layout.units.accelerometerSign = -1
            }
        } catch let e as ColumnSpecError {
            throw TraceError(
                fromOptions ? .columnSpecification : .missingColumn, headerLocation,
                e.description)
        }
        return layout
    }

    /// Refuses a file whose name says it holds gravity or linear acceleration (MetaBase's
    /// `…_Gravity_1.4.5.csv`, `…_Linear Acceleration_…csv`, its sensor fusion's) when the header
    /// names the accelerometer only by a unit (`x-axis (g)`, `x (g)`): those columns are no
    /// accelerometer, as the folder importer leaves such files out. `--columns` reads them anyway.
    static func refuseDerivedAcceleration(
        _ layout: ColumnLayout, names: [String], file: String, headerLocation: SourceLocation
    ) throws {
        guard let c = layout.columns[.accelerometerX], c < names.count,
            ["x", "xaxis"].contains(ColumnLayout.key(names[c]))
        else { return }
        let base = String(file.split(separator: "/").last ?? "")
        let words = ColumnLayout.words(base)
        let what: String
        if words.contains(where: { $0.hasPrefix("gravity") }) {
            what = "gravity, a sensor fusion's estimate of it"
        } else if words.contains(where: { $0.hasPrefix("linear") }) {
            what = "linear acceleration, a sensor fusion's acceleration without gravity"
        } else {
            return
        }
        throw TraceError(
            .missingColumn, headerLocation,
            "the file's name says it holds \(what) (as MetaWear's MetaBase exports it), not the accelerometer: its columns '\(names[c].escapedForMessage)'… name no sensor but by their unit; read the accelerometer's own file, or the folder of the recording (which leaves this file out), or pass --columns acc=\(names[c].escapedForMessage) to read these columns anyway"
        )
    }

    /// The unit `--units` (`spec`) states for one of `keys` (`acc`, `accel`, `accelerometer`), if it does.
    static func statedUnit(_ spec: String?, keys: Set<String>) -> String? {
        guard let spec else { return nil }
        var unit: String?
        try? KeyValueList.forEach(spec, malformed: { ColumnSpecError(String($0)) }) { name, value, _ in
            if keys.contains(name.lowercased()) { unit = value }
        }
        return unit
    }

    /// The clock: the time column; or, without one (or with one left empty, as MT Manager exports
    /// without a time stamp), the rows at the rate given or stated before the header (an empty
    /// time column is then dropped from `layout`); or a counter at `--sample-rate`. What the reader
    /// assumed is added to `notes`. A folder's member (`folderMember`) is refused without proposing
    /// `--columns`, which folders refuse.
    static func clock(
        _ layout: inout ColumnLayout, _ rows: DelimitedRows, names: [String], timeName: String?,
        options: DelimitedReadOptions, headerLocation: SourceLocation, notes: inout [String],
        folderMember: Bool = false
    ) throws -> Clock {
        var emptyTime = layout.columns[.time].map { Self.isEmptyInFirstRows($0, rows) } ?? false
        // Another time column that is not empty times the rows instead (WitMotion's `Time` when
        // its `Chip Time()` is left empty by a sensor without a clock).
        if emptyTime, options.columns == nil, layout.columns[.timeNanoseconds] == nil,
            let other = names.indices.first(where: { c in
                c != layout.columns[.time] && ColumnLayout.match(names[c])?.quantity == .time
                    && !Self.isEmptyInFirstRows(c, rows)
            })
        {
            notes.append(
                "the time column '\(timeName?.escapedForMessage ?? "")' is empty in the first rows: the rows are timed by '\(names[other].escapedForMessage)'"
            )
            layout.columns[.time] = other
            emptyTime = false
        }
        if emptyTime, options.columns == nil, !layout.units.timeIsCount {
            layout.columns[.time] = nil
            layout.columns[.timeNanoseconds] = nil
        }
        if layout.columns[.time] == nil {
            let stated = Preamble.statedRate(rows.preamble)
            guard let rate = options.sampleRate ?? stated?.rate else {
                var described = layout.describe(names)
                if let counter = names.indices.first(where: { ColumnLayout.looksLikeCounter(names, $0) }) {
                    described += "; '\(names[counter].escapedForMessage)' counts samples or packets, it is no clock"
                }
                // A folder's files are read by their names and each timed by its own clock:
                // --columns, which a folder refuses, is not proposed, nor --sample-rate alone, which
                // times a folder only when none of its files has a clock.
                let times = names.filter { ColumnLayout.match($0)?.quantity == .time }
                let fix =
                    !folderMember
                    ? "for rows at a known rate give it: --sample-rate HZ, or choose the time column with --columns t=NAME (a time column may be named 't', 'time', 'timestamp', 'Time (s)'…)"
                    : times.count > 1
                        ? "its columns \(times.map { "'\($0.escapedForMessage)'" }.joined(separator: " and ")) name a time equally surely, so neither is read: rename the one that is not the sensor's clock (e.g. to 'received'), or, if no file of the folder has a clock, time them all with --sample-rate HZ"
                        : "a folder's files are each timed by their own clock: give this file a time column ('t', 'time', 'timestamp', 'Time (s)'…), or, if no file of the folder has one, time them all with --sample-rate HZ"
                throw TraceError(
                    options.columns != nil ? .columnSpecification : .missingColumn, headerLocation,
                    options.columns != nil
                        ? "--columns names no time column (t=…); for rows at a known rate without one, give it: --sample-rate HZ"
                        : emptyTime
                            ? "the time column '\(timeName?.escapedForMessage ?? "")' is empty in the first rows: for rows at a known rate give it, --sample-rate HZ"
                            : "no time column\(described.isEmpty ? "" : " (the header names \(described))"); \(fix); the header has: \(names.map { $0.escapedForMessage }.joined(separator: ","))"
                )
            }
            let clock = Clock.rows(rate: rate)
            if emptyTime {
                notes.append(
                    "the time column '\(timeName?.escapedForMessage ?? "")' is empty: rows timed at \(rate) Hz\(options.sampleRate == nil ? " (stated before the header: '\(stated!.line.escapedForMessage)')" : "")"
                )
            } else if options.sampleRate == nil {
                notes.append(
                    "no time column: rows timed at \(rate) Hz, as stated before the header: '\(stated!.line.escapedForMessage)'"
                )
            }
            return clock
        } else if layout.units.timeIsCount {
            guard let rate = options.sampleRate else {
                throw TraceError(
                    .columnSpecification, headerLocation,
                    "a sample counter read as time (--units t=count) needs its rate: --sample-rate HZ")
            }
            return .counter(rate: rate)
        } else if options.sampleRate != nil {
            throw TraceError(
                .columnSpecification, headerLocation,
                "--sample-rate times rows without a time column, or a counter (--units t=count); this file's time column \(timeName.map { "'\($0.escapedForMessage)' " } ?? "")gives the times"
            )
        } else {
            return .column
        }
    }

    /// A column whose first rows name sensors rather than hold numbers (`UncalAccel`, `UncalGyro`,
    /// `UncalMag`): its number and the names, at least two of them naming a sensor; nil otherwise.
    static func sensorTags(names: [String], rows: [[String]]) -> (column: Int, values: [String])? {
        let words = ["acc", "gyr", "mag"]
        for c in names.indices {
            let values = rows.compactMap { c < $0.count ? $0[c].trimmingSpaces : nil }
            guard values.count >= 2,
                values.allSatisfy({ v in
                    !v.isEmpty && Double(v) == nil && v.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
                })
            else { continue }
            var distinct = [String]()
            for v in values where !distinct.contains(v) { distinct.append(v) }
            let sensors = distinct.filter { v in words.contains { v.lowercased().contains($0) } }
            if sensors.count >= 2 { return (c, distinct) }
        }
        return nil
    }

    /// The first data rows' fields (for a proposal in a message), consuming nothing.
    static func firstRows(_ rows: DelimitedRows) -> [[String]] {
        let split = FieldSplitter(dialect: rows.dialect)
        var out = [[String]]()
        var k = 0
        while out.count < TraceFormat.proposalRows, k < Preamble.maximumLines + TraceFormat.proposalRows,
            let line = try? rows.lines.peekLine(ahead: k)
        {
            if !Preamble.isBlank(line) && !Preamble.isComment(line) { out.append(split.texts(line)) }
            k += 1
        }
        return out
    }

    /// Column `c` of the first data row, consuming nothing (only that row is waited for).
    static func firstField(_ c: Int, _ rows: DelimitedRows) -> String? {
        let split = FieldSplitter(dialect: rows.dialect)
        var k = 0
        while k < Preamble.maximumLines, let line = try? rows.lines.peekLine(ahead: k) {
            k += 1
            if Preamble.isBlank(line) || Preamble.isComment(line) { continue }
            let fields = split.texts(line)
            return c < fields.count ? fields[c] : nil
        }
        return nil
    }

    /// Whether column `c` is empty in the first data rows (up to ``TraceFormat/proposalRows`` of
    /// a file; the first of a live stream, which is not waited on), consuming nothing.
    static func isEmptyInFirstRows(_ c: Int, _ rows: DelimitedRows) -> Bool {
        let split = FieldSplitter(dialect: rows.dialect)
        let wanted = rows.lines.size == nil ? 1 : TraceFormat.proposalRows
        var seen = 0
        var k = 0
        while seen < wanted, k < Preamble.maximumLines + wanted, let line = try? rows.lines.peekLine(ahead: k) {
            k += 1
            if Preamble.isBlank(line) || Preamble.isComment(line) { continue }
            let fields = split.texts(line)
            guard c < fields.count, fields[c].trimmingSpaces.isEmpty else { return false }
            seen += 1
        }
        return seen > 0
    }

    deinit { values.deallocate() }

    /// The fraction of the file read (nil for a stream).
    public var progress: Double? {
        rows.lines.size.map { $0 > 0 ? min(1, Double(rows.lines.bytesRead) / Double($0)) : 1 }
    }

    func warn(_ location: SourceLocation, _ message: String, note: Bool = false) {
        if warnings.count < Self.maxWarnings { warnings.append(TraceWarning(location, message, note: note)) }
    }

    func location(_ slot: ColumnLayout.Slot) -> SourceLocation {
        rows.lines.location(atByte: rows.fieldOffset(of: slot.rawValue) ?? -1)
    }

    /// The next sample, or nil at the end of the input.
    public func next() throws -> SensorSample? {
        if let clockRows { return try clockRows.next() }
        while try nextRow() {
            guard skipsEmptyRow() else { return try makeSample() }
            // The row still takes its instant of a rate.
            if case .rows = clock { rowIndex += 1 }
        }
        return nil
    }

    /// The slots of values read from a row: the sensors, ground truth and the moving flag.
    static let valueSlots = ColumnLayout.Slot.allCases.filter {
        ![.time, .timeNanoseconds, .gyroscopeTime, .accelerometerTime, .magnetometerTime].contains($0)
    }

    /// The bits of ``valueSlots`` in ``DelimitedRows/explicitNaNSlots``.
    static let valueSlotBits = valueSlots.reduce(UInt64(0)) { $0 | 1 << UInt64($1.rawValue) }

    /// Whether the current row holds no sensor value, ground truth or moving flag (every such
    /// cell empty: a MicroStrain export's estimation-filter rows between its IMU rows, each with
    /// its own time), counting it if so: such a row is skipped without a look at its time. A
    /// cell that reads `nan` is a value written, not an empty cell: its row is read and checked.
    func skipsEmptyRow() -> Bool {
        for slot in Self.valueSlots where !values[slot.rawValue].isNaN { return false }
        if rows.explicitNaNSlots & Self.valueSlotBits != 0 { return false }
        emptyRows += 1
        if firstEmptyRow == nil { firstEmptyRow = rows.lines.location(atByte: -1) }
        return true
    }

    /// Reads the next row into `values`, reporting the rows dropped so far; false at the end of the
    /// input (throws when there was no row at all).
    func nextRow() throws -> Bool {
        let more = try rows.next(into: values, slots: ColumnLayout.slotCount)
        if rows.junkRows != reportedJunk, let first = rows.firstJunk {
            reportedJunk = rows.junkRows
            faults.set(.junkRow, count: reportedJunk, first: first.location, "'\(first.text.escapedForMessage)'")
        }
        if rows.foreignRows != reportedForeign, let first = rows.firstForeign {
            reportedForeign = rows.foreignRows
            faults.set(.foreignDelimiter, count: reportedForeign, first: first.location, first.text)
        }
        guard more else {
            if rows.rowCount == 0 {
                throw TraceError(
                    .empty, SourceLocation(file: rows.name, line: rows.lineNumber + 1, column: 0),
                    "no data rows after the header")
            }
            if rows.commentLines > 0 && !commentsReported {
                commentsReported = true
                warn(
                    SourceLocation(file: rows.name, line: 0, column: 0),
                    "skipped \(rows.commentLines) comment line(s) (#, // or %) among the rows", note: true)
            }
            if let first = firstEmptyRow, emptyRows == rows.rowCount {
                throw TraceError(
                    .empty, first,
                    "none of the \(emptyRows) data rows holds a sensor value: nothing to read (are these the columns meant? choose them with --columns)"
                )
            }
            if let first = firstEmptyRow, !emptyRowsReported {
                emptyRowsReported = true
                warn(
                    first,
                    "skipped \(emptyRows) row(s) holding no sensor value (only a time, or columns not read, such as a MicroStrain export's estimation-filter rows between its IMU rows), the first here; their times are not checked",
                    note: true)
            }
            if renormalisedTruth > 0 && !renormalisedReported {
                renormalisedReported = true
                warn(
                    SourceLocation(file: rows.name, line: 0, column: 0),
                    "\(renormalisedTruth) ground-truth quaternions were off unit norm by more than 1e-3 and were renormalised"
                )
            }
            return false
        }
        return true
    }

    /// The time the current row's time column gives, s: wraps unwrapped, nanoseconds added.
    func columnTime() -> Double {
        var t = values[ColumnLayout.Slot.time.rawValue] * timeScale
        if let wrap = timeWrap, t.isFinite {
            if lastReadTime.isFinite && t < lastReadTime - wrap / 2 { wrapOffset += wrap }
            lastReadTime = t
            t += wrapOffset
        }
        if hasNanoseconds { t += values[ColumnLayout.Slot.timeNanoseconds.rawValue] * 1e-9 }
        return t
    }

    private func makeSample() throws -> SensorSample {
        var t: Double
        switch clock {
        case .column:
            t = columnTime()
        case .rows(let rate):
            t = Double(rowIndex) / rate
            rowIndex += 1
        case .counter(let rate):
            let count = values[ColumnLayout.Slot.time.rawValue]
            // A counter that falls to under half its last value wrapped at the next power of two
            // (8-, 16- or 32-bit packet counters).
            if count.isFinite && lastCount.isFinite && count < lastCount / 2 {
                counterOffset += Glibc.exp2(Glibc.log2(lastCount + 1).rounded(.up))
            }
            if count.isFinite { lastCount = count }
            t = (count + counterOffset) / rate
        }
        var timeFault = false
        if !t.isFinite {
            try faults.record(.invalidTime, at: location(.time), "time is \(values[ColumnLayout.Slot.time.rawValue])")
            t = lastTime.isFinite ? lastTime : 0
            timeFault = true
        } else if t == lastTime && sensorsAtTime.repeats(t, readSensors()) {
            try faults.record(
                .duplicateTime, at: location(.time), "time \(t) s repeats the previous row's, with the same sensor")
        } else if t < lastTime {
            try faults.record(
                .backwardTime, at: location(.time), "time \(t) s is earlier than the previous row's \(lastTime) s")
        }
        if !timeFault {
            if t != lastTime { _ = sensorsAtTime.repeats(t, readSensors()) }
            lastTime = t
        }
        var sample = SensorSample(t: t)
        if addsGravity {
            let a = ColumnLayout.Slot.accelerometerX.rawValue
            let g = ColumnLayout.Slot.gravityX.rawValue
            // Gravity missing beside a user acceleration loses the reading: a fault, not silence.
            if (0..<3).allSatisfy({ values[g + $0].isNaN }) && (0..<3).contains(where: { !values[a + $0].isNaN }) {
                try faults.record(
                    .partialAxes, at: location(.gravityX), "accelerometer: Core Motion's gravity is missing")
            } else if (0..<3).allSatisfy({ values[a + $0].isNaN }) && (0..<3).contains(where: { !values[g + $0].isNaN })
            {
                // So does the user acceleration missing beside gravity: the fault at its own column.
                try faults.record(
                    .partialAxes, at: location(.accelerometerX),
                    "accelerometer: Core Motion's user acceleration is missing")
            }
            for k in 0..<3 { values[a + k] += values[g + k] }
        }
        if hasGyroscope { sample.gyroscope = try reading(.gyroscope) }
        if hasAccelerometer { sample.accelerometer = try reading(.accelerometer) }
        if hasMagnetometer { sample.magnetometer = try reading(.magnetometer) }
        if hasTruth {
            let w = ColumnLayout.Slot.truthW.rawValue
            let q = Quaternion(w: values[w], x: values[w + 1], y: values[w + 2], z: values[w + 3])
            sample.truth = try faults.screenTruth(q, location: location(.truthW), renormalised: &renormalisedTruth)
            // The truth is of the file's sensor frame: turned into the body frame the remap makes
            // (the gyroscope's, whose turns the attitude follows).
            if remaps, let t = sample.truth { sample.truth = t * layout.remap.gyroscope.quaternion.conjugate }
        }
        if hasMoving {
            let m = values[ColumnLayout.Slot.moving.rawValue]
            if m == 0 || m == 1 {
                sample.moving = m == 1
            } else if !m.isNaN {
                try faults.record(.invalidFlag, at: location(.moving), "moving is \(m)")
            }
        }
        return sample
    }

    /// The sensors whose columns hold a number on the current row (a fault's too): an empty cell
    /// and a written `nan` are no reading, as the runner and the array calls see them (numpy and
    /// MATLAB fill a merged timeline's other sensors with `nan`).
    func readSensors() -> UInt8 {
        func any(_ slot: ColumnLayout.Slot) -> Bool { (0..<3).contains { !values[slot.rawValue + $0].isNaN } }
        return SensorsAtTime.of(
            gyroscope: hasGyroscope && any(.gyroscopeX),
            accelerometer: hasAccelerometer && (any(.accelerometerX) || (addsGravity && any(.gravityX))),
            magnetometer: hasMagnetometer && any(.magnetometerX))
    }

    /// The current row's reading of `sensor` in SI units, remapped; nil when its columns are empty
    /// or hold a value fault (tallied). Core Motion's gravity is added to the accelerometer first.
    @inline(__always)
    func reading(_ sensor: SensorKind) throws -> Vector3? {
        // The units are read in place (a copy of them retains their set of explicit keys per
        // reading), and the hints are built only for a fault (a set lookup per reading before).
        switch sensor {
        case .gyroscope:
            return try vector(
                .gyroscopeX, layout.units.gyroscope, ValueFaults.gyroscopeLimit, "gyroscope",
                hint: layout.units.explicit.contains("gyr") || layout.units.evident.contains("gyr")
                    || beyondDegreesPerSecond()
                    ? "raw counts? give their scale, e.g. --units gyr=0.0625deg/s for 1/16 °/s per count"
                    : "deg/s read as rad/s? pass --units gyr=deg/s")
        case .accelerometer:
            return try vector(
                .accelerometerX, layout.units.accelerometer * layout.units.accelerometerSign,
                ValueFaults.accelerometerLimit,
                "accelerometer",
                hint: layout.units.explicit.contains("acc")
                    ? "raw counts? give their scale, e.g. --units acc=0.001g for 1 mg per count"
                    : "milli-g read as m/s²? pass --units acc=mg")
        case .magnetometer:
            // The range applies in the file's units: the limit is scaled back.
            return try vector(
                .magnetometerX, layout.units.magnetometer, ValueFaults.magnetometerLimit * layout.units.magnetometer,
                "magnetometer",
                hint: layout.units.explicit.contains("mag")
                    ? "raw counts? give their scale, e.g. --units mag=0.0625uT" : "nT read as µT? pass --units mag=nT")
        }
    }

    /// Whether the current row's gyroscope, read as °/s, is still beyond any gyroscope's range
    /// (±4000 °/s, ``UnitEvidence/gyroscopeBeyondRange``): not °/s read as rad/s.
    func beyondDegreesPerSecond() -> Bool {
        let g = ColumnLayout.Slot.gyroscopeX.rawValue
        let norm = Vector3(values[g], values[g + 1], values[g + 2]).norm * layout.units.gyroscope
        return norm * .pi / 180 > UnitEvidence.gyroscopeBeyondRange
    }

    /// The slot whose column holds a fault in axis `axis` of the sensor whose x is `first`: Core
    /// Motion's gravity when that is what is missing or infinite in a sum with it
    /// (``addsGravity``), else the sensor's own.
    func faultSlot(_ first: ColumnLayout.Slot, axis: Int) -> ColumnLayout.Slot {
        let g = ColumnLayout.Slot.gravityX.rawValue + axis
        if addsGravity && first == .accelerometerX && !values[g].isFinite { return ColumnLayout.Slot(rawValue: g)! }
        return ColumnLayout.Slot(rawValue: first.rawValue + axis)!
    }

    @inline(__always)
    private func vector(
        _ first: ColumnLayout.Slot, _ scale: Double, _ limit: Double, _ sensor: String,
        hint: @autoclosure () -> String
    ) throws -> Vector3? {
        let b = first.rawValue
        guard
            let v = try faults.screen(
                values[b] * scale, values[b + 1] * scale, values[b + 2] * scale, limit: probe ? .infinity : limit,
                sensor: sensor,
                hint: hint(),
                location: { self.location(self.faultSlot(first, axis: $0)) })
        else { return nil }
        guard remaps else { return v }
        switch first {
        case .gyroscopeX: return layout.remap.gyroscope.apply(v)
        case .accelerometerX: return layout.remap.accelerometer.apply(v)
        default: return layout.remap.magnetometer.apply(v)
        }
    }
}
