import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings of `evaluate`.
struct EvaluateSettings {
    var truth: String?
    var input = InputSettings()
    var mode: FusionMode?
    var frame: EarthFrame?
    var declination: Double?
    var json = false
    var estimate = ""
}

/// `motionfusion evaluate`: the BROAD metric of estimates against ground truth.
enum EvaluateCommand {
    struct Row {
        var name: String
        var mode: FusionMode
        var result: AttitudeErrorMetric.Result
    }

    static let command = Command<EvaluateSettings>(
        name: "evaluate", summary: "Score estimates against ground truth with the BROAD metric",
        arguments: [("ESTIMATE", "an estimate file written by replay or reconstruct, or a folder of them")],
        options: [
            .text(
                "truth", value: "TRACE", "the trace with ground truth (a folder to match estimates by file name)",
                \.truth)
        ] + InputSettings.options.map { $0.lifted(\.input) } + [
            .choice(
                "mode",
                "6d removes a constant heading offset first (default: the estimate's own mode; 6d for a recording without a magnetometer)",
                \.mode),
            .choice(
                "frame",
                "earth frame the estimate was written in (default: the one its heading column shows, else enu)",
                \.frame),
            .number(
                "declination", value: "DEG",
                "the declination the estimate was written with, degrees east (as given to replay or reconstruct, or what 'motionfusion declination' gives for their location): its attitude is turned back to magnetic north, as the ground truth is (default: heading minus magnetic_heading of the file, else 0)",
                \.declination, in: -180...180),
            .flag("json", "print the scores as JSON", \.json),
        ],
        initial: EvaluateSettings(),
        finish: { s, positionals in
            try expectArguments(positionals, ["ESTIMATE"])
            s.estimate = positionals[0]
            guard s.truth != nil else { throw CommandLineError.usage("missing --truth TRACE") }
        },
        run: run)

    static func run(_ s: EvaluateSettings, _ output: ConsoleOutput) throws {
        try CommandLineError.rethrowing {
            try OutputTarget.checkStandardOutput(protecting: InputFiles([s.estimate, s.truth!]))
        }
        let pairs = try matchPairs(s.estimate, s.truth!, s.input.format)
        var rows = [Row]()
        var failures = 0
        for (name, est, truthPath) in pairs {
            do {
                let trace = try s.input.open(truthPath).readTrace()
                var estimate = try EstimateReader.read(path: est, frame: s.frame)
                let declination = try reference(of: estimate, est, s, output)
                if declination != 0 {
                    // Written referenced to true north (OutputReference): undo it.
                    let back = OutputReference.trueNorthRotation(declinationDegrees: declination).conjugate
                    estimate.attitudes = estimate.attitudes.map { $0.map { (back * $0).normalized } }
                }
                for w in estimate.faults.warnings { output.err("\(w)\n") }
                let hasMagnetometer = trace.samples.contains { $0.magnetometer != nil }
                let mode = s.mode ?? estimate.mode ?? (hasMagnetometer ? .nineD : .sixD)
                if mode == .nineD && !hasMagnetometer {
                    output.err(
                        "\(truthPath): warning: scoring 9D (heading against north) although the recording has no magnetometer value; --mode 6d removes the arbitrary heading offset first\n"
                    )
                }
                let alignment = EstimateReader.alignment(estimate, to: trace)
                let timeline = mismatch(estimate, alignment, trace)
                guard let r = AttitudeErrorMetric.evaluate(estimates: alignment.attitudes, trace: trace, mode: mode)
                else {
                    throw CommandLineError.input(
                        "\(truthPath): no samples with ground truth (and moving = 1) to score\(timeline.map { " against \(est): \($0)" } ?? "")"
                    )
                }
                if let timeline {
                    output.err(
                        "\(est): warning: \(timeline), and \(r.samplesUsed) samples were scored: is it the estimate of \(truthPath)?\n"
                    )
                }
                rows.append(Row(name: name, mode: mode, result: r))
            } catch {
                let e = CommandLineError.from(error)
                if pairs.count == 1 { throw e }
                output.err("motionfusion evaluate: error: \(e.message)\n")
                failures += 1
            }
        }
        output.out(s.json ? jsonText(rows) + "\n" : table(rows))
        if failures > 0 { throw CommandLineError.input("\(failures) of \(pairs.count) pairs could not be scored") }
    }

    /// The declination an estimate file was written with, degrees east (0: magnetic north): the
    /// one `--declination` gives or the one the file shows. Its earth frame was settled on reading
    /// (`--frame`, else the one the file shows); a flag the file contradicts is an error, and what
    /// the file cannot show, and no flag gives, is assumed with a warning.
    static func reference(
        of estimate: EstimateReader.Estimates, _ path: String, _ s: EvaluateSettings, _ output: ConsoleOutput
    ) throws -> Double {
        if let given = s.frame, let shown = estimate.writtenFrame, given != shown {
            throw CommandLineError.input(
                "\(path): its quaternions give its heading column in the \(shown.rawValue) frame, not in \(given.rawValue) as --frame says: leave --frame out (or give --frame \(shown.rawValue))"
            )
        }
        if let given = s.declination, let shown = estimate.writtenDeclination,
            min((given - shown).wrappedTo360, (shown - given).wrappedTo360) > 0.01
        {
            throw CommandLineError.input(
                "\(path): its heading and magnetic_heading columns show it was written with a declination of \(String(printf: "%.4f", shown))°, not \(given)° as --declination says: leave --declination out"
            )
        }
        var assumed = [String]()
        if s.frame == nil && estimate.writtenFrame == nil {
            assumed.append("its earth frame (read as enu; give --frame ned or nwu if it was written in another)")
        }
        if s.declination == nil && estimate.writtenDeclination == nil {
            assumed.append(
                "its north reference (read as magnetic north; give --declination DEG if it was written referenced to true north)"
            )
        }
        if !assumed.isEmpty {
            output.err(
                "\(path): warning: the file has no heading and magnetic_heading columns agreeing with its quaternions (as replay and reconstruct write them) to show \(assumed.joined(separator: " or "))\n"
            )
        }
        return s.declination ?? estimate.writtenDeclination ?? 0
    }

    /// How an estimate's timeline fails to match the truth's, or nil when it covers the truth's
    /// time range and nearly every row falls on a truth sample.
    static func mismatch(_ estimate: EstimateReader.Estimates, _ alignment: EstimateReader.Alignment, _ trace: Trace)
        -> String?
    {
        let times = trace.samples.map(\.t).filter(\.isFinite)
        guard let first = times.min(), let last = times.max(), let from = estimate.t.min(), let to = estimate.t.max()
        else { return nil }
        // A resampled estimate's last instant may lie up to one of its intervals before the end.
        var steps = [Double]()
        for i in 1..<max(1, min(estimate.t.count, 1000)) { steps.append(estimate.t[i] - estimate.t[i - 1]) }
        let slack = 2 * alignment.tolerance + (UnitCheck.median(steps.filter { $0 > 0 }) ?? 0)
        let covers = from <= first + slack && to >= last - slack
        // A resampled estimate matches as well: each of its instants lies near some truth sample.
        let rows = estimate.t.count
        guard !covers || alignment.matchedRows * 10 < rows * 9 else { return nil }
        func span(_ a: Double, _ b: Double) -> String { String(printf: "t = %.3f…%.3f s", a, b) }
        return
            "its rows span \(span(from, to)) and the truth's samples \(span(first, last)); \(alignment.matchedRows) of its \(rows) rows fall on a ground-truth sample (within \(String(printf: "%.4g", alignment.tolerance)) s)"
    }

    /// Pairs of (name, estimate file, truth trace): a single pair, or files matched by name in two folders.
    static func matchPairs(_ estimate: String, _ truth: String, _ format: TraceFormat?) throws -> [(
        String, String, String
    )] {
        var isDir = false
        guard FileManager.default.fileExists(atPath: estimate, isDirectory: &isDir) else {
            throw CommandLineError.input("\(estimate): no such file or folder")
        }
        if !isDir { return [(PathText.name(estimate), estimate, truth)] }
        let truths = try TraceInputs.expand(truth, format: format)
        var pairs = [(String, String, String)]()
        for (t, name) in zip(truths, FolderPlan.outputNames(truths)) {
            let stem = PathText.stem(name)
            let candidates = [name, stem + ".estimate.csv"].map { PathText.join(estimate, $0) }
            if let e = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
                pairs.append((stem, e, t))
            }
        }
        guard !pairs.isEmpty else {
            throw CommandLineError.input("no estimate in \(estimate) matches a trace in \(truth) by name")
        }
        return pairs
    }

    static func object(_ r: AttitudeErrorMetric.Result, _ mode: FusionMode) -> [String: JSONValue] {
        [
            "total_rmse_deg": .number(r.totalRMSE), "heading_rmse_deg": .number(r.headingRMSE),
            "inclination_rmse_deg": .number(r.inclinationRMSE), "samples_used": .integer(r.samplesUsed),
            "heading_offset_deg": .number(r.headingOffset), "mode": .string(mode.rawValue),
        ]
    }

    static func jsonText(_ rows: [Row]) -> String {
        guard rows.count != 1 else { return JSONValue.object(object(rows[0].result, rows[0].mode)).text }
        var top = mean(rows).map { object($0, rows[0].mode) } ?? [:]
        top["traces"] = .array(
            rows.map { row in
                var o = object(row.result, row.mode)
                o["trace"] = .string(row.name)
                return .object(o)
            })
        return JSONValue.object(top).text
    }

    static func mean(_ rows: [Row]) -> AttitudeErrorMetric.Result? {
        guard !rows.isEmpty else { return nil }
        let n = Double(rows.count)
        return AttitudeErrorMetric.Result(
            totalRMSE: rows.map(\.result.totalRMSE).reduce(0, +) / n,
            headingRMSE: rows.map(\.result.headingRMSE).reduce(0, +) / n,
            inclinationRMSE: rows.map(\.result.inclinationRMSE).reduce(0, +) / n,
            samplesUsed: rows.map(\.result.samplesUsed).reduce(0, +), headingOffset: 0)
    }

    static func table(_ rows: [Row]) -> String {
        let width = max(5, rows.map(\.name.count).max() ?? 0)
        func pad(_ s: String) -> String { s.paddedWithSpaces(toLength: width) }
        var out = pad("trace") + "   total °  heading °  inclination °  samples  mode\n"
        func line(_ name: String, _ r: AttitudeErrorMetric.Result, _ mode: String) -> String {
            pad(name)
                + String(
                    printf: "  %8.3f  %9.3f  %13.3f  %7d  %@\n", r.totalRMSE, r.headingRMSE, r.inclinationRMSE,
                    r.samplesUsed, mode)
        }
        for r in rows { out += line(r.name, r.result, r.mode.rawValue) }
        if rows.count > 1, let m = mean(rows) { out += line("mean", m, "") }
        return out
    }
}
