import Dispatch
import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs one job per trace of a folder on all cores, with a progress bar on a terminal, and prints a
/// summary table. The outputs are the library's ``FolderPlan``: every trace gets its own output name
/// (made distinct when two inputs map to the same one, and the mapping printed) and its own
/// temporary file; every output is checked against the inputs before anything runs. A failing trace is reported and does not stop the others.
public enum FolderRunner {
    struct Outcome {
        var name: String
        var samples: Int
        var score: AttitudeErrorMetric.Result?
        var error: String?
        var seconds: Double
    }

    /// Processes every trace of `inputs` (from the folder `source`) into `outputFolder`, prints the
    /// summary, and fails (after finishing the others) when any trace failed.
    static func process(
        _ inputs: [String], from source: String, outputFolder: String?, input settings: InputSettings = InputSettings(),
        extraInputs: [String] = [], _ console: ConsoleOutput,
        job: @escaping (SampleReader, OutputTarget, ConsoleOutput) throws -> TraceOutcome
    ) throws {
        let plan = try FolderPlan.make(inputs, from: source, outputFolder: outputFolder, extraInputs: extraInputs)
        for note in plan.notes { console.err(note + "\n") }
        let targets = plan.outputs
        let lock = Lock()
        // The jobs print through a lock and draw no progress of their own: the folder's bar is the one.
        var locked = console.with(
            out: { t in lock.withLock { console.out(t) } }, err: { t in lock.withLock { console.err(t) } })
        locked.progress = nil
        var outcomes = [Outcome?](repeating: nil, count: inputs.count)
        var done = 0
        DispatchQueue.concurrentPerform(iterations: inputs.count) { i in
            let start = Date()
            let name = PathText.stem(PathText.name(targets[i].given))
            var outcome: Outcome
            do {
                let reader = try settings.open(inputs[i])
                let r = try job(reader, targets[i], locked)
                outcome = Outcome(
                    name: name, samples: r.samples, score: r.score, error: nil, seconds: Date().timeIntervalSince(start)
                )
            } catch {
                outcome = Outcome(
                    name: name, samples: 0, score: nil, error: CommandLineError.from(error).message, seconds: 0)
            }
            lock.withLock {
                outcomes[i] = outcome
                done += 1
                if let e = outcome.error { console.err("\(inputs[i]): error: \(e)\n") }
                if let progress = console.progress {
                    progress(
                        ProgressBar.line(filled: ProgressBar.width * done / inputs.count) + " \(done)/\(inputs.count)"
                            + (done == inputs.count ? "\n" : ""))
                }
            }
        }
        let results = outcomes.compactMap { $0 }
        console.out(summary(results))
        let failed = results.filter { $0.error != nil }.count
        if failed > 0 { throw CommandLineError.input("\(failed) of \(inputs.count) traces failed") }
    }

    /// The summary table: one row per trace, then the mean over the scored ones.
    static func summary(_ outcomes: [Outcome]) -> String {
        let width = max(5, outcomes.map(\.name.count).max() ?? 0)
        func pad(_ s: String) -> String { s.paddedWithSpaces(toLength: width) }
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
                        printf: "  %8d  %8.3f  %9.3f  %13.3f  %7.2f\n", o.samples, s.totalRMSE, s.headingRMSE,
                        s.inclinationRMSE, o.seconds)
            } else {
                out +=
                    pad(o.name) + String(printf: "  %8d  %8@  %9@  %13@  %7.2f\n", o.samples, "–", "–", "–", o.seconds)
            }
        }
        if !scored.isEmpty {
            let n = Double(scored.count)
            out +=
                pad("mean")
                + String(
                    printf: "  %8d  %8.3f  %9.3f  %13.3f\n", outcomes.map(\.samples).reduce(0, +),
                    scored.map(\.totalRMSE).reduce(0, +) / n, scored.map(\.headingRMSE).reduce(0, +) / n,
                    scored.map(\.inclinationRMSE).reduce(0, +) / n)
        }
        return out
    }
}
