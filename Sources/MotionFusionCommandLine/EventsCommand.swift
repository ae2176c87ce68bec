import Foundation
import MotionFusion

/// `motionfusion events TRACE [--json] [--shake-threshold M/S2] [--format NAME]`.
enum EventsCommand {
    static let usage = "motionfusion events TRACE [--json] [--shake-threshold M/S2] [--format NAME]"

    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(arguments, valueOptions: ["shake-threshold", "format"], flagOptions: ["json"])
        let path = try args.single("TRACE")
        let format = try args.choice("format", TraceFormat.allCases.map(\.rawValue)).flatMap(
            TraceFormat.init(rawValue:))
        var detector = MotionEventDetector()
        if let th = try args.double("shake-threshold") {
            guard th > 0 else { throw CommandLineError.usage("--shake-threshold must be positive (m/s²)") }
            detector.shake.threshold = th
        }
        let trace: Trace
        do {
            trace = try TraceFormat.load(path: path, format: format)
        } catch let e as TraceError {
            throw CommandLineError.input(e.description)
        }
        guard trace.has(.accelerometer) else {
            throw CommandLineError.input("\(path): no accelerometer readings: no events to detect")
        }
        for w in trace.warnings { output.err("\(w)\n") }
        let json = args.flags.contains("json")
        if !json { output.out("     t (s)  event\n") }
        for e in detector.events(trace.samples) {
            let (name, orientation): (String, String?) = {
                switch e.kind {
                case .orientation(let o): return ("orientation", o.rawValue)
                case .shakeStart: return ("shake_start", nil)
                case .shakeEnd: return ("shake_end", nil)
                }
            }()
            if json {
                var object: [String: Any] = ["t": e.t, "event": name]
                if let orientation { object["orientation"] = orientation }
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                output.out(String(decoding: data, as: UTF8.self) + "\n")
            } else {
                output.out(String(format: "%10.3f  %@%@\n", e.t, name, orientation.map { " " + $0 } ?? ""))
            }
        }
    }
}

/// `motionfusion calibrate TRACE --output CAL.json [--format NAME]`.
enum CalibrateCommand {
    static let usage = "motionfusion calibrate TRACE --output CAL.json [--format NAME]"

    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(arguments, valueOptions: ["output", "format"], flagOptions: [])
        let path = try args.single("TRACE")
        guard let out = args.values["output"] else { throw CommandLineError.usage("missing --output CAL.json") }
        let format = try args.choice("format", TraceFormat.allCases.map(\.rawValue)).flatMap(
            TraceFormat.init(rawValue:))
        let trace: Trace
        do {
            trace = try TraceFormat.load(path: path, format: format)
        } catch let e as TraceError {
            throw CommandLineError.input(e.description)
        }
        let cal = SensorCalibration.fit(trace)
        for w in cal.warnings { output.err("warning: \(w)\n") }
        guard cal.magnetometer != nil || cal.gyroscopeBias != nil || cal.accelerometer != nil else {
            throw CommandLineError.input("\(path): nothing could be calibrated (see the warnings)")
        }
        if out == "-" {
            output.out(cal.json)
        } else {
            do {
                try AtomicFile.write(Data(cal.json.utf8), to: out)
            } catch {
                throw CommandLineError.input("\(out): cannot write calibration: \(error.localizedDescription)")
            }
        }
        if let m = cal.magnetometer {
            output.err(
                String(
                    format:
                        "magnetometer: hard iron (%.2f, %.2f, %.2f) µT, field %.2f µT, residual %.3f µT, coverage %.0f%%\n",
                    m.hardIron.x, m.hardIron.y, m.hardIron.z, m.fieldStrength, m.residual, m.coverage * 100))
        }
        if let b = cal.gyroscopeBias {
            output.err(
                String(
                    format: "gyroscope: bias (%.5f, %.5f, %.5f) rad/s from %d rest samples\n", b.x, b.y, b.z,
                    cal.gyroscopeRestSamples))
        }
        if let a = cal.accelerometer {
            output.err(
                String(
                    format: "accelerometer: bias (%.4f, %.4f, %.4f) m/s², scale (%.5f, %.5f, %.5f), %d poses\n",
                    a.bias.x, a.bias.y,
                    a.bias.z, a.scale.x, a.scale.y, a.scale.z, a.poses))
        }
    }
}
