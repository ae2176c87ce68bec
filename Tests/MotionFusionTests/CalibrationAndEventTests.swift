import Foundation
import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

final class CalibrationTests: XCTestCase {
    /// A malformed calibration file is refused at its line and column, naming the key being read.
    func testCalibrationFileErrorsArePlaced() {
        let cases: [(String, String)] = [
            ("{\"gyroscope\": {\"bias\": [0.001, NaN, 0]}}", ":1:32: not valid JSON in \"bias\""),
            ("{\"gyroscope\": {\"bias\": [0.001, 1e999, 0]}}", ":1:32: not valid JSON in \"bias\""),
            ("{\"gyroscope\": {\"bias\": [0.001,", ":1:31: not valid JSON in \"bias\""),
            ("{\n  \"gyroscope\": {\n    \"bias\": [0.001, \"x\", 0]\n  }\n}\n", ":3:5: gyroscope.bias must be three"),
            ("[1]", ":1:1: not a JSON object"),
            ("{\n\"gyroscope\": {\"bias\": [1e308, 0, 0]}}", ":2:15: gyroscope.bias is beyond"),
            (
                "{\"magnetometer\": {\"hard_iron\": [0, 0, 0],\n \"soft_iron\": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]}}",
                ":2:2: magnetometer.soft_iron mirrors the field"
            ),
            (
                "{\"magnetometer\": {\"hard_iron\": [0, 0, 0], \"soft_iron\": [[1, 0], [0, 1]]}}",
                ":1:43: magnetometer.soft_iron must be 3×3"
            ),
            // A repeated key, which a JSON parser would resolve in silence (the same key in two
            // different objects is fine).
            (
                "{\"gyroscope\": {\"bias\": [0, 0, 0],\n  \"bias\": [1, 0, 0]}, \"accelerometer\": {\"bias\": [0, 0, 0]}}",
                ":2:3: \"bias\" appears twice in the same object"
            ),
        ]
        for (text, expected) in cases {
            let path = TestData.writeTemporary(text, name: "cal.json")
            XCTAssertThrowsError(try SensorCalibration(contentsOf: path), text) { error in
                XCTAssert("\(error)".contains(path + expected), "\(error)")
            }
        }
        let fine = TestData.writeTemporary(
            "{\"gyroscope\": {\"bias\": [0.01, 0, 0]}, \"accelerometer\": {\"bias\": [0, 0, 0], \"scale\": [1, 1, 1]}}",
            name: "cal.json")
        XCTAssertNoThrow(try SensorCalibration(contentsOf: fine))
    }

    func orientationsTrace(seed: UInt64, errors: SensorErrorModel = SensorErrorModel()) -> (Trace, MotionSimulator) {
        var s = MotionSimulator.Settings()
        s.scenario = .orientations
        s.duration = MotionSimulator.orientationScriptDuration
        s.rate = 100
        s.seed = seed
        s.errors = errors
        let sim = MotionSimulator(settings: s)
        return (sim.run(), sim)
    }

    /// Hard iron within 1 % of the field strength and soft iron within 2 %, on traces whose
    /// distortion is drawn at random per seed.
    func testMagnetometerCalibrationRecoversDistortion() throws {
        for seed: UInt64 in [1, 2, 3, 4] {
            var errors = SensorErrorModel()
            errors.hardIron = 20
            errors.softIron = 0.08
            let (trace, sim) = orientationsTrace(seed: seed, errors: errors)
            let truth = sim.drawErrors()
            let cal = try MagnetometerCalibration.fit(trace.samples.compactMap(\.magnetometer))
            let field = sim.settings.fieldStrength
            XCTAssertLessThan((cal.hardIron - truth.hardIron).norm, 0.01 * field, "seed \(seed)")
            // raw = S·true + h, so the calibration should be S⁻¹ up to the determinant-one scaling.
            let s = truth.softIron
            let sInv = s.inverse!
            let scale = Foundation.cbrt(sInv.determinant)
            for r in 0..<3 {
                for c in 0..<3 {
                    XCTAssertEqual(cal.softIron[r, c], sInv[r, c] / scale, accuracy: 0.02, "seed \(seed) [\(r),\(c)]")
                }
            }
            XCTAssertEqual(cal.fieldStrength, field / scale, accuracy: 0.01 * field)
            // Six poses and a tumble: the smallest scatter eigenvalue is well above a cone's (0.3).
            XCTAssertGreaterThan(cal.coverage, 0.5)
            XCTAssertLessThan(cal.residual, 1)
        }
    }

    /// A rotation in one plane only cannot determine an ellipsoid: a clear refusal, not a wrong fit.
    func testDegenerateCoverageWarns() {
        var samples = [Vector3]()
        for k in 0..<2000 {
            let yaw = Double(k) * 0.01
            samples.append(Quaternion(axis: .unitZ, angle: yaw).inverseRotate(Vector3(0, 20, -40)) + Vector3(5, -3, 2))
        }
        XCTAssertThrowsError(try MagnetometerCalibration.fit(samples)) { error in
            guard case MagnetometerCalibration.FitError.insufficientCoverage(let c, _) = error else {
                return XCTFail("expected insufficient coverage, got \(error)")
            }
            // Turns about one axis put the readings on a circle: flat around its centre.
            XCTAssertLessThan(c, 0.01)
            XCTAssert("\(error)".contains("rotate the device slowly through all orientations"))
        }
    }

    func testGyroscopeBiasAndSixPositionAccelerometer() {
        var errors = SensorErrorModel.calibrated
        errors.accelerometerBias = 0.2
        errors.scaleError = 0.02
        errors.misalignment = 0
        errors.gyroscopeBiasRandomWalk = 0
        let (trace, sim) = orientationsTrace(seed: 5, errors: errors)
        let truth = sim.drawErrors()
        let cal = SensorCalibration.fit(trace)
        assertClose(cal.gyroscopeBias!, truth.gyroscopeBias, tolerance: 0.002)
        let acc = cal.accelerometer!
        XCTAssertGreaterThanOrEqual(acc.poses, 6)
        // raw = diag(1 + e)·true + b: bias b and scale 1/(1 + e).
        let m = truth.accelerometerMatrix
        assertClose(acc.bias, truth.accelerometerBias, tolerance: 0.02)
        XCTAssertEqual(acc.scale.x, 1 / m[0, 0], accuracy: 0.002)
        XCTAssertEqual(acc.scale.y, 1 / m[1, 1], accuracy: 0.002)
        XCTAssertEqual(acc.scale.z, 1 / m[2, 2], accuracy: 0.002)
        XCTAssertLessThan(acc.residual, 0.02)
    }

    /// The calibrate command writes the documented JSON, and replay applies it: a distorted
    /// magnetometer then gives a far better heading than the readings as they come (the on-line
    /// calibration switched off, `magnetometerCalibration.enabled` 0, so what is compared is the
    /// written calibration alone).
    func testCalibrateCommandAndReplayWithCalibration() throws {
        var errors = SensorErrorModel()
        errors.hardIron = 15
        errors.softIron = 0.08
        let (trace, _) = orientationsTrace(seed: 6, errors: errors)
        let dir = TestData.temporaryDirectory()
        try TraceWriter.write(trace, to: dir + "/t.csv")
        var err = ""
        let console = ConsoleOutput(out: { _ in }, err: { err += $0 })
        XCTAssertEqual(
            MotionFusionCLI.run(["calibrate", dir + "/t.csv", "--output", dir + "/cal.json"], output: console), 0, err)
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/cal.json")))
            as! [String: Any]
        let mag = json["magnetometer"] as! [String: Any]
        XCTAssertEqual((mag["hard_iron"] as! [Double]).count, 3)
        XCTAssertEqual((mag["soft_iron"] as! [[Double]]).map(\.count), [3, 3, 3])
        for key in ["field_strength_ut", "residual_ut", "coverage"] { XCTAssertNotNil(mag[key], key) }
        let reread = try SensorCalibration(contentsOf: dir + "/cal.json")
        XCTAssertNotNil(reread.magnetometer)
        func score(_ extra: [String]) -> Double {
            var text = ""
            let c = ConsoleOutput(out: { _ in }, err: { text += $0 })
            XCTAssertEqual(
                MotionFusionCLI.run(["replay", dir + "/t.csv", "--output", "/dev/null", "--score"] + extra, output: c),
                0, text)
            return Double(text.components(separatedBy: "total ")[1].prefix { $0 != "°" })!
        }
        let raw = score(["--param", "magnetometerCalibration.enabled=0"])
        let calibrated = score(["--calibration", dir + "/cal.json"])
        XCTAssertLessThan(calibrated, raw * 0.6, "calibration helps: \(raw)° → \(calibrated)°")
        XCTAssertLessThan(calibrated, 2.5)
        XCTAssertEqual(
            MotionFusionCLI.run(["replay", dir + "/t.csv", "--calibration", dir + "/missing.json"], output: console), 1)
    }
}

final class EventTests: XCTestCase {
    /// Orientation changes are reported during the scripted turns (to within 0.5 s after each
    /// turn ends) and never while the device rests; shakes start and end within the shake windows.
    func testOrientationAndShakeEventsOnSimulatedTrace() {
        var s = MotionSimulator.Settings()
        s.scenario = .orientations
        s.duration = MotionSimulator.orientationScriptDuration
        s.errors = .calibrated
        let trace = MotionSimulator(settings: s).run()
        let events = MotionEventDetector().events(trace.samples)
        let turns = MotionSimulator.orientationTurns(duration: s.duration)
        let orientationEvents = events.compactMap { e -> (Double, String)? in
            if case .orientation(let o) = e.kind { return (e.t, o.rawValue) }
            return nil
        }
        XCTAssertEqual(orientationEvents.first?.1, "face_up")
        XCTAssertEqual(orientationEvents.first?.0 ?? -1, 0, accuracy: 0.5)
        for turn in turns {
            // The last event in the turn window is the orientation the turn ends in.
            let inWindow = orientationEvents.filter { $0.0 >= turn.start && $0.0 <= turn.end + 0.5 }
            XCTAssertEqual(inWindow.last?.1, turn.orientation, "turn ending at \(turn.end)")
        }
        // Before the tumble, every event lies in a turn window (no flicker at rest).
        let tumbleStart = turns.last!.end + 5
        for e in orientationEvents where e.0 > 0.5 && e.0 < tumbleStart {
            XCTAssert(turns.contains { e.0 >= $0.start && e.0 <= $0.end + 0.5 }, "spurious \(e.1) at \(e.0)")
        }
        let shakes = MotionSimulator.orientationShakes(duration: s.duration)
        let starts = events.filter { $0.kind == .shakeStart }.map(\.t)
        let ends = events.filter { $0.kind == .shakeEnd }.map(\.t)
        XCTAssertEqual(starts.count, shakes.count)
        XCTAssertEqual(ends.count, shakes.count)
        for (i, w) in shakes.enumerated() where i < starts.count && i < ends.count {
            XCTAssert(
                starts[i] >= w.start && starts[i] <= w.start + 1, "shake \(i) starts at \(starts[i]), window \(w)")
            XCTAssert(ends[i] >= w.end - 1 && ends[i] <= w.end + 1, "shake \(i) ends at \(ends[i]), window \(w)")
        }
    }

    func testEventsCommandJSON() throws {
        let dir = TestData.temporaryDirectory()
        let console = ConsoleOutput(out: { _ in }, err: { _ in })
        XCTAssertEqual(
            MotionFusionCLI.run(
                [
                    "simulate", "--scenario", "orientations", "--duration", "70.5", "--rate", "100", "--output",
                    dir + "/o.csv",
                ],
                output: console), 0)
        var out = ""
        XCTAssertEqual(
            MotionFusionCLI.run(
                ["events", dir + "/o.csv", "--json"], output: ConsoleOutput(out: { out += $0 }, err: { _ in })), 0)
        let lines = out.split(separator: "\n").map {
            try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        XCTAssert(lines.allSatisfy { $0["t"] is Double && $0["event"] is String })
        XCTAssert(lines.contains { $0["event"] as? String == "shake_start" })
        XCTAssert(lines.contains { $0["orientation"] as? String == "landscape_left" })
        XCTAssert(lines.filter { $0["event"] as? String == "orientation" }.allSatisfy { $0["orientation"] is String })
    }

    /// Heading adjusted for the interface orientation: a phone held upright in landscape, looking
    /// (through the back camera) east, reads 90 in landscape where the plain heading is undefined.
    func testInterfaceOrientationHeading() {
        // Landscape left, upright: device +x up, back camera (−z) facing east.
        // From flat facing north, a turn about the device y axis by −90° puts +x up and −z east.
        let q = Quaternion(axis: .unitY, angle: -.pi / 2)
        assertClose(q.rotate(.unitX), .unitZ, tolerance: 1e-12)
        assertClose(q.rotate(Vector3(0, 0, -1)), .unitX, tolerance: 1e-12)
        assertAngleDegrees(q.headingDegrees(interface: .landscapeLeft), 90, tolerance: 1e-6)
        // Flat in landscape left, interface top (+x) pointing north: heading 0.
        let flat = Quaternion(axis: .unitZ, angle: .pi / 2)
        assertClose(flat.rotate(.unitX), .unitY, tolerance: 1e-12)
        assertAngleDegrees(flat.headingDegrees(interface: .landscapeLeft), 0, tolerance: 1e-9)
        assertAngleDegrees(Quaternion.identity.headingDegrees(interface: .portrait), 0, tolerance: 1e-9)
        assertAngleDegrees(Quaternion.identity.headingDegrees(interface: .portraitUpsideDown), 180, tolerance: 1e-9)
        XCTAssertEqual(InterfaceOrientation(.landscapeRight), .landscapeRight)
        XCTAssertNil(InterfaceOrientation(.faceUp))
    }

    func testGravitySeparation() {
        var sep = GravitySeparator(timeConstant: 0.5)
        var last = (gravity: Vector3.zero, user: Vector3.zero)
        for k in 0..<1000 {
            let t = Double(k) * 0.01
            let a = Vector3(0, 0, 9.81) + Vector3(2 * (2 * .pi * 5 * t).sin, 0, 0)
            last = sep.update(a, dt: k == 0 ? 0 : 0.01)
        }
        assertClose(last.gravity, Vector3(0, 0, 9.81), tolerance: 0.15)
        XCTAssertLessThan(abs(last.user.z), 0.05)
    }
}
