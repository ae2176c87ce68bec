import Foundation
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionEstimation

/// Per-sample shortcuts taken for speed must give what the exact computation gives: the low-pass
/// weights and transitions equal the exponentials to rounding, and the EKF's bias update equals the
/// general Kalman update to the bit.
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

    func testBiasUpdateEqualsTheGeneralScalarUpdate() {
        var rng = SeededRandom(seed: 13)
        func matrix() -> Matrix3 {
            Matrix3(
                Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()),
                Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()),
                Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian()))
        }
        func bits(_ m: Matrix3) -> [UInt64] {
            [m.row0, m.row1, m.row2].flatMap { [$0.x.bitPattern, $0.y.bitPattern, $0.z.bitPattern] }
        }
        func bits(_ v: Vector3) -> [UInt64] { [v.x.bitPattern, v.y.bitPattern, v.z.bitPattern] }
        for trial in 0..<200 {
            var filter = KalmanFilter()
            let a = matrix(), b = matrix()
            // A symmetric positive definite covariance of the error state (θ, b).
            filter.state.pqq = a * a.transposed + Matrix3.diagonal(0.1)
            filter.state.pbb = b * b.transposed + Matrix3.diagonal(0.1)
            filter.state.pqb = matrix() * 0.1
            // As after a start or a heading alignment: no correlation, or none for one axis.
            if trial % 10 == 0 { filter.state.pqb = .zero }
            if trial % 10 == 1 { filter.state.pqb.row2 = .zero }
            var general = filter
            var fast = filter
            var c1 = KalmanFilter.Correction(), c2 = KalmanFilter.Correction()
            if trial % 10 != 2 {
                // (Trial 2 starts from a zero correction, as the first update of a sample does.)
                c1.theta = Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian())
                c1.bias = Vector3(rng.gaussian(), rng.gaussian(), rng.gaussian())
            }
            c2 = c1
            let axis = trial % 3
            let nu = rng.gaussian(), r = abs(rng.gaussian()) + 1e-3
            // The general sequential update with h = (0, e_axis).
            let h = [Vector3.unitX, .unitY, .unitZ][axis]
            let hTheta = Vector3.zero
            let u1 = general.state.pqq * hTheta + general.state.pqb * h
            let u2 = general.state.pqb.transposed * hTheta + general.state.pbb * h
            let s = hTheta.dot(u1) + h.dot(u2) + r
            let innovation = nu - hTheta.dot(c1.theta) - h.dot(c1.bias)
            let inv = 1 / s
            c1.theta += u1 * (innovation * inv)
            c1.bias += u2 * (innovation * inv)
            general.state.pqq -= Matrix3.outer(u1, u1) * inv
            general.state.pqb -= Matrix3.outer(u1, u2) * inv
            general.state.pbb -= Matrix3.outer(u2, u2) * inv
            fast.biasUpdate(axis: axis, nu: nu, r: r, &c2)
            XCTAssertEqual(bits(c2.theta), bits(c1.theta))
            XCTAssertEqual(bits(c2.bias), bits(c1.bias))
            XCTAssertEqual(bits(fast.state.pqq), bits(general.state.pqq))
            XCTAssertEqual(bits(fast.state.pqb), bits(general.state.pqb))
            XCTAssertEqual(bits(fast.state.pbb), bits(general.state.pbb))
        }
    }
}
