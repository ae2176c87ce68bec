import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionEstimation

/// Many traces in one call, on several threads (what C `mf_replay_many` and Python `replay_many`
/// run) give, bit for bit, what each trace gives alone.
final class ManyTracesTests: XCTestCase {
    /// Caller-owned arrays for a trace (NaN rows where a sensor has no value), freed by `free`.
    struct OwnedArrays {
        let arrays: SensorArrays
        let buffers: [UnsafeMutablePointer<Double>]

        init(_ samples: [SensorSample]) {
            let n = samples.count
            let t = UnsafeMutablePointer<Double>.allocate(capacity: max(n, 1))
            var rows = [UnsafeMutablePointer<Double>]()
            for _ in 0..<3 { rows.append(.allocate(capacity: max(3 * n, 1))) }
            for (i, s) in samples.enumerated() {
                t[i] = s.t
                for (k, v) in [s.gyroscope, s.accelerometer, s.magnetometer].enumerated() {
                    rows[k][3 * i] = v?.x ?? .nan
                    rows[k][3 * i + 1] = v?.y ?? .nan
                    rows[k][3 * i + 2] = v?.z ?? .nan
                }
            }
            arrays = SensorArrays(
                count: n, t: t, gyroscope: rows[0], accelerometer: rows[1], magnetometer: rows[2])
            buffers = [t] + rows
        }

        func free() { for b in buffers { b.deallocate() } }
    }

    /// Simulated traces of different lengths and rates, with faults (missing and non-finite values,
    /// a zero accelerometer, lost samples, repeated and backward timestamps, a long gap, a
    /// magnetometer that starts late), and an empty and a one-sample trace.
    func traces() -> [[SensorSample]] {
        var out = [[SensorSample]]()
        for seed in 1...8 {
            var s = MotionSimulator.Settings()
            s.duration = 5 + 3 * Double(seed)
            s.rate = [100, 200, 50, 285.7][seed % 4]
            s.seed = UInt64(seed)
            var samples = MotionSimulator(settings: s).run().samples
            let n = samples.count
            switch seed {
            case 1:
                for i in stride(from: 100, to: n, by: 97) { samples[i].gyroscope = nil }
            case 2:
                for i in 300..<400 { samples[i].magnetometer = nil }
                samples[500].accelerometer = .zero
            case 3:
                samples.removeSubrange(200..<230)  // lost samples
                samples[600].t = samples[599].t  // a repeated timestamp
            case 4:
                samples[700].t -= 0.5  // backwards
                for i in 800..<n { samples[i].t += 3 }  // a gap that re-initialises
            case 5:
                for i in 0..<300 { samples[i].magnetometer = nil }  // late magnetometer
            case 6:
                for i in 50..<60 { samples[i].accelerometer = nil }
                samples[900].gyroscope = Vector3(.nan, 0, 0)
            default:
                break
            }
            out.append(samples)
        }
        out.insert([], at: 3)
        out.append(Array(out[0].prefix(1)))
        return out
    }

    /// The bits of a quaternion, so that a difference in sign of zero or in a NaN counts.
    func bits(_ q: Quaternion) -> [UInt64] { [q.w, q.x, q.y, q.z].map(\.bitPattern) }

    /// Whether two estimates are the same to the bit (the diagnostics' NaN uncertainties equal).
    func same(_ a: MotionEstimate, _ b: MotionEstimate) -> Bool {
        func vector(_ v: Vector3) -> [UInt64] { [v.x, v.y, v.z].map(\.bitPattern) }
        return a.t.bitPattern == b.t.bitPattern && bits(a.attitude) == bits(b.attitude)
            && vector(a.gyroscopeBias) == vector(b.gyroscopeBias) && vector(a.gravity) == vector(b.gravity)
            && a.diagnostics == b.diagnostics
    }

    /// Every trace run at once on each number of workers, through both many-trace entry points,
    /// against the trace run alone through the one-trace paths.
    func compare(
        _ configuration: RunConfiguration, _ traces: [[SensorSample]], workers: [Int] = [0, 1, 3, 64],
        _ label: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let owned = traces.map(OwnedArrays.init)
        defer { for o in owned { o.free() } }
        let arrays = owned.map(\.arrays)
        // Alone: the array path (`attitudes`) and, for the arrays, the path of C `mf_replay`.
        let alone = traces.map { configuration.attitudes($0) }
        let aloneEstimates = arrays.map { trace -> [MotionEstimate] in
            var out = [MotionEstimate]()
            configuration.run(trace) { _, e, _ in out.append(e!) }
            return out
        }
        for (a, e) in zip(alone, aloneEstimates) {
            XCTAssertEqual(
                a.map(bits), e.map { bits($0.attitude) }, "\(label): the one-trace paths", file: file, line: line)
        }
        for w in workers {
            let together = configuration.attitudes(ofEach: arrays, workers: w)
            XCTAssertEqual(together.count, traces.count, file: file, line: line)
            for (k, (a, b)) in zip(alone, together).enumerated() {
                XCTAssertEqual(a.map(bits), b.map(bits), "\(label), trace \(k), \(w) workers", file: file, line: line)
            }
            // What C `mf_replay_many` calls: each trace's storage written only by the thread that
            // runs it, so no lock.
            for attitudeOnly in [true, false] {
                let attitudes = traces.map { UnsafeMutableBufferPointer<Quaternion>.allocate(capacity: $0.count) }
                let estimates = traces.map { UnsafeMutableBufferPointer<MotionEstimate?>.allocate(capacity: $0.count) }
                let calls = UnsafeMutableBufferPointer<Int>.allocate(capacity: traces.count)
                let misordered = UnsafeMutableBufferPointer<Int>.allocate(capacity: traces.count)
                calls.initialize(repeating: 0)
                misordered.initialize(repeating: 0)
                defer {
                    for b in attitudes { b.deallocate() }
                    for b in estimates { b.deallocate() }
                    calls.deallocate()
                    misordered.deallocate()
                }
                configuration.run(eachOf: arrays, workers: w, attitudeOnly: attitudeOnly) { i, k, e, q in
                    if k != calls[i] { misordered[i] += 1 }
                    calls[i] += 1
                    (attitudes[i].baseAddress! + k).initialize(to: q)
                    (estimates[i].baseAddress! + k).initialize(to: e)
                }
                for k in traces.indices {
                    let name = "\(label), trace \(k), \(w) workers, attitudeOnly \(attitudeOnly)"
                    XCTAssertEqual(calls[k], traces[k].count, name, file: file, line: line)
                    XCTAssertEqual(misordered[k], 0, name, file: file, line: line)
                    guard calls[k] == traces[k].count else { continue }
                    XCTAssertEqual(attitudes[k].map(bits), alone[k].map(bits), name, file: file, line: line)
                    if attitudeOnly {
                        XCTAssertTrue(estimates[k].allSatisfy { $0 == nil }, name, file: file, line: line)
                        continue
                    }
                    let differing = zip(estimates[k], aloneEstimates[k]).filter { a, b in a.map { !same($0, b) } ?? true
                    }
                    XCTAssertEqual(differing.count, 0, "\(name): estimates that differ", file: file, line: line)
                }
            }
        }
    }

    func testEveryFilterOnManyThreadsEqualsEachTraceAlone() {
        let traces = traces()
        for kind in FilterKind.allCases {
            for mode in kind.modes { compare(RunConfiguration(kind, mode: mode), traces, "\(kind) \(mode)") }
        }
    }

    func testACalibrationAndTunedRunnerApplyAsAlone() {
        var configuration = RunConfiguration(.ekf, mode: .nineD)
        var calibration = SensorCalibration()
        calibration.gyroscopeBias = Vector3(0.01, -0.02, 0.005)
        configuration.calibration = calibration
        configuration.runner.maximumGap = 0.05
        compare(configuration, Array(traces().prefix(5)), workers: [0, 2], "calibrated ekf")
    }

    func testBroadTrialsOnManyThreads() throws {
        let paths = Array(try TestData.broadTrials().prefix(3))
        var traces = try paths.map { try TraceFormat.load(path: $0).samples }
        traces.append(Array(traces[0].prefix(traces[0].count / 3)))
        for kind in [FilterKind.ekf, .madgwick] {
            compare(RunConfiguration(kind, mode: .nineD), traces, workers: [2], "BROAD \(kind)")
        }
    }

    func testEachIndexRunsOnceOnAnyNumberOfWorkers() {
        for count in [0, 1, 2, 7] {
            for workers in [0, 1, 2, 3, 100] {
                let lock = NSLock()
                var runs = [Int](repeating: 0, count: count)
                RunConfiguration.concurrently((0..<count).map { ($0 * 37) % 5 }, workers: workers) { i in
                    lock.withLock { runs[i] += 1 }
                }
                XCTAssertEqual(runs, [Int](repeating: 1, count: count), "\(count) indices, \(workers) workers")
            }
        }
        XCTAssertGreaterThanOrEqual(RunConfiguration.defaultWorkers, 1)
    }
}
