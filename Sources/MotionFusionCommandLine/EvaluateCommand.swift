import Foundation
import MotionFusion

/// `motionfusion evaluate ESTIMATE --truth TRACE [--mode 6d|9d] [--frame F] [--json]`.
enum EvaluateCommand {
    static let usage = "motionfusion evaluate ESTIMATE --truth TRACE [--mode 6d|9d] [--frame enu|ned|nwu] [--json]"

    struct Row {
        var name: String
        var result: AttitudeErrorMetric.Result
    }

    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(arguments, valueOptions: ["truth", "mode", "frame"], flagOptions: ["json"])
        let estimatePath = try args.single("ESTIMATE")
        guard let truthPath = args.values["truth"] else { throw CommandLineError.usage("missing --truth TRACE") }
        let mode = FusionMode(rawValue: try args.choice("mode", ["6d", "9d"]) ?? "9d")!
        let frame = EarthFrame(rawValue: try args.choice("frame", EarthFrame.allCases.map(\.rawValue)) ?? "enu")!
        let json = args.flags.contains("json")
        let pairs = try matchPairs(estimatePath, truthPath)
        var rows = [Row]()
        var failures = 0
        for (name, est, truth) in pairs {
            do {
                let trace = try TraceFormat.load(path: truth)
                let estimate = try EstimateReader.read(path: est, frame: frame)
                let aligned = EstimateReader.align(estimate, to: trace)
                guard let r = AttitudeErrorMetric.evaluate(estimates: aligned, trace: trace, mode: mode) else {
                    throw CommandLineError.input("\(truth): no samples with ground truth (and moving = 1) to score")
                }
                rows.append(Row(name: name, result: r))
            } catch let e as CommandLineError {
                if pairs.count == 1 { throw e }
                output.err("motionfusion evaluate: error: \(e.message)\n")
                failures += 1
            } catch {
                if pairs.count == 1 { throw CommandLineError.input("\(error)") }
                output.err("motionfusion evaluate: error: \(error)\n")
                failures += 1
            }
        }
        if json {
            output.out(jsonText(rows, mode: mode) + "\n")
        } else {
            output.out(table(rows, mode: mode))
        }
        if failures > 0 { throw CommandLineError.input("\(failures) of \(pairs.count) pairs could not be scored") }
    }

    /// Pairs of (name, estimate file, truth trace): a single pair, or files matched by name in two folders.
    static func matchPairs(_ estimate: String, _ truth: String) throws -> [(String, String, String)] {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: estimate, isDirectory: &isDir) else {
            throw CommandLineError.input("\(estimate): no such file or folder")
        }
        if !isDir.boolValue { return [((estimate as NSString).lastPathComponent, estimate, truth)] }
        let truths = try TraceInputs.expand(truth, format: nil)
        var pairs = [(String, String, String)]()
        for t in truths {
            let stem = ((t as NSString).lastPathComponent as NSString).deletingPathExtension
            let candidates = [stem + ".csv", stem + ".estimate.csv"].map {
                (estimate as NSString).appendingPathComponent($0)
            }
            if let e = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) {
                pairs.append((stem, e, t))
            }
        }
        guard !pairs.isEmpty else {
            throw CommandLineError.input("no estimate in \(estimate) matches a trace in \(truth) by name")
        }
        return pairs
    }

    static func jsonText(_ rows: [Row], mode: FusionMode) -> String {
        func object(_ r: AttitudeErrorMetric.Result) -> [String: Any] {
            [
                "total_rmse_deg": r.totalRMSE, "heading_rmse_deg": r.headingRMSE,
                "inclination_rmse_deg": r.inclinationRMSE, "samples_used": r.samplesUsed,
                "heading_offset_deg": r.headingOffset, "mode": mode.rawValue,
            ]
        }
        var top: [String: Any]
        if rows.count == 1 {
            top = object(rows[0].result)
        } else {
            top = mean(rows).map(object) ?? [:]
            top["traces"] = rows.map { row -> [String: Any] in
                var o = object(row.result)
                o["trace"] = row.name
                return o
            }
        }
        let data = try! JSONSerialization.data(withJSONObject: top, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
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

    static func table(_ rows: [Row], mode: FusionMode) -> String {
        let width = max(5, rows.map(\.name.count).max() ?? 0)
        func pad(_ s: String) -> String { s.padding(toLength: width, withPad: " ", startingAt: 0) }
        var out = pad("trace") + "   total °  heading °  inclination °  samples  (\(mode.rawValue))\n"
        func line(_ name: String, _ r: AttitudeErrorMetric.Result) -> String {
            pad(name)
                + String(
                    format: "  %8.3f  %9.3f  %13.3f  %7d\n", r.totalRMSE, r.headingRMSE, r.inclinationRMSE,
                    r.samplesUsed)
        }
        for r in rows { out += line(r.name, r.result) }
        if rows.count > 1, let m = mean(rows) { out += line("mean", m) }
        return out
    }
}
