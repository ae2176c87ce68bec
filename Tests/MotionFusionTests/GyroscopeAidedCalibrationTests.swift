import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// The magnetometer calibration from the gyroscope's turns (``GyroscopeAidedCalibration``): against
/// a known hard and soft iron, where the readings' directions cover too little of the sphere for a
/// fit over it.
final class GyroscopeAidedCalibrationTests: XCTestCase {
    static let hardIron = Vector3(30, -40, 20)
    static let softIron = Matrix3(Vector3(1.08, 0.05, -0.03), Vector3(0.05, 0.93, 0.06), Vector3(-0.03, 0.06, 1.02))

    /// The simulator's slow rotation (a wobble of about ±25° about each axis after 6 s of rest),
    /// 60 s at 50 Hz, with the iron above, or with none.
    static func wobble(iron: Bool = true) -> Trace {
        var e = ScenarioSuiteTests.errors()
        if iron {
            e.fixedHardIron = hardIron
            e.fixedSoftIron = softIron
        }
        return ScenarioSuiteTests.simulated(.slowRotation, duration: 60, errors: e)
    }

    /// RMS heading error (about the vertical), degrees, from `start` to the end, of `reconstruct`
    /// 9D (default method) over the trace.
    static func reconstructedHeadingError(_ trace: Trace, from start: Double) throws -> Double {
        var p = OfflineReconstruction.Parameters()
        p.mode = .nineD
        let offline = try OfflineReconstruction(parameters: p).reconstruct(trace.samples).samples
        return rmsHeadingError(offline.map(\.estimate.attitude), trace, from: start)
    }

    /// RMS heading error (about the vertical), degrees, from `start` to the end.
    static func rmsHeadingError(_ q: [Quaternion], _ trace: Trace, from start: Double) -> Double {
        var sum = 0.0
        var count = 0.0
        for (e, s) in zip(q, trace.samples) where s.t >= start {
            let error = ScenarioSuiteTests.verticalError(e, s.truth!)
            sum += error * error
            count += 1
        }
        return (sum / count).squareRoot()
    }

    /// Readings of a field turned by the true attitudes, through the iron, with the true rates:
    /// turns about every axis determine the hard iron within 0.5 µT and the soft iron within 0.02;
    /// turns about the vertical only (a hard iron alone: they cannot determine a soft iron), the
    /// hard iron across it within 0.5 µT, with its vertical part left at zero.
    func testTurnsDetermineTheIron() throws {
        let field = Vector3(0, 20, -45)
        func follow(softIron: Matrix3 = Self.softIron, _ rate: (Double) -> Vector3) -> GyroscopeAidedCalibration {
            var c = GyroscopeAidedCalibration()
            var q = Quaternion.identity
            let dt = 0.02
            for k in 0..<3000 {
                let t = Double(k) * dt
                let w = rate(t)
                q = (q * Quaternion(rotationVector: w * dt)).normalized
                let m = softIron * q.inverseRotate(field) + Self.hardIron
                _ = c.observe(m, rate: w, dt: k == 0 ? 0 : dt, minimumTurn: 20.0.radians, refitInterval: 2)
            }
            return c
        }
        let everyAxis = follow { t in Vector3(0.8 * sin(1.3 * t), 0.7 * sin(0.9 * t + 1), 0.6 * sin(1.7 * t + 2)) }
        let fit = try XCTUnwrap(everyAxis.fit(maximumAxisRatio: 1.5), "turns about every axis")
        XCTAssertEqual(fit.directions, 3)
        XCTAssertLessThan((fit.hardIron - Self.hardIron).norm, 0.5, "hard iron (µT)")
        // The fit's soft iron undoes the true one, up to the scale (determinant 1).
        let undone = fit.softIron * Self.softIron
        let scale = undone.determinant.cubeRoot
        for (row, unit) in [(undone.row0, Vector3.unitX), (undone.row1, .unitY), (undone.row2, .unitZ)] {
            XCTAssertLessThan((row / scale - unit).norm, 0.02, "soft iron times its fit")
        }
        let turntable = follow(softIron: .identity) { _ in Vector3(0, 0, 0.5) }
        let planar = try XCTUnwrap(turntable.fit(maximumAxisRatio: 1.5), "a turntable")
        XCTAssertEqual(planar.directions, 2)
        XCTAssertEqual(planar.softIron, .identity)
        XCTAssertLessThan(
            Vector3(planar.hardIron.x - Self.hardIron.x, planar.hardIron.y - Self.hardIron.y, 0).norm, 0.5,
            "hard iron across the turns (µT)")
        XCTAssertEqual(planar.hardIron.z, 0, accuracy: 1e-9)
    }

    /// A field that changes in the room while the device turns (a magnet moving past) fits no
    /// calibration: the turns give none.
    func testADisturbedFieldFitsNoCalibration() {
        var c = GyroscopeAidedCalibration()
        var q = Quaternion.identity
        let dt = 0.02
        for k in 0..<3000 {
            let t = Double(k) * dt
            let w = Vector3(0.8 * sin(1.3 * t), 0.7 * sin(0.9 * t + 1), 0.6 * sin(1.7 * t + 2))
            q = (q * Quaternion(rotationVector: w * dt)).normalized
            let field = Vector3(0, 20, -45) + Vector3(25, 0, 0) * sin(2 * .pi * 0.2 * t)
            _ = c.observe(
                q.inverseRotate(field), rate: w, dt: k == 0 ? 0 : dt, minimumTurn: 20.0.radians, refitInterval: 2)
        }
        XCTAssertNil(c.fit(maximumAxisRatio: 1.5))
    }

    /// The wobble with the iron: the default filter and the complementary filter calibrate on line
    /// from the turns (the readings cover about a quarter of the sphere, too little for a fit over
    /// it) and hold the heading within 3° RMS over the last 40 s; switched off
    /// (`magnetometerCalibration.gyroscopeAided` 0), or with turns of 180° asked for
    /// (`magnetometerCalibration.gyroscopeTurn`: even its half, which a turn that has taken over
    /// 3 s needs, is more than the wobble makes), nothing calibrates.
    func testAWobbleCalibratesOnLine() throws {
        let trace = Self.wobble()
        for kind in ScenarioSuiteTests.biasKinds {
            let estimates = RunConfiguration(kind, mode: .nineD).estimates(trace.samples)
            let error = Self.rmsHeadingError(estimates.map(\.attitude), trace, from: 20)
            XCTAssertLessThan(error, 3, "\(kind) 9d: RMS heading error (°) over the last 40 s")
            XCTAssertGreaterThanOrEqual(estimates.last!.diagnostics.magnetometerAccuracy, .medium, "\(kind)")
            for (name, value) in [("gyroscopeAided", 0.0), ("gyroscopeTurn", Double.pi)] {
                var off = RunConfiguration(kind, mode: .nineD)
                try off.filter.setParameter("magnetometerCalibration." + name, value)
                let level = off.estimates(trace.samples).last!.diagnostics.magnetometerAccuracy
                XCTAssertEqual(level, .uncalibrated, "\(kind) with \(name) \(value)")
            }
        }
    }

    /// The same wobble offline: `reconstruct` calibrates jointly from the turns' fit (heading within
    /// 2° RMS over the whole run, rest included), and `calibrate` finds the hard iron within 2 µT,
    /// saying it came from the turns.
    func testAWobbleCalibratesOffline() throws {
        let trace = Self.wobble()
        XCTAssertLessThan(
            try Self.reconstructedHeadingError(trace, from: 0), 2, "reconstruct 9d: RMS heading error (°)")
        let c = SensorCalibration.fit(trace, sensors: [.magnetometer])
        let m = try XCTUnwrap(c.magnetometer, "calibrate: \(c.warnings)")
        XCTAssertLessThan((m.hardIron - Self.hardIron).norm, 2, "calibrate: hard iron (µT)")
        XCTAssertTrue(c.warnings.contains { $0.contains("gyroscope's turns") }, "\(c.warnings)")
        // Without iron, the readings are left as they are.
        XCTAssertNil(SensorCalibration.fit(Self.wobble(iron: false), sensors: [.magnetometer]).magnetometer)
    }

    /// The whole recording's turns (``GyroscopeAidedCalibration/Recording``, as `reconstruct` and
    /// `calibrate` follow them), about the vertical: a hard iron across the axis is fitted within
    /// 0.5 µT, a large one (18 µT) and a small one (1.5 µT, a raw strength scatter of 3 %) alike.
    func testARecordingFitsLargeAndSmallHardIron() {
        let field = Vector3(0, 20, -45)
        func steadiest(hardIron: Vector3) -> GyroscopeAidedCalibration.Fit? {
            var r = GyroscopeAidedCalibration.Recording(
                parameters: MagnetometerSelfCalibration.Parameters(), evidence: 2, longestGap: 1)
            let dt = 0.02
            let rate = Vector3(0, 0, 0.5)
            for k in 0..<3000 {
                let q = Quaternion(axis: .unitZ, angle: 0.5 * Double(k) * dt)
                r.add(t: Double(k) * dt, magnetometer: q.inverseRotate(field) + hardIron, rate: rate)
            }
            return r.steadiest?.fit
        }
        for iron in [Vector3(15, -10, 0), Vector3(1.5, 0, 0)] {
            let fit = steadiest(hardIron: iron)
            XCTAssertLessThan((fit.map { $0.hardIron - iron }?.norm ?? .infinity), 0.5, "a \(iron.norm) µT hard iron")
        }
    }

    /// A magnetometer slower than the gyroscope (every other sample, every fourth), and one on rows
    /// of its own 5 ms after each gyroscope row (a merged timeline): the turns count every
    /// gyroscope sample, so the default filter still calibrates the wobble and holds the heading
    /// within 3° RMS over the last 35 s, and `calibrate` finds the hard iron within 2 µT.
    func testASlowerMagnetometerIsFollowed() throws {
        let trace = Self.wobble()
        for every in [2, 4] {
            var slow = trace
            for i in slow.samples.indices where i % every != 0 { slow.samples[i].magnetometer = nil }
            let q = RunConfiguration(.ekf, mode: .nineD).attitudes(slow.samples)
            XCTAssertLessThan(Self.rmsHeadingError(q, slow, from: 25), 3, "magnetometer on 1 of \(every) samples")
        }
        var merged = Trace(samples: [])
        for s in trace.samples {
            var motion = s
            motion.magnetometer = nil
            merged.samples.append(motion)
            merged.samples.append(SensorSample(t: s.t + 0.005, magnetometer: s.magnetometer, truth: s.truth))
        }
        let q = RunConfiguration(.ekf, mode: .nineD).attitudes(merged.samples)
        XCTAssertLessThan(Self.rmsHeadingError(q, merged, from: 25), 3, "merged rows")
        let c = SensorCalibration.fit(merged, sensors: [.magnetometer])
        let m = try XCTUnwrap(c.magnetometer, "calibrate on merged rows: \(c.warnings)")
        XCTAssertLessThan((m.hardIron - Self.hardIron).norm, 2, "calibrate on merged rows: hard iron (µT)")
        XCTAssertFalse(c.warnings.contains { $0.contains("no rest") }, "\(c.warnings)")
        // Without its rest, the wobble's turns are the raw rates', and `calibrate` says so.
        let restless = Trace(samples: trace.samples.filter { $0.t >= 7 && $0.t < 53 })
        let r = SensorCalibration.fit(restless, sensors: [.magnetometer])
        XCTAssertNotNil(r.magnetometer, "\(r.warnings)")
        XCTAssertTrue(
            r.warnings.contains { $0.contains("no rest of 1 s or more measured the gyroscope bias") }, "\(r.warnings)")
    }

    /// A magnet fixed to the wobbling device (no iron of its own) from 20 s to 60 s of 90 s is a
    /// hard iron while it is there: the default filter takes a calibration from the turns for it,
    /// and once the magnet is off, that calibration no longer fits them and the raw readings do,
    /// so it gives way to them: by the end the raw readings are in use again, and the heading is
    /// within 3° RMS over the last 10 s.
    func testAMagnetTakenOffGivesWayToTheRawReadings() {
        var trace = ScenarioSuiteTests.simulated(.slowRotation, duration: 90)
        for i in trace.samples.indices where trace.samples[i].t >= 20 && trace.samples[i].t < 60 {
            trace.samples[i].magnetometer = trace.samples[i].magnetometer.map { $0 + Vector3(25, -30, 15) }
        }
        var filter = KalmanFilter()
        var previous: Double?
        var turnedWhileOn = false
        for s in trace.samples {
            filter.update(
                gyroscope: s.gyroscope, accelerometer: s.accelerometer, magnetometer: s.magnetometer,
                dt: previous.map { s.t - $0 } ?? 0)
            previous = s.t
            if s.t >= 20 && s.t < 60 && filter.state.magnetometerCalibration.turnedInUse { turnedWhileOn = true }
        }
        XCTAssertTrue(turnedWhileOn, "a calibration from the turns while the magnet is on")
        XCTAssertFalse(filter.state.magnetometerCalibration.turnedInUse, "the raw readings again at the end")
        let q = RunConfiguration(.ekf, mode: .nineD).attitudes(trace.samples)
        XCTAssertLessThan(
            Self.rmsHeadingError(q, trace, from: 80), 3, "ekf 9d: RMS heading error (°) over the last 10 s")
    }

    /// The on-line calibration's parameters decode with each absent one at its default, and every
    /// one present is read.
    func testParametersDecodeWithDefaults() throws {
        var p = MagnetometerSelfCalibration.Parameters()
        p.gyroscopeAided = false
        p.gyroscopeTurn = 0.5
        p.minimumThickness = 0.05
        p.enabled = false
        // Keys sorted: an encoder's key order follows its dictionary's, which differs from one
        // dictionary to the next (per-instance hash seeds), so the bytes of two encodings of
        // equal values could differ.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(p)
        let back = try JSONDecoder().decode(MagnetometerSelfCalibration.Parameters.self, from: data)
        XCTAssertEqual(try encoder.encode(back), data)
        let empty = try JSONDecoder().decode(MagnetometerSelfCalibration.Parameters.self, from: Data("{}".utf8))
        XCTAssertEqual(try encoder.encode(empty), try encoder.encode(MagnetometerSelfCalibration.Parameters()))
    }
}
