import Dispatch
import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs one job per trace of a folder on all cores, with a progress bar on a terminal, and prints a
/// summary table. Every trace gets its own output name (made distinct when two inputs map to the
/// same one, and the mapping printed) and its own temporary file; every output is checked against
/// the inputs before anything runs. A failing trace is reported and does not stop the others.
public enum FolderRunner {
    struct Outcome {
        var name: String
        var samples: Int
        var score: AttitudeErrorMetric.Result?
        var error: String?
        var seconds: Double
    }

    /// Output names for `inputs`: the input's name without its extension, plus `.csv`; when two
    /// inputs share a name, the later ones get `-2`, `-3`, ….
    static func outputNames(_ inputs: [String]) -> [String] {
        var used = Set<String>()
        return inputs.map { input in
            var stem = PathText.name(input)
            let ext = PathText.fileExtension(stem)
            if ["csv", "txt", "tsv", "zip"].contains(ext) { stem = PathText.stem(stem) }
            var name = stem + ".csv"
            var k = 2
            while used.contains(name.lowercased()) {
                name = "\(stem)-\(k).csv"
                k += 1
            }
            used.insert(name.lowercased())
            return name
        }
    }

    /// What a folder run writes: every trace's output, resolved and checked against every input
    /// before anything runs, and the notices of outputs renamed because two traces share a name.
    public struct Plan {
        /// The traces, in order.
        public var inputs: [String]
        /// The output of each trace.
        public var outputs: [OutputTarget]
        /// `INPUT -> NAME (another trace has the same name)`, printed before the run.
        public var renamed: [String]
    }

    /// Plans the run of `inputs` (the traces of the folder `source`) into `outputFolder`, creating
    /// the folder when missing; refuses a missing or file `outputFolder` and any output that is an
    /// input (below `source`, or one of `extraInputs`). The one plan of `replay`/`reconstruct` and
    /// of the C ABI's `mf_folder_plan`.
    public static func plan(_ inputs: [String], from source: String, outputFolder: String?, extraInputs: [String])
        throws -> Plan
    {
        guard let folder = outputFolder, folder != "-" else {
            throw CommandLineError.usage("a folder of traces needs --output FOLDER (one estimate file per trace)")
        }
        var isDir = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), !isDir {
            throw CommandLineError.usage("\(folder): is a file; a folder of traces needs --output FOLDER")
        }
        let protected = InputFiles([source] + extraInputs)
        let names = outputNames(inputs)
        if !isDir {
            // A new folder holds no input, so nothing in it can collide with one.
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch let error as CocoaError {
                // The words Foundation's `localizedDescription` gave this error.
                throw CommandLineError.input(
                    "\(folder): cannot create output folder: The operation could not be completed. (NSCocoaErrorDomain error \(error.code.rawValue).)"
                )
            } catch {
                throw CommandLineError.input("\(folder): cannot create output folder: \(error)")
            }
        }
        // Every output is resolved, and checked against every input, before anything is written.
        let targets = try names.map { name in
            try CommandLineError.rethrowing {
                try OutputTarget.resolve(PathText.join(folder, name), protecting: protected)
            }
        }
        let renamed = zip(inputs, names).filter { input, name in name != outputNames([input])[0] }.map {
            input, name in "\(input) -> \(name) (another trace has the same name)"
        }
        return Plan(inputs: inputs, outputs: targets, renamed: renamed)
    }

    /// Processes every trace of `inputs` (from the folder `source`) into `outputFolder`, prints the
    /// summary, and fails (after finishing the others) when any trace failed.
    static func process(
        _ inputs: [String], from source: String, outputFolder: String?, input settings: InputSettings = InputSettings(),
        extraInputs: [String] = [], _ console: ConsoleOutput,
        job: @escaping (SampleReader, OutputTarget, ConsoleOutput) throws -> TraceOutcome
    ) throws {
        let plan = try Self.plan(inputs, from: source, outputFolder: outputFolder, extraInputs: extraInputs)
        for note in plan.renamed { console.err(note + "\n") }
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
