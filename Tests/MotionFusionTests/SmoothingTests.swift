import Foundation
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionCore

/// The per-step weights and transitions of the low-pass filters take shortcuts for speed; they must
/// still equal the exact exponentials to rounding.
final class SmoothingTests: XCTestCase {
    func testFirstOrderWeightEqualsTheExponential() {
        var rng = SeededRandom(seed: 11)
        var worst = 0.0
        for _ in 0..<200_000 {
            let x = Double.random(in: -12...0.5, using: &rng)
            let time = Double.random(in: 0.01...100, using: &rng)
            let dt = pow(10, x) * time
            let exact = -Foundation.expm1(-dt / time)
            let w = firstOrderSmoothing(dt, time: time)
            worst = max(worst, abs(w - exact) / exact)
        }
        XCTAssertLessThan(worst, 4e-16, "largest relative error")
        XCTAssertEqual(firstOrderSmoothing(0, time: 1), 0)
        XCTAssertEqual(firstOrderSmoothing(-1, time: 1), 0)
        XCTAssertEqual(firstOrderSmoothing(0.01, time: 0), 1)
        XCTAssertEqual(firstOrderSmoothing(1e9, time: 1), 1)
    }

    /// Jittered steps (corrected transitions) against the exact transition recomputed every step.
    func testButterworthWithJitteredStepsMatchesExactTransitions() {
        var fast = ButterworthLowPass(cutoff: 1 / (2 * Double.pi * 2))
        var exact = fast
        var rng = SeededRandom(seed: 11)
        var worst = 0.0
        var t = 0.0
        for k in 0..<100_000 {
            // 285.7 Hz with microsecond rounding, occasional rate changes and gaps.
            var dt = 0.0035 + Double(Int.random(in: -2...2, using: &rng)) * 1e-6
            if k % 10_000 == 9_999 { dt = 0.05 }
            if k > 50_000 { dt *= 2 }
            t += dt
            let x = Vector3((t * 1.3).sin, (t * 0.2).cos, Double.random(in: -1...1, using: &rng))
            let a = fast.update(x, dt: dt)
            exact.step = -1
            let b = exact.update(x, dt: dt)
            worst = max(worst, (a - b).norm)
        }
        XCTAssertLessThan(worst, 1e-12)
    }
}
