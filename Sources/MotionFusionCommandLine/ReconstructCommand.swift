import MotionFusion

/// `motionfusion reconstruct`: the best attitude a whole recording allows, offline.
enum ReconstructCommand {
    static let command = TraceRunCommand.command(
        name: "reconstruct", summary: "Best offline attitude of a whole recording, using past and future samples",
        filters: false,
        extra: [
            .choice(
                "method",
                "batch: robust MAP estimate of the whole recording over banded LAPACK (default); smoother: forward-backward EKF",
                \.method),
            Option(
                "report", value: "FILE.html", "also write a self-contained HTML report with charts and robust weights"
            ) { s, v in
                s.report = v
            },
            Option(
                "calibrate-mag", value: "CAL.json",
                "write the magnetometer calibration as a calibrate-compatible file: the hard and soft iron fitted with the attitude (batch, 9D; done by default when the readings show iron errors), else the ellipsoid fit of the readings"
            ) { s, v in s.calibrateMagnetometer = v },
        ], uncertainty: { _ in true }, job: reconstruct)

    /// Reconstructs the trace (memory bounded by the estimator's windows, whatever the length),
    /// resampled when an output rate is set, with a progress bar on a terminal.
    static func reconstruct(
        _ reader: SampleReader, _ run: RunConfiguration, _ settings: TraceRunSettings, _ sink: EstimateSink,
        _ console: ConsoleOutput
    ) throws -> Int {
        let calibrate = settings.calibrateMagnetometer != nil
        let method = settings.method ?? .default
        if calibrate && (method != .batch || run.mode != .nineD) {
            throw CommandLineError.usage("--calibrate-mag needs the batch method in 9D with a magnetometer")
        }
        var samples = 0
        var firstTime = Double.infinity
        sink.offline = true
        let bar = ProgressBar(console)
        let result = try CommandLineError.rethrowing {
            try run.reconstruct(
                method: method, batch: settings.run.batch,
                next: {
                    guard let s = try reader.next() else { return nil }
                    samples += 1
                    if s.t.isFinite && s.t < firstTime { firstTime = s.t }
                    if samples & 0xFFFF == 0, let f = reader.progress { bar.show(f) }
                    return s
                }
            ) { r in
                sink.magnetometerUse.add(r.estimate, r.input)
                try sink.add(
                    r.estimate, r.input, accelerometerWeight: r.accelerometerWeight.isNaN ? nil : r.accelerometerWeight,
                    magnetometerWeight: r.magnetometerWeight.isNaN ? nil : r.magnetometerWeight)
            }
        }
        bar.finish()
        if let st = result.statistics, st.failedWindows > 0 {
            console.err(
                "\(reader.description.source): warning: the normal equations of \(st.failedWindows) of \(st.windows) windows could not be solved (\(st.firstFailure ?? "unknown cause")); their samples keep the initialising smoother's attitude. 'reconstruct --method smoother' runs without band solves\n"
            )
        }
        if let st = result.statistics, st.jointCalibrationStart != nil, st.calibrationAxisUnknown {
            console.err(
                "\(reader.description.source): note: the magnetometer's hard iron was estimated from the gyroscope's turns, which were about one axis only: they cannot tell the hard iron along that axis, so unless that axis was vertical the heading may be off by as much as that offset turns the field (tens of degrees near a magnet or a car's iron). Record the device turning about other axes too, fit it with 'motionfusion calibrate REC --sensors mag --output CAL.json', and pass --calibration CAL.json\n"
            )
        } else if let st = result.statistics, let start = st.jointCalibrationStart {
            let ratio =
                st.calibrationImprovement.map {
                    String(printf: " (its fit makes the field strength %.1f× steadier than the raw readings)", $0)
                } ?? ""
            console.err(
                "\(reader.description.source): note: the magnetometer's hard and soft iron were estimated with the attitude from t = \(String(printf: "%.1f", start)) s on\(ratio)\(start > firstTime ? "; the samples before it used the raw readings" : ""). Write the calibration with --calibrate-mag CAL.json and pass it to reconstruct with --calibration CAL.json\(start > firstTime ? " (then every sample uses it)" : "")\n"
            )
        }
        if let st = result.statistics, st.jointCalibrationStart == nil, let problem = st.calibrationProblem,
            let spread = st.rawStrengthSpread, spread > Self.uncalibratedSpread
        {
            console.err(
                "\(reader.description.source): warning: the magnetometer's strength varies by \(Int((100 * spread).rounded())) % (standard deviation) as the device turns, where a calibrated one away from iron stays within a few percent, and these readings determine no calibration (\(problem)): the heading rests on the readings the robust weights accept and on the gyroscope, and may be off by tens of degrees. Record the device turning through all orientations, fit it with 'motionfusion calibrate REC --sensors mag --output CAL.json', and pass --calibration CAL.json\n"
            )
        }
        if let target = settings.calibrationTarget {
            guard let fitted = result.magnetometerCalibration else {
                // The attitude is still written; only the calibration file is missing.
                let why = result.statistics?.calibrationProblem.map { ": \($0)" } ?? ""
                sink.failureAfterOutput = CommandLineError.input(
                    "\(reader.description.source): the magnetometer calibration could not be determined from this recording\(why); the attitude was written, \(target.given) was not"
                )
                return samples
            }
            var c = SensorCalibration()
            c.magnetometer = fitted
            try CommandLineError.rethrowing {
                let file = try target.open()
                try file.write(c.json)
                try file.commit()
            }
            // Without a joint calibration the file holds the readings' own fit, which this run did
            // not apply (the raw readings were as steady as it makes them).
            let applied = result.statistics?.jointCalibrationStart != nil
            console.err(
                "magnetometer calibration written to \(target.given)"
                    + (applied
                        ? "\n"
                        : " (the ellipsoid fit of the readings, not applied here: they were already nearly as steady)\n")
            )
        }
        return samples
    }
}

extension ReconstructCommand {
    /// Spread of the raw field strength (standard deviation over mean) beyond which an
    /// uncalibrated magnetometer is named when its readings determine no calibration.
    static let uncalibratedSpread = 0.1
}

/// A progress bar on a terminal's standard error (nothing elsewhere): one trace's fraction read
/// here, the traces done in a folder run (``FolderRunner``).
final class ProgressBar {
    let draw: ((String) -> Void)?
    var shown = false

    init(_ console: ConsoleOutput) { draw = console.progress }

    /// Characters in the bar.
    static let width = 30

    /// The line drawn over the previous one: `[####......]` with `filled` of ``width`` filled.
    static func line(filled: Int) -> String {
        "\r\u{1B}[K[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
    }

    func show(_ fraction: Double) {
        guard let draw else { return }
        let filled = Int((Double(Self.width) * min(1, max(0, fraction))).rounded(.down))
        draw(Self.line(filled: filled) + " " + String(Int((fraction * 100).rounded())) + " %")
        shown = true
    }

    func finish() {
        if shown { draw?("\r\u{1B}[K") }
    }
}
