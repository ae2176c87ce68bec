import Glibc

/// Units a delimited file's first readings prove, for the sensors and the time whose unit neither
/// the header nor `--units` states. Only plain evidence counts, where no other unit could give
/// such readings:
///
/// | readings (as SI would read them) | unit applied |
/// |---|---|
/// | accelerometer norm at rest 0.8–1.2 | `acc=g` |
/// | accelerometer norm at rest 800–1200 | `acc=mg` |
/// | with too few samples at rest or steady: the accelerometer's median norm 0.8–1.2 over at least 100 samples, two thirds of them within 20 % of it (``movingAccelerometerInG(_:)``) | `acc=g` |
/// | the accelerometer's turns between still moments (or, without two still moments, in a slow motion: 0.25 s means of the accelerometer near its median norm) predicted by the gyroscope read in °/s and not in rad/s (``Turns``); without such turns, at least 3 gyroscope norms beyond 70 rad/s (±4000 °/s, past any gyroscope's range), all within it as °/s, with the accelerometer's median norm that of a body at rest or in motion in g, m/s² or mg (``motionAccelerometer``: a gesture log never at rest reads 1.8 g; in mg only when not all whole numbers, as raw counts are) | `gyr=deg/s` |
/// | magnetometer median norm 1e-5–1e-4 | `mag=T` |
/// | magnetometer median norm 0.2–0.7 (Earth's field is 0.22–0.67 gauss) | `mag=gauss` |
/// | magnetometer median norm 1e4–1e5 | `mag=nT` |
/// | first time 9e11–1e13, 9e14–1e16 or 9e17–1e19 (an epoch since 1998 in ms, µs or ns) stepping at 1 Hz–10 kHz in that unit, and no finer unit at a sensor's rate (``stepUnit(_:step:forced:)``) | `t=ms`, `t=us`, `t=ns` |
/// | Xsens `SampleTimeFine` stepping under 8 ms as µs (a DOT counts µs at 120 Hz at most) | `t=100us` (an MTi's 10 kHz ticks) |
/// | Xsens `SampleTimeFine` stepping by less than one (a counter steps by whole counts) | `t=s` |
///
/// "At rest" is the gyroscope below ``UnitCheck/restRate`` (in the unit it is found to have) for
/// at least ``minimumRestSamples``; without a gyroscope, most norms within 5 % of their median.
/// Anything less plain stays a warning proposing the flag (``UnitCheck``). A stream is not looked
/// at ahead: its samples go on as they come, so its units are only proposed.
public enum UnitEvidence {
    /// A unit found, as `--units` would give it, and why.
    public struct Unit: Equatable, Sendable {
        /// `t`, `gyr`, `acc` or `mag`.
        public var key: String
        /// The unit, as `--units` spells it.
        public var unit: String
        /// The readings that prove it.
        public var reason: String
    }

    /// What the first readings show: the units they prove, and the scale of a gyroscope read
    /// in neither rad/s nor °/s.
    public struct Findings: Sendable {
        /// The units proved.
        public var units: [Unit] = []
        /// The scale, °/s per unit of the file, that makes the gyroscope predict every turn of
        /// the accelerometer between still moments, when neither rad/s nor °/s does (raw counts).
        public var gyroscopeCounts: Double?
        /// Whether the gyroscope's unit is still open for want of turns to judge it by.
        var gyroscopeUndecided = false
        /// The gyroscope's largest norm over the first seconds, rad/s in the units applied, before
        /// any value beyond a sensor's range is dropped (for the warning that quotes it).
        public var gyroscopePeak: Double?
        /// Warnings on a time column read as seconds whose steps would be a sensor's rate in ms
        /// (``secondsWarning(_:step:)``).
        public var timeWarnings: [String] = []
    }

    /// Most rows looked at; of them, the first ``seconds`` of the recording decide the sensors.
    public static let rows = 5_000
    /// Most rows looked at for the accelerometer's turns when the first ``rows`` hold none (a
    /// recording that starts with a long rest): twice as many each time, until a turn is among
    /// them.
    public static let turnRows = 100_000
    /// Most recording time, s, whose sensor readings decide.
    public static let seconds = 10.0
    /// Fewest samples at rest that decide the accelerometer's unit.
    public static let minimumRestSamples = 10
    /// Gyroscope norm, as rad/s, beyond any gyroscope's range (±4000 °/s).
    public static let gyroscopeBeyondRange = 70.0
    /// Fewest gyroscope norms beyond ``gyroscopeBeyondRange`` that decide (one is a glitch).
    public static let minimumGyroscopePeaks = 3

    /// What the first rows of the delimited file `lines` opens show, read as `options` say; nil
    /// when the file cannot be read (the reader that follows reports why).
    static func find(lines: () throws -> ByteLineReader, format: String, options: DelimitedReadOptions) throws
        -> Findings?
    {
        var probing = options
        probing.strict = false
        guard
            let probe = try? DelimitedTraceReader(
                lines: lines(), format: format, options: probing, known: nil, evident: [], probe: true)
        else { return nil }
        var samples = [SensorSample]()
        // Room for the rows read at first (growing by doubling copied them, 3 MB by 20 000 rows).
        samples.reserveCapacity(rows)
        // Where the first row's time is, for a clock no unit reads.
        var firstTime: SourceLocation?
        while samples.count < rows, let s = try? probe.next() {
            if firstTime == nil { firstTime = probe.location(.time) }
            samples.append(s)
        }
        let first = samples.count
        let timeName = probe.layout.columns[.time].flatMap { c in
            c < probe.rows.columnNames.count ? probe.rows.columnNames[c] : nil
        }
        // Rows timed by a rate have no time column whose unit could be wrong.
        let timedByColumn: Bool
        if case .column = probe.clock { timedByColumn = true } else { timedByColumn = false }
        let timeColumn = timedByColumn ? timeName.map { ColumnLayout.key($0) } ?? "" : nil
        var findings: Findings
        do {
            findings = try find(samples, units: probe.layout.units, timeColumn: timeColumn)
        } catch let refusal as ClockRefusal {
            throw TraceError(
                .implausibleClock, firstTime ?? SourceLocation(file: probe.rows.name, line: 0, column: 0),
                "the time column '\(timeName?.escapedForMessage ?? "")': \(refusal.message)")
        }
        guard findings.gyroscopeUndecided, first == rows else { return findings }
        // No turn in the first rows: look further for the gyroscope's unit, twice as far each time
        // up to ``turnRows``, until the rows hold a turn (a recording that starts with a long rest
        // is not read twice to its end).
        var limit = rows
        while limit < turnRows {
            limit = min(turnRows, 2 * limit)
            samples.reserveCapacity(limit)
            while samples.count < limit, let s = try? probe.next() { samples.append(s) }
            // The other sensors are still judged over the first seconds, now with the gyroscope's
            // unit.
            let further = try find(samples, units: probe.layout.units, timeColumn: timeColumn)
            if further.units.contains(where: { $0.key == "gyr" }) { return further }
            findings.gyroscopeCounts = further.gyroscopeCounts
            if !further.gyroscopeUndecided || samples.count < limit { break }
        }
        return findings
    }

    /// What `samples` show, read in `units` (SI where the file states none). `timeColumn` is the
    /// key of the time column's name (nil when the rows are timed by a rate).
    /// Throws only when a time unit found is not one `--units t=` accepts (a programming error).
    public static func find(_ samples: [SensorSample], units: SensorUnits, timeColumn: String?) throws -> Findings {
        var found = [Unit]()
        var counts: Double?
        var samples = samples
        // The time first: the sensors are judged over the first seconds.
        var timeWarnings = [String]()
        if let timeColumn, let unit = try timeUnit(samples, units: units, timeColumn: timeColumn) {
            found.append(unit)
            try scaleTimes(&samples, to: unit, from: units)
        } else if let timeColumn, timeColumn != "sampletimefine", !units.explicit.contains("t"), units.time == 1,
            let warning = secondsWarning(samples.map(\.t).filter(\.isFinite))
        {
            timeWarnings.append(warning)
        }
        let all = samples
        // Over the first seconds, when the times are plausibly seconds by now (a clock in ms since
        // power-up is not told from the readings: all the rows decide then).
        var steps = [Double]()
        for (a, b) in zip(samples, samples.dropFirst()) where b.t > a.t { steps.append(b.t - a.t) }
        if let step = UnitCheck.median(steps), step <= 1, let start = samples.first(where: { $0.t.isFinite })?.t,
            let end = samples.firstIndex(where: { $0.t.isFinite && $0.t - start > seconds })
        {
            samples.removeSubrange(end...)
        }
        // The gyroscope next: rest, for the accelerometer, is judged by its rate.
        let turns = Turns(all)
        if !units.explicit.contains("gyr"), let reason = degreesPerSecond(all, turns: turns) {
            found.append(Unit(key: "gyr", unit: "deg/s", reason: reason))
            for i in samples.indices { samples[i].gyroscope = samples[i].gyroscope.map { $0 * (.pi / 180) } }
        } else if turns.verdict == .neither, let fitted = turns.fittedScale {
            counts = (fitted * units.gyroscope).degrees
        }
        let peak = samples.compactMap { $0.gyroscope?.norm }.filter(\.isFinite).max()
        let undecided =
            !units.explicit.contains("gyr") && turns.count == 0
            && !found.contains { $0.key == "gyr" } && all.contains { $0.gyroscope != nil }
        if !units.explicit.contains("acc"), let (norm, how) = restAccelerometer(samples) {
            if (0.8...1.2).contains(norm) {
                found.append(
                    Unit(key: "acc", unit: "g", reason: "the accelerometer reads \(UnitCheck.fmt(norm)) \(how)"))
            } else if (800...1200).contains(norm) {
                found.append(
                    Unit(key: "acc", unit: "mg", reason: "the accelerometer reads \(UnitCheck.fmt(norm)) \(how)"))
            }
        } else if !units.explicit.contains("acc"), let reason = movingAccelerometerInG(samples) {
            found.append(Unit(key: "acc", unit: "g", reason: reason))
        }
        if !units.explicit.contains("mag") && !units.magnetometerArbitrary,
            let m = UnitCheck.median(samples.compactMap { $0.magnetometer?.norm }.filter(\.isFinite))
        {
            let reason = "the magnetometer's median norm is \(m < 0.01 ? "\(m)" : UnitCheck.fmt(m))"
            if (1e-5...1e-4).contains(m) {
                found.append(Unit(key: "mag", unit: "T", reason: reason + " (Earth's field is 22–67 µT)"))
            } else if (0.2...0.7).contains(m) {
                found.append(Unit(key: "mag", unit: "gauss", reason: reason + " (Earth's field is 0.22–0.67 gauss)"))
            } else if (1e4...1e5).contains(m) {
                found.append(Unit(key: "mag", unit: "nT", reason: reason + " (Earth's field is 22 000–67 000 nT)"))
            }
        }
        return Findings(
            units: found, gyroscopeCounts: counts, gyroscopeUndecided: undecided, gyroscopePeak: peak,
            timeWarnings: timeWarnings)
    }

    /// Why the gyroscope is in °/s, or nil when that is not plain. The turns of the accelerometer
    /// between still moments decide when there are any (``Turns``): °/s must predict them and
    /// rad/s not (a slow motion's turns: most of them, ``Turns/verdict``). Without a verdict, peaks
    /// beyond any gyroscope's range in rad/s over all the rows looked at decide, when all are
    /// within it as °/s and the accelerometer's median norm is that of a body at rest or in motion
    /// in g, m/s² or mg (``motionAccelerometer``; raw counts, whose gyroscope would be counts too,
    /// are not °/s: a median in the mg band whose readings are all whole numbers is not mg).
    static func degreesPerSecond(_ samples: [SensorSample], turns: Turns) -> String? {
        switch turns.verdict {
        case .degrees: return turns.reason
        case .radians, .neither: return nil
        case .unknown: break
        }
        let norms = samples.compactMap { $0.gyroscope?.norm }.filter(\.isFinite)
        let beyond = norms.filter { $0 > gyroscopeBeyondRange }
        guard beyond.count >= minimumGyroscopePeaks, let peak = norms.max(), peak.radians <= gyroscopeBeyondRange
        else { return nil }
        let accelerometer = UnitCheck.median(samples.compactMap { $0.accelerometer?.norm }.filter(\.isFinite))
        if let a = accelerometer, !motionAccelerometer.contains(where: { $0.contains(a) }) { return nil }
        // Milli-g only when the readings are not all whole numbers: raw counts are (an MPU-6050 at
        // ±16 g, 2048 per g, reads a moving body's median 2338), and so would be its gyroscope.
        if let a = accelerometer, a >= 500, wholeNumbers(samples) { return nil }
        return
            "the gyroscope reaches \(UnitCheck.fmt(peak)), beyond any gyroscope's range in rad/s (±4000 °/s is \(Int(gyroscopeBeyondRange)) rad/s), \(beyond.count) of its norms beyond it"
    }

    /// Median accelerometer norms of a body at rest or in motion (a gesture log never at rest,
    /// 1.8 g) in g, m/s² and mg: an accelerometer in a known unit, not raw counts. The mg band
    /// counts only when the readings are not all whole numbers (``wholeNumbers(_:)``).
    static let motionAccelerometer = [0.5...4, 5...40, 500...4000]

    /// Whether every accelerometer value of `samples` is a whole number, as raw counts are (at
    /// least one value read).
    static func wholeNumbers(_ samples: [SensorSample]) -> Bool {
        var any = false
        for s in samples {
            guard let a = s.accelerometer else { continue }
            for v in [a.x, a.y, a.z] where v.isFinite {
                if v != v.rounded() { return false }
                any = true
            }
        }
        return any
    }

    /// How the accelerometer's direction turned between still moments, against the gyroscope's
    /// rate integrated over the time between, read in rad/s and in °/s. A still moment is at least
    /// ``Turns/stillTime`` over which the accelerometer's direction stays within
    /// ``Turns/stillAngle``; two in a row, at most ``Turns/longestGap`` apart, whose directions
    /// differ by at least ``Turns/smallestTurn`` make a turn; without any, turns while the norm
    /// is a slow motion's (``Turns/addSlowTurns(_:)``). A unit predicts a turn when the direction it
    /// predicts is within a quarter of the turn of the one measured.
    struct Turns {
        static let stillTime = 0.25
        static let stillAngle = 1.5.radians
        static let longestGap = 10.0
        static let smallestTurn = 10.0.radians

        enum Verdict { case degrees, radians, neither, unknown }
        /// Turns that only °/s predicts, that only rad/s predicts, and all of them.
        var degrees = 0, radians = 0, count = 0
        /// The largest turn only °/s predicts: its size, and the errors of °/s and rad/s.
        var example: (turn: Double, degreesError: Double, radiansError: Double)?
        /// Whether the turns are those of a slow motion (``addSlowTurns(_:)``).
        var slowTurns = false

        var verdict: Verdict {
            if count == 0 { return .unknown }
            if slowTurns {
                if degrees >= Self.minimumSlowTurns && degrees * 2 > count && radians == 0 { return .degrees }
                if radians >= Self.minimumSlowTurns && radians * 2 > count && degrees == 0 { return .radians }
                return .unknown
            }
            if degrees > 0 && radians == 0 { return .degrees }
            if radians > 0 && degrees == 0 { return .radians }
            if degrees == 0 && radians == 0 { return .neither }
            return .unknown
        }

        var reason: String {
            guard let e = example else { return "" }
            return
                "the accelerometer turned by \(Int(e.turn.degrees.rounded()))° \(slowTurns ? "in a slow motion" : "between still moments"), as the gyroscope predicts in °/s (off by \(UnitCheck.fmt(e.degreesError.degrees))°) and not in rad/s (off by \(Int(e.radiansError.degrees.rounded()))°)\(degrees > 1 ? "; \(degrees) turns agree" : "")"
        }

        /// Each turn: the directions before and after, its size, and the gyroscope's readings
        /// (as read) with their time steps in between.
        var turns = [(from: Vector3, to: Vector3, turn: Double, rates: [(Vector3, Double)])]()

        /// The direction a turn ends at by the gyroscope read at `scale` rad/s per unit.
        static func predicted(
            _ turn: (from: Vector3, to: Vector3, turn: Double, rates: [(Vector3, Double)]), _ scale: Double
        )
            -> Vector3
        {
            var q = Quaternion.identity
            for (w, dt) in turn.rates { q = q * Quaternion(rotationVector: w * (dt * scale)) }
            return q.inverseRotate(turn.from)
        }

        /// The scale, rad/s per unit as read, that predicts every turn (each within a quarter of
        /// it), found over 1e-6…100 on a logarithmic grid and refined; nil without turns or
        /// when no scale predicts them all. Of the scales that do, the smallest: a turn about one
        /// axis is also predicted by any scale that adds whole revolutions to it (a 90° turn read
        /// as 90° + 360° k), so the least rotation that explains the turns is taken, where the
        /// grid's first basin with every turn within half of it begins.
        var fittedScale: Double? {
            guard !turns.isEmpty else { return nil }
            func cost(_ scale: Double) -> Double {
                turns.reduce(0) { $0 + Self.angle(Self.predicted($1, scale), $1.to) / $1.turn }
            }
            func near(_ scale: Double, within fraction: Double) -> Bool {
                turns.allSatisfy { Self.angle(Self.predicted($0, scale), $0.to) <= $0.turn * fraction }
            }
            var best = (scale: 1.0, cost: Double.infinity)
            for k in 0...160 {
                let scale = pow(10, -6 + Double(k) / 20)
                let c = cost(scale)
                if c < best.cost { best = (scale, c) } else if near(best.scale, within: 0.5) { break }
            }
            var lo = best.scale / pow(10, 0.05)
            var hi = best.scale * pow(10, 0.05)
            for _ in 0..<40 {
                let a = lo + (hi - lo) / 3
                let b = hi - (hi - lo) / 3
                if cost(a) < cost(b) { hi = b } else { lo = a }
            }
            let scale = (lo + hi) / 2
            return near(scale, within: 0.25) ? scale : nil
        }

        /// The angle between two vectors, rad.
        static func angle(_ a: Vector3, _ b: Vector3) -> Double { atan2(a.cross(b).norm, a.dot(b)) }

        init(_ samples: [SensorSample]) {
            // Still moments: (first sample, last sample, mean direction).
            var still = [(first: Int, last: Int, up: Vector3)]()
            var start = -1
            var reference = Vector3.zero
            var sum = Vector3.zero
            var lastWithAcc = -1
            func close() {
                if start >= 0, lastWithAcc > start, samples[lastWithAcc].t - samples[start].t >= Self.stillTime,
                    let up = sum.normalized
                {
                    still.append((start, lastWithAcc, up))
                }
            }
            for (i, s) in samples.enumerated() {
                guard let a = s.accelerometer, a.isFinite, s.t.isFinite, let d = a.normalized else { continue }
                if start < 0 || Self.angle(d, reference) > Self.stillAngle {
                    close()
                    start = i
                    reference = d
                    sum = .zero
                }
                sum = sum + d
                lastWithAcc = i
            }
            close()
            for (a, b) in zip(still, still.dropFirst()) {
                guard samples[b.first].t - samples[a.last].t <= Self.longestGap else { continue }
                add(from: a, to: b, samples, smallest: Self.smallestTurn)
            }
            if turns.isEmpty {
                addSlowTurns(samples)
                slowTurns = !turns.isEmpty
            }
        }

        /// Turns of a slow motion, for recordings with no two still moments in their first seconds
        /// (a slow rotation from the start): the accelerometer's mean over each
        /// ``Turns/blockTime`` whose norm is within ``Turns/blockNorm`` of the median norm points
        /// along gravity, the motion's own accelerations averaging out. Two such means at most
        /// ``Turns/blockGap`` apart that differ by at least ``Turns/smallestSlowTurn`` make a turn,
        /// predicted from one block's middle to the other's. Linear accelerations can still pass
        /// for turns, so a unit is decided by at least ``Turns/minimumSlowTurns`` and most of these
        /// turns, with none for the other; else they leave the verdict open (``Turns/verdict``).
        static let blockTime = 0.25
        static let blockNorm = 0.03
        static let blockGap = 2.0
        static let smallestSlowTurn = 20.0.radians
        /// Most slow turns looked at.
        static let slowTurns = 20
        /// Fewest slow turns one unit must predict, and none the other, to decide.
        static let minimumSlowTurns = 3

        mutating func addSlowTurns(_ samples: [SensorSample]) {
            guard
                let median = UnitCheck.median(
                    samples.compactMap { $0.accelerometer?.norm }.filter { $0.isFinite && $0 > 0 })
            else { return }
            // Blocks: (middle sample, start time, end time, mean direction).
            var blocks = [(middle: Int, start: Double, end: Double, up: Vector3)]()
            var first = -1
            var sum = Vector3.zero
            var n = 0
            for (i, s) in samples.enumerated() {
                guard s.t.isFinite else { continue }
                if first < 0 || s.t - samples[first].t >= Self.blockTime {
                    if first >= 0, n > 0, abs((sum / Double(n)).norm - median) <= Self.blockNorm * median,
                        let up = sum.normalized
                    {
                        blocks.append(((first + i - 1) / 2, samples[first].t, samples[i - 1].t, up))
                    }
                    first = i
                    sum = .zero
                    n = 0
                }
                if let a = s.accelerometer, a.isFinite {
                    sum = sum + a
                    n += 1
                }
            }
            var k = 0
            while k < blocks.count, turns.count < Self.slowTurns {
                let a = blocks[k]
                guard
                    let next = blocks[(k + 1)...].prefix(while: { $0.start - a.end <= Self.blockGap })
                        .firstIndex(where: { Self.angle(a.up, $0.up) >= Self.smallestSlowTurn })
                else {
                    k += 1
                    continue
                }
                let b = blocks[next]
                add(
                    from: (a.middle, a.middle, a.up), to: (b.middle, b.middle, b.up), samples,
                    smallest: Self.smallestSlowTurn)
                k = next
            }
        }

        /// Largest share of a turn's time over which the gyroscope's last reading is held for want
        /// of a new one (a turn the gyroscope missed more of is not judged).
        static let heldShare = 0.1

        /// Adds the turn from the direction `a` to `b` when it is at least `smallest`, judged in
        /// rad/s and °/s.
        mutating func add(
            from a: (first: Int, last: Int, up: Vector3), to b: (first: Int, last: Int, up: Vector3),
            _ samples: [SensorSample], smallest: Double
        ) {
            let turn = Self.angle(a.up, b.up)
            guard turn >= smallest else { return }
            var rates = [(Vector3, Double)]()
            var rate: Vector3?
            var held = 0.0
            for k in a.last..<b.first {
                let read = samples[k].gyroscope.map(\.isFinite) ?? false
                if read { rate = samples[k].gyroscope }
                let dt = samples[k + 1].t - samples[k].t
                guard let w = rate, dt > 0, dt < 0.5 else { continue }
                rates.append((w, dt))
                if !read { held += dt }
            }
            // A turn the gyroscope mostly missed tells neither unit.
            guard held <= Self.heldShare * (samples[b.first].t - samples[a.last].t) else { return }
            turns.append((a.up, b.up, turn, rates))
            let radiansError = Self.angle(Self.predicted(turns.last!, 1), b.up)
            let degreesError = Self.angle(Self.predicted(turns.last!, .pi / 180), b.up)
            count += 1
            let fits = { (error: Double) in error <= turn / 4 }
            if fits(degreesError) && !fits(radiansError) {
                degrees += 1
                if example.map({ turn > $0.turn }) ?? true { example = (turn, degreesError, radiansError) }
            } else if fits(radiansError) && !fits(degreesError) {
                radians += 1
            }
        }
    }

    /// Common gyroscope counts, °/s: 1/LSB for LSB per °/s of 262.4, 131, 65.5, 32.8, 16.4
    /// (MPU-6050 family), 16 (BNO055), 14.375 (ITG-3200), and 4.375…70 m°/s (ST's L3G family).
    static let commonCounts: [(scale: Double, label: String, text: String)] =
        [262.4, 131, 65.5, 32.8, 16.4, 16, 14.375].map {
            (1 / $0, "1/\(String(printf: "%g", $0)) °/s", "1/\(String(printf: "%g", $0))")
        }
        + [4.375, 8.75, 17.5, 35, 70].map {
            ($0 / 1000, "\(String(printf: "%g", $0)) m°/s", String(printf: "%g", $0 / 1000))
        }

    /// The common count nearest `scale` (°/s per unit) within 3 %, if any: its label and how
    /// `--units` writes its factor (`1/16`).
    static func commonCountScale(near scale: Double) -> (label: String, text: String)? {
        commonCounts.filter { abs($0.scale / scale - 1) <= 0.03 }
            .min { abs($0.scale / scale - 1) < abs($1.scale / scale - 1) }.map { ($0.label, $0.text) }
    }

    /// Scales the times of `samples`, read in `units`, to seconds as the time unit `unit` says
    /// they are; throws when `unit` is not one `--units t=` accepts, so times are never left
    /// unscaled under a note that says they were scaled.
    static func scaleTimes(_ samples: inout [SensorSample], to unit: Unit, from units: SensorUnits) throws {
        var scaled = SensorUnits()
        try scaled.set("t", unit.unit, strictly: true)
        let factor = scaled.time / units.time
        for i in samples.indices { samples[i].t *= factor }
    }

    /// The time unit the times prove, if any (an epoch, Xsens's ticks, or steps no sensor takes
    /// in seconds, ``stepUnit(_:step:forced:)``); throws ``ClockRefusal`` when no unit reads them.
    /// `byStep` false leaves the steps to the caller (files of one recording compare theirs).
    static func timeUnit(_ samples: [SensorSample], units: SensorUnits, timeColumn: String, byStep: Bool = true) throws
        -> Unit?
    {
        let times = samples.map(\.t).filter(\.isFinite)
        guard let first = times.first else { return nil }
        var steps = [Double]()
        for (a, b) in zip(times, times.dropFirst()) where b > a { steps.append(b - a) }
        let step = UnitCheck.median(steps)
        if timeColumn == "sampletimefine" && !units.explicit.contains("t") {
            // As µs, the steps of an MTi's 10 kHz ticks are those of a rate no DOT records at.
            guard let step, step < 0.008 else { return nil }
            let ticks = step / units.time
            if ticks < 1 {
                // A counter steps by whole counts: fractions of one are seconds.
                return Unit(
                    key: "t", unit: "s",
                    reason:
                        "SampleTimeFine steps by \(UnitCheck.fmt(ticks)) per sample: seconds (\(UnitCheck.fmt(1 / ticks)) Hz), not a counter's whole ticks"
                )
            }
            return Unit(
                key: "t", unit: "100us",
                reason:
                    "SampleTimeFine steps by \(UnitCheck.fmt(ticks)) per sample: an MTi's 10 kHz ticks (\(UnitCheck.fmt(1e4 / ticks)) Hz; a DOT's µs would mean \(UnitCheck.fmt(1e6 / ticks)) Hz, and it records at 120 Hz at most)"
            )
        }
        guard !units.explicit.contains("t"), units.time == 1 else { return nil }
        for (range, unit, scale) in [
            (9e11..<1e13, "ms", 1e-3), (9e14..<1e16, "us", 1e-6), (9e17..<1e19, "ns", 1e-9),
        ] where range.contains(first) {
            let reason =
                "the first time, \(Int64(first)), is an epoch in \(unit == "us" ? "µs" : unit) (\(epochYear(first * scale)))"
            guard let step else { return Unit(key: "t", unit: unit, reason: reason) }
            // The steps must be those of a sensor in that unit (1 Hz–10 kHz), and no finer unit's
            // (ns since an Android phone's boot 20 days ago at 1 kHz read as µs are an epoch at
            // 1 Hz): else the steps decide, or the clock is refused.
            guard possibleRates.contains(1 / (step * scale)) else { break }
            if !timeUnits.contains(where: { $0.scale < scale && nearRates.contains(1 / (step * $0.scale)) }) {
                return Unit(key: "t", unit: unit, reason: reason)
            }
            return try stepUnit(times, step: step, forced: true)
        }
        return byStep ? try stepUnit(times, step: step) : nil
    }

    /// Rates, Hz, an inertial sensor may record at: a time unit is one whose median step gives
    /// such a rate.
    public static let possibleRates = 1.0...10_000.0
    /// Rates, Hz, near enough ``possibleRates`` that a unit giving one is not ruled out (a
    /// `millis()` clock at 1 Hz steps by 1001 as often as by 999).
    public static let nearRates = 0.8...12_500.0
    /// Longest time, s, a clock can have counted (an epoch up to the year 2286): a first time
    /// that is more in a unit is not in that unit.
    public static let longestCount = 1e10
    /// Rates, Hz, of a clock read as seconds that are left as they are unless its times are whole
    /// numbers (a millis() clock stepping by 8 is 0.125 Hz as seconds).
    public static let ratesAsSeconds = 0.5...100_000.0
    /// Integer epochs in seconds (2001–2033): stepping by 1, they are seconds at 1 Hz.
    public static let epochSeconds = 1e9...2e9
    /// The units a clock may count in, as `--units t=` and this text spell them.
    static let timeUnits: [(unit: String, spelled: String, scale: Double)] = [
        ("s", "s", 1), ("ms", "ms", 1e-3), ("us", "µs", 1e-6), ("ns", "ns", 1e-9),
    ]

    /// A time column whose steps no time unit makes a sensor's rate (``stepUnit(_:step:forced:)``).
    public struct ClockRefusal: Error, Sendable {
        /// What the steps are, and the flags that read them.
        public var message: String
        /// The units (as `--units t=` spells them) that give a sensor's rate, when more than one.
        public var candidates: [String] = []
    }

    /// How a rate is written.
    static func hz(_ r: Double) -> String {
        let (scale, prefix) = r >= 1e9 ? (1e9, "G") : r >= 1e6 ? (1e6, "M") : r >= 1e3 ? (1e3, "k") : (1, "")
        return "\(String(printf: "%.4g", r / scale)) \(prefix)Hz"
    }

    /// The time unit the median step `step` of `times` (as read, in seconds) proves when the times
    /// are whole numbers, their rate as seconds is outside ``ratesAsSeconds``, their first time is
    /// more seconds than a clock counts (``longestCount``), or `forced`: the one unit of s, ms, µs,
    /// ns whose rate is in ``possibleRates`` (no other's near it, ``nearRates``, and none in which
    /// the first time is more than ``longestCount``); nil for seconds, and for whole epochs in
    /// seconds stepping by 1 (``epochSeconds``). Throws ``ClockRefusal`` when no unit, or more than
    /// one, gives such a rate (steps of 100: 10 Hz in ms, 10 kHz in µs).
    /// A clock coarser than the rows (most rows repeat the time) proves nothing.
    static func stepUnit(_ times: [Double], step: Double?, forced: Bool = false) throws -> Unit? {
        guard let step, step > 0, times.count >= 3, let first = times.first else { return nil }
        var advancing = 0
        for (a, b) in zip(times, times.dropFirst()) where b > a { advancing += 1 }
        guard advancing * 2 >= times.count - 1 else { return nil }
        let whole = times.allSatisfy { $0 == $0.rounded() }
        guard whole || forced || !ratesAsSeconds.contains(1 / step) || abs(first) > longestCount else { return nil }
        if whole && step == 1 && epochSeconds.contains(first) { return nil }
        func rate(_ u: (unit: String, spelled: String, scale: Double)) -> Double { 1 / (step * u.scale) }
        let units = timeUnits.filter { abs(first) * $0.scale <= longestCount }
        let possible = units.filter { possibleRates.contains(rate($0)) }
        let near = units.filter { nearRates.contains(rate($0)) }
        let steps =
            "the times step by \(String(printf: "%.6g", step)) per sample\(whole ? " in whole numbers" : "")"
        let readings = units.map { "\(hz(rate($0))) in \($0.spelled)" }.joined(separator: ", ")
        guard possible.count == 1, near.count == 1, let chosen = possible.first else {
            let candidates = near.count > 1 ? near : []
            let epoch = timeUnits.first { u in
                u.unit != "s" && candidates.contains { $0.unit == u.unit }
                    && (9e8...1e10).contains(abs(first) * u.scale)
            }
            let epochText = epoch.map { u in
                " (the first time, \(Int64(first)), would be an epoch in \(u.spelled), \(epochYear(first * u.scale)), or time since a start in a finer unit)"
            }
            let flags =
                candidates.isEmpty
                ? "give its unit, --units t=ms (or t=s, t=us, t=ns)"
                : "give its unit, "
                    + candidates.map { "--units t=\($0.unit) (\(hz(rate($0))))" }.joined(separator: " or ")
            throw ClockRefusal(
                message:
                    "\(steps)\(epochText ?? ""): \(readings); \(candidates.isEmpty ? "no time unit gives" : "more than one time unit gives") the rate of an inertial sensor (1 Hz–10 kHz), so the clock cannot be read: \(flags), or for a sample counter --units t=count --sample-rate HZ",
                candidates: candidates.map(\.unit))
        }
        guard chosen.unit != "s" else { return nil }
        let others = units.filter { $0.unit != chosen.unit }.map { "\(hz(rate($0))) in \($0.spelled)" }
        return Unit(
            key: "t", unit: chosen.unit,
            reason:
                "\(steps): \(chosen.spelled) (\(hz(rate(chosen))))\(others.isEmpty ? "" : ", not \(others.joined(separator: ", "))")"
        )
    }

    /// Rates, Hz, of a clock read as seconds whose steps, read as ms, give a rate in
    /// ``msRates``, that are warned about (fractional ms at 2 kHz step by 0.5: 2 Hz as seconds).
    public static let slowSeconds = 0.1..<5.0
    /// Rates, Hz, in ms of a clock read as seconds at ``slowSeconds``, that the warning proposes.
    public static let msRates = 100.0...10_000.0

    /// The warning on `times`, read as seconds (not whole numbers), whose median step is a rate
    /// in ``slowSeconds`` and, as ms, in ``msRates``; nil otherwise.
    static func secondsWarning(_ times: [Double]) -> String? {
        var steps = [Double]()
        for (a, b) in zip(times, times.dropFirst()) where b > a { steps.append(b - a) }
        guard times.count >= 3, let step = UnitCheck.median(steps), step > 0, slowSeconds.contains(1 / step),
            msRates.contains(1e3 / step), !times.allSatisfy({ $0 == $0.rounded() })
        else { return nil }
        return
            "the times step by \(String(printf: "%.6g", step)) per sample: read as seconds, \(hz(1 / step)), slower than most sensors record; if they are ms (\(hz(1e3 / step))), give --units t=ms"
    }

    /// The accelerometer's median norm at rest and how rest was told, or nil without enough rest.
    static func restAccelerometer(_ samples: [SensorSample]) -> (Double, String)? {
        if samples.contains(where: { $0.gyroscope != nil }) {
            let rest = UnitCheck.restNorms(samples)
            guard let a = rest.accelerometer, rest.restSamples >= minimumRestSamples else { return nil }
            return (a, "at rest (median of \(rest.restSamples) samples with the gyroscope still)")
        }
        let norms = samples.compactMap { $0.accelerometer?.norm }.filter(\.isFinite)
        guard norms.count >= minimumRestSamples, let m = median(norms), m > 0 else { return nil }
        let steady = norms.filter { abs($0 - m) <= 0.05 * m }.count
        guard steady * 2 >= norms.count else { return nil }
        return (m, "while steady (median of \(norms.count) samples, most within 5 % of it)")
    }

    /// Fewest accelerometer norms that decide its unit in a motion without rest
    /// (``movingAccelerometerInG(_:)``).
    static let minimumMovingSamples = 100

    /// Why an accelerometer with too few samples at rest or steady to judge by
    /// (``restAccelerometer(_:)``) is in g, or nil: its median norm over at least
    /// ``minimumMovingSamples`` is 0.8–1.2 and two thirds of its norms or more are within 20 % of
    /// it, so gravity's 1 g dominates a motion (a gesture log: a hand punching, a wrist moving).
    /// As m/s² the device would be nearly falling freely throughout; an acceleration with gravity
    /// removed (linear or user acceleration) in m/s² spreads from 0, about a third of its norms
    /// within 20 % of their median (a random motion's; a vibration's a quarter).
    static func movingAccelerometerInG(_ samples: [SensorSample]) -> String? {
        let norms = samples.compactMap { $0.accelerometer?.norm }.filter(\.isFinite)
        guard norms.count >= minimumMovingSamples, let m = median(norms), (0.8...1.2).contains(m) else { return nil }
        let near = norms.filter { abs($0 - m) <= 0.2 * m }.count
        guard near * 3 >= norms.count * 2 else { return nil }
        return
            "the accelerometer's median norm is \(UnitCheck.fmt(m)) with too few samples at rest to judge by, \(near) of \(norms.count) norms within 20 % of it: gravity's 1 g through a motion (as m/s² the device would be falling nearly freely throughout)"
    }

    static func median(_ values: [Double]) -> Double? { UnitCheck.median(values) }

    /// The year of an epoch time in seconds.
    static func epochYear(_ seconds: Double) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return "year \(parts.tm_year + 1900)"
    }

    /// How the note saying which units were applied begins.
    public static let notePrefix = "units from the readings: "

    /// The note saying which units were applied, or nil.
    static func note(_ units: [Unit], source: String) -> TraceWarning? {
        guard !units.isEmpty else { return nil }
        let list = units.map { "\($0.key)=\($0.unit) (\($0.reason))" }.joined(separator: "; ")
        return TraceWarning(
            SourceLocation(file: source, line: 0, column: 0),
            "\(notePrefix)\(list); --units \(units.map { "\($0.key)=…" }.reduce(into: [String]()) { keys, k in if !keys.contains(k) { keys.append(k) } }.joined(separator: ",")) overrides",
            note: true)
    }
}

/// What a stream's first rows prove of its units, judged as a file's are
/// (``UnitEvidence/find(lines:format:options:)`` over the same rows) on a copy of the lines kept
/// as they pass. A stream is not read ahead (its samples go on as they arrive), so the units it
/// proves cannot be applied to the rows already handed on: a warning names them and the
/// `--units` that applies them, instead of the rows being read in the wrong units in silence.
final class StreamUnitEvidence {
    let lines: ByteLineReader
    let format: String
    let options: DelimitedReadOptions
    /// The lines read so far, each followed by a line feed, while the rows are being judged.
    private var copied: [UInt8] = []
    /// Samples to be handed on before the copy is judged (a file's look ahead reads as many).
    private var rows = UnitEvidence.rows
    /// Whether the copy has been judged for good.
    private(set) var judged = false

    /// Starts copying the lines `lines` hands out from now on (the lines a reader created next
    /// reads, header included).
    init(_ lines: ByteLineReader, format: String, options: DelimitedReadOptions) {
        self.lines = lines
        self.format = format
        self.options = options
        lines.lineCopy = { [weak self] line in
            self?.copied.append(contentsOf: line)
            self?.copied.append(0x0A)
        }
    }

    /// Called after each sample handed on (`count` so far) and at the end of the stream (`ended`):
    /// the findings once the rows a file's look ahead reads have passed, else nil.
    func passed(_ count: Int, ended: Bool) -> UnitEvidence.Findings? {
        guard !judged, ended || count >= rows else { return nil }
        let copy = copied
        let findings: UnitEvidence.Findings?
        do {
            findings = try UnitEvidence.find(
                lines: { ByteLineReader(bytes: copy, name: self.lines.name) }, format: format, options: options)
        } catch let e as TraceError where e.kind == .implausibleClock {
            // A clock no unit reads (or two alike), which a file would be refused for, read as
            // seconds: said, with the flags.
            findings = UnitEvidence.Findings(timeWarnings: [
                e.message + "; a stream's rows pass on as they arrive, so its times were read as seconds"
            ])
        } catch {
            findings = nil
        }
        // No turn in the first rows: the gyroscope's unit is judged further on, as in a file.
        if let findings, findings.gyroscopeUndecided, !ended, rows < UnitEvidence.turnRows {
            rows = UnitEvidence.turnRows
            return nil
        }
        judged = true
        lines.lineCopy = nil
        copied = []
        return findings
    }

    /// The warning naming the units `findings` prove, which were not applied, or else the one on
    /// its clock (``UnitEvidence/Findings/timeWarnings``), or nil.
    static func warning(_ findings: UnitEvidence.Findings, source: String) -> TraceWarning? {
        if findings.units.isEmpty, let time = findings.timeWarnings.first {
            return TraceWarning(SourceLocation(file: source, line: 0, column: 0), time)
        }
        guard !findings.units.isEmpty else { return nil }
        let list = findings.units.map { "\($0.key)=\($0.unit) (\($0.reason))" }.joined(separator: "; ")
        let flag = findings.units.map { "\($0.key)=\($0.unit)" }.joined(separator: ",")
        return TraceWarning(
            SourceLocation(file: source, line: 0, column: 0),
            "\(UnitEvidence.notePrefix)\(list); a stream's rows pass on as they arrive, so these units were not applied: pass --units \(flag) (or give the file's path, whose first rows set them)"
        )
    }
}
