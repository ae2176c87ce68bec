import Foundation
import MotionFusion

/// `motionfusion info TRACE [--format NAME] [--json]`.
enum InfoCommand {
    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(arguments, valueOptions: ["format"], flagOptions: ["json"])
        let path = try args.single("TRACE")
        let format = try args.choice("format", TraceFormat.allCases.map(\.rawValue)).flatMap(
            TraceFormat.init(rawValue:))
        let paths = try TraceInputs.expand(path, format: format)
        var failures = 0
        for p in paths {
            do {
                let trace = try TraceFormat.load(path: p, format: format)
                let summary = TraceSummary(trace)
                if args.flags.contains("json") {
                    output.out(json(summary, source: p) + "\n")
                } else {
                    output.out(table(summary, source: p))
                }
                for w in trace.warnings { output.err("\(w)\n") }
            } catch let e as TraceError {
                if paths.count == 1 { throw CommandLineError.input(e.description) }
                output.err("motionfusion info: error: \(e)\n")
                failures += 1
            }
        }
        if failures > 0 { throw CommandLineError.input("\(failures) of \(paths.count) traces could not be read") }
    }

    static func round(_ v: Double, _ digits: Int) -> Double {
        let p = Double.pow10(digits)
        return (v * p).rounded() / p
    }

    static func json(_ s: TraceSummary, source: String) -> String {
        var rate = [String: Any]()
        var timing = [String: Any]()
        for (k, t) in s.timing {
            rate[k.rawValue] = round(t.rateHz, 4)
            timing[k.rawValue] = [
                "samples": t.count, "rate_hz": round(t.rateHz, 4), "median_interval_s": t.medianInterval,
                "jitter_s": t.intervalStdDev, "gaps": t.gaps, "longest_interval_s": t.longestInterval,
            ]
        }
        var norms = [String: Any]()
        if let a = s.restNorms.accelerometer { norms["accelerometer_m_s2"] = round(a, 5) }
        if let g = s.restNorms.gyroscope { norms["gyroscope_rad_s"] = round(g, 6) }
        if let m = s.restNorms.magnetometer { norms["magnetometer_ut"] = round(m, 4) }
        let object: [String: Any] = [
            "source": source, "format": s.format, "samples": s.samples, "duration_s": s.duration,
            "rate_hz": rate, "sensors": timing, "rest_norms": norms, "rest_samples": s.restSamples,
            "has_ground_truth": s.hasGroundTruth, "ground_truth_samples": s.groundTruthSamples,
            "warnings": s.warnings.map(\.message),
        ]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func table(_ s: TraceSummary, source: String) -> String {
        func f(_ v: Double, _ d: Int) -> String { String(format: "%.\(d)f", v) }
        var out = """
            trace         \(source)
            format        \(s.format)
            samples       \(s.samples)
            duration      \(f(s.duration, 3)) s
            ground truth  \(s.hasGroundTruth ? "yes (\(s.groundTruthSamples) samples)" : "no")

            sensor          samples   rate Hz   median dt ms   jitter ms   gaps   longest ms

            """
        for k in SensorKind.allCases {
            guard let t = s.timing[k] else {
                out += k.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0) + "absent\n"
                continue
            }
            out += k.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
            out += String(
                format: "%7d  %8.3f   %12.3f   %9.3f   %4d   %10.3f\n", t.count, t.rateHz, t.medianInterval * 1000,
                t.intervalStdDev * 1000, t.gaps, t.longestInterval * 1000)
        }
        out += "\nnorms at rest (\(s.restSamples) samples)\n"
        if let a = s.restNorms.accelerometer { out += "  accelerometer  \(f(a, 4)) m/s²\n" }
        if let g = s.restNorms.gyroscope { out += "  gyroscope      \(f(g, 5)) rad/s\n" }
        if let m = s.restNorms.magnetometer { out += "  magnetometer   \(f(m, 3)) µT\n" }
        out +=
            "units         "
            + (s.warnings.contains { $0.message.contains("looks like") } ? "suspect (see warnings)" : "plausible")
            + "\n"
        return out + "\n"
    }
}

extension Double {
    static func pow10(_ n: Int) -> Double {
        var r = 1.0
        for _ in 0..<n { r *= 10 }
        return r
    }
}

/// Expands a TRACE argument: a trace file or recording folder stays as is; a folder of traces
/// becomes its native `.csv` files and recording sub-folders, sorted.
enum TraceInputs {
    static func expand(_ path: String, format: TraceFormat?) throws -> [String] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw CommandLineError.input("\(path): no such file or folder")
        }
        if !isDir.boolValue { return [path] }
        if format != nil || (try? TraceFormat.detect(path: path)) != nil { return [path] }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        var result = [String]()
        for e in entries.sorted() {
            let p = (path as NSString).appendingPathComponent(e)
            var sub: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: p, isDirectory: &sub)
            if sub.boolValue {
                if (try? TraceFormat.detect(path: p)) != nil { result.append(p) }
            } else if e.lowercased().hasSuffix(".csv") {
                result.append(p)
            }
        }
        guard !result.isEmpty else { throw CommandLineError.input("\(path): folder holds no traces") }
        return result
    }
}
