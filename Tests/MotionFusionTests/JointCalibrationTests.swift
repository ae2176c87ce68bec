import MotionFusion
import MotionFusionTestSupport
import XCTest

/// `reconstruct` calibrates an uncalibrated magnetometer jointly with the attitude by default, from
/// the first window whose readings determine an ellipsoid fit, and leaves a calibrated one alone.
final class JointCalibrationTests: XCTestCase {
    /// The mixed script over 3 000 s at 25 Hz: 240 s of rest first, so the first 300 s window cannot
    /// fit an ellipsoid and the calibration starts in a later one; slow rotation follows until 750 s.
    static func mixed(hardIron: Vector3?, softIron: Matrix3? = nil) -> Trace {
        var e = SensorErrorModel.calibrated
        e.hardIron = 0
        e.softIron = 0
        e.fixedHardIron = hardIron
        e.fixedSoftIron = softIron
        var s = MotionSimulator.Settings()
        s.scenario = .mixed
        s.duration = 3000
        s.rate = 25
        s.errors = e
        s.seed = 5
        return MotionSimulator(settings: s).run()
    }

    /// Heading error about the vertical, degrees, RMS over the samples from `start` to `end`.
    static func headingRMS(
        _ out: [ReconstructedSample], _ trace: Trace, from start: Double, to end: Double = .infinity
    ) -> Double {
        var sum = 0.0
        var n = 0.0
        for (r, s) in zip(out, trace.samples) where s.t >= start && s.t < end {
            let e = (r.estimate.attitude * s.truth!.conjugate).normalized
            let angle = abs(2 * atan2(e.z, e.w)).degrees
            let error = min(angle, 360 - angle)
            sum += error * error
            n += 1
        }
        return (sum / n).squareRoot()
    }

    /// A 20 µT hard iron and 5 % soft iron, uncorrected: the first window's readings cover too
    /// little of the sphere for a fit, but the gyroscope's turns over its last minute determine
    /// one, so the calibration starts with the recording; it recovers the hard iron within 1 µT,
    /// and over the slow rotation the heading is within 3° RMS, less than half its error without
    /// the calibration (the field's strength and dip swing with every turn).
    func testUncalibratedMagnetometerIsCalibratedOnTheWay() throws {
        let hard = Vector3(20, -15, 10)
        let soft = Matrix3(Vector3(1.05, 0.02, 0), Vector3(0.02, 0.97, -0.01), Vector3(0, -0.01, 1.0))
        let trace = Self.mixed(hardIron: hard, softIron: soft)
        let (out, result) = try OfflineReconstruction().reconstruct(trace.samples)
        XCTAssertEqual(out.count, trace.samples.count)
        let statistics = try XCTUnwrap(result.statistics)
        let start = try XCTUnwrap(statistics.jointCalibrationStart, "the joint calibration never started")
        XCTAssertEqual(start, 0, "the calibration starts with the recording")
        XCTAssertGreaterThan(try XCTUnwrap(statistics.calibrationImprovement), 2)
        let calibration = try XCTUnwrap(result.magnetometerCalibration)
        XCTAssertLessThan((calibration.hardIron - hard).norm, 1, "hard iron \(calibration.hardIron)")
        let heading = Self.headingRMS(out, trace, from: 240, to: 750)
        XCTAssertLessThan(heading, 3, "heading RMS (°) over the slow rotation after the calibration started")
        // Switched off, the same recording keeps the raw readings: the heading is far worse.
        var p = OfflineReconstruction.Parameters()
        p.estimateMagnetometerCalibration = false
        let (raw, rawResult) = try OfflineReconstruction(parameters: p).reconstruct(trace.samples)
        XCTAssertNil(rawResult.statistics?.jointCalibrationStart)
        let rawHeading = Self.headingRMS(raw, trace, from: 240, to: 750)
        XCTAssertGreaterThan(rawHeading, 2 * heading, "heading RMS (°) without the calibration against \(heading)°")
    }

    /// A calibrated magnetometer (no iron): its readings are as steady as any fit makes them, so no
    /// joint calibration runs, and the ellipsoid fit is still reported for `--calibrate-mag`.
    func testCalibratedMagnetometerIsLeftAlone() throws {
        let trace = Self.mixed(hardIron: nil)
        let (_, result) = try OfflineReconstruction().reconstruct(trace.samples)
        let statistics = try XCTUnwrap(result.statistics)
        XCTAssertNil(statistics.jointCalibrationStart)
        XCTAssertLessThan(try XCTUnwrap(statistics.calibrationImprovement), 2)
        let fit = try XCTUnwrap(result.magnetometerCalibration)
        XCTAssertLessThan(fit.hardIron.norm, 1)
    }

    /// The command line says when and why it calibrated, and `--calibrate-mag` writes what it used;
    /// where the readings cannot determine a fit, the error says why.
    func testCommandLineNamesTheCalibration() throws {
        let dir = TestData.temporaryDirectory()
        let trace = Self.mixed(hardIron: Vector3(20, -15, 10))
        try TraceWriter.write(trace, to: dir + "/iron.csv")
        let r = CommandRunner.run([
            "reconstruct", dir + "/iron.csv", "--output", dir + "/out.csv", "--calibrate-mag", dir + "/cal.json",
        ])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("hard and soft iron were estimated with the attitude from t = "), r.err)
        // Only reconstruct gains from it: replay with the joint calibration did worse.
        XCTAssert(r.err.contains("pass it to reconstruct with --calibration CAL.json"), r.err)
        XCTAssertFalse(r.err.contains("replay"), r.err)
        let written = try XCTUnwrap(try SensorCalibration(contentsOf: dir + "/cal.json").magnetometer)
        XCTAssertLessThan((written.hardIron - Vector3(20, -15, 10)).norm, 1)
        let still = FilterTests.simulated(.rest, duration: 20, errors: .calibrated)
        try TraceWriter.write(still, to: dir + "/still.csv")
        let refused = CommandRunner.run([
            "reconstruct", dir + "/still.csv", "--output", dir + "/s.csv", "--calibrate-mag", dir + "/s.json",
        ])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssert(refused.err.contains("cover the sphere too little"), refused.err)
    }

    /// A device turning about the vertical only, with a 25 µT hard iron: the directions lie on a
    /// circle, so no fit over the sphere is possible, but the gyroscope's turns determine the hard
    /// iron across the turn axis, which is all the heading needs: `reconstruct` calibrates jointly
    /// (and says so) and the heading is within 2° RMS. With the turns switched off
    /// (`magnetometerCalibration.gyroscopeAided` 0), it says the magnetometer is uncalibrated and
    /// how to calibrate it; the same turn without iron says nothing of the kind.
    func testUnfittableIronIsNamed() throws {
        let dir = TestData.temporaryDirectory()
        let clean = FilterTests.simulated(.steadyTurn, duration: 60, errors: .calibrated)
        var iron = clean
        for i in iron.samples.indices {
            iron.samples[i].magnetometer = iron.samples[i].magnetometer.map { $0 + Vector3(25, 0, 0) }
        }
        let (out, result) = try OfflineReconstruction().reconstruct(iron.samples)
        XCTAssertNotNil(result.statistics?.jointCalibrationStart)
        XCTAssertLessThan(Self.headingRMS(out, iron, from: 0), 2, "heading RMS (°) with the turns' calibration")
        for (name, trace, named) in [("iron", iron, true), ("clean", clean, false)] {
            try TraceWriter.write(trace, to: dir + "/\(name).csv")
            let r = CommandRunner.run([
                "reconstruct", dir + "/\(name).csv", "--output", dir + "/\(name).out.csv", "--param",
                "magnetometerCalibration.gyroscopeAided=0",
            ])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertEqual(r.err.contains("determine no calibration"), named, r.err)
            if named {
                XCTAssert(
                    r.err.contains("cover the sphere too little") && r.err.contains("--calibration CAL.json"), r.err)
            }
        }
    }
}
