import Foundation
import Glibc
import MotionFusion

// MotionFusion benchmarks: honest programs. Setup is outside the timed region, results are
// consumed, each figure is the median of repeated runs on one core (many traces at once: on every
// core).

#if DEBUG
    FileHandle.standardError.write(
        Data("WARNING: benchmarks built in DEBUG mode; figures are meaningless. Use Benchmarks/run.sh.\n".utf8))
#endif

var quick = false
var json = false
var tracePath: String?
var only: Set<String> = []
var scaleSamples: Int?
var scaleMethod = ReconstructionMethod.default
var longRunSamples: Int?
var once: (FilterKind, FusionMode)?
var dumpPath: String?
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--only":
        if !args.isEmpty { only.insert(args.removeFirst()) }
    case "--reconstruct-scale":
        if !args.isEmpty { scaleSamples = Int(args.removeFirst()) }
    case "--method":
        if !args.isEmpty, let m = ReconstructionMethod(rawValue: args.removeFirst()) { scaleMethod = m }
    case "--long-run":
        if !args.isEmpty { longRunSamples = Int(args.removeFirst()) }
    case "--once":
        // One filter over the trace, once: for instruction counts (valgrind), not for timing.
        if args.count >= 2, let k = FilterKind(rawValue: args[0]), let m = FusionMode(rawValue: args[1]) {
            once = (k, m)
            args.removeFirst(2)
        }
    case "--dump":
        // With --once: the attitudes, every bit (w, x, y, z as little-endian Double), to compare runs.
        if !args.isEmpty { dumpPath = args.removeFirst() }
    case "--quick": quick = true
    case "--json": json = true
    case "--help", "-h":
        print(
            "usage: Benchmarks/run.sh [--quick] [--json] [--only filters|many|parse|write|imports|replay|folder|memory] [--once KIND MODE [--dump FILE]] [TRACE]"
        )
        exit(0)
    default: tracePath = a
    }
}

func want(_ section: String) -> Bool { only.isEmpty || only.contains(section) }

/// Keeps values alive so the optimiser cannot drop the measured work.
var sink = 0.0
func consume(_ x: Double) { sink += x }

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

/// Median wall time (s) of `body` over `repeats` runs.
func time(repeats: Int, _ body: () -> Void) -> Double {
    var times = [Double]()
    for _ in 0..<repeats {
        let t0 = now()
        body()
        times.append(now() - t0)
    }
    return median(times)
}

func peakRSS() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}

func report(_ fields: [String: JSONValue], _ text: String) {
    print(json ? JSONValue.object(fields).text : text)
}

// MARK: Input trace

let sharedDefault =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    + "/shared/data/broad/21_undisturbed_fast_combined.csv"
if let tracePath, !FileManager.default.fileExists(atPath: tracePath) {
    // A trace named on the command line is measured or nothing is: a stand-in would give figures
    // for another input under its name.
    FileHandle.standardError.write(Data("MotionFusion benchmarks: error: \(tracePath) does not exist\n".utf8))
    exit(2)
}
var path = tracePath ?? sharedDefault
if !FileManager.default.fileExists(atPath: path) {
    // No shared data and no trace named: simulate a trace of the same size (55 000 samples at
    // 285.7 Hz), and say so.
    FileHandle.standardError.write(
        Data("MotionFusion benchmarks: warning: \(path) is absent; measuring a simulated trace of the same size\n".utf8)
    )
    var s = MotionSimulator.Settings()
    s.duration = 192.5
    s.rate = 2000.0 / 7
    path = NSTemporaryDirectory() + "motionfusion-bench-sim.csv"
    try! TraceWriter.write(MotionSimulator(settings: s).run(), to: path)
}
let trace = try! TraceFormat.load(path: path)
let n = trace.samples.count
let fileBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
if !json { print("MotionFusion benchmarks: \(path) (\(n) samples, \(fileBytes) bytes)\(quick ? ", quick" : "")\n") }
let repeats = quick ? 5 : 15

/// The input trace cycled (time shifted) to `total` samples, generated on the fly.
func cycled(_ total: Int) -> () -> SensorSample? {
    let base = trace.samples
    let period = base.last!.t - base.first!.t + (base[1].t - base[0].t)
    var i = 0
    return {
        guard i < total else { return nil }
        var s = base[i % base.count]
        s.t += Double(i / base.count) * period
        i += 1
        return s
    }
}

// MARK: One filter once (instruction counts)

if let (kind, mode) = once {
    // `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*RunConfigurationV9attitudes*'`
    // counts the filter alone (docs/Benchmarks.md): sample by sample, as `vqf` runs, without the
    // magnetometer look-ahead's per-file cost (measured on the `replay` command).
    var run = RunConfiguration(kind, mode: mode)
    run.magnetometerLookAhead = 0
    let q = run.attitudes(trace.samples)
    consume(q[q.count / 2].w)
    if let dumpPath {
        let bits = q.flatMap { [$0.w, $0.x, $0.y, $0.z] }
        try! bits.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: dumpPath))
    }
    print("\(kind.rawValue) \(mode.rawValue): \(n) samples, sink \(sink)")
    exit(0)
}

// MARK: Reconstruct scaling (run in its own process so peak memory is its own)

if let total = scaleSamples {
    var count = 0
    var acc = 0.0
    let t0 = now()
    // The library's offline entry point, as `reconstruct --method` runs it.
    try! RunConfiguration().reconstruct(method: scaleMethod, next: cycled(total)) { s in
        count += 1
        acc += s.estimate.attitude.w
    }
    let seconds = now() - t0
    consume(acc)
    report(
        [
            "benchmark": "reconstruct", "method": .string(scaleMethod.rawValue), "mode": "9d",
            "samples": .integer(count),
            "ns_per_sample": .number(seconds / Double(count) * 1e9), "seconds": .number(seconds),
            "peak_rss_bytes": .integer(peakRSS()),
        ],
        String(
            format: "reconstruct %-8@ %9d samples  %7.2f s  %6.0f ns/sample  peak RSS %6.1f MiB",
            scaleMethod.rawValue, count, seconds, seconds / Double(count) * 1e9, Double(peakRSS()) / 1048576))
    exit(0)
}

// MARK: Long runs: every filter over N samples, quaternion norm and memory checked

if let total = longRunSamples {
    struct LongRun: FilterVisitor {
        let total: Int
        func visit<F: AttitudeFilter>(_ filter: F) throws -> (Double, Int, Int, Double) {
            var runner = FilterRunner(filter)
            let next = cycled(total)
            var worst = 0.0
            var rssAtTenth = 0
            var i = 0
            let t0 = now()
            while let s = next() {
                _ = runner.step(s)
                let e = abs(runner.filter.attitude.norm - 1)
                if e > worst || !e.isFinite { worst = e.isFinite ? e : .infinity }
                if i == total / 10 { rssAtTenth = peakRSS() }
                i += 1
            }
            return (worst, rssAtTenth, peakRSS(), now() - t0)
        }
    }
    for kind in FilterKind.allCases {
        for mode in kind.modes {
            let r = try! FilterSetup(kind, mode: mode).withFilter(LongRun(total: total))
            report(
                [
                    "benchmark": "long_run", "filter": .string(kind.rawValue), "mode": .string(mode.rawValue),
                    "samples": .integer(total), "max_norm_error": .number(r.0),
                    "rss_at_10_percent_bytes": .integer(r.1),
                    "peak_rss_bytes": .integer(r.2), "seconds": .number(r.3),
                    "ns_per_sample": .number(r.3 / Double(total) * 1e9),
                ],
                String(
                    format: "long run %-14@ %@ %11d samples  max |‖q‖−1| %.1e  RSS %.1f → %.1f MiB  %.1f s",
                    kind.rawValue, mode.rawValue, total, r.0, Double(r.1) / 1048576, Double(r.2) / 1048576, r.3))
        }
    }
    exit(0)
}

// MARK: Memory of rejected inputs (the fuzzing findings)

/// Resident memory now, bytes (``peakRSS()`` is the high-water mark).
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}

if want("memory") {
    let dir = NSTemporaryDirectory() + "motionfusion-bench-rejected"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    // A `.zip` entry of one compressed byte whose directory claims 654 MB: refused from the
    // directory, so the high-water mark must not move by anything like the claim.
    let zipHex =
        "504b030414000000f8ff7e927e5de29a50a12b0000004600000011000000416363656c65726f6d657465722e63737653"
        + "0ac9cc4d55d028d654d2518a50d0c8d52f8e3402b12391d8517036b7810e085aea597019e81918c23900504b01023b03"
        + "14000000080089927e5de29a50a10100000000000027110000000000000000000000800100000000416363656c65726f"
        + "6d657465722e637376504b050600000000010001003f0000005a0000000000"
    let hexDigits = Array(zipHex.utf8)
    let zipBytes = stride(from: 0, to: hexDigits.count, by: 2).map {
        UInt8(String(decoding: hexDigits[$0...$0 + 1], as: UTF8.self), radix: 16)!
    }
    try! Data(zipBytes).write(to: URL(fileURLWithPath: dir + "/bomb.zip"))
    let peakBefore = peakRSS()
    _ = try? TraceFormat.load(path: dir + "/bomb.zip")
    let claimPeak = peakRSS() - peakBefore
    // Inputs rejected while their bytes were parsed: a phyphox file whose header names no time
    // column (its read buffer leaked), a native header without the columns it needs (scratch
    // buffers) and a calibration file that is not JSON. A leak grows resident memory with the count.
    let nul = String(repeating: "\u{0}", count: 64)
    try! (nul + "TimT" + nul + "\n1e19\n3e19").write(
        toFile: dir + "/Accelerometer.csv", atomically: true, encoding: .utf8)
    try! "t,foo\n0,1\n".write(toFile: dir + "/native.csv", atomically: true, encoding: .utf8)
    try! String(repeating: "x", count: 4000).write(toFile: dir + "/cal.json", atomically: true, encoding: .utf8)
    func churn(_ count: Int) {
        for _ in 0..<count {
            _ = try? TraceFormat.load(path: dir + "/Accelerometer.csv", format: .phyphox)
            _ = try? TraceFormat.load(path: dir + "/native.csv")
            _ = try? SensorCalibration(contentsOf: dir + "/cal.json")
        }
    }
    churn(2_000)  // warm up allocator caches
    let rejections = 20_000
    let before = residentBytes()
    churn(rejections)
    let grown = residentBytes() - before
    report(
        [
            "benchmark": "rejected_inputs", "zip_claim_bytes": 654_311_424,
            "zip_peak_growth_bytes": .integer(claimPeak),
            "rejections": .integer(3 * rejections), "resident_growth_bytes": .integer(grown),
        ],
        String(
            format:
                "\nrejected inputs: zip claiming 654 MB raised the peak by %.1f MiB; %d rejections grew RSS by %.1f MiB",
            Double(claimPeak) / 1048576, 3 * rejections, Double(grown) / 1048576))
}

// MARK: Filters

for kind in FilterKind.allCases where want("filters") {
    for mode in kind.modes {
        // The filter per sample, as `vqf` runs: no magnetometer look-ahead (a per-file cost).
        var run = RunConfiguration(kind, mode: mode)
        run.magnetometerLookAhead = 0
        let t = time(repeats: repeats) {
            let q = run.attitudes(trace.samples)
            consume(q[q.count / 2].w)
        }
        let ns = t / Double(n) * 1e9
        report(
            [
                "benchmark": "filter", "filter": .string(kind.rawValue), "mode": .string(mode.rawValue),
                "samples": .integer(n),
                "ns_per_sample": .number(ns), "samples_per_s": .number(Double(n) / t),
            ],
            String(
                format: "filter %-14@ %@  %8.1f ns/sample  %6.2f M samples/s", kind.rawValue, mode.rawValue, ns,
                Double(n) / t / 1e6))
    }
}

// MARK: Many traces at once

if want("many") {
    // Eight different traces: the trace from eight starting points (lengths n down to 9n/16), as
    // caller-owned arrays, struct of arrays: what C `mf_replay_many` and Python `replay_many` take.
    var t = [Double](), gyr = [Double](), acc = [Double](), mag = [Double]()
    for s in trace.samples {
        t.append(s.t)
        for (v, out) in [(s.gyroscope, 0), (s.accelerometer, 1), (s.magnetometer, 2)] {
            let row = [v?.x ?? .nan, v?.y ?? .nan, v?.z ?? .nan]
            if out == 0 { gyr += row } else if out == 1 { acc += row } else { mag += row }
        }
    }
    t.withUnsafeBufferPointer { tp in
        gyr.withUnsafeBufferPointer { gp in
            acc.withUnsafeBufferPointer { ap in
                mag.withUnsafeBufferPointer { mp in
                    let traces = (0..<8).map { i -> SensorArrays in
                        let start = i * n / 16
                        return SensorArrays(
                            count: n - start, t: tp.baseAddress! + start, gyroscope: gp.baseAddress! + 3 * start,
                            accelerometer: ap.baseAddress! + 3 * start, magnetometer: mp.baseAddress! + 3 * start)
                    }
                    let total = traces.reduce(0) { $0 + $1.count }
                    let workers = RunConfiguration.defaultWorkers
                    if !json { print("\nmany traces at once (8 traces, one at a time and on \(workers) threads)") }
                    for kind in [FilterKind.ekf, .mahony, .madgwick] {
                        let run = RunConfiguration(kind, mode: .nineD)
                        let sequential = time(repeats: repeats) {
                            let q = run.attitudes(ofEach: traces, workers: 1)
                            consume(q[0][q[0].count / 2].w)
                        }
                        let concurrent = time(repeats: repeats) {
                            let q = run.attitudes(ofEach: traces, workers: workers)
                            consume(q[0][q[0].count / 2].w)
                        }
                        let nsSequential = sequential / Double(total) * 1e9
                        let nsConcurrent = concurrent / Double(total) * 1e9
                        report(
                            [
                                "benchmark": "many", "filter": .string(kind.rawValue), "mode": "9d",
                                "traces": .integer(traces.count), "samples": .integer(total),
                                "workers": .integer(workers), "ns_per_sample_sequential": .number(nsSequential),
                                "ns_per_sample_concurrent": .number(nsConcurrent),
                                "throughput_ratio": .number(sequential / concurrent),
                            ],
                            String(
                                format:
                                    "many %-9@ 9d  one at a time %6.1f ns/sample, on %d threads %6.1f ns/sample: %.2fx",
                                kind.rawValue, nsSequential, workers, nsConcurrent, sequential / concurrent))
                    }
                }
            }
        }
    }
}

// MARK: Parsing and writing

if want("parse") {
    let parseTime = time(repeats: repeats) {
        let reader = try! DelimitedTraceReader(path: path)
        var acc = 0.0
        while let s = try! reader.next() { acc += s.t }
        consume(acc)
    }
    report(
        [
            "benchmark": "parse_native", "samples": .integer(n), "bytes": .integer(fileBytes),
            "mb_per_s": .number(Double(fileBytes) / parseTime / 1e6),
            "ns_per_sample": .number(parseTime / Double(n) * 1e9),
        ],
        String(
            format: "\nparse native CSV      %8.1f MB/s  (%.1f ms for %d bytes)", Double(fileBytes) / parseTime / 1e6,
            parseTime * 1e3, fileBytes))
}

let estimates = RunConfiguration().estimates(trace.samples)
if want("write") {
    let out = NSTemporaryDirectory() + "motionfusion-bench-write.csv"
    let writeTime = time(repeats: repeats) {
        let file = try! OutputTarget.resolve(out, protecting: InputFiles()).open()
        let writer = EstimateWriter(output: file, configuration: RunConfiguration(), uncertainty: true)
        for e in estimates { try! writer.write(e) }
        try! writer.finish()
    }
    report(
        [
            "benchmark": "write_estimates", "samples": .integer(n),
            "ns_per_sample": .number(writeTime / Double(n) * 1e9),
        ],
        String(
            format: "write estimates       %8.1f ms  (%.0f ns per row)", writeTime * 1e3, writeTime / Double(n) * 1e9))
}

// MARK: Importers

let formatsFolder = PathText.folder(path) + "/../formats"
if want("imports") && FileManager.default.fileExists(atPath: formatsFolder) {
    if !json { print("\nimport speed (whole recording into memory, median)") }
    for (format, rel) in [
        ("euroc", "euroc/V1_02_medium"), ("xio-fusion", "xio-fusion/sensor_data.csv"), ("x-imu3", "x-imu3"),
        ("phyphox", "phyphox"), ("sensor-logger", "sensor-logger"),
    ] {
        let p = formatsFolder + "/" + rel
        guard FileManager.default.fileExists(atPath: p) else { continue }
        var count = 0
        let t = time(repeats: quick ? 3 : 7) {
            let trace = try! TraceFormat.load(path: p)
            count = trace.samples.count
            consume(trace.samples.last?.t ?? 0)
        }
        report(
            [
                "benchmark": "import", "format": .string(format), "samples": .integer(count),
                "ns_per_sample": .number(t / Double(max(1, count)) * 1e9), "ms": .number(t * 1e3),
            ],
            String(
                format: "  %-14@ %8d samples  %7.1f ms  %6.0f ns/sample", format, count, t * 1e3,
                t / Double(max(1, count)) * 1e9))
    }
}

// MARK: End-to-end replay, in process and as the command

let executable =
    PathText.folder(PathText.folder(PathText.folder(PathText.folder(#filePath)))) + "/.build/release/motionfusion"

/// Runs the command `runs` times; the median wall time, and user+system CPU over wall (children).
/// Runs the command line once with what it prints discarded; its own wall time, CPU time
/// (user + system) and peak RSS (wait4's usage of that one child, not the largest child so far).
func spawn(_ arguments: [String]) -> (wall: Double, cpu: Double, peakRSS: Int) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let t0 = now()
    guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else {
        fatalError("cannot run \(executable)")
    }
    var status: Int32 = 0
    var usage = rusage()
    _ = wait4(pid, &status, 0, &usage)
    let wall = now() - t0
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
    return (wall, seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_maxrss * 1024)
}

/// Median wall time, CPU over wall summed over the runs, and the largest peak RSS of `runs` runs.
func command(_ arguments: [String], runs: Int) -> (wall: Double, cpuOverWall: Double, peakRSS: Int) {
    let results = (0..<runs).map { _ in spawn(arguments) }
    let wall = results.map(\.wall).reduce(0, +)
    return (median(results.map(\.wall)), results.map(\.cpu).reduce(0, +) / wall, results.map(\.peakRSS).max() ?? 0)
}

if want("replay") {
    let outPath = NSTemporaryDirectory() + "motionfusion-bench-out.csv"
    let replayTime = time(repeats: quick ? 3 : 7) {
        let reader = try! TraceFormat.open(path: path)
        let file = try! OutputTarget.resolve(outPath, protecting: InputFiles()).open()
        let writer = EstimateWriter(output: file, configuration: RunConfiguration(), uncertainty: true)
        try! RunConfiguration().run(next: reader.next) { e, _ in try writer.write(e) }
        try! writer.finish()
    }
    report(
        [
            "benchmark": "replay_end_to_end", "filter": "ekf", "mode": "9d", "samples": .integer(n),
            "ms": .number(replayTime * 1e3), "ns_per_sample": .number(replayTime / Double(n) * 1e9),
        ],
        String(format: "\nreplay end to end     %8.1f ms  (read, EKF 9D, write; in process)", replayTime * 1e3))
    if FileManager.default.isExecutableFile(atPath: executable) {
        for sub in ["replay", "reconstruct", "info"] {
            let r = command(sub == "info" ? [sub, path] : [sub, path, "--output", outPath], runs: quick ? 3 : 7)
            report(
                [
                    "benchmark": "command", "command": .string(sub), "samples": .integer(n),
                    "ms": .number(r.wall * 1e3),
                    "cpu_over_wall": .number(r.cpuOverWall),
                ],
                String(format: "motionfusion %-12@ %8.1f ms  CPU/wall %.2f", sub, r.wall * 1e3, r.cpuOverWall))
        }
        // Peak memory of replay on a long trace (1.5 million samples), streamed.
        let long = NSTemporaryDirectory() + "motionfusion-bench-long.csv"
        if !FileManager.default.fileExists(atPath: long) {
            let file = try! OutputTarget.resolve(long, protecting: InputFiles()).open()
            let writer = TraceWriter(output: file, columns: TraceWriter.Columns(trace))
            let next = cycled(1_500_000)
            while let s = next() { try! writer.write(s) }
            try! writer.finish()
        }
        let r = command(["replay", long, "--output", outPath], runs: 1)
        report(
            [
                "benchmark": "replay_long_trace", "samples": 1_500_000, "seconds": .number(r.wall),
                "peak_rss_bytes": .integer(r.peakRSS), "cpu_over_wall": .number(r.cpuOverWall),
            ],
            String(
                format: "replay 1.5 M samples  %8.2f s  peak RSS %.1f MiB  CPU/wall %.2f", r.wall,
                Double(r.peakRSS) / 1048576, r.cpuOverWall))
    }
}

// MARK: Folder throughput on all cores

let broadFolder = PathText.folder(path)
let folderFiles = ((try? FileManager.default.contentsOfDirectory(atPath: broadFolder)) ?? []).filter {
    $0.hasSuffix(".csv")
}.sorted()
if want("folder") && folderFiles.count > 1 && FileManager.default.isExecutableFile(atPath: executable) {
    let outDir = NSTemporaryDirectory() + "motionfusion-bench-folder"
    let single = NSTemporaryDirectory() + "motionfusion-bench-single"
    try? FileManager.default.createDirectory(atPath: single, withIntermediateDirectories: true)
    // One core: the files one after another (one process each); all cores: one folder run.
    let t0 = now()
    for f in folderFiles {
        _ = command(["replay", broadFolder + "/" + f, "--output", single + "/" + f], runs: 1)
    }
    let serial = now() - t0
    let parallel = command(["replay", broadFolder, "--output", outDir], runs: 1).wall
    let total = folderFiles.count
    report(
        [
            "benchmark": "folder_replay", "files": .integer(total), "serial_s": .number(serial),
            "parallel_s": .number(parallel), "speedup": .number(serial / parallel),
            "cores": .integer(ProcessInfo.processInfo.activeProcessorCount),
        ],
        String(
            format:
                "\nfolder replay (%d files): %.2f s one after another, %.2f s as one folder run on %d cores (%.2f×)",
            total, serial, parallel, ProcessInfo.processInfo.activeProcessorCount, serial / parallel))
}

report(
    ["benchmark": "process", "peak_rss_bytes": .integer(peakRSS())],
    String(format: "\npeak RSS %.1f MiB", Double(peakRSS()) / 1048576))
if sink == 42 { print(sink) }
