import Foundation
import MotionFusion

// The accuracy matrix: every online filter in both modes, and VQF, on the BROAD dev trials and
// variants of them (rates, irregular timing, magnetometer units, gyroscope bias, late
// magnetometer), EuRoC, simulated sensor grades and a simulated pendulum; plus leave-one-group-out
// tuning on BROAD. Default parameters throughout. Run through `Benchmarks/accuracy/matrix.sh`.

#if DEBUG
    FileHandle.standardError.write(Foundation.Data("WARNING: built in DEBUG mode (slow). Use matrix.sh.\n".utf8))
#endif

var selected: Set<String>?
var filterKinds: [FilterKind] = [.ekf, .complementary, .mahony, .madgwick]
var runVQF = true
var runScenarios = false
var runReconstruct = false
var python = "Benchmarks/.venv/bin/python"
var vqfScript = "Benchmarks/accuracy/vqf_run.py"
var jsonPath: String?
var runLOGO = false
var perTrial: Set<String> = []
var statsFor: Set<String> = []
var breakdownFor: Set<String> = []

/// The filter kind `name`, or an error naming the kinds.
func filterKind(_ name: String, in option: String) -> FilterKind {
    guard let kind = FilterKind(rawValue: name) else {
        usageError(
            "unknown filter '\(name)' in \(option): \(FilterKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return kind
}

var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--conditions": selected = Set(args.removeFirst().split(separator: ",").map(String.init))
    case "--filters":
        filterKinds = args.removeFirst().split(separator: ",").map { filterKind(String($0), in: "--filters") }
    case "--no-vqf": runVQF = false
    case "--scenarios":
        // The scenario suite: the offline reconstruction and every filter kind but tilt, whose
        // heading stays put while the device turns.
        runScenarios = true
        runReconstruct = true
        filterKinds = FilterKind.allCases.filter { $0 != .tilt }
    case "--python": python = args.removeFirst()
    case "--vqf-script": vqfScript = args.removeFirst()
    case "--json": jsonPath = args.removeFirst()
    case "--logo": runLOGO = true
    case "--per-trial": perTrial.insert(args.removeFirst())
    case "--stats": statsFor.insert(args.removeFirst())
    case "--series":
        // --series CONDITION TRIAL FILTER|reconstruct MODE OUT.csv
        guard args.count >= 5 else { usageError("--series needs CONDITION TRIAL FILTER|reconstruct MODE OUT.csv") }
        try Series.write(condition: args[0], trial: args[1], estimator: args[2], mode: args[3], to: args[4])
        exit(0)
    case "--breakdown": breakdownFor.insert(args.removeFirst())
    case "--set":
        let kind = filterKind(args.removeFirst(), in: "--set")
        let object = try JSONSerialization.jsonObject(with: Foundation.Data(args.removeFirst().utf8))
        Overrides.json[kind] = object as? [String: Any]
    case "--check-pendulum":
        Pendulum.check()
        exit(0)
    case "--list":
        for c in Datasets.conditions + Datasets.scenarioConditions { print("\(c.name): \(c.description)") }
        exit(0)
    default:
        print(
            """
            usage: AccuracyMatrix [--conditions a,b,…] [--scenarios] [--filters ekf,complementary,mahony,madgwick] [--no-vqf]
                                  [--python PATH] [--vqf-script PATH] [--json OUT] [--logo] [--per-trial CONDITION] [--list]
                                  [--series CONDITION TRIAL FILTER|reconstruct MODE OUT.csv]
            """)
        exit(a == "--help" ? 0 : 2)
    }
}

/// Total RMSE (degrees) of `setup` on a trace.
func score(_ setup: FilterSetup, _ trace: Trace) -> Double {
    var run = RunConfiguration()
    run.filter = setup
    let q = run.attitudes(trace.samples)
    return AttitudeErrorMetric.evaluate(estimates: q, trace: trace, mode: setup.mode)?.totalRMSE ?? .nan
}

func parallelMap<T>(_ n: Int, _ body: (Int) -> T) -> [T] {
    var out = [T?](repeating: nil, count: n)
    let lock = NSLock()
    DispatchQueue.concurrentPerform(iterations: n) { i in
        let r = body(i)
        lock.lock()
        out[i] = r
        lock.unlock()
    }
    return out.map { $0! }
}

/// VQF's attitudes for every trial, through the Python package, scored here with the same metric.
func vqfResults(_ trials: [Trial]) -> [String: [AttitudeErrorMetric.Result?]] {
    let dir = NSTemporaryDirectory() + "motionfusion-accuracy-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for (i, trial) in trials.enumerated() {
        var rows = [Double]()
        rows.reserveCapacity(trial.trace.samples.count * 10)
        for s in trial.trace.samples {
            rows.append(s.t)
            for v in [s.gyroscope, s.accelerometer, s.magnetometer] {
                let x = v ?? Vector3(.nan, .nan, .nan)
                rows += [x.x, x.y, x.z]
            }
        }
        let data = rows.withUnsafeBufferPointer { Foundation.Data(buffer: $0) }
        _ = FileManager.default.createFile(atPath: "\(dir)/\(String(format: "%03d", i)).in.f64", contents: data)
    }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: python)
    p.arguments = [vqfScript, dir]
    try! p.run()
    p.waitUntilExit()
    guard p.terminationStatus == 0 else {
        FileHandle.standardError.write(Foundation.Data("vqf failed\n".utf8))
        return [:]
    }
    var out = ["vqf 9d": [AttitudeErrorMetric.Result?](), "vqf 6d": [AttitudeErrorMetric.Result?]()]
    for (i, trial) in trials.enumerated() {
        for mode in [FusionMode.nineD, .sixD] {
            let path = "\(dir)/\(String(format: "%03d", i)).vqf\(mode == .nineD ? 9 : 6).f64"
            guard let data = FileManager.default.contents(atPath: path) else {
                out["vqf \(mode.rawValue)"]!.append(nil)
                continue
            }
            let values = data.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
            let q = stride(from: 0, to: values.count, by: 4).map {
                Quaternion(w: values[$0], x: values[$0 + 1], y: values[$0 + 2], z: values[$0 + 3])
            }
            out["vqf \(mode.rawValue)"]!.append(
                AttitudeErrorMetric.evaluate(estimates: q, trace: trial.trace, mode: mode))
        }
    }
    return out
}

/// VQF's total RMSE per trial.
func vqfScores(_ trials: [Trial]) -> [String: [Double]] {
    vqfResults(trials).mapValues { $0.map { $0?.totalRMSE ?? .nan } }
}

struct ConditionResult: Codable {
    var condition: String
    var description: String
    var trials: [String]
    /// Column ("ekf 9d", "vqf 6d", …) → per-trial total RMSE, degrees (NaN: not applicable).
    var scores: [String: [Double]]
}

func columns() -> [String] {
    var c = [String]()
    for k in filterKinds {
        for m in [FusionMode.nineD, .sixD] where k.modes.contains(m) { c.append("\(k.rawValue) \(m.rawValue)") }
    }
    if runReconstruct { c += ["reconstruct 9d", "reconstruct 6d"] }
    if runVQF { c += ["vqf 9d", "vqf 6d"] }
    return c + ["gyro 9d", "gyro 6d"]
}

func mean(_ xs: [Double]) -> Double {
    let f = xs.filter { $0.isFinite }
    return f.isEmpty || f.count < xs.count ? .nan : f.reduce(0, +) / Double(f.count)
}

func cell(_ x: Double) -> String { x.isFinite ? String(format: "%.2f", x) : "–" }

func run(_ condition: Condition) throws -> ConditionResult {
    let started = Date()
    let trials = try condition.make()
    var scores = [String: [Double]]()
    for kind in filterKinds {
        for mode in [FusionMode.nineD, .sixD] {
            scores["\(kind.rawValue) \(mode.rawValue)"] = parallelMap(trials.count) { i in
                if mode == .nineD && !trials[i].hasMagnetometer || !kind.modes.contains(mode) { return .nan }
                return score(Overrides.setup(kind, mode), trials[i].trace)
            }
        }
    }
    if runReconstruct {
        for mode in [FusionMode.nineD, .sixD] {
            scores["reconstruct \(mode.rawValue)"] = parallelMap(trials.count) { i in
                if mode == .nineD && !trials[i].hasMagnetometer { return .nan }
                let q = reconstruction(trials[i].trace, mode: mode)
                if q.isEmpty { return .nan }
                return AttitudeErrorMetric.evaluate(estimates: q, trace: trials[i].trace, mode: mode)?.totalRMSE ?? .nan
            }
        }
    }
    for mode in [FusionMode.nineD, .sixD] {
        scores["gyro \(mode.rawValue)"] = parallelMap(trials.count) { i in
            AttitudeErrorMetric.evaluate(
                estimates: gyroscopeIntegration(trials[i].trace, bias: trials[i].gyroscopeBias ?? .zero),
                trace: trials[i].trace, mode: mode)?
                .totalRMSE ?? .nan
        }
    }
    if runVQF {
        var v = vqfScores(trials)
        for i in trials.indices where !trials[i].hasMagnetometer { v["vqf 9d"]?[i] = .nan }
        scores.merge(v) { a, _ in a }
    }
    FileHandle.standardError.write(
        Foundation.Data(String(format: "%@: %.1f s\n", condition.name, Date().timeIntervalSince(started)).utf8))
    return ConditionResult(
        condition: condition.name, description: condition.description, trials: trials.map(\.name), scores: scores)
}

for c in Datasets.conditions where statsFor.contains(c.name) {
    print("## \(c.name): motion statistics\n")
    print(
        "| trial | samples | median step ms | max step ms | RMS rate °/s | max rate °/s | RMS | |f| − g | m/s² | |m| 5 / 50 / 95 % |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for t in try c.make() {
        let s = t.trace.samples
        let steps = zip(s.dropFirst(), s).map { $0.t - $1.t }.sorted()
        let rates = s.compactMap { $0.gyroscope?.norm.degrees }
        let accs = s.compactMap { $0.accelerometer.map { $0.norm - standardGravity } }
        let mags = s.compactMap { $0.magnetometer?.norm }.sorted()
        func rms(_ x: [Double]) -> Double { (x.map { $0 * $0 }.reduce(0, +) / Double(max(1, x.count))).squareRoot() }
        print(
            "| \(t.name) | \(s.count) | "
                + String(
                    format: "%.2f | %.1f | %.1f | %.1f | %.2f | %.3g / %.3g / %.3g |", steps[steps.count / 2] * 1000,
                    steps.last! * 1000, rms(rates), rates.max() ?? 0, rms(accs),
                    mags.isEmpty ? .nan : mags[mags.count / 20], mags.isEmpty ? .nan : mags[mags.count / 2],
                    mags.isEmpty ? .nan : mags[mags.count * 19 / 20]))
    }
    print()
}

var results = [ConditionResult]()
for c in runScenarios ? Datasets.scenarioConditions : Datasets.conditions where selected?.contains(c.name) ?? true {
    results.append(try run(c))
}

let cols = columns()
print("## Mean total RMSE, degrees (BROAD metric; 6D removes a constant heading offset)\n")
print("| condition | trials | " + cols.joined(separator: " | ") + " |")
print("|---|---|" + String(repeating: "---|", count: cols.count))
for r in results {
    print(
        "| \(r.condition) | \(r.trials.count) | "
            + cols.map { cell(mean(r.scores[$0] ?? [])) }.joined(separator: " | ") + " |")
}
print()

// Variants of the dev trials against the original, trial by trial.
if let original = results.first(where: { $0.condition == "broad" }) {
    let variants = results.filter { r in
        r.condition != "broad" && Datasets.conditions.first { $0.name == r.condition }?.broadVariant == true
    }
    if !variants.isEmpty {
        print("## BROAD variants minus the original: mean difference / largest per-trial |difference|, degrees\n")
        print("| condition | " + cols.joined(separator: " | ") + " |")
        print("|---|" + String(repeating: "---|", count: cols.count))
        for r in variants {
            let cells = cols.map { c -> String in
                guard let a = original.scores[c], let b = r.scores[c] else { return "–" }
                let d = zip(b, a).map { $0 - $1 }
                let m = mean(d)
                guard m.isFinite else { return "–" }
                let worst = d.map(abs).max() ?? .nan
                return String(format: "%+.2f / %.2f", m, worst)
            }
            print("| \(r.condition) | " + cells.joined(separator: " | ") + " |")
        }
        print()
    }
}

for r in results where perTrial.contains(r.condition) {
    print("## \(r.condition), per trial\n")
    print("| trial | " + cols.joined(separator: " | ") + " |")
    print("|---|" + String(repeating: "---|", count: cols.count))
    for (i, name) in r.trials.enumerated() {
        print("| \(name) | " + cols.map { cell(r.scores[$0]?[i] ?? .nan) }.joined(separator: " | ") + " |")
    }
    print()
}

for c in Datasets.conditions where breakdownFor.contains(c.name) {
    print("## \(c.name): total / heading / inclination RMSE per trial, degrees\n")
    let trials = try c.make()
    let setups: [FilterSetup] = filterKinds.flatMap { k in [Overrides.setup(k, .nineD), Overrides.setup(k, .sixD)] }
    let vqf = runVQF ? vqfResults(trials) : [:]
    print(
        "| trial | " + setups.map { "\($0.kind.rawValue) \($0.mode.rawValue)" }.joined(separator: " | ")
            + (runVQF ? " | vqf 9d | vqf 6d" : "") + " |")
    print("|---|" + String(repeating: "---|", count: setups.count + (runVQF ? 2 : 0)))
    for t in trials {
        let cells = parallelMap(setups.count) { j -> String in
            if setups[j].mode == .nineD && !t.hasMagnetometer { return "–" }
            var run = RunConfiguration()
            run.filter = setups[j]
            let q = run.attitudes(t.trace.samples)
            guard let r = AttitudeErrorMetric.evaluate(estimates: q, trace: t.trace, mode: setups[j].mode) else {
                return "–"
            }
            return String(format: "%.2f / %.2f / %.2f", r.totalRMSE, r.headingRMSE, r.inclinationRMSE)
        }
        let i = trials.firstIndex { $0.name == t.name }!
        let v = ["vqf 9d", "vqf 6d"].compactMap { vqf[$0]?[i] }.map {
            $0.map { String(format: "%.2f / %.2f / %.2f", $0.totalRMSE, $0.headingRMSE, $0.inclinationRMSE) } ?? "–"
        }
        print("| \(t.name) | " + (cells + v).joined(separator: " | ") + " |")
    }
    print()
}

if runLOGO { try LeaveOneGroupOut.run() }

if let jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
        positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    try encoder.encode(results).write(to: URL(fileURLWithPath: jsonPath))
}
