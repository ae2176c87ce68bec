import Glibc
import MotionFusion

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings of `info`.
struct InfoSettings {
    var input = InputSettings()
    var json = false
    var trace = ""
}

/// `motionfusion info`: format, rates, gaps, norms, units and value faults of a trace.
enum InfoCommand {
    static let command = Command<InfoSettings>(
        name: "info", summary: "Describe a recorded trace: format, start time, rates, gaps, norms, units, value faults",
        arguments: [("TRACE", "a trace file, a recording folder or .zip, a folder of traces, or - for standard input")],
        options: InputSettings.options.map { $0.lifted(\.input) } + [
            .flag("json", "print one JSON object per trace", \.json)
        ],
        initial: InfoSettings(),
        finish: { s, positionals in
            try expectArguments(positionals, ["TRACE"])
            s.trace = positionals[0]
        },
        run: run)

    static func run(_ s: InfoSettings, _ output: ConsoleOutput) throws {
        try CommandLineError.rethrowing {
            try OutputTarget.checkStandardOutput(protecting: InputFiles([s.trace]))
        }
        let paths = try TraceInputs.expand(s.trace, format: s.input.format)
        var failures = 0
        for p in paths {
            do {
                let reader = try s.input.open(p, command: "info")
                let trace = try reader.readTrace()
                let summary = TraceSummary(trace)
                let magnetometer =
                    summary.timing[.magnetometer] == nil
                    ? nil : MagnetometerReport(trace, arbitraryUnits: reader.description.magnetometerArbitrary)
                output.out(
                    s.json
                        ? json(summary, magnetometer, source: p, faults: reader.faults) + "\n"
                        : table(summary, magnetometer, source: p, faults: reader.faults))
                // The offset is named once, from the whole trace (the table's figure), not also from
                // the reader's first seconds.
                for w in trace.warnings
                where !(summary.gyroscopeOffset != nil && UnitCheck.isGyroscopeOffsetWarning(w.message)) {
                    output.err("\(w)\n")
                }
                if let m = magnetometer, m.use.mostlyRejected {
                    output.err(
                        m.use.warning(
                            source: reader.description.source, calibrated: false,
                            arbitraryUnits: reader.description.magnetometerArbitrary) + "\n")
                }
                if let g = summary.gyroscopeOffset {
                    let here = SourceLocation(file: reader.description.source, line: 0, column: 0)
                    output.err(
                        "\(TraceWarning(here, UnitCheck.gyroscopeOffsetMessage(g.offset, samples: g.samples)))\n")
                }
            } catch {
                let e = CommandLineError.from(error)
                if paths.count == 1 { throw e }
                output.err("motionfusion info: error: \(e.message)\n")
                failures += 1
            }
        }
        if failures > 0 { throw CommandLineError.input("\(failures) of \(paths.count) traces could not be read") }
    }

    static func json(_ s: TraceSummary, _ m: MagnetometerReport?, source: String, faults: ValueFaults) -> String {
        var rate = [String: JSONValue]()
        var timing = [String: JSONValue]()
        for (k, t) in s.timing {
            rate[k.rawValue] = .number(t.rateHz)
            timing[k.rawValue] = [
                "samples": .integer(t.count), "rate_hz": .number(t.rateHz),
                "median_interval_s": .number(t.medianInterval),
                "jitter_s": .number(t.intervalStdDev), "gaps": .integer(t.gaps),
                "longest_interval_s": .number(t.longestInterval),
            ]
        }
        var norms = [String: JSONValue]()
        if let a = s.restNorms.accelerometer { norms["accelerometer_m_s2"] = .number(a) }
        if let g = s.restNorms.gyroscope { norms["gyroscope_rad_s"] = .number(g) }
        if let m = s.restNorms.magnetometer { norms["magnetometer_ut"] = .number(m) }
        let offset: JSONValue =
            s.gyroscopeOffset.map { .array([.number($0.offset.x), .number($0.offset.y), .number($0.offset.z)]) }
            ?? .null
        var faultCounts = [String: JSONValue]()
        for (kind, t) in faults.tallies { faultCounts[kind.rawValue] = .integer(t.count) }
        let object: JSONValue = [
            "source": .string(source), "format": .string(s.format), "samples": .integer(s.samples),
            "start_time_s": .number(s.startTime), "duration_s": .number(s.duration), "rate_hz": .object(rate),
            "sensors": .object(timing), "rest_norms": .object(norms), "rest_samples": .integer(s.restSamples),
            "gyroscope_offset_rad_s": offset,
            "has_ground_truth": .bool(s.hasGroundTruth), "ground_truth_samples": .integer(s.groundTruthSamples),
            "value_faults": .object(faultCounts), "warnings": .array(s.warnings.map { .string($0.message) }),
            "magnetometer": m.map { m -> JSONValue in
                [
                    "rejected_share": .number(m.use.share), "clipped_share": .number(m.use.clippedShare),
                    "filter_calibration_level": .string("\(m.use.accuracy)"),
                    "fit_level": .string("\(m.fit.accuracy)"),
                    // No fit (uncalibrated): no hard iron, coverage or residual to report.
                    "fit_hard_iron": m.fit.accuracy == .uncalibrated
                        ? .null
                        : .array([.number(m.fit.hardIron.x), .number(m.fit.hardIron.y), .number(m.fit.hardIron.z)]),
                    "fit_coverage": m.fit.accuracy == .uncalibrated ? .null : .number(m.fit.coverage),
                    "fit_residual": m.fit.accuracy != .uncalibrated && m.fit.residual.isFinite
                        ? .number(m.fit.residual) : .null,
                    "file_fit": .bool(m.file.magnetometer != nil),
                ]
            } ?? .null,
        ]
        return object.text
    }

    static func table(_ s: TraceSummary, _ m: MagnetometerReport?, source: String, faults: ValueFaults) -> String {
        func f(_ v: Double, _ d: Int) -> String { String(printf: "%.\(d)f", v) }
        var out = """
            trace         \(source)
            format        \(s.format)
            samples       \(s.samples)
            start time    \(s.startTime.map { "\($0) s" } ?? "–")
            duration      \(f(s.duration, 3)) s
            ground truth  \(s.hasGroundTruth ? "yes (\(s.groundTruthSamples) samples)" : "no")

            sensor          samples   rate Hz   median dt ms   jitter ms   gaps   longest ms

            """
        for k in SensorKind.allCases {
            guard let t = s.timing[k] else {
                out += k.rawValue.paddedWithSpaces(toLength: 16) + "absent\n"
                continue
            }
            out += k.rawValue.paddedWithSpaces(toLength: 16)
            out += String(
                printf: "%7d  %8.3f   %12.3f   %9.3f   %4d   %10.3f\n", t.count, t.rateHz, t.medianInterval * 1000,
                t.intervalStdDev * 1000, t.gaps, t.longestInterval * 1000)
        }
        out += "\nnorms at rest (\(s.restSamples) samples)\n"
        if let a = s.restNorms.accelerometer { out += "  accelerometer  \(f(a, 4)) m/s²\n" }
        if let g = s.restNorms.gyroscope { out += "  gyroscope      \(f(g, 5)) rad/s\n" }
        if let m = s.restNorms.magnetometer { out += "  magnetometer   \(f(m, 3))\n" }
        // Suspect whenever a warning says a unit looks wrong (with its reason), or proposes one.
        let reasons = s.warnings.filter { !$0.isNote }.compactMap(\.suspectUnits)
        let suspect = !reasons.isEmpty || s.warnings.contains { !$0.isNote && $0.message.contains("--units") }
        let found = s.warnings.contains { $0.isNote && $0.message.hasPrefix(UnitEvidence.notePrefix) }
        out +=
            "units         "
            + (suspect
                ? "suspect (\(reasons.isEmpty ? "" : reasons.joined(separator: "; ") + "; ")see warnings)"
                : found ? "plausible once read as the readings show (see notes)" : "plausible")
            + "\n"
        if let g = s.gyroscopeOffset {
            out += String(
                printf: "gyro offset   (%.3f, %.3f, %.3f) rad/s while still: calibrate it (see warnings)\n", g.offset.x,
                g.offset.y, g.offset.z)
        }
        out += "value faults  " + (faults.total == 0 ? "none" : "\(faults.total) (see warnings)") + "\n"
        if let m {
            out += String(
                printf:
                    "magnetometer  rejected on %.0f %% of samples by the default 9D filter (its on-line calibration: %@)\n",
                100 * m.use.share, "\(m.use.accuracy)")
            if m.use.clipped > 0 {
                out += String(
                    printf:
                        "mag clipped   %.0f %% of readings had an axis at the end of its range (not used): keep magnets away, or widen the range\n",
                    100 * m.use.clippedShare)
            }
            let h = m.fit.hardIron
            out +=
                m.fit.accuracy == .uncalibrated
                ? "mag fit       none (on-line calibration): the readings cover too few directions or fit no sphere or ellipsoid\n"
                : String(
                    printf:
                        "mag fit       %@ (on-line calibration; coverage %.2f of its direction cells, residual %.1f %%, hard iron %.3f, %.3f, %.3f)\n",
                    "\(m.fit.accuracy)", m.fit.coverage, 100 * m.fit.residual, h.x, h.y, h.z)
            out +=
                m.file.magnetometer != nil
                ? "mag file fit  determined: 'calibrate --sensors mag' writes it\n"
                : "mag file fit  none: 'calibrate --sensors mag' refuses this recording ("
                    + (m.file.warnings.last ?? "no fit") + ")\n"
        }
        return out + "\n"
    }
}

/// What `info` says of a recording's magnetometer: how the default 9D filter used it, and the
/// on-line calibration's fit over the whole recording's unclipped readings (its gyroscope-aided
/// part with the raw rates: a gyroscope bias turns each equation by the bias times that turn's
/// time, at most 3 s).
struct MagnetometerReport {
    var use: MagnetometerUse
    var fit = MagnetometerSelfCalibration()
    /// What `calibrate --sensors mag` fits from the recording (a calibration file needs the
    /// field's directions over the sphere, or the gyroscope's turns about every axis; the on-line
    /// calibration's levels need fewer). Its only warnings are the magnetometer's, the last the
    /// refusal's reason when it refused.
    var file: SensorCalibration

    init(_ trace: Trace, arbitraryUnits: Bool) {
        let samples = trace.samples
        file = SensorCalibration.fit(trace, sensors: [.magnetometer], magnetometerArbitrary: arbitraryUnits)
        use = MagnetometerUse(running: samples)
        var last: Double?
        var clipping = MagnetometerClipping()
        for s in samples {
            let dt = last.map { s.t - $0 } ?? 0
            if let m = s.magnetometer, m.isFinite, !clipping.observe(m, rate: s.gyroscope, dt: dt) {
                _ = fit.observe(m, rate: s.gyroscope, dt: dt)
            } else if s.gyroscope != nil {
                fit.rotate(rate: s.gyroscope, dt: dt)
            } else {
                continue
            }
            last = s.t
        }
    }
}
