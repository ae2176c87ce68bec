import MotionFusion
import MotionFusionTestSupport
import XCTest

final class SimulatorTests: XCTestCase {
    func settings(_ scenario: MotionSimulator.Scenario, errors: SensorErrorModel = .ideal) -> MotionSimulator.Settings {
        var s = MotionSimulator.Settings()
        s.scenario = scenario
        s.duration = 20
        s.rate = 200
        s.errors = errors
        return s
    }

    /// With ideal sensors, integrating the gyroscope reproduces the ground truth, and the
    /// accelerometer and magnetometer are the earth vectors seen through the truth.
    func testIdealSensorsAgreeWithTruth() {
        for scenario in MotionSimulator.Scenario.allCases {
            var st = settings(scenario)
            st.rate = 1000
            let sim = MotionSimulator(settings: st)
            let trace = sim.run()
            XCTAssertEqual(trace.samples.count, 20001)
            var q = trace.samples[0].truth!
            var worst = 0.0
            for k in 1..<trace.samples.count {
                let a = trace.samples[k - 1]
                let b = trace.samples[k]
                let dt = b.t - a.t
                // Trapezoidal rate over the step: second-order accurate.
                let w = (a.gyroscope! + b.gyroscope!) * 0.5
                q = (q * Quaternion(rotationVector: w * dt)).normalized
                worst = max(worst, q.angle(to: b.truth!))
            }
            XCTAssertLessThan(worst.degrees, 0.02, "\(scenario): gyro integration vs truth")
            // Magnetometer: truth maps it to the earth field outside disturbances.
            let s = trace.samples[0]
            assertClose(s.truth!.rotate(s.magnetometer!), sim.earthField, tolerance: 1e-9)
            assertClose(s.truth!.rotate(s.accelerometer!), Vector3(0, 0, 9.81), tolerance: 1e-9)
        }
    }

    func testSeededRunsAreReproducibleAndSeedsDiffer() {
        var s = settings(.mixed, errors: SensorErrorModel())
        let a = MotionSimulator(settings: s).run()
        let b = MotionSimulator(settings: s).run()
        XCTAssert(a.samples == b.samples, "same seed, same trace")
        s.seed = 2
        XCTAssertNotEqual(MotionSimulator(settings: s).run().samples.last, a.samples.last)
    }

    func testErrorModelAppliesNoiseBiasDropoutsAndSaturation() {
        var s = settings(.fastRotation, errors: SensorErrorModel())
        s.errors.gyroscopeRange = 2
        s.errors.dropoutProbability = 0.01
        let trace = MotionSimulator(settings: s).run()
        let gyros = trace.samples.compactMap(\.gyroscope)
        XCTAssertLessThan(gyros.count, trace.samples.count, "dropouts remove some gyro values")
        XCTAssertEqual(gyros.map { max(abs($0.x), abs($0.y), abs($0.z)) }.max()!, 2, accuracy: 1e-12, "saturated")
        // Timestamps jitter but stay strictly increasing.
        for k in 1..<trace.samples.count { XCTAssertGreaterThan(trace.samples[k].t, trace.samples[k - 1].t) }
        // At rest (first second) the gyro reads bias plus noise, not zero.
        let rest = trace.samples.prefix(100).compactMap(\.gyroscope)
        let mean = rest.reduce(Vector3.zero, +) / Double(rest.count)
        XCTAssertGreaterThan(mean.norm, 0.001)
        XCTAssertLessThan(mean.norm, 0.06)
    }
}
