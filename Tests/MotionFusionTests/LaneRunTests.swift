import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionCore

/// Traces run side by side in lanes give what each gives alone.
final class LaneRunTests: XCTestCase {
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

    /// Simulated traces of different lengths and rates, with every kind of fault the scalar path
    /// handles: missing and non-finite values, a zero accelerometer, lost samples, repeated and
    /// backward timestamps, a long gap, a magnetometer that starts late; and an empty and a
    /// one-sample trace.
    func traces() -> [[SensorSample]] {
        var out = [[SensorSample]]()
        for seed in 1...10 {
            var s = MotionSimulator.Settings()
            s.duration = 20 + Double(seed)
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
                for i in 800..<810 { samples[i].t += 3 }  // a gap that re-initialises
                for i in 810..<n { samples[i].t += 3 }
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
        // An empty trace and a one-sample trace share the last group of lanes with longer ones.
        out.insert([], at: 9)
        out.append(Array(out[0].prefix(1)))
        return out
    }

    func compare(_ filter: FilterKind, _ mode: FusionMode, _ traces: [[SensorSample]]) throws {
        var configuration = RunConfiguration()
        configuration.filter = FilterSetup(filter, mode: mode)
        let owned = traces.map(OwnedArrays.init)
        defer { for o in owned { o.free() } }
        var steps = LaneSteps()
        let lanes = configuration.attitudes(ofEach: owned.map(\.arrays), steps: &steps)
        XCTAssertEqual(lanes.count, traces.count)
        XCTAssertEqual(steps.lanes + steps.alone, traces.reduce(0) { $0 + $1.count })
        // The lanes carry the run; the scalar runners take the starts and the faults.
        if filter == .mahony || filter == .madgwick {
            XCTAssertGreaterThan(Double(steps.lanes), 0.95 * Double(steps.lanes + steps.alone), "\(filter) \(mode)")
        } else {
            XCTAssertEqual(steps.lanes, 0)
        }
        var largest = 0.0
        var identical = 0
        var total = 0
        for (trace, result) in zip(traces, lanes) {
            let alone = configuration.attitudes(trace)
            XCTAssertEqual(result.count, alone.count)
            for (a, b) in zip(result, alone) {
                let d = max(abs(a.w - b.w), abs(a.x - b.x), abs(a.y - b.y), abs(a.z - b.z))
                largest = max(largest, d)
                if d == 0 { identical += 1 }
                total += 1
            }
        }
        XCTAssertLessThanOrEqual(largest, 1e-12, "\(filter) \(mode)")
        XCTAssertEqual(identical, total, "\(filter) \(mode): lanes are meant to be bit-identical")
    }

    func testMahonyAndMadgwickLanesEqualEachTraceAlone() throws {
        let traces = traces()
        for filter in [FilterKind.mahony, .madgwick] {
            for mode in FusionMode.allCases { try compare(filter, mode, traces) }
        }
    }

    /// With no longest gap at all, an infinite timestamp is still a clock fault on lanes as alone.
    func testInfiniteTimeWithoutAnyGapLimit() throws {
        var traces = Array(traces().prefix(5))
        traces[1][400].t = .infinity
        traces[2][300].t = -.infinity
        var configuration = RunConfiguration()
        var p = MahonyFilter.Parameters()
        p.integration.gapRatio = .infinity
        configuration.filter = .mahony(p)
        configuration.runner.maximumGap = .infinity
        let owned = traces.map(OwnedArrays.init)
        defer { for o in owned { o.free() } }
        let lanes = configuration.attitudes(ofEach: owned.map(\.arrays))
        for (k, (trace, result)) in zip(traces, lanes).enumerated() {
            let alone = configuration.attitudes(trace)
            let differing = zip(result, alone).filter { $0 != $1 }.count
            XCTAssertEqual(result.count, alone.count)
            XCTAssertEqual(differing, 0, "trace \(k): samples that differ from the trace run alone")
        }
    }

    func testALastGroupOfOneOrTwoTracesRunsAlone() throws {
        let all = traces()
        var configuration = RunConfiguration()
        configuration.filter = FilterSetup(.mahony, mode: .nineD)
        for count in [5, 6] {
            let traces = Array(all.prefix(count))
            let owned = traces.map(OwnedArrays.init)
            defer { for o in owned { o.free() } }
            var steps = LaneSteps()
            let lanes = configuration.attitudes(ofEach: owned.map(\.arrays), steps: &steps)
            // Four traces on lanes; the last one or two one at a time (all their samples), with the
            // same result.
            let last = traces[4...].reduce(0) { $0 + $1.count }
            XCTAssertGreaterThanOrEqual(steps.alone, last, "\(count) traces")
            XCTAssertLessThan(steps.alone, last + traces[0..<4].reduce(0) { $0 + $1.count } / 20, "\(count) traces")
            XCTAssertEqual(lanes.count, traces.count)
            for (trace, result) in zip(traces, lanes) { XCTAssertEqual(result, configuration.attitudes(trace)) }
        }
    }

    func testOtherFiltersRunOneTraceAtATimeWithTheSameResult() throws {
        try compare(.ekf, .nineD, Array(traces().prefix(3)))
    }

    func testBroadTrialsSideBySide() throws {
        let paths = Array(try TestData.broadTrials().prefix(3))
        let traces = try paths.map { try TraceFormat.load(path: $0).samples }
        try compare(.madgwick, .nineD, traces)
    }
}
