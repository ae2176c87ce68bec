/// Files whose sensors each have a time column of their own in one row (ImuCollector's `Acc
/// Timestamp, AccX, …, Gyro Timestamp, GyroX, …`): the sensors' clocks can differ by hundreds of
/// milliseconds within a row, so each row is split into one reading per sensor, timed by that
/// sensor's clock, and the readings are merged on time by ``TimelineMerger`` as separate files
/// are (``SensorClockRows``).
extension DelimitedTraceReader {
    /// One sensor's clock.
    struct SensorClock {
        /// The sensor it times.
        var sensor: SensorKind
        /// The slot of its column; nil for the row's time column (a sensor without a clock of its
        /// own beside sensors with one).
        var slot: ColumnLayout.Slot?
        /// Seconds per unit of its column.
        var scale: Double
        /// Its column's name, for messages.
        var name: String
    }

    /// Most steps of the slower clock between two sensors' times in one row for clocks on one
    /// time base: a day's difference in origin (an epoch beside time since boot) is millions.
    static let sameBaseSteps = 10_000.0
    /// Most steps between two sensors' times in one row when their steps differ by a factor near
    /// 10³, 10⁶ or 10⁹ (within ``SensorFilesImporter/rateSpread``): ms beside ns since one boot.
    static let sameUnitSteps = 100.0

    /// The clock of the rows when some sensor has a clock of its own: none needed when every
    /// sensor has one (the time column, if any, is then left out of `layout`); else the time
    /// column, which times the sensors without one. What is read so is added to `notes`.
    static func clockBesideSensorClocks(
        _ layout: inout ColumnLayout, _ rows: DelimitedRows, names: [String], timeName: String?,
        options: DelimitedReadOptions, headerLocation: SourceLocation, notes: inout [String]
    ) throws -> Clock {
        let present = ColumnLayout.groups.prefix(3).indices.filter { layout.has(ColumnLayout.groups[$0].slots[0]) }
        let own = present.filter { layout.columns[ColumnLayout.clockSlots[$0]] != nil }
        func name(_ slot: ColumnLayout.Slot) -> String {
            layout.columns[slot].map { $0 < names.count ? "'\(names[$0].escapedForMessage)'" : "column \($0 + 1)" }
                ?? ""
        }
        let clocks = own.map { "\(ColumnLayout.groups[$0].label) \(name(ColumnLayout.clockSlots[$0]))" }
            .joined(separator: ", ")
        let oneClock = "to time every reading by one clock, pass --columns t=NAME"
        if options.sampleRate != nil {
            throw TraceError(
                .columnSpecification, headerLocation,
                "--sample-rate times rows without a time column; here each sensor has its own (\(clocks)): leave --sample-rate out, or \(oneClock)"
            )
        }
        if layout.columns[.truthW] != nil || layout.columns[.moving] != nil {
            throw TraceError(
                .inconsistentClocks, headerLocation,
                "ground truth and the moving flag are timed by the row's time, but each sensor here has its own clock (\(clocks)): \(oneClock)"
            )
        }
        var clock = Clock.column
        if own.count == present.count {
            if layout.columns[.time] != nil {
                notes.append("the time column \(name(.time)) is not used: each sensor has its own")
            }
            layout.columns[.time] = nil
            layout.columns[.timeNanoseconds] = nil
        } else {
            let without = present.filter { !own.contains($0) }.map { ColumnLayout.groups[$0].label }
            let refusal = TraceError(
                .missingColumn, headerLocation,
                "the \(without.joined(separator: " and ")) has no time column of its own beside \(clocks), and the rows have no time: \(oneClock)"
            )
            guard layout.columns[.time] != nil else { throw refusal }
            clock = try Self.clock(
                &layout, rows, names: names, timeName: timeName, options: options, headerLocation: headerLocation,
                notes: &notes)
            guard case .column = clock else { throw refusal }
            notes.append("the \(without.joined(separator: " and ")) is timed by the time column \(name(.time))")
        }
        notes.append(
            "each sensor's readings are timed by its own clock (\(clocks)) and merged on time, a reading repeated on later rows read once; \(oneClock)"
        )
        return clock
    }

    /// Each sensor's clock (none when no sensor has one of its own), in the unit `--units t=`
    /// gives, else its name's (`Acc Timestamp (ns)`, `acc_timestamp_ms`), else the one the
    /// readings proved, else seconds. Throws when the clocks are not on one time base
    /// (``checkOneTimeBase(_:_:_:names:)``).
    static func sensorClocks(
        _ layout: ColumnLayout, _ rows: DelimitedRows, names: [String], options: DelimitedReadOptions
    ) throws -> [SensorClock] {
        guard ColumnLayout.clockSlots.contains(where: { layout.columns[$0] != nil }) else { return [] }
        var given = SensorUnits()
        if let spec = options.units { try given.set(spec: spec) }
        var clocks = [SensorClock]()
        for (g, sensor) in SensorKind.allCases.enumerated() where layout.has(ColumnLayout.groups[g].slots[0]) {
            let slot = ColumnLayout.clockSlots[g]
            guard let c = layout.columns[slot] else {
                let name = layout.columns[.time].map { $0 < names.count ? names[$0] : "" } ?? ""
                clocks.append(SensorClock(sensor: sensor, slot: nil, scale: 1, name: name))
                continue
            }
            let name = c < names.count ? names[c] : "column \(c + 1)"
            let stated = ColumnLayout.match(name)?.unit.flatMap { SensorUnits.timeScale($0) }
            let found = layout.units.evident.contains("t") ? layout.units.time : nil
            let scale = given.explicit.contains("t") && !given.timeIsCount ? given.time : stated ?? found ?? 1
            clocks.append(SensorClock(sensor: sensor, slot: slot, scale: scale, name: name))
        }
        try refuseDateTimes(clocks, layout, rows)
        try checkOneTimeBase(clocks, layout, rows, names: names)
        return clocks
    }

    /// Throws at the first cell of a sensor's own clock that holds a date-time (ISO 8601, or with
    /// a space): such a clock is read as a number, and the time column reads date-times, so the
    /// fix is to time every reading by it, `--columns t=NAME`.
    static func refuseDateTimes(_ clocks: [SensorClock], _ layout: ColumnLayout, _ rows: DelimitedRows) throws {
        let peeked = peekRows(rows, count: TraceFormat.proposalRows)
        for clock in clocks {
            guard let slot = clock.slot, let c = layout.columns[slot] else { continue }
            guard
                let cell = peeked.lazy.compactMap({ c < $0.fields.count ? $0.fields[c] : nil })
                    .first(where: { !$0.text.trimmingSpaces.isEmpty })
            else { continue }
            let text = cell.text.trimmingSpaces
            guard Double(text) == nil, DateTimeText.seconds(text, monthFirst: rows.monthFirstDates) != nil else {
                continue
            }
            throw TraceError(
                .malformedNumber, SourceLocation(file: rows.name, line: cell.line, column: cell.column),
                "'\(text.escapedForMessage)' in column '\(clock.name.escapedForMessage)', the \(clock.sensor.rawValue)'s own clock, is a date-time: a sensor's own clock is read as a number (s, or the unit its name or --units t= gives); to time every reading by this clock, which the time column reads as date-times, pass --columns t='\(clock.name.escapedForMessage)'"
            )
        }
    }

    /// Whether times `a` and `b` (s) of two clocks whose steps are `steps` (s, nil when not
    /// known) cannot be on one time base: more than ``sameBaseSteps`` steps of the slower clock
    /// apart, or more than ``sameUnitSteps`` when one clock's steps are about 10³, 10⁶ or 10⁹
    /// times the other's (within ``SensorFilesImporter/rateSpread``). Returns how far apart, in
    /// the slower clock's steps, and that factor if any; nil when they may share a base.
    static func timeBaseGap(_ a: Double, _ b: Double, steps: (Double?, Double?)) -> (
        apart: Double, factor: Double?
    )? {
        // Called for every reading of a file with sensor clocks: no allocation on the way.
        let slower: Double
        switch steps {
        case (let s0?, let s1?): slower = max(s0, s1)
        case (let s0?, nil): slower = s0
        case (nil, let s1?): slower = s1
        case (nil, nil): return nil
        }
        guard a.isFinite, b.isFinite, slower > 0 else { return nil }
        let apart = abs(a - b) / slower
        guard apart > sameUnitSteps else { return nil }
        var factor: Double?
        if let s0 = steps.0, let s1 = steps.1, s0 > 0, s1 > 0 {
            let ratio = max(s0, s1) / min(s0, s1)
            let spread = SensorFilesImporter.rateSpread
            factor = [1e3, 1e6, 1e9].first { ratio >= $0 / spread && ratio <= $0 * spread }
        }
        guard apart > sameBaseSteps || (apart > sameUnitSteps && factor != nil) else { return nil }
        return (apart, factor)
    }

    /// The error for two clocks not on one time base: `a` read `aText` at `aLine`, `b` read
    /// `bText` at `location` (the same line, or a nearby one), `gap` apart (``timeBaseGap``).
    static func timeBaseError(
        _ location: SourceLocation, a: String, aText: String, aLine: Int, b: String, bText: String,
        gap: (apart: Double, factor: Double?)
    ) -> TraceError {
        func g(_ v: Double) -> String { String(printf: "%.4g", v) }
        let why =
            gap.factor.map { ", and one's steps are about \(g($0)) times the other's, as ms beside µs or ns would be" }
            ?? ""
        let place =
            aLine == location.line
            ? "on this row '\(a.escapedForMessage)' reads \(aText.escapedForMessage) and '\(b.escapedForMessage)' \(bText.escapedForMessage)"
            : "'\(b.escapedForMessage)' reads \(bText.escapedForMessage) here, and '\(a.escapedForMessage)' \(aText.escapedForMessage) on line \(aLine), its nearest reading"
        return TraceError(
            .inconsistentClocks, location,
            "the sensors' clocks are not on one time base: \(place), \(g(gap.apart)) steps of the slower clock apart\(why); each sensor cannot be timed by its own clock. Time every reading by one of them with --columns t=NAME (e.g. --columns t='\(a.escapedForMessage)'), or, when only their units differ, give each time column its unit in the header ('NAME (ms)', 'NAME (ns)')"
        )
    }

    /// Throws unless the clocks share one time base in the first data rows (the sensors' own
    /// clocks, and the time column when it times a sensor without one): of each two clocks,
    /// the readings on the nearest rows (one row when it holds both; clocks read on alternate
    /// rows, or one starting some rows late, are compared across rows) are not too far apart
    /// (``timeBaseGap(_:_:steps:)``). Nothing is consumed (a stream's rows are looked at as they
    /// wait to be read). Beyond these rows, ``SensorClockRows`` compares the clocks as it reads.
    static func checkOneTimeBase(
        _ clocks: [SensorClock], _ layout: ColumnLayout, _ rows: DelimitedRows, names: [String]
    ) throws {
        // Each clock once: the time column stands for every sensor it times.
        var columns = [(column: Int, scale: Double, name: String)]()
        for clock in clocks {
            if let slot = clock.slot, let c = layout.columns[slot] {
                columns.append((c, clock.scale, clock.name))
            } else if clock.slot == nil, let c = layout.columns[.time], !columns.contains(where: { $0.column == c }) {
                columns.append((c, layout.units.time, clock.name))
            }
        }
        guard columns.count >= 2, clocks.contains(where: { $0.slot != nil }) else { return }
        let peeked = peekRows(rows, count: TraceFormat.proposalRows)
        let comma = rows.dialect.decimalPoint == UInt8(ascii: ",")
        typealias Time = (text: String, t: Double, line: Int, column: Int)
        let times: [[Time?]] = columns.map { clock in
            peeked.map { row -> Time? in
                guard clock.column < row.fields.count else { return nil }
                let cell = row.fields[clock.column]
                let text = cell.text.trimmingSpaces
                if let v = Double(comma ? text.replacing(",", with: ".") : text) {
                    return (text, v * clock.scale, cell.line, cell.column)
                }
                // A time column of date-times: seconds since the epoch.
                if clock.column == layout.columns[.time],
                    let v = DateTimeText.seconds(text, monthFirst: rows.monthFirstDates)
                {
                    return (text, v, cell.line, cell.column)
                }
                return nil
            }
        }
        let steps = times.map { column -> Double? in
            let ts = column.compactMap { $0?.t }
            return UnitCheck.median(zip(ts, ts.dropFirst()).compactMap { $1 > $0 ? $1 - $0 : nil })
        }
        for i in columns.indices {
            for j in columns.indices where j > i {
                // The nearest rows holding the two clocks' times (the earliest of equally near).
                var best: (Int, Int)?
                for ri in peeked.indices where times[i][ri] != nil {
                    for rj in peeked.indices where times[j][rj] != nil {
                        if best == nil || abs(ri - rj) < abs(best!.0 - best!.1) { best = (ri, rj) }
                    }
                }
                guard let (ri, rj) = best, let a = times[i][ri], let b = times[j][rj],
                    let gap = timeBaseGap(a.t, b.t, steps: (steps[i], steps[j]))
                else { continue }
                // Named where the second of the two is read.
                let (first, firstName, second, secondName) =
                    rj >= ri ? (a, columns[i].name, b, columns[j].name) : (b, columns[j].name, a, columns[i].name)
                throw timeBaseError(
                    SourceLocation(file: rows.name, line: second.line, column: second.column), a: firstName,
                    aText: first.text, aLine: first.line, b: secondName, bText: second.text, gap: gap)
            }
        }
    }

    /// The first `count` data rows (neither blank nor comments) ahead, consuming nothing: each
    /// row's line number and its fields' text with the line and 1-based column each starts on
    /// (a quoted line break in a row moves the fields after it to the next line).
    static func peekRows(_ rows: DelimitedRows, count: Int) -> [(
        line: Int, fields: [(text: String, line: Int, column: Int)]
    )] {
        let split = FieldSplitter(dialect: rows.dialect)
        var out = [(line: Int, fields: [(text: String, line: Int, column: Int)])]()
        var k = 0
        while out.count < count, k < Preamble.maximumLines + count, let line = try? rows.lines.peekLine(ahead: k) {
            k += 1
            if Preamble.isBlank(line) || Preamble.isComment(line) { continue }
            guard let first = try? rows.lines.lineNumber(ahead: k - 1) else { break }
            let fields = line.withUnsafeBufferPointer { buf -> [(text: String, line: Int, column: Int)] in
                guard let p = buf.baseAddress, !buf.isEmpty else { return [] }
                var fields = [(text: String, line: Int, column: Int)]()
                var breaks = 0
                var lineStart = 0
                var scanned = 0
                split.forEachField(p, buf.count) { _, s, e in
                    while scanned < s {
                        if p[scanned] == 0x0A {
                            breaks += 1
                            lineStart = scanned + 1
                        }
                        scanned += 1
                    }
                    fields.append((FieldSplitter.text(p, s, e), first + breaks, s - lineStart + 1))
                }
                return fields
            }
            out.append((first, fields))
        }
        return out
    }
}

/// The rows of a file whose sensors each have a clock, split into each sensor's readings and
/// merged on time by ``TimelineMerger/Merging``, as a recording's separate files are: a row
/// gives a reading of each sensor whose columns are not all empty, at that sensor's time.
/// Rows are read as the merge asks for the next reading of a sensor, so a sensor whose
/// readings lag another's by some rows keeps those rows' other readings waiting in memory
/// (a sensor silent for the rest of the file: all of them).
///
/// A reading at the same time as the sensor's previous one with the same values (a logger
/// writing every sensor's latest reading on each row) is the same reading: read once, and
/// counted in a note. Other time faults are tallied per sensor as a single clock's are.
final class SensorClockRows {
    private unowned let reader: DelimitedTraceReader
    private let clocks: [DelimitedTraceReader.SensorClock]
    /// Each clock's readings not yet merged, from `heads` on.
    private var queues: [[SensorSample]]
    private var heads: [Int]
    /// Each clock's last valid time, and its last reading as read (for repeats).
    private var lastTimes: [Double]
    private var lastReadings: [Vector3?]
    /// Readings read once for being repeated, per clock.
    private var repeats: [Int]
    /// Each clock's last new reading as read (its raw time, line and data row), for
    /// comparing the clocks' time bases as the rows are read (``checkTimeBase(_:_:raw:slot:line:)``).
    private var lastRead: [(raw: Double, line: Int, row: Int)?]
    /// Each clock's first steps between new readings (up to ``stepsKept``) and their median.
    private var stepsSeen: [[Double]]
    private var steps: [Double?]
    /// Each clock's new readings since the last that agreed with the other clocks' time base,
    /// and the first of them: the clock is refused once ``farReadings`` follow one another, or
    /// at once when its first reading is one (a single glitched time stays a value fault).
    private var far: [(count: Int, error: TraceError?, fromFirst: Bool)]
    /// Whether each clock is a sensor's own (not the time column).
    private let ownClock: [Bool]
    /// Rows split so far.
    private var rowsSplit = 0
    /// Most steps kept per clock to estimate its step.
    static let stepsKept = 9
    /// Rows within which another clock's last reading is compared with a new one.
    static let nearbyRows = 20
    /// New readings in a row too far from the other clocks' that prove another time base.
    static let farReadings = 3
    private var ended = false
    /// Merged readings a queue keeps before they are dropped from its front (see ``pop(_:)``).
    static let compaction = 1024
    private var merging: TimelineMerger.Merging!

    init(_ reader: DelimitedTraceReader) {
        self.reader = reader
        clocks = reader.sensorClocks
        queues = Array(repeating: [], count: clocks.count)
        heads = Array(repeating: 0, count: clocks.count)
        lastTimes = Array(repeating: -.infinity, count: clocks.count)
        lastReadings = Array(repeating: nil, count: clocks.count)
        repeats = Array(repeating: 0, count: clocks.count)
        ownClock = clocks.map { $0.slot != nil }
        lastRead = Array(repeating: nil, count: clocks.count)
        stepsSeen = Array(repeating: [], count: clocks.count)
        steps = Array(repeating: nil, count: clocks.count)
        far = Array(repeating: (0, nil, false), count: clocks.count)
        merging = TimelineMerger.Merging(
            clocks.indices.map { k in { [unowned self] in try self.pop(k) } }, tolerance: TimelineMerger().tolerance)
    }

    /// The next merged sample, or nil at the end of the input.
    func next() throws -> SensorSample? { try merging.next() }

    /// Clock `k`'s next reading, reading rows until there is one.
    private func pop(_ k: Int) throws -> SensorSample? {
        // Drop the readings already merged once they are the queue's larger part: other sensors'
        // rows keep appending, so a queue is seldom empty when its own reading is asked for.
        if heads[k] == queues[k].count {
            queues[k].removeAll(keepingCapacity: true)
            heads[k] = 0
        } else if heads[k] >= Self.compaction && heads[k] * 2 >= queues[k].count {
            queues[k].removeFirst(heads[k])
            heads[k] = 0
        }
        while heads[k] == queues[k].count {
            guard !ended else { return nil }
            if try reader.nextRow() {
                try split()
            } else {
                ended = true
                finish()
            }
        }
        heads[k] += 1
        return queues[k][heads[k] - 1]
    }

    /// Splits the current row into each sensor's reading.
    private func split() throws {
        rowsSplit += 1
        let values = reader.values
        if reader.addsGravity {
            let a = ColumnLayout.Slot.accelerometerX.rawValue
            let g = ColumnLayout.Slot.gravityX.rawValue
            for k in 0..<3 { values[a + k] += values[g + k] }
        }
        guard !reader.skipsEmptyRow() else { return }
        let rowTime = clocks.contains { $0.slot == nil } ? reader.columnTime() : .nan
        // The row's line, for the time-base check (0: a record over several lines, whose cells'
        // lines are found when needed).
        let lines = reader.rows.lines
        let line = lines.recordLines == 1 ? lines.lineNumber : 0
        for (k, clock) in clocks.enumerated() {
            let first = ColumnLayout.groups[SensorKind.allCases.firstIndex(of: clock.sensor)!].slots[0].rawValue
            let raw = Vector3(values[first], values[first + 1], values[first + 2])
            // No reading of this sensor on this row.
            guard !(raw.x.isNaN && raw.y.isNaN && raw.z.isNaN) else { continue }
            let timeSlot = clock.slot ?? .time
            var t = clock.slot.map { values[$0.rawValue] * clock.scale } ?? rowTime
            let sensor = clock.sensor.rawValue
            let valid = t.isFinite
            if !valid {
                try reader.faults.record(
                    .invalidTime, at: reader.location(timeSlot),
                    "the \(sensor)'s time is \(values[timeSlot.rawValue])")
                t = lastTimes[k].isFinite ? lastTimes[k] : 0
            } else if t == lastTimes[k] {
                if raw == lastReadings[k] {
                    repeats[k] += 1
                    continue
                }
                try reader.faults.record(
                    .duplicateTime, at: reader.location(timeSlot),
                    "the \(sensor)'s time \(t) s repeats its previous reading's, with other values")
            } else if t < lastTimes[k] {
                try reader.faults.record(
                    .backwardTime, at: reader.location(timeSlot),
                    "the \(sensor)'s time \(t) s is earlier than its previous reading's \(lastTimes[k]) s")
            }
            if valid {
                try checkTimeBase(k, t, raw: values[timeSlot.rawValue], slot: timeSlot, line: line)
                lastTimes[k] = t
            }
            lastReadings[k] = raw
            var sample = SensorSample(t: t)
            sample.set(clock.sensor, try reader.reading(clock.sensor))
            queues[k].append(sample)
        }
    }

    /// Compares clock `k`'s new reading at `t` (s, valid) with the other clocks' last readings
    /// on nearby rows (within ``nearbyRows``): clocks on different time bases (an epoch beside time
    /// since boot, ms beside ns) give readings far apart on nearby rows
    /// (``DelimitedTraceReader/timeBaseGap(_:_:steps:)``), whether they share rows or not, and
    /// however late one starts. Throws at the first of ``farReadings`` such readings in a row (at
    /// once for the clock's first reading); records the reading's time, place and step.
    private func checkTimeBase(_ k: Int, _ t: Double, raw: Double, slot: ColumnLayout.Slot, line: Int) throws {
        // Called for every new reading: the other clocks' readings are compared without a call
        // to the reader or a copy of a clock, and the error is built only when there is one.
        let row = rowsSplit
        let previous = lastTimes[k]
        if previous.isFinite, t > previous, stepsSeen[k].count < Self.stepsKept {
            stepsSeen[k].append(t - previous)
            steps[k] = UnitCheck.median(stepsSeen[k])
        }
        var agreed = false
        var farFrom: (j: Int, gap: (apart: Double, factor: Double?))?
        for j in 0..<ownClock.count where j != k {
            // A sensor timed by the time column like this one shares its clock.
            guard ownClock[j] || ownClock[k], let other = lastRead[j], row - other.row <= Self.nearbyRows,
                lastTimes[j].isFinite
            else { continue }
            if let g = DelimitedTraceReader.timeBaseGap(lastTimes[j], t, steps: (steps[j], steps[k])) {
                if farFrom == nil { farFrom = (j, g) }
            } else if steps[j] != nil || steps[k] != nil {
                agreed = true
            }
        }
        if let farFrom, !agreed {
            if far[k].count == 0 {
                let other = lastRead[farFrom.j]!
                let error = DelimitedTraceReader.timeBaseError(
                    reader.location(slot), a: clocks[farFrom.j].name, aText: "\(other.raw)", aLine: other.line,
                    b: clocks[k].name, bText: "\(raw)", gap: farFrom.gap)
                far[k] = (0, error, lastRead[k] == nil)
            }
            far[k].count += 1
            if far[k].count >= Self.farReadings || far[k].fromFirst { throw far[k].error! }
        } else if agreed && far[k].count != 0 {
            far[k] = (0, nil, false)
        }
        lastRead[k] = (raw, line > 0 ? line : reader.location(slot).line, row)
    }

    /// The note counting the repeated readings read once.
    private func finish() {
        let counted = clocks.indices.filter { repeats[$0] > 0 }
        guard !counted.isEmpty else { return }
        let list = counted.map { "\(repeats[$0]) \(clocks[$0].sensor.rawValue)" }.joined(separator: ", ")
        reader.warn(
            SourceLocation(file: reader.rows.name, line: 0, column: 0),
            "read once: rows repeating a sensor's previous reading (the same time and values, as a logger writing every sensor's latest reading on each row does): \(list)",
            note: true)
    }
}
