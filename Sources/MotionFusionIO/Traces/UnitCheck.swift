import MotionFusionMath

/// Guesses whether each sensor's values are in the units the reader assumed, from magnitudes at
/// rest, and warns with the exact `--units` flag that fixes them; also names a gyroscope zero
/// offset too large for any bias (``gyroscopeOffset(_:)``) and its fix. Never changes the data.
public enum UnitCheck {
    /// Median (upper middle element) of a list (``Quickselect/median(_:)``); nil when empty.
    public static func median(_ values: [Double]) -> Double? { Quickselect.median(values) }

    /// Gyroscope magnitude below which a sample counts as at rest for the norms, rad/s.
    public static let restRate = 0.05

    /// Shortest run of samples below ``restRate``, s, whose norms count as at rest: a swinging
    /// pendulum's rate passes zero at each turning point for a sample or two, where its force is
    /// g·cos of the swing (6.5 m/s² at 50°, once warned as units). 0.2.
    public static let shortestRest = 0.2

    /// Median norms of each sensor over the samples at rest (gyroscope below ``restRate`` for at
    /// least ``shortestRest``) when a gyroscope exists, else over all samples, and the number of
    /// rest samples.
    public static func restNorms(_ samples: [SensorSample]) -> (
        accelerometer: Double?, gyroscope: Double?, magnetometer: Double?, restSamples: Int
    ) {
        var acc = [Double]()
        var gyr = [Double]()
        var mag = [Double]()
        let hasGyro = samples.contains { $0.gyroscope != nil }
        var lastGyroNorm = Double.infinity
        var rest = 0
        // The current run of rest samples: where it starts in the lists, and its first time.
        var run = (acc: 0, gyr: 0, mag: 0, samples: 0, start: Double.nan, last: Double.nan)
        func endRun() {
            let span = run.last - run.start
            if hasGyro && !(span >= shortestRest) && !(span.isNaN && run.samples >= 3) {
                acc.removeSubrange(run.acc...)
                gyr.removeSubrange(run.gyr...)
                mag.removeSubrange(run.mag...)
                rest -= run.samples
            }
            run = (acc.count, gyr.count, mag.count, 0, .nan, .nan)
        }
        for s in samples {
            if let g = s.gyroscope { lastGyroNorm = g.norm }
            let atRest = !hasGyro || lastGyroNorm < restRate
            if !atRest {
                if run.samples > 0 { endRun() }
                continue
            }
            if run.samples == 0 { run.start = s.t }
            run.last = s.t
            run.samples += 1
            rest += 1
            if let a = s.accelerometer { acc.append(a.norm) }
            if let g = s.gyroscope { gyr.append(g.norm) }
            if let m = s.magnetometer { mag.append(m.norm) }
        }
        if run.samples > 0 { endRun() }
        return (median(acc), median(gyr), median(mag), rest)
    }

    /// Shortest still stretch for the gyroscope offset, s, and the most the accelerometer's norm may
    /// depart from g (m/s²) and each of its axes vary (m/s², range) over it: a device turning at
    /// 10 °/s about a horizontal axis turns gravity by 5° over 0.5 s, 0.85 m/s² on some axis.
    public static let stillStretch = 0.5
    public static let stillGravityTolerance = 0.5
    public static let stillAccelerationRange = 0.5
    /// Gyroscope rate across gravity over still stretches beyond which it is a zero offset to
    /// calibrate, rad/s.
    public static let largeGyroscopeOffset = 10.0.radians
    /// A gyroscope peak beyond this, rad/s, is deg/s read as rad/s (no MEMS gyroscope measures
    /// 40 rad/s, 2 300 °/s); a still rate in such a file is a bias in °/s, not an offset.
    public static let degreesPerSecondPeak = 40.0

    /// The gyroscope over the still stretches of `samples` (at least ``stillStretch`` long, the
    /// accelerometer near g and steady: the device still whatever the gyroscope says): its median
    /// per axis, the median size of its part across gravity (each sample's accelerometer), and the
    /// number of gyroscope values; nil without any. Only the part across gravity proves an offset:
    /// a steady turn about the vertical (a turntable, a vehicle in a bend) keeps the accelerometer
    /// still too, while a turn across it would turn gravity in the sensor frame.
    public static func stillGyroscope(_ samples: [SensorSample]) -> (
        median: Vector3, acrossGravity: Double, samples: Int
    )? {
        var x = [Double]()
        var y = [Double]()
        var z = [Double]()
        var across = [Double]()
        var start = 0
        while start < samples.count {
            // One stretch: from `start` until `stillStretch` has passed.
            var end = start
            var lower = Vector3(.infinity, .infinity, .infinity)
            var upper = -lower
            var still = true
            var accelerometers = 0
            while end < samples.count {
                let s = samples[end]
                if let a = s.accelerometer, a.isFinite {
                    accelerometers += 1
                    still = still && abs(a.norm - standardGravity) <= stillGravityTolerance
                    lower = Vector3(min(lower.x, a.x), min(lower.y, a.y), min(lower.z, a.z))
                    upper = Vector3(max(upper.x, a.x), max(upper.y, a.y), max(upper.z, a.z))
                }
                end += 1
                guard s.t.isFinite, samples[start].t.isFinite else { break }
                if s.t - samples[start].t >= stillStretch { break }
            }
            let spread = upper - lower
            let long = samples[end - 1].t - samples[start].t >= stillStretch
            if still && long && accelerometers >= 2 && max(spread.x, spread.y, spread.z) <= stillAccelerationRange {
                var up = Vector3.zero
                for s in samples[start..<end] {
                    if let a = s.accelerometer, a.isFinite, let u = a.normalized { up = u }
                    if let g = s.gyroscope, g.isFinite, up != .zero {
                        x.append(g.x)
                        y.append(g.y)
                        z.append(g.z)
                        across.append((g - up * g.dot(up)).norm)
                    }
                }
            }
            start = end
        }
        guard let mx = median(x), let my = median(y), let mz = median(z), let a = median(across) else { return nil }
        return (Vector3(mx, my, mz), a, x.count)
    }

    /// The gyroscope's zero offset (rad/s per axis, and the still samples it rests on), when its
    /// median part across gravity over the still stretches exceeds ``largeGyroscopeOffset``; an
    /// offset about the vertical alone is not told from a steady turn.
    public static func gyroscopeOffset(_ samples: [SensorSample]) -> (offset: Vector3, samples: Int)? {
        // Peaks of deg/s read as rad/s: the units are the cause, and their own warning says so.
        guard !samples.contains(where: { ($0.gyroscope?.norm ?? 0) > degreesPerSecondPeak }),
            let still = stillGyroscope(samples), still.acrossGravity > largeGyroscopeOffset
        else { return nil }
        return (still.median, still.samples)
    }

    /// Whether a warning is the one ``gyroscopeOffsetMessage(_:samples:)`` writes.
    public static func isGyroscopeOffsetWarning(_ message: String) -> Bool {
        message.hasPrefix("the gyroscope reads ") && message.contains("a zero offset")
    }

    /// The warning for a gyroscope offset found by ``gyroscopeOffset(_:)``, with its fixes.
    public static func gyroscopeOffsetMessage(_ offset: Vector3, samples: Int) -> String {
        let rad = "(\(fmt(offset.x)), \(fmt(offset.y)), \(fmt(offset.z))) rad/s"
        let deg = "(\(fmt(offset.x.degrees)), \(fmt(offset.y.degrees)), \(fmt(offset.z.degrees)))°/s"
        // Small enough to be an ordinary bias of a gyroscope in °/s: the readings so far cannot
        // tell the two apart (a stream's later peaks may).
        let units =
            offset.norm <= 2
            ? " (or a gyroscope in °/s, whose bias this would be: if it is, pass --units gyr=deg/s)"
            : " (its peaks are within a gyroscope's range, so not deg/s read as rad/s)"
        return
            "the gyroscope reads \(rad) = \(deg) (median of \(samples) samples) while the accelerometer shows the device still: a zero offset, not a rotation\(units). Calibrate it: motionfusion calibrate TRACE --sensors gyr --output CAL.json, then pass --calibration CAL.json; without it, the ekf and complementary filters take the offset from the first rest, and the attitude drifts until then"
    }

    /// Warnings about implausible units in `samples` (typically a recording's first seconds), each
    /// naming the flag that fixes it. `magnetometerArbitrary` silences the magnetometer check.
    /// `units` are the file's (those the header or `--units` stated, in ``SensorUnits/explicit``):
    /// a flag already given is not proposed again. `gyroscopeCounts` is the scale, °/s per unit
    /// of the file, that makes a gyroscope read neither in rad/s nor in °/s predict how the
    /// accelerometer turned (``UnitEvidence/Findings/gyroscopeCounts``): it is proposed instead.
    /// `gyroscopePeak` is the gyroscope's largest norm before values beyond its range were dropped
    /// (``UnitEvidence/Findings/gyroscopePeak``), quoted when larger than those left.
    public static func check(
        _ samples: [SensorSample], source: String, magnetometerArbitrary: Bool = false, units: SensorUnits? = nil,
        gyroscopeCounts: Double? = nil, gyroscopePeak: Double? = nil
    ) -> [TraceWarning] {
        let stated = units?.explicit ?? []
        let found = units?.evident ?? []
        var warnings = [TraceWarning]()
        let here = SourceLocation(file: source, line: 0, column: 0)
        let norms = restNorms(samples)
        var allAcc = [Double]()
        var maxGyro = gyroscopePeak ?? 0
        var allMag = [Double]()
        for s in samples {
            if let a = s.accelerometer { allAcc.append(a.norm) }
            if let g = s.gyroscope { maxGyro = max(maxGyro, g.norm) }
            if let m = s.magnetometer { allMag.append(m.norm) }
        }
        let wholeAccelerometer = UnitEvidence.wholeNumbers(samples)
        let given = "in the unit stated (by the header or --units)"
        // Each warning added since the last call says a unit looks wrong, for `reason` (`info` quotes it).
        var tagged = 0
        func suspect(_ reason: String) {
            for i in tagged..<warnings.count { warnings[i].suspectUnits = reason }
            tagged = warnings.count
        }
        if let a = norms.accelerometer ?? median(allAcc) {
            // At rest, or the median over a recording never at rest (a gesture log).
            let said =
                norms.accelerometer == nil
                ? "accelerometer median norm (never at rest) is" : "accelerometer norm at rest is"
            if stated.contains("acc") && a >= 0.5 && (a < 7 || a > 13) {
                warnings.append(
                    TraceWarning(
                        here,
                        "\(said) \(fmt(a)) m/s² \(given); expected about 9.81: check that unit, or give the scale of raw counts, e.g. --units acc=0.001g for 1 mg per count"
                    ))
            } else if a > 0.5 && a < 1.5 {
                warnings.append(
                    TraceWarning(
                        here, "\(said) \(fmt(a)) m/s², which looks like g: pass --units acc=g"))
            } else if a > 500 && a < 1500 {
                warnings.append(
                    TraceWarning(
                        here,
                        "\(said) \(fmt(a)) m/s², which looks like milli-g: pass --units acc=mg"))
            } else if a < 0.5 {
                warnings.append(
                    TraceWarning(
                        here,
                        "\(said) \(fmt(a)) m/s², far below gravity: the recording may exclude gravity (add it back), or choose other columns with --columns"
                    ))
            } else if a < 7 || a > 13 {
                warnings.append(TraceWarning(here, "\(said) \(fmt(a)) m/s²; expected about 9.81"))
            }
            let rest = norms.accelerometer == nil ? " (median; never at rest)" : " at rest"
            suspect("the accelerometer's norm is \(fmt(a)) m/s²\(rest), not about 9.81")
        }
        var steps = [Double]()
        var previous = Double.nan
        for s in samples where s.t.isFinite {
            if previous.isFinite && s.t > previous { steps.append(s.t - previous) }
            previous = s.t
        }
        let longestStep = FilterRunnerSettings().maximumGap
        if let step = median(steps) {
            if step > longestStep && stated.contains("t") {
                warnings.append(
                    TraceWarning(
                        here,
                        "the median time step is \(fmt(step)) s \(given), longer than the \(fmt(longestStep)) s the filters integrate across, so every sample starts over: check the time column and its unit (--columns t=…, --units t=…)"
                    ))
            } else if step > longestStep {
                warnings.append(
                    TraceWarning(
                        here,
                        "the median time step is \(fmt(step)) s, longer than the \(fmt(longestStep)) s the filters integrate across, so every sample starts over: if the times are in milliseconds, microseconds or nanoseconds, pass --units t=ms (or t=us, t=ns)"
                    ))
            } else if step < 1e-6 {
                warnings.append(
                    TraceWarning(
                        here,
                        "the median time step is \(step) s, a rate above 1 MHz that no inertial sensor has: check the time column and its unit (--columns t=…, --units t=…)"
                    ))
            }
            suspect("the median time step is \(step < 1e-6 ? "\(step)" : fmt(step)) s")
        }
        let counts = gyroscopeCounts.map { scale -> String in
            let fitted = String(printf: "%.3g", scale)
            guard let common = UnitEvidence.commonCountScale(near: scale) else {
                return
                    "neither rad/s nor °/s predicts how the accelerometer turned between still moments, \(fitted) °/s per unit does: raw counts? pass --units gyr=\(fitted)deg/s"
            }
            return
                "neither rad/s nor °/s predicts how the accelerometer turned between still moments, \(fitted) °/s per unit does, near a common count of \(common.label): raw counts? pass --units gyr=\(common.text)deg/s"
        }
        if let counts {
            warnings.append(
                TraceWarning(
                    here, "gyroscope peaks at \(fmt(maxGyro)) rad/s (\(fmt(maxGyro * 180 / .pi))°/s) as read; \(counts)"
                ))
        } else if maxGyro > degreesPerSecondPeak && (stated.contains("gyr") || found.contains("gyr")) {
            // The unit stated, or found from the readings (°/s, whose peak is within ±4000 °/s):
            // not proposed again.
            let unit = stated.contains("gyr") ? given : "in the unit found from the readings"
            warnings.append(
                TraceWarning(
                    here,
                    "gyroscope peaks at \(fmt(maxGyro)) rad/s (\(fmt(maxGyro * 180 / .pi))°/s) \(unit), beyond any gyroscope's range: raw counts? give their scale, e.g. --units gyr=0.0625deg/s for 1/16 °/s per count (a BNO055)"
                ))
        } else if maxGyro > degreesPerSecondPeak && maxGyro * .pi / 180 > UnitEvidence.gyroscopeBeyondRange {
            // Beyond ±4000 °/s read as °/s too: not °/s.
            warnings.append(
                TraceWarning(
                    here,
                    "gyroscope peaks at \(fmt(maxGyro)) rad/s, beyond any gyroscope's range in rad/s and as °/s (\(fmt(maxGyro))°/s, past ±4000 °/s): raw counts? give their scale, e.g. --units gyr=0.0625deg/s for 1/16 °/s per count (a BNO055)"
                ))
        } else if maxGyro > degreesPerSecondPeak && !stated.contains("acc") && wholeAccelerometer {
            // An accelerometer in whole numbers is raw counts, and its gyroscope likely counts too.
            warnings.append(
                TraceWarning(
                    here,
                    "gyroscope peaks at \(fmt(maxGyro)) rad/s (\(fmt(maxGyro * 180 / .pi))°/s), which looks like deg/s, or raw counts as the accelerometer's readings, all whole numbers, seem to be: pass --units gyr=deg/s, or the counts' scale, e.g. --units gyr=0.061deg/s for 16.4 counts per °/s (an MPU-6050 at ±2000 °/s)"
                ))
        } else if maxGyro > degreesPerSecondPeak {
            warnings.append(
                TraceWarning(
                    here,
                    "gyroscope peaks at \(fmt(maxGyro)) rad/s (\(fmt(maxGyro * 180 / .pi))°/s), which looks like deg/s: pass --units gyr=deg/s"
                ))
        }
        suspect("the gyroscope peaks at \(fmt(maxGyro)) rad/s")
        // A zero offset is no unit's fault (its warning may still propose one, and say so).
        if let offset = gyroscopeOffset(samples) {
            warnings.append(TraceWarning(here, gyroscopeOffsetMessage(offset.offset, samples: offset.samples)))
            tagged = warnings.count
        }
        if !magnetometerArbitrary, let m = median(allMag) {
            if stated.contains("mag") && (m < 10 || m > 200) {
                warnings.append(
                    TraceWarning(
                        here,
                        "magnetometer norm is \(m < 0.01 ? "\(m)" : fmt(m)) µT \(given); Earth's field is 22–67 µT. The filters use the field's direction and learn its strength, so this is harmless unless the unit is wrong: raw counts? give their scale, e.g. --units mag=0.0625uT"
                    ))
            } else if m >= 1e-5 && m <= 1e-4 {
                warnings.append(
                    TraceWarning(here, "magnetometer norm is \(m) µT, which looks like tesla: pass --units mag=T"))
            } else if m > 0.1 && m < 0.9 {
                // Earth's field is 0.22–0.67 gauss; above that, with an iron offset, normalised
                // readings (about 1) look the same.
                let normalised =
                    m > 0.67 ? ", or like normalised units with an iron offset (then pass --units mag=au)" : ""
                warnings.append(
                    TraceWarning(
                        here,
                        "magnetometer norm is \(fmt(m)) µT, which looks like gauss: pass --units mag=gauss\(normalised)"
                    ))
            } else if m > 5000 {
                warnings.append(
                    TraceWarning(here, "magnetometer norm is \(fmt(m)) µT, which looks like nT: pass --units mag=nT"))
            } else if m < 10 || m > 200 {
                warnings.append(
                    TraceWarning(
                        here,
                        "magnetometer norm is \(fmt(m)); Earth's field is 22–67 µT, so this looks like arbitrary or normalised units. The filters use the field's direction and learn its strength, so this is harmless; pass --units mag=au to say so"
                    ))
            }
            suspect("the magnetometer's norm is \(m < 0.01 ? "\(m)" : fmt(m)) µT, not 22–67")
        }
        return warnings
    }

    static func fmt(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return "\(r)"
    }
}

/// Checks the units of a reader's first samples: it reads ahead up to ``lookahead`` samples or
/// ``lookaheadTime`` seconds (bounded memory), adds the unit warnings, then yields the buffered
/// samples and streams the rest. A live stream is not read ahead: its samples pass through as they
/// arrive (each estimate follows its row at once) while a copy of the first ones is kept, and the
/// warnings come when those are complete.
public final class UnitCheckingReader: SampleReader {
    /// Most samples read ahead.
    public let lookahead: Int
    /// Most recording time read ahead, s.
    public let lookaheadTime: Double

    let base: SampleReader
    /// Whether samples pass through rather than being read ahead.
    let live: Bool
    @exclusivity(unchecked) var buffer: [SensorSample] = []
    @exclusivity(unchecked) var position = 0
    @exclusivity(unchecked) var checked = false
    @exclusivity(unchecked) var unitWarnings: [TraceWarning] = []

    /// Notes that come first (the units found from the readings, ``UnitEvidence``).
    let notes: [TraceWarning]
    /// The raw counts' scale the first readings show, °/s per unit (``UnitEvidence``).
    let gyroscopeCounts: Double?
    /// The gyroscope's peak before out-of-range values were dropped (``UnitEvidence``).
    let gyroscopePeak: Double?
    /// A live stream's units judged on its first rows as they pass (``StreamUnitEvidence``).
    let streamEvidence: StreamUnitEvidence?
    /// Samples a live stream has handed on.
    @exclusivity(unchecked) var passed = 0
    /// The warning naming the units a live stream's first rows prove (not applied).
    @exclusivity(unchecked) var evidenceWarnings: [TraceWarning] = []

    /// Wraps a reader; a live stream (standard input, a pipe) is checked over a shorter window,
    /// without reading ahead. `findings` (a file's first readings, ``UnitEvidence``) give the
    /// notes that come before the unit warnings, and a raw count's scale to propose.
    public convenience init(_ base: SampleReader, live: Bool = false, findings: UnitEvidence.Findings? = nil) {
        self.init(base, live: live, findings: findings, streamEvidence: nil)
    }

    /// The same; a live stream's `streamEvidence` warns of units its first rows prove.
    init(_ base: SampleReader, live: Bool, findings: UnitEvidence.Findings?, streamEvidence: StreamUnitEvidence?) {
        self.base = base
        self.live = live
        self.streamEvidence = streamEvidence
        self.notes =
            (findings.flatMap { UnitEvidence.note($0.units, source: base.description.source) }.map { [$0] } ?? [])
            + (findings?.timeWarnings ?? []).map {
                TraceWarning(SourceLocation(file: base.description.source, line: 0, column: 0), $0)
            }
        gyroscopeCounts = findings?.gyroscopeCounts
        gyroscopePeak = findings?.gyroscopePeak
        lookahead = live ? 200 : 5_000
        lookaheadTime = live ? 2 : 10
    }

    /// The wrapped reader's description.
    public var description: TraceDescription { base.description }
    /// The wrapped reader's faults.
    public var faults: ValueFaults { base.faults }
    /// The wrapped reader's progress.
    public var progress: Double? { base.progress }
    /// The wrapped reader's warnings and the unit warnings (of a live stream, once its first
    /// samples are in).
    public var warnings: [TraceWarning] {
        if !live { primeIfNeeded() }
        return notes + base.warnings + unitWarnings + evidenceWarnings
    }

    /// The samples checked so far are all there will be: check them.
    func check() {
        checked = true
        unitWarnings = UnitCheck.check(
            buffer, source: description.source, magnetometerArbitrary: description.magnetometerArbitrary,
            units: description.units, gyroscopeCounts: gyroscopeCounts, gyroscopePeak: gyroscopePeak)
        if live { buffer = [] }
    }

    /// The next sample of a live stream, kept for the check until the window is full.
    func passThrough() throws -> SensorSample? {
        let sample = try base.next()
        if let streamEvidence, !streamEvidence.judged {
            // Patterns, not comparisons with nil (which compare optional samples by value).
            var ended = true
            if case .some = sample {
                passed += 1
                ended = false
            }
            if let findings = streamEvidence.passed(passed, ended: ended),
                let w = StreamUnitEvidence.warning(findings, source: description.source)
            {
                evidenceWarnings = [w]
            }
        }
        guard !checked else { return sample }
        guard let sample else {
            check()
            return nil
        }
        buffer.append(sample)
        if buffer.count >= lookahead || sample.t - buffer[0].t > lookaheadTime { check() }
        return sample
    }

    /// Reads ahead and checks, once. A read error is kept and thrown by ``next()`` after the
    /// samples read before it, so it keeps its place in the input.
    func primeIfNeeded() {
        guard !checked else { return }
        checked = true
        var first = Double.nan
        do {
            while buffer.count < lookahead, let s = try base.next() {
                if first.isNaN { first = s.t }
                buffer.append(s)
                if s.t - first > lookaheadTime { break }
            }
        } catch {
            pendingError = error
        }
        check()
    }

    @exclusivity(unchecked) var pendingError: Error?

    /// The next sample.
    public func next() throws -> SensorSample? {
        if live { return try passThrough() }
        primeIfNeeded()
        if position < buffer.count {
            position += 1
            return buffer[position - 1]
        }
        if !buffer.isEmpty {
            buffer = []
            position = 0
        }
        if let e = pendingError {
            pendingError = nil
            throw e
        }
        return try base.next()
    }
}
