import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Offline reconstruction (forward–backward smoother) against exact and optical ground truth.
final class SmootherTests: XCTestCase {
    func testSmootherBeatsTheOnlineFilterOnSimulatedTraces() {
        for scenario in [MotionSimulator.Scenario.mixed, .translation] {
            let trace = FilterTests.simulated(scenario, duration: 120)
            for mode in [FusionMode.nineD, .sixD] {
                var p = AttitudeSmoother.Parameters()
                p.filter.mode = mode
                let smoothed = AttitudeSmoother(parameters: p).reconstruct(trace)
                XCTAssertEqual(smoothed.count, trace.samples.count, "one output per input")
                XCTAssert(
                    smoothed.allSatisfy { $0.attitude.isFinite && $0.estimate.diagnostics.attitudeUncertainty.isFinite }
                )
                let offline = AttitudeErrorMetric.evaluate(
                    estimates: smoothed.map(\.attitude), trace: trace, mode: mode)!
                let online = AttitudeErrorMetric.evaluate(
                    estimates: RunConfiguration(FilterKind.default, mode: mode).attitudes(trace.samples), trace: trace,
                    mode: mode)!
                XCTAssertLessThan(offline.totalRMSE, online.totalRMSE, "\(scenario) \(mode.rawValue)")
            }
        }
    }

    /// The magnetometer delay relative to the gyroscope is recovered from the data.
    func testMagnetometerDelayIsEstimated() {
        let trace = FilterTests.simulated(.slowRotation, duration: 60, rate: 200, errors: .ideal)
        // Delay the magnetometer by 15 ms: each sample carries the field of 15 ms earlier.
        var delayed = trace
        let shifted = AttitudeSmoother.compensatingDelays(
            trace.samples, gyroscope: 0, accelerometer: 0, magnetometer: -0.015)
        for k in delayed.samples.indices { delayed.samples[k].magnetometer = shifted[k].magnetometer }
        let d = SensorDelayEstimator.estimate(delayed.samples, sensor: .magnetometer)
        XCTAssertEqual(d ?? .nan, 0.015, accuracy: 0.002)
        XCTAssertEqual(SensorDelayEstimator.estimate(trace.samples, sensor: .magnetometer) ?? .nan, 0, accuracy: 0.002)
    }

    /// A 60 s steady turn at 100 Hz with calibrated consumer-grade errors, after the default rest.
    static func steadyTurn(
        degreesPerSecond rate: Double, about axis: MotionSimulator.Axis, seed: UInt64
    ) -> MotionSimulator.Settings {
        var s = MotionSimulator.Settings()
        s.scenario = .steadyTurn
        s.turn.rateDegrees = rate
        s.turn.axis = axis
        s.duration = 60
        s.rate = 100
        s.errors = .calibrated
        s.seed = seed
        return s
    }

    /// A steady turn leaves the delay undetermined (ω(t − d) = ω(t)), so none is used: before the
    /// significance test, noise put it at 20–40 ms and the batch's heading was off by 4–7° for the
    /// whole minute of a 100 °/s turn about a horizontal axis, at rest as well.
    func testSteadyTurnDeterminesNoDelay() throws {
        for seed: UInt64 in [1, 3] {
            let trace = MotionSimulator(settings: Self.steadyTurn(degreesPerSecond: 100, about: .y, seed: seed)).run()
            XCTAssertNil(SensorDelayEstimator.estimate(trace.samples, sensor: .magnetometer), "seed \(seed)")
            let out = try OfflineReconstruction().reconstruct(trace.samples).samples
            let errors = zip(out, trace.samples).map {
                ScenarioSuiteTests.verticalError($0.estimate.attitude, $1.truth!)
            }
            let rms = (errors.reduce(0) { $0 + $1 * $1 } / Double(errors.count)).squareRoot()
            XCTAssertLessThan(rms, 1.5, "seed \(seed): heading RMS error over the run, degrees")
        }
    }

    /// A drone-like recording: a gyroscope offset beyond the bias bound (proven at the first rest,
    /// which restarts the filter's attitude) and the sensor mounted with its x axis 75° up, near the
    /// gimbal lock of an Euler yaw. The backward pass must bound its bias around the negated offset,
    /// and the restart must keep the heading without going through a yaw angle; either fault made the
    /// smoother and the batch estimator worse than the online filter (EuRoC, 6D: batch 5.4°, EKF 2.7°).
    func testSteepMountingWithAGyroscopeOffset() throws {
        var errors = SensorErrorModel.calibrated
        errors.fixedGyroscopeBias = Vector3(0.08, -0.06, 0.07)
        let raw = FilterTests.simulated(.mixed, duration: 60, errors: errors)
        let mount = Quaternion(axis: .unitY, angle: 75.0.radians)
        var trace = raw
        for k in trace.samples.indices {
            let s = raw.samples[k]
            trace.samples[k].gyroscope = s.gyroscope.map { mount.rotate($0) }
            trace.samples[k].accelerometer = s.accelerometer.map { mount.rotate($0) }
            trace.samples[k].magnetometer = s.magnetometer.map { mount.rotate($0) }
            trace.samples[k].truth = s.truth.map { $0 * mount.conjugate }
        }
        let mode = FusionMode.sixD
        func score(_ attitudes: [Quaternion]) -> Double {
            AttitudeErrorMetric.evaluate(estimates: attitudes, trace: trace, mode: mode)!.totalRMSE
        }
        let online = score(RunConfiguration(FilterKind.default, mode: mode).attitudes(trace.samples))
        var p = AttitudeSmoother.Parameters()
        p.filter.mode = mode
        let smoothed = score(AttitudeSmoother(parameters: p).reconstruct(trace).map(\.attitude))
        var b = BatchAttitudeEstimator.Parameters()
        b.filter.mode = mode
        let batch = score(try BatchAttitudeEstimator(parameters: b).reconstruct(trace.samples).map(\.estimate.attitude))
        print("steep mounting 6D: online \(online), smoother \(smoothed), batch \(batch)")
        XCTAssertLessThan(online, 3, "online filter, degrees")
        XCTAssertLessThan(smoothed, online, "smoother against the online filter")
        XCTAssertLessThan(batch, online, "batch against the online filter")
    }

    /// In 9D, a turn about the vertical slower than a bias can be (1 °/s, with 0.8 °/s of gyroscope
    /// bias on the same axis), from the first sample on, is not a rest: the horizontal field turns in
    /// the sensor frame. The forward judge takes it for rest (the rate is one a bias could have), and
    /// before the field check the batch's rest factor held the heading still while the truth turned
    /// (15–25° off). The same device at rest stays at rest, and so does a resting device beside
    /// which a magnet is put down (the field changes, but not by turning alone).
    func testSlowTurnFromTheStartIsNoRestIn9D() throws {
        var errors = SensorErrorModel.calibrated
        errors.fixedGyroscopeBias = Vector3(0.003, -0.004, 0.8.radians)
        var s = Self.steadyTurn(degreesPerSecond: 1, about: .z, seed: 1)
        s.turn.rest = 0
        s.errors = errors
        let trace = MotionSimulator(settings: s).run()
        let out = try OfflineReconstruction().reconstruct(trace.samples).samples
        XCTAssertFalse(out.contains { $0.estimate.diagnostics.atRest }, "no sample of the turn is at rest")
        let heading = zip(out, trace.samples).map { ScenarioSuiteTests.verticalError($0.estimate.attitude, $1.truth!) }
        XCTAssertLessThan(heading.map(abs).max()!, 3, "heading error at every sample, degrees")

        var r = s
        r.scenario = .rest
        var resting = MotionSimulator(settings: r).run()
        let plain = try OfflineReconstruction().reconstruct(resting.samples).samples
        XCTAssertGreaterThan(plain.filter(\.estimate.diagnostics.atRest).count, plain.count * 9 / 10, "rest")
        XCTAssertEqual(plain.last!.estimate.gyroscopeBias.z, 0.8.radians, accuracy: 0.05.radians, "the bias, rad/s")
        for k in resting.samples.indices where resting.samples[k].t >= 30 {
            resting.samples[k].magnetometer = resting.samples[k].magnetometer.map { $0 + Vector3(0, 20, 10) }
        }
        let magnet = try OfflineReconstruction().reconstruct(resting.samples).samples
        XCTAssertGreaterThan(magnet.filter(\.estimate.diagnostics.atRest).count, magnet.count * 9 / 10, "magnet")
    }

    /// A turn slower than a bias can be (1 °/s) about a horizontal axis, from the first sample on,
    /// with 0.5 °/s of bias per axis: the force turns by 1 °/s in the sensor frame, too slowly for
    /// the stillness bands, so the forward judge takes the minute for rest, and the batch's rest
    /// factor held the attitude still while the truth turned through 60° (the simulator's random
    /// mountings: 6–12° RMS in both modes). Offline, the force's steady turn across the stretch
    /// shows it is none (``RestForceTurn``), in 6D as in 9D: no sample is at rest and from the
    /// second second on the error stays under 1° (before: the rest held the attitude while the
    /// truth turned, up to 30° off at the ends). The same device at rest stays at rest in both modes.
    func testSlowTiltFromTheStartIsNoRest() throws {
        var errors = SensorErrorModel.calibrated
        errors.fixedGyroscopeBias = Vector3(0.5.radians, -0.5.radians, 0.5.radians)
        var s = Self.steadyTurn(degreesPerSecond: 1, about: .x, seed: 1)
        s.turn.rest = 0
        s.errors = errors
        let trace = MotionSimulator(settings: s).run()
        var r = s
        r.scenario = .rest
        let resting = MotionSimulator(settings: r).run()
        for mode in [FusionMode.nineD, .sixD] {
            var p = OfflineReconstruction.Parameters()
            p.mode = mode
            let out = try OfflineReconstruction(parameters: p).reconstruct(trace.samples).samples
            XCTAssertFalse(out.contains { $0.estimate.diagnostics.atRest }, "\(mode.rawValue): no sample at rest")
            let worst = zip(out, trace.samples).filter { $1.t >= 2 }.map { e, s in
                mode == .nineD
                    ? e.estimate.attitude.angle(to: s.truth!).degrees
                    : ScenarioSuiteTests.tiltError(e.estimate.attitude, s.truth!)
            }.max()!
            XCTAssertLessThan(
                worst, 1, "\(mode.rawValue): largest error from 2 s (° of attitude in 9D, of tilt in 6D)")
            let plain = try OfflineReconstruction(parameters: p).reconstruct(resting.samples).samples
            XCTAssertGreaterThan(
                plain.filter(\.estimate.diagnostics.atRest).count, plain.count * 9 / 10, "\(mode.rawValue): rest")
        }
    }

    /// Offline rest: a steady 10 °/s turn about the vertical after 2 s of rest. The online judge
    /// says rest only after 1.5 s of stillness and keeps saying it 0.2 s into the spin-up; offline,
    /// the rest covers the still start and ends before the device turns, so the batch's rest factor
    /// measures the bias instead of pinning a turning device. Before, `reconstruct` drifted 1.7–2.7°
    /// in 6D (VQF 1.0°).
    func testOfflineRestEndsBeforeATurnStarts() throws {
        let s = Self.steadyTurn(degreesPerSecond: 10, about: .z, seed: 1)
        let trace = MotionSimulator(settings: s).run()
        var p = AttitudeSmoother.Parameters()
        p.filter.mode = .sixD
        let smoothed = AttitudeSmoother(parameters: p).reconstruct(trace)
        let restTimes = smoothed.filter(\.estimate.diagnostics.atRest).map(\.t)
        XCTAssertLessThan(restTimes.max() ?? .infinity, s.turn.rest, "no sample of the turn is at rest")
        XCTAssertGreaterThan(Double(restTimes.count) / s.rate, 1.5, "seconds at rest, of the 2 s")
        var b = BatchAttitudeEstimator.Parameters()
        b.filter.mode = .sixD
        let out = try BatchAttitudeEstimator(parameters: b).reconstruct(trace.samples)
        let error = AttitudeErrorMetric.evaluate(estimates: out.map(\.estimate.attitude), trace: trace, mode: .sixD)!
        XCTAssertLessThan(error.totalRMSE, 1, "batch 6D, degrees")
    }

    func testBroadOfflineAccuracy() throws {
        let paths = try TestData.broadTrials()
        let traces = try paths.map { try TraceFormat.load(path: $0) }
        for (mode, bound) in [(FusionMode.nineD, 1.9), (.sixD, 2.0)] {
            var p = AttitudeSmoother.Parameters()
            p.filter.mode = mode
            let totals = parallelMap(traces.count) { i in
                let q = AttitudeSmoother(parameters: p).reconstruct(traces[i]).map(\.attitude)
                return AttitudeErrorMetric.evaluate(estimates: q, trace: traces[i], mode: mode)!.totalRMSE
            }
            let mean = totals.reduce(0, +) / Double(totals.count)
            print("BROAD offline \(mode.rawValue): \(mean)° per trial \(totals)")
            XCTAssertLessThanOrEqual(mean, bound, "\(mode.rawValue)")
        }
    }
}

final class SmootherWindowTests: XCTestCase {
    /// Windowed processing (bounded memory) gives the same attitudes as one window, to within a
    /// small tolerance where the backward pass restarts.
    func testWindowsAgreeWithOneWindow() {
        let trace = FilterTests.simulated(.mixed, duration: 120)
        var one = AttitudeSmoother.Parameters()
        one.windowLength = 1_000_000
        one.magnetometerDelay = 0  // isolate the windowing (the delay is estimated from the first window)
        var windowed = one
        windowed.windowLength = 3_000
        windowed.margin = 60
        let a = AttitudeSmoother(parameters: one).reconstruct(trace)
        let b = AttitudeSmoother(parameters: windowed).reconstruct(trace)
        XCTAssertEqual(a.count, b.count)
        XCTAssertEqual(b.map(\.t), trace.samples.map(\.t), "every sample, in order")
        let worst = zip(a, b).map { $0.attitude.angle(to: $1.attitude).degrees }.max()!
        XCTAssertLessThan(worst, 0.5)
    }

    /// The HTML report is self-contained and shows every required part.
    func testReportContents() {
        let trace = FilterTests.simulated(.mixed, duration: 60)
        var report = HTMLReport(title: "test <trace>")
        report.pointBudget = 500
        let smoothed = AttitudeSmoother().reconstruct(trace)
        for s in smoothed { report.add(s.estimate, truth: s.input.truth) }
        let metrics = AttitudeErrorMetric.evaluate(estimates: smoothed.map(\.attitude), trace: trace, mode: .nineD)
        let html = report.html(metrics: metrics, mode: .nineD)
        XCTAssertEqual(report.samples, trace.samples.count)
        for part in [
            "roll (°)", "pitch (°)", "yaw (°)", "heading", "total attitude error", "one-sigma uncertainty",
            "bias estimate", "magnetometer rejected", "accelerometer rejected", "ground truth", "total</td>",
            "test &lt;trace&gt;",
        ] {
            XCTAssert(html.contains(part), part)
        }
        XCTAssertFalse(html.contains("<script"), "readable without JavaScript")
        XCTAssertFalse(html.contains("http://") && html.contains("src=\"http"), "no network resources")
        XCTAssertGreaterThanOrEqual(html.components(separatedBy: "<svg").count - 1, 7)
    }
}

final class ReportTests: XCTestCase {
    /// Points of the first path of the chart whose label is `label`, as (command, x, y).
    func path(_ html: String, chart label: String) -> [(String, Double, Double)] {
        guard let start = html.range(of: "aria-label=\"\(label)\"") else { return [] }
        let rest = html[start.upperBound...]
        guard let d = rest.range(of: "<path d=\""), let end = rest[d.upperBound...].range(of: "\"") else { return [] }
        let tokens = rest[d.upperBound..<end.lowerBound].split(separator: " ")
        var out = [(String, Double, Double)]()
        var i = 0
        while i + 1 < tokens.count {
            let head = tokens[i]
            out.append((String(head.prefix(1)), Double(head.dropFirst()) ?? .nan, Double(tokens[i + 1]) ?? .nan))
            i += 2
        }
        return out
    }

    /// Yaw and heading lines leave at one edge and come back at the other where the angle wraps,
    /// instead of a stroke across the chart; weights are plotted when given.
    func testAngleWrapsBreakTheLineAndWeightsArePlotted() {
        var report = HTMLReport(title: "wrap")
        for k in 0..<2000 {
            // Turning about the vertical at 36 °/s for 20 s: yaw passes ±180° and heading 0/360° twice.
            let q = Quaternion(axis: .unitZ, angle: Double(k) * 0.01 * 36.0.radians)
            let e = MotionEstimate(
                t: Double(k) * 0.01, attitude: q, gyroscopeBias: .zero, diagnostics: FilterDiagnostics(),
                gyroscope: nil,
                accelerometer: nil, magnetometer: nil)
            report.add(e, truth: q, accelerometerWeight: k % 500 < 50 ? 0.2 : 1, magnetometerWeight: 1)
        }
        let html = report.html(metrics: nil, mode: .nineD)
        for label in ["yaw (°)", "heading (° from north)"] {
            let points = path(html, chart: label)
            XCTAssertGreaterThan(points.count, 100, label)
            let height = 166.0  // the plot area of a 220-pixel chart
            var moves = 0
            for (a, b) in zip(points, points.dropFirst()) {
                if b.0 == "M" {
                    moves += 1
                    continue
                }
                XCTAssertLessThan(abs(b.2 - a.2), height / 2, "\(label): a stroke across the chart")
            }
            XCTAssertGreaterThanOrEqual(moves, 2, "\(label): the line breaks at each wrap")
        }
        XCTAssert(html.contains("Robust weights"))
        XCTAssert(html.contains("aria-label=\"robust weight (0–1)\""))
        XCTAssertFalse(html.contains("<script"))
        // Without weights (the smoother), no weights chart.
        var plain = HTMLReport(title: "plain")
        for s in AttitudeSmoother().reconstruct(FilterTests.simulated(.slowRotation, duration: 5)) {
            plain.add(s.estimate, truth: s.input.truth)
        }
        XCTAssertFalse(plain.html(metrics: nil, mode: .nineD).contains("Robust weights"))
    }
}
