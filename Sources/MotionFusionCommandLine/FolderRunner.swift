import Foundation
import Glibc
import MotionFusion

/// Runs one job per trace of a folder on all cores, with a progress bar on stderr (only when stderr
/// is a terminal), and collects per-trace results. A failing trace is reported and does not stop
/// the others.
enum FolderRunner {
    struct Outcome {
        var name: String
        var samples: Int
        var score: AttitudeErrorMetric.Result?
        var error: String?
        var seconds: Double
    }

    static func run(
        _ paths: [String], _ output: ConsoleOutput, job: @escaping (String) throws -> (Int, AttitudeErrorMetric.Result?)
    )
        -> [Outcome]
    {
        var outcomes = [Outcome?](repeating: nil, count: paths.count)
        let lock = NSLock()
        var done = 0
        let showProgress = isatty(2) != 0
        DispatchQueue.concurrentPerform(iterations: paths.count) { i in
            let name = ((paths[i] as NSString).lastPathComponent as NSString).deletingPathExtension
            let start = Date()
            var outcome: Outcome
            do {
                let (n, score) = try job(paths[i])
                outcome = Outcome(
                    name: name, samples: n, score: score, error: nil, seconds: Date().timeIntervalSince(start))
            } catch let e as CommandLineError {
                outcome = Outcome(name: name, samples: 0, score: nil, error: e.message, seconds: 0)
            } catch {
                outcome = Outcome(name: name, samples: 0, score: nil, error: "\(error)", seconds: 0)
            }
            lock.lock()
            outcomes[i] = outcome
            done += 1
            if let e = outcome.error { output.err((showProgress ? "\r\u{1B}[K" : "") + "motionfusion: error: \(e)\n") }
            if showProgress {
                let width = 30
                let filled = width * done / paths.count
                output.err(
                    "\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                        + "] \(done)/\(paths.count)")
                if done == paths.count { output.err("\n") }
            }
            lock.unlock()
        }
        return outcomes.map { $0! }
    }

    /// Processes every trace of `inputs` into `folder/<name>.csv` with `job`, prints the summary
    /// table, and fails (after finishing the others) when any trace failed.
    static func processFolder(
        _ inputs: [String], format: TraceFormat?, outputFolder: String?, _ output: ConsoleOutput,
        job: @escaping (Trace, String) throws -> AttitudeErrorMetric.Result?
    ) throws {
        guard let folder = outputFolder, folder != "-" else {
            throw CommandLineError.usage("a folder of traces needs --output FOLDER (one estimate file per trace)")
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw CommandLineError.input("\(folder): cannot create output folder: \(error.localizedDescription)")
        }
        let outcomes = run(inputs, output) { input in
            let trace: Trace
            do {
                trace = try TraceFormat.load(path: input, format: format)
            } catch let e as TraceError {
                throw CommandLineError.input(e.description)
            }
            let name = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
            let score = try job(trace, (folder as NSString).appendingPathComponent(name + ".csv"))
            return (trace.samples.count, score)
        }
        output.out(summary(outcomes))
        let failed = outcomes.filter { $0.error != nil }.count
        if failed > 0 { throw CommandLineError.input("\(failed) of \(inputs.count) traces failed") }
    }

    /// The summary table: one row per trace, then the mean over the scored ones.
    static func summary(_ outcomes: [Outcome]) -> String {
        let width = max(5, outcomes.map(\.name.count).max() ?? 0)
        func pad(_ s: String) -> String { s.padding(toLength: width, withPad: " ", startingAt: 0) }
        var out = pad("trace") + "   samples   total °  heading °  inclination °   time s\n"
        var scored = [AttitudeErrorMetric.Result]()
        for o in outcomes {
            if let e = o.error {
                out += pad(o.name) + "   FAILED: \(e)\n"
                continue
            }
            if let s = o.score {
                scored.append(s)
                out +=
                    pad(o.name)
                    + String(
                        format: "  %8d  %8.3f  %9.3f  %13.3f  %7.2f\n", o.samples, s.totalRMSE, s.headingRMSE,
                        s.inclinationRMSE, o.seconds)
            } else {
                out +=
                    pad(o.name) + String(format: "  %8d  %8@  %9@  %13@  %7.2f\n", o.samples, "–", "–", "–", o.seconds)
            }
        }
        if !scored.isEmpty {
            let n = Double(scored.count)
            out +=
                pad("mean")
                + String(
                    format: "  %8d  %8.3f  %9.3f  %13.3f\n", outcomes.map(\.samples).reduce(0, +),
                    scored.map(\.totalRMSE).reduce(0, +) / n, scored.map(\.headingRMSE).reduce(0, +) / n,
                    scored.map(\.inclinationRMSE).reduce(0, +) / n)
        }
        return out
    }
}
