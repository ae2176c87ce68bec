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
        try checkOneTimeBase(clocks, layout, rows, names: names)
        return clocks
    }

    /// Throws unless the sensors' own clocks share one time base in the first data rows: in the
    /// first row holding two clocks' times, these lie at most ``sameBaseSteps`` steps of the
    /// slower clock apart, and at most ``sameUnitSteps`` when the clocks' steps differ as ms from
    /// ns do. Nothing is consumed (a stream's rows are looked at as they wait to be read).
    static func checkOneTimeBase(
        _ clocks: [SensorClock], _ layout: ColumnLayout, _ rows: DelimitedRows, names: [String]
    ) throws {
        let own = clocks.filter { $0.slot != nil }
        guard own.count >= 2 else { return }
        let peeked = peekRows(rows, count: TraceFormat.proposalRows)
        let comma = rows.dialect.decimalPoint == UInt8(ascii: ",")
        let times: [[(text: String, t: Double, column: Int)?]] = own.map { clock in
            let c = layout.columns[clock.slot!]!
            return peeked.map { row in
                guard c < row.fields.count else { return nil }
                let text = row.fields[c].text
                guard let v = Double(comma ? text.replacing(",", with: ".") : text) else { return nil }
                return (text, v * clock.scale, row.fields[c].column)
            }
        }
        let steps = times.map { column -> Double? in
            let ts = column.compactMap { $0?.t }
            return UnitCheck.median(zip(ts, ts.dropFirst()).compactMap { $1 > $0 ? $1 - $0 : nil })
        }
        func g(_ v: Double) -> String { String(printf: "%.4g", v) }
        for j in own.indices.dropFirst() {
            guard let r = peeked.indices.first(where: { times[0][$0] != nil && times[j][$0] != nil }),
                let a = times[0][r], let b = times[j][r],
                let slower = [steps[0], steps[j]].compactMap({ $0 }).max(), slower > 0
            else { continue }
            let apart = abs(a.t - b.t) / slower
            var unitsDiffer: Double?
            if let s0 = steps[0], let sj = steps[j] {
                let ratio = max(s0, sj) / min(s0, sj)
                let spread = SensorFilesImporter.rateSpread
                unitsDiffer = [1e3, 1e6, 1e9].first { ratio >= $0 / spread && ratio <= $0 * spread }
            }
            guard apart > sameBaseSteps || (apart > sameUnitSteps && unitsDiffer != nil) else { continue }
            let why =
                unitsDiffer.map {
                    ", and one's steps are about \(g($0)) times the other's, as ms beside µs or ns would be"
                }
                ?? ""
            throw TraceError(
                .inconsistentClocks, SourceLocation(file: rows.name, line: peeked[r].line, column: b.column),
                "the sensors' clocks are not on one time base: on this row '\(own[0].name.escapedForMessage)' reads \(a.text.escapedForMessage) and '\(own[j].name.escapedForMessage)' \(b.text.escapedForMessage), \(g(apart)) steps of the slower clock apart\(why); each sensor cannot be timed by its own clock. Time every reading by one of them with --columns t=NAME (e.g. --columns t='\(own[0].name.escapedForMessage)'), or, when only their units differ, give each time column its unit in the header ('NAME (ms)', 'NAME (ns)')"
            )
        }
    }

    /// The first `count` data rows (neither blank nor comments) ahead, consuming nothing: each
    /// row's line number and its fields' text with their 1-based columns.
    static func peekRows(_ rows: DelimitedRows, count: Int) -> [(line: Int, fields: [(text: String, column: Int)])] {
        let split = FieldSplitter(dialect: rows.dialect)
        var out = [(line: Int, fields: [(text: String, column: Int)])]()
        var k = 0
        while out.count < count, k < Preamble.maximumLines + count, let line = try? rows.lines.peekLine(ahead: k) {
            k += 1
            if Preamble.isBlank(line) || Preamble.isComment(line) { continue }
            let fields = line.withUnsafeBufferPointer { buf -> [(text: String, column: Int)] in
                guard let p = buf.baseAddress, !buf.isEmpty else { return [] }
                var fields = [(text: String, column: Int)]()
                split.forEachField(p, buf.count) { _, s, e in fields.append((FieldSplitter.text(p, s, e), s + 1)) }
                return fields
            }
            out.append((rows.lines.lineNumber + k, fields))
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
        let values = reader.values
        if reader.addsGravity {
            let a = ColumnLayout.Slot.accelerometerX.rawValue
            let g = ColumnLayout.Slot.gravityX.rawValue
            for k in 0..<3 { values[a + k] += values[g + k] }
        }
        guard !reader.skipsEmptyRow() else { return }
        let rowTime = clocks.contains { $0.slot == nil } ? reader.columnTime() : .nan
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
            if valid { lastTimes[k] = t }
            lastReadings[k] = raw
            var sample = SensorSample(t: t)
            sample.set(clock.sensor, try reader.reading(clock.sensor))
            queues[k].append(sample)
        }
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
