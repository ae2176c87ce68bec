import MotionFusionMath
import MotionFusionTestSupport
import XCTest

/// One test per statement of `docs/Conventions.md`.
final class ConventionTests: XCTestCase {
    /// Storage is scalar first: the identity is (1, 0, 0, 0) and the 90° turn about z stores
    /// sin(45°) in the last slot.
    func testScalarFirstStorage() {
        XCTAssertEqual(Quaternion.identity.array, [1, 0, 0, 0])
        let q = Quaternion(axis: .unitZ, angle: .pi / 2)
        XCTAssertEqual(q.array[0], 0.5.squareRoot(), accuracy: 1e-15)
        XCTAssertEqual(q.array[3], 0.5.squareRoot(), accuracy: 1e-15)
        XCTAssertEqual(q.w, q.array[0])
    }

    /// Hamilton product: i ⊗ j = k (not −k as in the JPL convention).
    func testHamiltonProduct() {
        let i = Quaternion(w: 0, x: 1, y: 0, z: 0)
        let j = Quaternion(w: 0, x: 0, y: 1, z: 0)
        XCTAssertEqual(i * j, Quaternion(w: 0, x: 0, y: 0, z: 1))
    }

    /// The attitude maps sensor coordinates to earth coordinates: a device yawed 90° left
    /// (counter-clockwise seen from above, in ENU) has its +x axis pointing north.
    func testAttitudeMapsSensorToEarth() {
        let q = Quaternion(axis: .unitZ, angle: .pi / 2)
        assertClose(q.rotate(.unitX), .unitY, tolerance: 1e-15)
        // Columns of the rotation matrix are the sensor axes in earth coordinates.
        let m = Matrix3(q)
        assertClose(Vector3(m[0, 0], m[1, 0], m[2, 0]), .unitY, tolerance: 1e-15)
    }

    /// Euler sequence Z-Y-X: R = Rz(yaw) Ry(pitch) Rx(roll).
    func testEulerSequence() {
        let e = EulerAngles(roll: 0.1, pitch: 0.2, yaw: 0.3)
        let expected =
            Quaternion(axis: .unitZ, angle: 0.3) * Quaternion(axis: .unitY, angle: 0.2)
            * Quaternion(axis: .unitX, angle: 0.1)
        assertSameRotation(e.quaternion, expected, tolerance: 1e-15)
        // Positive pitch lifts the +x axis below the horizon? No: Ry(+θ) takes +x towards −z.
        let pitched = EulerAngles(roll: 0, pitch: 0.5, yaw: 0).quaternion.rotate(.unitX)
        XCTAssertLessThan(pitched.z, 0)
        // Positive roll takes +y towards +z.
        let rolled = EulerAngles(roll: 0.5, pitch: 0, yaw: 0).quaternion.rotate(.unitY)
        XCTAssertGreaterThan(rolled.z, 0)
    }

    /// A phone lying flat, screen up, top edge (+y) to magnetic north, in ENU: identity attitude,
    /// heading 0, roll 0, pitch 0.
    func testFlatDeviceFacingNorth() {
        let q = Quaternion.identity
        let e = EulerAngles(q)
        XCTAssertEqual(e.roll, 0)
        XCTAssertEqual(e.pitch, 0)
        XCTAssertEqual(e.yaw, 0)
        assertAngleDegrees(q.headingDegrees(), 0, tolerance: 1e-12)
    }

    /// Turned clockwise (seen from above) to face east: heading 90; south 180; west 270.
    func testHeadingIsClockwiseFromNorth() {
        for (bearing, expected) in [(90.0, 90.0), (180, 180), (270, 270), (45, 45), (359, 359)] {
            // Clockwise from above is a negative rotation about up.
            let q = Quaternion(axis: .unitZ, angle: -bearing.radians)
            assertAngleDegrees(q.headingDegrees(), expected, tolerance: 1e-9)
            XCTAssert(q.headingDegrees() >= 0 && q.headingDegrees() < 360)
            // The top edge (+y) points at that bearing: east component sin, north component cos.
            let top = q.rotate(.unitY)
            XCTAssertEqual(top.x, bearing.radians.sin, accuracy: 1e-12)
            XCTAssertEqual(top.y, bearing.radians.cos, accuracy: 1e-12)
        }
    }

    /// Heading is tilt compensated: tilting the device (pitch or roll) does not change it.
    func testHeadingIsTiltCompensated() {
        let facingEast = Quaternion(axis: .unitZ, angle: -.pi / 2)
        for tilt in [-1.2, -0.4, 0.3, 1.0] {
            let tiltX = facingEast * Quaternion(axis: .unitX, angle: tilt)
            let tiltY = facingEast * Quaternion(axis: .unitY, angle: tilt)
            assertAngleDegrees(tiltX.headingDegrees(), 90, tolerance: 1e-9)
            assertAngleDegrees(tiltY.headingDegrees(), 90, tolerance: 1e-9)
        }
    }

    /// A phone held upright in portrait, screen to the user, back camera to the north: heading 0.
    func testUprightPortraitHeadingFollowsBackCamera() {
        // Tilt the flat phone up about its +x axis by 90°: +y up, −z (back) north.
        let q = Quaternion(axis: .unitX, angle: .pi / 2)
        assertClose(q.rotate(.unitY), .unitZ, tolerance: 1e-15)
        assertClose(q.rotate(Vector3(0, 0, -1)), .unitY, tolerance: 1e-15)
        assertAngleDegrees(q.headingDegrees(), 0, tolerance: 1e-9)
        XCTAssertEqual(EulerAngles(q).roll.degrees, 90, accuracy: 1e-9)
    }

    /// Gravity: at rest the accelerometer reads +g along the sensor axis that points up (specific
    /// force points up), so the attitude maps the reading to earth up. A phone standing in portrait
    /// (top edge up) reads +g on its y axis; its attitude is a +90° roll, which maps y to up.
    func testAccelerometerAtRestPointsUp() {
        let portrait = Quaternion(axis: .unitX, angle: .pi / 2)
        let reading = Vector3(0, 9.81, 0)
        assertClose(portrait.rotate(reading), Vector3(0, 0, 9.81), tolerance: 1e-12)
        XCTAssertEqual(EulerAngles(portrait).roll.degrees, 90, accuracy: 1e-9)
        // Lying flat, face up: +g on z, the identity attitude.
        assertClose(Quaternion.identity.rotate(Vector3(0, 0, 9.81)), Vector3(0, 0, 9.81), tolerance: 0)
        // Face down: +g on −z, a 180° roll.
        let faceDown = Quaternion(axis: .unitX, angle: .pi)
        assertClose(faceDown.rotate(Vector3(0, 0, -9.81)), Vector3(0, 0, 9.81), tolerance: 1e-12)
    }

    /// ENU ↔ NED ↔ NWU: exact axis mappings and quaternion conversions.
    func testEarthFrameConversions() {
        let east = Vector3.unitX
        let north = Vector3.unitY
        let up = Vector3.unitZ
        XCTAssertEqual(EarthFrame.ned.vector(fromENU: north), .unitX)
        XCTAssertEqual(EarthFrame.ned.vector(fromENU: east), .unitY)
        XCTAssertEqual(EarthFrame.ned.vector(fromENU: up), Vector3(0, 0, -1))
        XCTAssertEqual(EarthFrame.nwu.vector(fromENU: north), .unitX)
        XCTAssertEqual(EarthFrame.nwu.vector(fromENU: east), Vector3(0, -1, 0))
        XCTAssertEqual(EarthFrame.nwu.vector(fromENU: up), .unitZ)
        var rng = SeededRandom(seed: 10)
        for _ in 0..<1000 {
            let q = rng.rotation()
            let v = rng.unitVector()
            for frame in EarthFrame.allCases {
                // The frame quaternion agrees with the explicit axis mapping.
                assertClose(frame.fromENU.rotate(v), frame.vector(fromENU: v), tolerance: 1e-15)
                assertClose(frame.vectorToENU(frame.vector(fromENU: v)), v, tolerance: 0)
                // Attitude conversion: the same sensor vector lands on the converted earth vector.
                let qf = frame.attitude(fromENU: q)
                assertClose(qf.rotate(v), frame.vector(fromENU: q.rotate(v)), tolerance: 1e-14)
                assertSameRotation(frame.attitudeToENU(qf), q, tolerance: 1e-14)
                // Heading is physical: the same in every frame.
                assertAngleDegrees(qf.headingDegrees(in: frame), q.headingDegrees(), tolerance: 1e-7)
            }
        }
    }

    /// The 24 mounting remaps: all proper rotations, distinct, and they act as spelled.
    func testAxisRemaps() {
        XCTAssertEqual(AxisRemap.all.count, 24)
        XCTAssertEqual(Set(AxisRemap.all).count, 24)
        for r in AxisRemap.all {
            XCTAssertEqual(r.matrix.determinant, 1)
            XCTAssertEqual(AxisRemap(r.description), r)
            let raw = Vector3(1, 2, 3)
            assertClose(r.apply(raw), r.matrix * raw, tolerance: 0)
            assertClose(r.apply(raw), r.quaternion.rotate(raw), tolerance: 1e-14)
        }
        let r = AxisRemap("+Y-X+Z")!
        XCTAssertEqual(r.apply(Vector3(1, 2, 3)), Vector3(2, -1, 3))
        XCTAssertNil(AxisRemap("+X+X+Z"), "repeated axis")
        XCTAssertNil(AxisRemap("+Y+X+Z"), "left-handed (determinant −1)")
        XCTAssertNil(AxisRemap("XYZ"))
    }

    func testAngleWrapping() {
        XCTAssertEqual((-90.0).wrappedTo360, 270)
        XCTAssertEqual(720.0.wrappedTo360, 0)
        XCTAssertEqual((-1e-18).wrappedTo360, 0)
        // [0, 360): a heading of exactly north is 0, never −0.
        XCTAssertEqual((-0.0).wrappedTo360.sign, .plus)
        XCTAssertEqual(Quaternion.identity.headingDegrees().sign, .plus)
        XCTAssertEqual((3 * Double.pi).wrappedToPi, .pi, accuracy: 1e-12)
        // Small angles skip the remainder: the same bits as with it, on both sides of each bound.
        func reference360(_ x: Double) -> Double {
            var a = x.truncatingRemainder(dividingBy: 360)
            if a < 0 { a += 360 }
            return a >= 360 ? 0 : a + 0
        }
        func referencePi(_ x: Double) -> Double {
            var a = x.truncatingRemainder(dividingBy: 2 * .pi)
            if a > .pi { a -= 2 * .pi } else if a <= -.pi { a += 2 * .pi }
            return a
        }
        var rng = SeededRandom(seed: 12)
        var values: [Double] = [0, -0.0, 360, -360, 2 * .pi, -2 * .pi, .pi, -.pi, .nan, .infinity, -.infinity]
        values += [Double(360).nextDown, Double(-360).nextUp, (2 * Double.pi).nextDown, (-2 * Double.pi).nextUp]
        for _ in 0..<10_000 { values += [rng.gaussian() * 400, rng.gaussian() * 4] }
        for x in values {
            XCTAssertEqual(x.wrappedTo360.bitPattern, reference360(x).bitPattern, "\(x)")
            XCTAssertEqual(x.wrappedToPi.bitPattern, referencePi(x).bitPattern, "\(x)")
        }
    }
}
