import Foundation
import Glibc
import MotionFusion

// MotionFusion benchmarks: honest programs. Setup is outside the timed region, results are
// consumed, each figure is the median of repeated runs on one core.

#if DEBUG
    FileHandle.standardError.write(
        Data("WARNING: benchmarks built in DEBUG mode; figures are meaningless. Use Benchmarks/run.sh.\n".utf8))
#endif

LinearAlgebra.configure()
var quick = false
var json = false
var tracePath: String?
var only: Set<String> = []
var scaleSamples: Int?
var longRunSamples: Int?
var args = Array(CommandLine.arguments.dropFirst())
while !args.isEmpty {
    let a = args.removeFirst()
    switch a {
    case "--only":
        if !args.isEmpty { only.insert(args.removeFirst()) }
    case "--reconstruct-scale":
        if !args.isEmpty { scaleSamples = Int(args.removeFirst()) }
    case "--long-run":
        if !args.isEmpty { longRunSamples = Int(args.removeFirst()) }
    case "--quick": quick = true
    case "--json": json = true
    case "--help", "-h":
        print(
            "usage: Benchmarks/run.sh [--quick] [--json] [--only filters|parse|imports|replay|folder|crossover] [TRACE]"
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
        let kb = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kb * 1024
    }
    return 0
}

func report(_ fields: [String: Any], _ text: String) {
    if json {
        let data = try! JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        print(String(decoding: data, as: UTF8.self))
    } else {
        print(text)
    }
}

// MARK: Input trace

let sharedDefault =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    + "/shared/data/broad/21_undisturbed_fast_combined.csv"
var path = tracePath ?? sharedDefault
if !FileManager.default.fileExists(atPath: path) {
    // No shared data: simulate a trace of the same size (55 000 samples at 285.7 Hz).
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

// MARK: Reconstruct scaling (run in its own process so peak memory is its own)

if let total = scaleSamples {
    // Cycle the input trace, shifting time, to make a trace of `total` samples on the fly.
    let base = trace.samples
    let period = base.last!.t - base.first!.t + (base[1].t - base[0].t)
    var i = 0
    var count = 0
    var acc = 0.0
    let t0 = now()
    AttitudeSmoother().reconstruct(next: {
        guard i < total else { return nil }
        var s = base[i % base.count]
        s.t += Double(i / base.count) * period
        i += 1
        return s
    }) { s in
        count += 1
        acc += s.attitude.w
    }
    let seconds = now() - t0
    consume(acc)
    report(
        [
            "benchmark": "reconstruct", "mode": "9d", "samples": count, "ns_per_sample": seconds / Double(count) * 1e9,
            "seconds": seconds, "peak_rss_bytes": peakRSS(),
        ],
        String(
            format: "reconstruct %9d samples  %7.2f s  %6.0f ns/sample  peak RSS %6.1f MiB", count, seconds,
            seconds / Double(count) * 1e9, Double(peakRSS()) / 1048576))
    exit(0)
}

// MARK: Long runs: every filter over N samples, quaternion norm and memory checked

if let total = longRunSamples {
    let base = trace.samples
    let period = base.last!.t - base.first!.t + (base[1].t - base[0].t)
    func worstNorm<F: AttitudeFilter>(_ filter: F) -> (Double, Int, Int, Double) {
        var runner = FilterRunner(filter)
        var worst = 0.0
        var rssAtTenth = 0
        let t0 = now()
        for i in 0..<total {
            var s = base[i % base.count]
            s.t += Double(i / base.count) * period
            _ = runner.step(s)
            let q = runner.filter.attitude
            let e = abs(q.squaredNorm.squareRoot() - 1)
            if e > worst || !e.isFinite { worst = e.isFinite ? e : .infinity }
            if i == total / 10 { rssAtTenth = peakRSS() }
        }
        return (worst, rssAtTenth, peakRSS(), now() - t0)
    }
    for kind in FilterKind.allCases {
        for mode in kind.modes {
            let r: (Double, Int, Int, Double)
            switch kind {
            case .ekf:
                var p = KalmanFilter.Parameters()
                p.mode = mode
                r = worstNorm(KalmanFilter(parameters: p))
            case .complementary:
                var p = ComplementaryFilter.Parameters()
                p.mode = mode
                r = worstNorm(ComplementaryFilter(parameters: p))
            case .mahony:
                var p = MahonyFilter.Parameters()
                p.mode = mode
                r = worstNorm(MahonyFilter(parameters: p))
            case .madgwick:
                var p = MadgwickFilter.Parameters()
                p.mode = mode
                r = worstNorm(MadgwickFilter(parameters: p))
            case .ecompass: r = worstNorm(ECompass())
            case .tilt: r = worstNorm(AccelerometerTilt())
            }
            report(
                [
                    "benchmark": "long_run", "filter": kind.rawValue, "mode": mode.rawValue, "samples": total,
                    "max_norm_error": r.0, "rss_at_10_percent_bytes": r.1, "peak_rss_bytes": r.2, "seconds": r.3,
                    "ns_per_sample": r.3 / Double(total) * 1e9,
                ],
                String(
                    format: "long run %-14@ %@ %11d samples  max |‖q‖−1| %.1e  RSS %.1f → %.1f MiB  %.1f s",
                    kind.rawValue, mode.rawValue, total, r.0, Double(r.1) / 1048576, Double(r.2) / 1048576, r.3))
        }
    }
    exit(0)
}

// MARK: Filters

for kind in FilterKind.allCases where want("filters") {
    for mode in kind.modes {
        let t = time(repeats: repeats) {
            let q = kind.attitudes(trace.samples, mode: mode)
            consume(q[q.count / 2].w)
        }
        let ns = t / Double(n) * 1e9
        report(
            [
                "benchmark": "filter", "filter": kind.rawValue, "mode": mode.rawValue, "samples": n,
                "ns_per_sample": ns,
                "samples_per_s": Double(n) / t,
            ],
            String(
                format: "filter %-14@ %@  %8.1f ns/sample  %6.2f M samples/s", kind.rawValue, mode.rawValue, ns,
                Double(n) / t / 1e6))
    }
}

// MARK: Parsing

if want("parse") {
    let parseTime = time(repeats: repeats) {
        let reader = try! NativeTraceReader(path: path)
        var acc = 0.0
        while let s = try! reader.next() { acc += s.t }
        consume(acc)
    }
    report(
        [
            "benchmark": "parse_native", "samples": n, "bytes": fileBytes,
            "mb_per_s": Double(fileBytes) / parseTime / 1e6,
            "ns_per_sample": parseTime / Double(n) * 1e9,
        ],
        String(
            format: "\nparse native CSV      %8.1f MB/s  (%.1f ms for %d bytes)", Double(fileBytes) / parseTime / 1e6,
            parseTime * 1e3, fileBytes))
}

// MARK: Importers

let formatsFolder = (path as NSString).deletingLastPathComponent + "/../formats"
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
                "benchmark": "import", "format": format, "samples": count,
                "ns_per_sample": t / Double(max(1, count)) * 1e9,
                "ms": t * 1e3,
            ],
            String(
                format: "  %-14@ %8d samples  %7.1f ms  %6.0f ns/sample", format, count, t * 1e3,
                t / Double(max(1, count)) * 1e9))
    }
}

// MARK: End-to-end replay

if want("replay") {
    let outPath = NSTemporaryDirectory() + "motionfusion-bench-out.csv"
    let replayTime = time(repeats: quick ? 3 : 7) {
        let t = try! TraceFormat.load(path: path)
        var w = try! EstimateWriter(path: outPath)
        FilterKind.default.run(t.samples, mode: .nineD) { e in try! w.write(e, used: true) }
        try! w.finish()
    }
    report(
        [
            "benchmark": "replay_end_to_end", "filter": FilterKind.default.rawValue, "mode": "9d", "samples": n,
            "ms": replayTime * 1e3, "ns_per_sample": replayTime / Double(n) * 1e9,
        ],
        String(
            format: "replay end to end     %8.1f ms  (parse, %@ 9D, write)", replayTime * 1e3,
            FilterKind.default.rawValue))
}

// MARK: Folder throughput on all cores

let broadFolder = (path as NSString).deletingLastPathComponent
let folderFiles = ((try? FileManager.default.contentsOfDirectory(atPath: broadFolder)) ?? []).filter {
    $0.hasSuffix(".csv")
}.sorted()
if want("folder") && folderFiles.count > 1 {
    let outDir = NSTemporaryDirectory() + "motionfusion-bench-folder"
    try? FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
    func replayAll(parallel: Bool) -> (Double, Int) {
        var counts = [Int](repeating: 0, count: folderFiles.count)
        let t0 = now()
        let work: (Int) -> Void = { i in
            let trace = try! TraceFormat.load(path: broadFolder + "/" + folderFiles[i])
            var w = try! EstimateWriter(path: outDir + "/" + folderFiles[i])
            FilterKind.default.run(trace.samples, mode: .nineD) { e in try! w.write(e, used: true) }
            try! w.finish()
            counts[i] = trace.samples.count
        }
        if parallel {
            counts.withUnsafeMutableBufferPointer { buf in
                let base = buf.baseAddress!
                DispatchQueue.concurrentPerform(iterations: folderFiles.count) { i in
                    let trace = try! TraceFormat.load(path: broadFolder + "/" + folderFiles[i])
                    var w = try! EstimateWriter(path: outDir + "/" + folderFiles[i])
                    FilterKind.default.run(trace.samples, mode: .nineD) { e in try! w.write(e, used: true) }
                    try! w.finish()
                    base[i] = trace.samples.count
                }
            }
        } else {
            for i in folderFiles.indices { work(i) }
        }
        return (now() - t0, counts.reduce(0, +))
    }
    let (serial, total) = replayAll(parallel: false)
    let (parallelTime, _) = replayAll(parallel: true)
    report(
        [
            "benchmark": "folder_replay", "filter": FilterKind.default.rawValue, "mode": "9d", "samples": total,
            "files": folderFiles.count,
            "serial_s": serial, "parallel_s": parallelTime, "cores": ProcessInfo.processInfo.activeProcessorCount,
            "ns_per_sample": parallelTime / Double(total) * 1e9,
        ],
        String(
            format: "\nfolder replay (%d files, %d samples): %.2f s on one core, %.2f s on %d cores (%.1f M samples/s)",
            folderFiles.count, total, serial, parallelTime, ProcessInfo.processInfo.activeProcessorCount,
            Double(total) / parallelTime / 1e6))
}

// MARK: Small-matrix crossover

if want("crossover") && !json { print("\nsmall-matrix crossover (ns per call, hand-written vs BLAS/LAPACK)") }
var rng = SystemRandomNumberGenerator()
for size in [2, 3, 4, 6, 8, 10, 12, 16, 24, 32] where want("crossover") {
    var a = Matrix(rows: size, columns: size)
    for i in a.storage.indices { a.storage[i] = Double.random(in: -1...1, using: &rng) }
    let spd = LinearAlgebra.symmetricRankK(a) + Matrix.identity(size) * Double(size)
    let calls = max(200, 200_000 / (size * size))
    func perCall(_ backend: LinearAlgebraBackend, _ op: String) -> Double {
        time(repeats: quick ? 3 : 7) {
            for _ in 0..<calls {
                if op == "gemm" {
                    consume(LinearAlgebra.multiply(a, a, backend: backend).storage[0])
                } else {
                    consume((try! LinearAlgebra.cholesky(spd, backend: backend)).storage[0])
                }
            }
        } / Double(calls) * 1e9
    }
    for op in ["gemm", "cholesky"] {
        let hand = perCall(.handWritten, op)
        let blas = perCall(.blas, op)
        report(
            ["benchmark": "crossover", "op": op, "size": size, "hand_ns": hand, "blas_ns": blas],
            String(
                format: "  %-8@ %3d×%-3d  hand %9.0f  blas %9.0f  %@", op, size, size, hand, blas,
                hand < blas ? "hand" : "blas"))
    }
}

report(
    ["benchmark": "process", "peak_rss_bytes": peakRSS()],
    String(format: "\npeak RSS %.1f MiB", Double(peakRSS()) / 1048576))
if sink == 42 { print(sink) }
