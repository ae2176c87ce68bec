/// How a filter used a recording's magnetometer: the share of samples it rejected and the level its
/// on-line calibration reached. `replay` tallies it as it runs and warns when most samples were
/// rejected; `info` runs the default 9D filter to report it.
public struct MagnetometerUse {
    /// Samples with a magnetometer value after the filter initialised, and those it rejected.
    public var samples = 0
    public var rejected = 0
    /// Of the rejected samples, those whose strength, dip or azimuth departed from the reference
    /// field (``FieldDeparture``; a sample may count under several), and those with any of them.
    public var strengthDepartures = 0, dipDepartures = 0, azimuthJumps = 0, departures = 0
    /// Of ``samples``, those without a gyroscope value (none on the row, nor one the runner holds
    /// from an earlier row), and those whose time did not step forward (repeated or backward
    /// timestamps): a filter judges the field against the turn it integrates, and without one
    /// rejections say nothing of the field.
    public var withoutGyroscope = 0
    public var timeFaults = 0
    /// Time of the last input sample with a gyroscope value: a magnetometer on rows of its own
    /// has the rate the runner holds (``FilterRunnerSettings/maximumGyroscopeHold``).
    var lastGyroscopeTime = -Double.infinity
    /// Readings with an axis at the end of its range, which the filter was not given (not counted
    /// in ``samples``).
    public var clipped = 0
    /// Level of the on-line magnetometer calibration at the last sample.
    public var accuracy = MagnetometerSelfCalibration.Accuracy.uncalibrated
    /// Readings spread evenly over the run, at most ``keptReadings``: whether they determine a
    /// calibration decides the fix the warning proposes.
    var readings: [Vector3] = []
    /// Readings counted towards ``readings`` (one kept every ``readingStride``).
    var readingsSeen = 0
    var readingStride = 1

    /// How a calibration file's fit reaches readings given as arrays (the C and Python calls).
    static let correctedArrays =
        "pass the magnetometer corrected by it, soft_iron × (mag − hard_iron) for each reading, with the file's 'hard_iron' and 'soft_iron'"

    /// Most readings kept to judge whether a calibration can be fitted (bounded memory).
    static let keptReadings = 4096

    /// Counts one estimate of a filter run on `input` (not a clipped reading: the filter was not
    /// given it, and a warning of its own names it).
    public mutating func add(_ e: MotionEstimate, _ input: SensorSample) {
        if input.gyroscope != nil { lastGyroscopeTime = input.t }
        guard let m = input.magnetometer, !e.diagnostics.initialising else { return }
        if e.diagnostics.magnetometerClipped {
            clipped += 1
            return
        }
        samples += 1
        if e.diagnostics.magnetometerRejected {
            rejected += 1
            let d = e.diagnostics.magnetometerDeparture
            if !d.isEmpty { departures += 1 }
            if d.contains(.strength) { strengthDepartures += 1 }
            if d.contains(.dip) { dipDepartures += 1 }
            if d.contains(.azimuth) { azimuthJumps += 1 }
        }
        // As the runner holds it: not across an outage or a clock stepping back.
        let age = input.t - lastGyroscopeTime
        if !(age >= 0 && age <= FilterRunnerSettings().maximumGyroscopeHold) { withoutGyroscope += 1 }
        if e.diagnostics.timeFault { timeFaults += 1 }
        accuracy = e.diagnostics.magnetometerAccuracy
        if readingsSeen % readingStride == 0 {
            if readings.count == Self.keptReadings {
                // Every other one: still evenly spread, at twice the stride.
                readings = stride(from: 0, to: readings.count, by: 2).map { readings[$0] }
                readingStride *= 2
            }
            if readingsSeen % readingStride == 0 { readings.append(m) }
        }
        readingsSeen += 1
    }

    /// The default 9D filter's use of the magnetometer of `samples`.
    public init(running samples: [SensorSample]) {
        var i = 0
        var use = MagnetometerUse()
        // Streamed: no array of estimates for a long recording. `next` and `body` do not throw, so
        // neither does the run (as in `RunConfiguration.estimates`).
        try! RunConfiguration(.ekf, mode: .nineD).run(
            next: {
                guard i < samples.count else { return nil }
                i += 1
                return samples[i - 1]
            }, eachSample: { e, input in use.add(e, input) }
        ) { _, _ in }
        self = use
    }

    public init() {}

    /// Rejected share, 0…1 (0 without samples).
    public var share: Double { samples > 0 ? Double(rejected) / Double(samples) : 0 }

    /// Clipped share of the readings after the filter initialised, 0…1.
    public var clippedShare: Double { clipped > 0 ? Double(clipped) / Double(clipped + samples) : 0 }

    /// Whether the magnetometer was rejected on more than half of its samples.
    public var mostlyRejected: Bool { rejected * 2 > samples }

    /// The warning for a run that rejected most samples: the share, the reason and the fixes.
    /// `calibrated`: the run applied a calibration file. A calibration fitted from this recording
    /// is proposed only when its readings determine one (`arbitraryUnits`: the magnetometer's
    /// unit is arbitrary); otherwise the warning says why not and how to record one.
    /// `arrays`: the run's readings came as arrays (the C and Python calls), which take no
    /// calibration file or command-line option: the fixes name the arrays and the filter argument.
    /// `offline`: the estimates are a reconstruction's (`reconstruct`), whose robust fit
    /// down-weights a reading (under one half counts as rejected) rather than dropping it, and whose
    /// calibration is fitted jointly: the fixes are a calibration file or a better recording.
    public func warning(
        source: String, calibrated: Bool, arbitraryUnits: Bool = false, arrays: Bool = false, offline: Bool = false
    ) -> String {
        let counts =
            offline
            ? "the reconstruction's robust fit weighted the magnetometer under one half on \(rejected) of \(samples) samples"
            : "the magnetometer was rejected on \(rejected) of \(samples) samples"
        if withoutGyroscope * 2 > samples {
            return
                "\(source): warning: \(counts), and \(withoutGyroscope) of those \(samples) have no gyroscope value: without a turn rate the filter cannot tell a disturbed field from a turn, so it takes the field only where it agrees with the attitude it holds. \(arrays ? "Pass the gyroscope, or run the filter 'ecompass'" : "Give the recording's gyroscope, or use '--filter ecompass'") for the heading of each reading"
        }
        if timeFaults * 2 > samples {
            return
                "\(source): warning: \(counts), and \(timeFaults) of those \(samples) have a time that does not step forward (repeated or backward timestamps), so nothing was integrated between them: \(arrays ? "pass increasing times in seconds" : "check the time column and its unit (--columns t=…, --units t=…)")"
        }
        if calibrated {
            return
                "\(source): warning: \(counts), with a calibration applied: the calibration does not fit this recording (wrong sensor, units, or a disturbed fit); \(reason(offline: offline))"
        }
        let percent = Int((100 * share).rounded())
        // Why the readings determine no calibration file, or nil when they determine one.
        let unfittable: String?
        do {
            _ = try MagnetometerCalibration.fit(readings, arbitraryUnits: arbitraryUnits)
            unfittable = nil
        } catch {
            unfittable = "\(error)"
        }
        if offline {
            let pass =
                arrays
                ? Self.correctedArrays
                : "pass --calibration CAL.json"
            let disturbed = "a field disturbed where the device moved (iron, magnets) cannot be calibrated away"
            let fix =
                unfittable.map {
                    "These readings determine no calibration (\($0)): fit a recording that turns through all orientations with 'motionfusion calibrate REC --sensors mag --output CAL.json' and \(pass); \(disturbed)"
                }
                ?? "If the sensor is uncalibrated, fit it with 'motionfusion calibrate TRACE --sensors mag --output CAL.json' and \(pass); \(disturbed)"
            return
                "\(source): warning: \(counts) (\(percent) %), so the heading there is mostly the gyroscope's: \(reason(offline: true)). \(fix)"
        }
        let use =
            arrays
            ? Self.correctedArrays
            : "replay with '--calibration CAL.json'"
        let fix =
            unfittable.map {
                "These readings determine no calibration (\($0)); fit that recording with 'motionfusion calibrate REC --sensors mag --output CAL.json' and \(use)"
            }
            ?? "Move the device through many orientations so that it converges, or fit one with 'motionfusion reconstruct TRACE --calibrate-mag CAL.json' and \(use)"
        return
            "\(source): warning: the magnetometer was rejected on \(rejected) of \(samples) samples (\(percent) %), so the heading is mostly the gyroscope's: \(reason(offline: offline)); the on-line calibration reached \(accuracy). \(fix)"
    }

    /// Why the rejected samples were rejected: the checks of the reference field they failed, the
    /// most frequent first, with their shares of the rejected samples.
    /// `offline`: a reconstruction's, whose azimuth check is its residual against the attitude the
    /// whole recording shows, and whose weight falls with the checks together.
    func reason(offline: Bool) -> String {
        func share(_ n: Int) -> String {
            let percent = Int((100 * Double(n) / Double(max(rejected, 1))).rounded())
            return n > 0 && percent == 0 ? "under 1 %" : "\(percent) %"
        }
        let checks = [
            (
                strengthDepartures,
                "%@ had a strength unlike the reference field's (a hard or soft iron no calibration removed, or iron or a magnet nearby)"
            ),
            (dipDepartures, "%@ a dip unlike the reference's (iron nearby, or a tilt or reference learnt wrong)"),
            (
                azimuthJumps,
                offline
                    ? "%@ a direction unlike the one the attitude from the whole recording predicts (a field that differs from place to place, or moves)"
                    : "%@ a direction that jumped faster than the device turned (a field that moves: a magnet or iron moving near the device)"
            ),
        ]
        var parts = checks.filter { $0.0 > 0 }.sorted { $0.0 > $1.0 }.map { String(printf: $0.1, share($0.0)) }
        if rejected > departures {
            parts.append(
                String(
                    printf: offline
                        ? "%@ departed by less than a tolerance on several checks at once"
                        : "%@ passed those checks while the filter waited for the field to stay steady after a departure",
                    share(rejected - departures)))
        }
        return parts.isEmpty
            ? "the readings departed from the reference field"
            : "of the rejected samples, " + parts.joined(separator: "; ")
    }
}
