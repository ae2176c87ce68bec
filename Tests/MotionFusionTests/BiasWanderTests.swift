import MotionFusionTestSupport
import XCTest

@testable import MotionFusion

/// ``BiasWander``: the random walk a recording's rests show.
final class BiasWanderTests: XCTestCase {
    /// Feeds 5 s rests every `spacing` seconds at 50 Hz, the rate at rest being the bias of that
    /// rest plus white noise of 0.002 rad/s per sample (a consumer gyroscope's); motion between them.
    func wander(biases: [Vector3], spacing: Double, seed: UInt64 = 3) -> Double {
        var random = SeededRandom(seed: seed)
        var w = BiasWander()
        var t = 0.0
        for bias in biases {
            for _ in 0..<250 {
                let noise = Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * 0.002
                w.add(t: t, gyroscope: bias + noise, atRest: true)
                t += 0.02
            }
            w.add(t: t, gyroscope: Vector3(1, 0, 0), atRest: false)
            t += spacing - 5
        }
        return w.walk
    }

    /// A bias that walks at 2e-4 rad/s/√s between rests 300 s apart is measured within a factor of
    /// 1.6; with a constant one the rests' noise stays below the batch's 3e-5 setting; rests under
    /// a minute apart are not compared (alternate means 0.1 °/s apart, 35 s apart, would show 2e-4); and
    /// there is none before two rests.
    func testTheRestsMeasureTheWalk() {
        var random = SeededRandom(seed: 11)
        var bias = Vector3.zero
        var walked = [Vector3]()
        for _ in 0..<41 {
            walked.append(bias)
            let step = 2e-4 * 300.0.squareRoot()
            bias += Vector3(random.gaussian(), random.gaussian(), random.gaussian()) * step
        }
        let measured = wander(biases: walked, spacing: 300)
        XCTAssertGreaterThan(measured, 2e-4 / 1.6, "walk (rad/s/√s) of a bias walking at 2e-4")
        XCTAssertLessThan(measured, 2e-4 * 1.6, "walk (rad/s/√s) of a bias walking at 2e-4")
        let constant = wander(biases: Array(repeating: Vector3(0.01, -0.02, 0.005), count: 20), spacing: 300)
        XCTAssertLessThan(constant, 3e-5, "walk (rad/s/√s) of a constant bias")
        let close = wander(biases: (0..<20).map { Vector3(0, 0, $0 % 2 == 0 ? 0.001 : -0.001) }, spacing: 35)
        XCTAssertLessThan(close, 3e-5, "walk (rad/s/√s) from rests 35 s apart whose means differ by 0.1 °/s")
        XCTAssertEqual(wander(biases: [.zero], spacing: 300), 0, "walk before two rests")
    }
}
