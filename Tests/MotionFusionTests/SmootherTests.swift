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
                p.mode = mode
                let smoothed = AttitudeSmoother(parameters: p).reconstruct(trace)
                XCTAssertEqual(smoothed.count, trace.samples.count, "one output per input")
                XCTAssert(smoothed.allSatisfy { $0.attitude.isFinite && $0.attitudeUncertainty.isFinite })
                let offline = AttitudeErrorMetric.evaluate(
                    estimates: smoothed.map(\.attitude), trace: trace, mode: mode)!
                let online = AttitudeErrorMetric.evaluate(
                    estimates: FilterKind.default.attitudes(trace.samples, mode: mode), trace: trace, mode: mode)!
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

    func testBroadOfflineAccuracy() throws {
        let paths = try TestData.broadTrials()
        let traces = try paths.map { try Trace.readNative(path: $0) }
        for (mode, bound) in [(FusionMode.nineD, 1.9), (.sixD, 2.0)] {
            var p = AttitudeSmoother.Parameters()
            p.mode = mode
            var totals = [Double](repeating: 0, count: traces.count)
            DispatchQueue.concurrentPerform(iterations: traces.count) { i in
                let q = AttitudeSmoother(parameters: p).reconstruct(traces[i]).map(\.attitude)
                totals[i] = AttitudeErrorMetric.evaluate(estimates: q, trace: traces[i], mode: mode)!.totalRMSE
            }
            let mean = totals.reduce(0, +) / Double(totals.count)
            print("BROAD offline \(mode.rawValue): \(mean)° per trial \(totals)")
            XCTAssertLessThanOrEqual(mean, bound, "\(mode.rawValue)")
        }
    }
}
