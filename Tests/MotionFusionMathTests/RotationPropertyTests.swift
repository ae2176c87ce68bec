import MotionFusionMath
import MotionFusionTestSupport
import XCTest

/// Seeded property tests over 10 000 random rotations.
final class RotationPropertyTests: XCTestCase {
    let count = 10_000

    func testQuaternionMatrixRoundTrip() {
        var rng = SeededRandom(seed: 1)
        for _ in 0..<count {
            let q = rng.rotation()
            let m = Matrix3(q)
            XCTAssertEqual(m.determinant, 1, accuracy: 1e-12)
            let back = Quaternion(m)
            assertSameRotation(back, q, tolerance: 1e-12)
            XCTAssertGreaterThanOrEqual(back.w, 0)
            // The matrix and the quaternion rotate vectors identically.
            let v = rng.unitVector()
            assertClose(m * v, q.rotate(v), tolerance: 1e-14)
            assertClose(q.inverseRotate(q.rotate(v)), v, tolerance: 1e-14)
        }
    }

    /// `withHeading(of:)` keeps the attitude's tilt (its up axis in the sensor frame) and takes the
    /// reference's heading: an attitude differing from the reference by a turn about the vertical
    /// becomes the reference, at any tilt, including the Euler yaw's gimbal lock.
    func testWithHeadingKeepsTiltAndTakesTheHeading() {
        var rng = SeededRandom(seed: 8)
        let up = Vector3(0, 0, 1)
        for k in 0..<count {
            var reference = rng.rotation()
            if k % 4 == 0 {
                // Pitch within a hundredth of a degree of ±90°.
                let pitch = (k % 8 == 0 ? 1 : -1) * (Double.pi / 2 - 1.7e-4)
                reference =
                    EulerAngles(
                        roll: Double.random(in: -3...3, using: &rng), pitch: pitch,
                        yaw: Double.random(in: -3...3, using: &rng)
                    ).quaternion
            }
            let turned = Quaternion(axis: up, angle: Double.random(in: -3...3, using: &rng)) * reference
            assertSameRotation(turned.withHeading(of: reference), reference, tolerance: 1e-9)
            let tilted = Quaternion(axis: rng.unitVector(), angle: Double.random(in: 0...0.5, using: &rng)) * turned
            let aligned = tilted.withHeading(of: reference)
            assertClose(aligned.inverseRotate(up), tilted.inverseRotate(up), tolerance: 1e-12)
            // What is left between the two is a turn about a horizontal axis.
            let rest = aligned * reference.conjugate
            XCTAssertEqual(rest.z, 0, accuracy: 1e-12)
        }
    }

    func testEulerRoundTripFromQuaternion() {
        var rng = SeededRandom(seed: 2)
        for _ in 0..<count {
            let q = rng.rotation()
            let e = EulerAngles(q)
            XCTAssert(e.pitch >= -.pi / 2 && e.pitch <= .pi / 2)
            XCTAssert(e.roll > -.pi - 1e-15 && e.roll <= .pi)
            XCTAssert(e.yaw > -.pi - 1e-15 && e.yaw <= .pi)
            assertSameRotation(e.quaternion, q, tolerance: 1e-12)
        }
    }

    func testEulerRoundTripFromAngles() {
        var rng = SeededRandom(seed: 3)
        for _ in 0..<count {
            let e = EulerAngles(
                roll: Double.random(in: -3.14...3.14, using: &rng),
                pitch: Double.random(in: -1.56...1.56, using: &rng),
                yaw: Double.random(in: -3.14...3.14, using: &rng))
            let back = EulerAngles(e.quaternion)
            // Away from the singular band the angles themselves come back.
            XCTAssertEqual(back.roll, e.roll, accuracy: 1e-9)
            XCTAssertEqual(back.pitch, e.pitch, accuracy: 1e-9)
            XCTAssertEqual(back.yaw, e.yaw, accuracy: 1e-9)
        }
    }

    func testEulerSingularBandPutsRotationIntoYaw() {
        var rng = SeededRandom(seed: 4)
        for _ in 0..<1000 {
            let sign: Double = Bool.random(using: &rng) ? 1 : -1
            let e = EulerAngles(
                roll: Double.random(in: -3...3, using: &rng), pitch: sign * .pi / 2,
                yaw: Double.random(in: -3...3, using: &rng))
            let back = EulerAngles(e.quaternion)
            XCTAssertEqual(back.roll, 0, "roll is reported as 0 inside the singular band")
            XCTAssertEqual(back.pitch, sign * .pi / 2, accuracy: 1e-7)
            // The rotation is still exact.
            assertSameRotation(back.quaternion, e.quaternion, tolerance: 1e-7)
        }
    }

    func testRotationVectorRoundTrip() {
        var rng = SeededRandom(seed: 5)
        for i in 0..<count {
            let q = rng.rotation()
            let rv = q.rotationVector
            XCTAssertLessThanOrEqual(rv.norm, .pi + 1e-12)
            assertSameRotation(Quaternion(rotationVector: rv), q, tolerance: 1e-12)
            XCTAssertEqual(rv.norm, q.angle, accuracy: 1e-12)
            // Tiny angles use the series and stay accurate.
            let small = rng.unitVector() * (1e-9 * Double(i % 7))
            let back = Quaternion(rotationVector: small).rotationVector
            assertClose(back, small, tolerance: 1e-20)
            // q and -q give the same vector.
            assertClose((-q).rotationVector, rv, tolerance: 1e-12)
        }
    }

    func testRenormalizationAgreesWithTheExactOneToRounding() {
        var rng = SeededRandom(seed: 9)
        var newton = 0
        for i in 0..<count {
            // A filter step: a unit attitude times the quaternion of a small turn, so the product
            // is unit to rounding and the series' truncation.
            let step = Quaternion(rotationVector: rng.unitVector() * (0.05 * Double(i % 11) / 10))
            let p = rng.rotation() * step
            let fast = p.renormalized, exact = p.normalized
            XCTAssertEqual(fast.norm, 1, accuracy: 4e-16)
            for (a, b) in [(fast.w, exact.w), (fast.x, exact.x), (fast.y, exact.y), (fast.z, exact.z)] {
                XCTAssertEqual(a, b, accuracy: 4e-16)
            }
            if abs(p.squaredNorm - 1) < Quaternion.renormalizationTolerance { newton += 1 }
            // Far from unit (a restored or scaled quaternion) it is the exact normalisation.
            let scaled = p * (1 + 1e-3 * Double(i % 5 + 1))
            XCTAssertEqual(scaled.renormalized, scaled.normalized)
        }
        XCTAssertEqual(newton, count, "every filter step takes the Newton step")
        // At the edge of the tolerance the Newton step is still unit to rounding; beyond it the
        // exact normalisation runs.
        let tolerance = Quaternion.renormalizationTolerance
        for k in 0..<1_000 {
            let q = rng.rotation()
            let d = tolerance * (k % 2 == 0 ? 0.999 : -0.999)
            let edge = q * (1 + d).squareRoot()
            XCTAssertLessThan(abs(edge.squaredNorm - 1), tolerance)
            XCTAssertEqual(edge.renormalized.norm, 1, accuracy: 4e-16)
            let beyond = q * (1 + 1.01 * tolerance * (k % 2 == 0 ? 1 : -1)).squareRoot()
            XCTAssertGreaterThan(abs(beyond.squaredNorm - 1), tolerance)
            XCTAssertEqual(beyond.renormalized, beyond.normalized)
        }
        XCTAssertEqual(Quaternion(w: 0, x: 0, y: 0, z: 0).renormalized, .identity)
        XCTAssertEqual(Quaternion(w: .nan, x: 0, y: 0, z: 0).renormalized, .identity)
    }

    func testSlerpEndpointsAndConstantSpeed() {
        var rng = SeededRandom(seed: 6)
        for _ in 0..<1000 {
            let a = rng.rotation()
            let b = rng.rotation()
            assertSameRotation(a.slerp(to: b, t: 0), a, tolerance: 1e-12)
            assertSameRotation(a.slerp(to: b, t: 1), b, tolerance: 1e-7)
            let total = a.angle(to: b)
            let mid = a.slerp(to: b, t: 0.25)
            XCTAssertEqual(a.angle(to: mid), total * 0.25, accuracy: 1e-7)
            // Shortest path regardless of sign.
            assertSameRotation(a.slerp(to: -b, t: 0.5), a.slerp(to: b, t: 0.5), tolerance: 1e-12)
        }
    }

    func testAverageOfSymmetricSpreadIsCentre() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<200 {
            let centre = rng.rotation()
            let axis = rng.unitVector()
            let d = Quaternion(axis: axis, angle: 0.3)
            let list = [centre * d, centre * d.conjugate, -centre]
            let avg = Quaternion.average(list)!
            assertSameRotation(avg, centre, tolerance: 1e-12)
        }
        XCTAssertNil(Quaternion.average([]))
        let w = Quaternion.average([.identity, Quaternion(axis: .unitZ, angle: 1)], weights: [1, 0])!
        assertSameRotation(w, .identity, tolerance: 1e-12)
    }

    func testHamiltonProductComposesRotations() {
        var rng = SeededRandom(seed: 8)
        for _ in 0..<count {
            let a = rng.rotation()
            let b = rng.rotation()
            let v = rng.unitVector()
            // (a ⊗ b) rotates by b first, then by a.
            assertClose((a * b).rotate(v), a.rotate(b.rotate(v)), tolerance: 1e-14)
            assertClose((Matrix3(a) * Matrix3(b)) * v, (a * b).rotate(v), tolerance: 1e-14)
        }
    }
}
