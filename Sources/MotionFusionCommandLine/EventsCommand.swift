import Glibc
import MotionFusion

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings of `events`.
struct EventsSettings {
    var input = InputSettings()
    var json = false
    var shakeThreshold: Double?
    var trace = ""
}

/// `motionfusion events`: device-orientation changes and shakes.
enum EventsCommand {
    static let command = Command<EventsSettings>(
        name: "events", summary: "Device-orientation changes and shakes, timestamped",
        arguments: [("TRACE", "a trace file, a recording folder or .zip, or - for standard input")],
        options: InputSettings.options.map { $0.lifted(\.input) } + [
            .flag("json", "print one JSON object per event", \.json),
            .number(
                "shake-threshold", value: "M/S2",
                "user acceleration that counts as a shake swing, m/s² (default \(fmt(ShakeDetector.Parameters().threshold)))",
                \.shakeThreshold, in: 0.001...10_000),
        ],
        initial: EventsSettings(),
        finish: { s, positionals in
            try expectArguments(positionals, ["TRACE"])
            s.trace = positionals[0]
        },
        run: run)

    static func run(_ s: EventsSettings, _ output: ConsoleOutput) throws {
        try CommandLineError.rethrowing {
            try OutputTarget.checkStandardOutput(protecting: InputFiles([s.trace]))
        }
        var detector = MotionEventDetector()
        if let th = s.shakeThreshold { detector.shake.threshold = th }
        let reader = try s.input.openOne(s.trace, command: "events")
        let trace = try CommandLineError.rethrowing { try reader.readTrace() }
        guard trace.has(.accelerometer) else {
            throw CommandLineError.input("\(s.trace): no accelerometer readings: no events to detect")
        }
        for w in trace.warnings { output.err("\(w)\n") }
        if !s.json { output.out("     t (s)  event\n") }
        for e in detector.events(trace.samples) {
            let (name, orientation): (String, String?) = {
                switch e.kind {
                case .orientation(let o): return ("orientation", o.rawValue)
                case .shakeStart: return ("shake_start", nil)
                case .shakeEnd: return ("shake_end", nil)
                }
            }()
            if s.json {
                var object: [String: JSONValue] = ["t": .number(e.t), "event": .string(name)]
                if let orientation { object["orientation"] = .string(orientation) }
                output.out(JSONValue.object(object).text + "\n")
            } else {
                output.out(String(printf: "%10.3f  %@%@\n", e.t, name, orientation.map { " " + $0 } ?? ""))
            }
        }
    }
}

/// The settings of `calibrate`.
struct CalibrateSettings {
    var input = InputSettings()
    var output: String?
    var sensors: Set<SensorKind>?
    var trace = ""
}

/// `motionfusion calibrate`: magnetometer hard and soft iron, gyroscope bias, accelerometer.
enum CalibrateCommand {
    static let command = Command<CalibrateSettings>(
        name: "calibrate", summary: "Fit magnetometer hard/soft iron, gyroscope bias and accelerometer scale/bias",
        arguments: [
            ("TRACE", "a recording that turns the device through all orientations (and rests), or - for standard input")
        ],
        options: InputSettings.options.map { $0.lifted(\.input) } + [
            Option("output", value: "CAL.json|-", "where to write the calibration (written atomically); required") {
                s, v in s.output = v
            },
            Option(
                "sensors", value: "mag,gyr,acc",
                "what to calibrate; a sensor asked for and not determinable is an error (default: the magnetometer, or the gyroscope without one; the others when determinable)"
            ) { s, v in
                var set = Set<SensorKind>()
                for part in v.split(separator: ",", omittingEmptySubsequences: false) {
                    let sensor: SensorKind
                    switch part.lowercased().trimmingSpaces {
                    case "mag", "magnetometer": sensor = .magnetometer
                    case "gyr", "gyro", "gyroscope": sensor = .gyroscope
                    case "acc", "accelerometer": sensor = .accelerometer
                    default: throw CommandLineError.usage("--sensors takes mag, gyr and acc, got '\(part)'")
                    }
                    guard set.insert(sensor).inserted else {
                        throw CommandLineError.usage("--sensors: '\(part)' is given twice")
                    }
                }
                s.sensors = set
            },
        ],
        initial: CalibrateSettings(),
        finish: { s, positionals in
            s.trace = try traceWithOutput(positionals, output: s.output, missing: "missing --output CAL.json")
        },
        run: run)

    static func run(_ s: CalibrateSettings, _ output: ConsoleOutput) throws {
        let target = try outputTarget(s.output!, reading: s.trace, output)
        let reader = try s.input.openOne(s.trace, command: "calibrate", arguments: ["--output", s.output!])
        let trace = try CommandLineError.rethrowing { try reader.readTrace() }
        for w in trace.warnings { output.err("\(w)\n") }
        let required = s.sensors ?? (trace.has(.magnetometer) ? [.magnetometer] : [.gyroscope])
        let cal = SensorCalibration.fit(
            trace, sensors: s.sensors ?? Set(SensorKind.allCases),
            magnetometerArbitrary: reader.description.magnetometerArbitrary)
        for w in cal.warnings { output.err("warning: \(w)\n") }
        let refused = required.intersection(cal.refusals)
        guard refused.isEmpty else {
            // What did fit, when the sensors were not chosen: the option that writes it alone.
            var fitted = [String]()
            if s.sensors == nil {
                if cal.gyroscopeBias != nil { fitted.append("gyr") }
                if cal.accelerometer != nil { fitted.append("acc") }
            }
            let others =
                fitted.isEmpty
                ? "" : "; '--sensors \(fitted.joined(separator: ","))' writes what did fit alone"
            throw CommandLineError.input(
                "\(s.trace): cannot calibrate the \(refused.map(\.rawValue).sorted().joined(separator: " and ")) from this recording (see the warnings); nothing written\(others)"
            )
        }
        try CommandLineError.rethrowing {
            let file = try target.open()
            try file.write(cal.json)
            try file.commit()
        }
        if let m = cal.magnetometer {
            output.err(
                String(
                    printf:
                        "magnetometer: hard iron (%.3g, %.3g, %.3g), field %.3g, residual %.2g (%.1f%%), coverage %.0f%%\n",
                    m.hardIron.x, m.hardIron.y, m.hardIron.z, m.fieldStrength, m.residual,
                    100 * m.residual / m.fieldStrength, m.coverage * 100))
        }
        if let b = cal.gyroscopeBias {
            output.err(
                String(
                    printf: "gyroscope: bias (%.5f, %.5f, %.5f) rad/s from %d rest samples\n", b.x, b.y, b.z,
                    cal.gyroscopeRestSamples))
        }
        if let a = cal.accelerometer {
            output.err(
                String(
                    printf: "accelerometer: bias (%.4f, %.4f, %.4f) m/s², scale (%.5f, %.5f, %.5f), %d poses\n",
                    a.bias.x,
                    a.bias.y, a.bias.z, a.scale.x, a.scale.y, a.scale.z, a.poses))
        }
    }
}
