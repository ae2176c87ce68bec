import Foundation
import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

/// No silent fallback: a 9D replay that could not use its magnetometer says so.
final class MagnetometerWarningTests: XCTestCase {
    func replay(_ trace: Trace, command: String = "replay", _ extra: [String] = []) throws -> String {
        let path = TestData.temporaryDirectory() + "/iron.csv"
        try TraceWriter.write(trace, to: path)
        var err = ""
        let status = MotionFusionCLI.run(
            [command, path, "--mode", "9d", "--output", TestData.temporaryDirectory() + "/est.csv"] + extra,
            output: ConsoleOutput(out: { _ in }, err: { err += $0 }))
        XCTAssertEqual(status, 0, err)
        return err
    }

    /// Hard iron as large as the earth's field, and a device rocked about its rest attitude while a
    /// magnet moves near it (too few directions for a fit over the sphere, and a field that changes
    /// in the room, which no calibration from the turns fits): the magnetometer is rejected for most
    /// samples, and the warning gives the share, the calibration level and both fixes. Rocked
    /// without iron or magnet, no warning.
    func testRejectedMagnetometerIsAnnounced() throws {
        var s = MotionSimulator.Settings()
        s.scenario = .slowRotation
        s.duration = 60
        s.rate = 50
        s.seed = 23
        var e = ScenarioSuiteTests.errors()
        s.errors = e
        XCTAssertFalse(try replay(MotionSimulator(settings: s).run()).contains("magnetometer was rejected"))
        // Resampled output counts the filter's own samples, for every filter.
        for filter in ["ekf", "mahony", "complementary"] {
            let err = try replay(
                MotionSimulator(settings: s).run(), command: "replay", ["--filter", filter, "--rate", "20"])
            XCTAssertFalse(err.contains("magnetometer was rejected"), "\(filter) --rate: \(err)")
        }
        e.fixedHardIron = Vector3(30, -25, 31)
        s.errors = e
        s.scenario = .magneticDisturbance
        let err = try replay(MotionSimulator(settings: s).run())
        XCTAssert(err.contains("warning: the magnetometer was rejected on"), err)
        XCTAssert(err.contains(" %)"), err)
        XCTAssert(err.contains("calibration reached uncalibrated"), err)
        // The reason: the checks of the reference field the rejected readings failed.
        XCTAssert(err.contains("of the rejected samples, "), err)
        XCTAssertFalse(err.contains("the readings departed from the reference field"), err)
        let resampled = try replay(MotionSimulator(settings: s).run(), command: "replay", ["--rate", "20"])
        XCTAssert(resampled.contains("warning: the magnetometer was rejected on"), "--rate: \(resampled)")
        // Rocking about one attitude determines no fit over the sphere: the fix is a recording that
        // turns.
        XCTAssertFalse(err.contains("--calibrate-mag"), err)
        XCTAssert(err.contains("These readings determine no calibration (") && err.contains("--calibration"), err)
        // `info` reports the share and the fit, and warns the same way.
        let path = TestData.temporaryDirectory() + "/iron.csv"
        try TraceWriter.write(MotionSimulator(settings: s).run(), to: path)
        let info = CommandRunner.run(["info", path])
        XCTAssertEqual(info.status, 0, info.err)
        XCTAssert(info.out.contains("magnetometer  rejected on"), info.out)
        XCTAssert(info.out.contains("mag fit"), info.out)
        XCTAssert(info.err.contains("warning: the magnetometer was rejected on"), info.err)
        let json = CommandRunner.run(["info", path, "--json"])
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], json.out)
        let magnetometer = try XCTUnwrap(object["magnetometer"] as? [String: Any])
        XCTAssertGreaterThan(try XCTUnwrap(magnetometer["rejected_share"] as? Double), 0.5)
        let level = try XCTUnwrap(magnetometer["fit_level"] as? String)
        // Without a fit there is no coverage, residual or hard iron to report: null, not 0.
        for key in ["fit_coverage", "fit_residual", "fit_hard_iron"] {
            XCTAssertEqual(magnetometer[key] is NSNull, level == "uncalibrated", "\(key) with fit level \(level)")
        }
        // Reconstruction fits the hard iron itself and down-weights the moving magnet's readings:
        // most of them, which it says, with the checks they failed.
        let offline = try replay(MotionSimulator(settings: s).run(), command: "reconstruct")
        XCTAssertFalse(offline.contains("magnetometer was rejected"), offline)
        XCTAssert(
            offline.contains("warning: the reconstruction's robust fit weighted the magnetometer under one half on"),
            offline)
        XCTAssert(offline.contains("of the rejected samples, "), offline)
        XCTAssertFalse(offline.contains("waited for the field"), offline)
    }

    /// The warning names the checks the rejected readings failed, the most frequent first, with
    /// their shares of the rejected samples, and the share that passed them while the filter waited
    /// for the field to settle.
    func testTheWarningNamesWhichChecksFailed() {
        var use = MagnetometerUse()
        func add(_ n: Int, rejected: Bool, _ departure: FieldDeparture) {
            var d = FilterDiagnostics()
            d.initialising = false
            d.magnetometerRejected = rejected
            d.magnetometerDeparture = departure
            for k in 0..<n {
                let t = Double(use.samples + k) * 0.01
                let e = MotionEstimate(
                    t: t, attitude: .identity, gyroscopeBias: .zero, diagnostics: d, gyroscope: .zero,
                    accelerometer: Vector3(0, 0, 9.81), magnetometer: Vector3(0, 20, -40))
                use.add(e, SensorSample(t: t, gyroscope: .zero, magnetometer: Vector3(0, 20, -40)))
            }
        }
        add(20, rejected: false, [])
        add(50, rejected: true, [.azimuth])
        add(20, rejected: true, [.strength, .dip])
        add(10, rejected: true, [])
        let w = use.warning(source: "s.csv", calibrated: false)
        XCTAssert(w.contains("rejected on 80 of 100 samples (80 %)"), w)
        let azimuth = w.range(of: "63 % a direction that jumped faster than the device turned")
        let strength = w.range(of: "25 % had a strength unlike the reference field's")
        let dip = w.range(of: "25 % a dip unlike the reference's")
        let waited = w.range(of: "13 % passed those checks while the filter waited")
        XCTAssertNotNil(azimuth, w)
        XCTAssertNotNil(strength, w)
        XCTAssertNotNil(dip, w)
        XCTAssertNotNil(waited, w)
        if let a = azimuth, let s = strength, let w2 = waited {
            XCTAssertLessThan(a.lowerBound, s.lowerBound, "most frequent first: \(w)")
            XCTAssertLessThan(s.lowerBound, w2.lowerBound, w)
        }
        // A reconstruction's: down-weighted, its azimuth judged against the whole recording.
        let offline = use.warning(source: "s.csv", calibrated: false, offline: true)
        XCTAssert(
            offline.contains("robust fit weighted the magnetometer under one half on 80 of 100 samples (80 %)"), offline
        )
        XCTAssert(
            offline.contains("63 % a direction unlike the one the attitude from the whole recording predicts"), offline)
        XCTAssert(offline.contains("13 % departed by less than a tolerance on several checks at once"), offline)
        XCTAssertFalse(offline.contains("on-line calibration"), offline)
    }

    /// A recording at 50 Hz of `scenario` whose magnetometer has a hard iron as large as the
    /// earth's field, and the exit status of `reconstruct --calibrate-mag` on it.
    static func ironed(_ scenario: MotionSimulator.Scenario, duration: Double) throws -> (Trace, fitStatus: Int32) {
        var s = MotionSimulator.Settings()
        s.scenario = scenario
        s.duration = duration
        s.rate = 50
        var e = ScenarioSuiteTests.errors()
        e.fixedHardIron = Vector3(30, -25, 31)
        s.errors = e
        let trace = MotionSimulator(settings: s).run()
        let dir = TestData.temporaryDirectory()
        try TraceWriter.write(trace, to: dir + "/iron.csv")
        let fit = CommandRunner.run([
            "reconstruct", dir + "/iron.csv", "--output", dir + "/r.csv", "--calibrate-mag", dir + "/cal.json",
        ])
        return (trace, fit.status)
    }

    /// Rejections with a cause other than the field are named as such, not blamed on the field:
    /// a recording without a gyroscope, and one whose times do not step forward.
    func testRejectionsWithoutATurnRateNameTheirCause() throws {
        var s = MotionSimulator.Settings()
        s.scenario = .mixed
        s.duration = 60
        var trace = MotionSimulator(settings: s).run()
        for i in trace.samples.indices { trace.samples[i].gyroscope = nil }
        let err = try replay(trace)
        XCTAssert(err.contains("have no gyroscope value: without a turn rate"), err)
        XCTAssertFalse(err.contains("the heading is mostly the gyroscope's"), err)
        trace = MotionSimulator(settings: s).run()
        for i in trace.samples.indices { trace.samples[i].t = 1 }
        let same = try replay(trace)
        XCTAssert(same.contains("have a time that does not step forward"), same)
        XCTAssertFalse(same.contains("the field's strength or dip"), same)
        // A magnetometer on rows of its own has the rate the runner holds: a disturbed field there
        // is blamed on the field, not on a missing gyroscope.
        s.scenario = .magneticDisturbance
        s.rate = 50
        s.seed = 23
        var e = ScenarioSuiteTests.errors()
        e.fixedHardIron = Vector3(30, -25, 31)
        s.errors = e
        var split = [SensorSample]()
        for sample in MotionSimulator(settings: s).run().samples {
            var imu = sample
            imu.magnetometer = nil
            split += [imu, SensorSample(t: sample.t + 0.003, magnetometer: sample.magnetometer)]
        }
        let apart = try replay(Trace(samples: split))
        XCTAssert(apart.contains("warning: the magnetometer was rejected on"), apart)
        XCTAssertFalse(apart.contains("no gyroscope value"), apart)
    }

    /// Turns about the vertical alone (the directions on a circle, as in the phyphox walk): the
    /// on-line calibration takes the hard iron across the turns from the gyroscope, so the
    /// magnetometer is used and nothing is announced, but no calibration can be written from them
    /// (`reconstruct --calibrate-mag` fails, naming the axis). With the turns switched off
    /// (`magnetometerCalibration.gyroscopeAided` 0), the warning gives the fit's reason and
    /// `calibrate` on a recording that turns, not `--calibrate-mag`.
    func testUnfittableRecordingIsNotProposedForACalibration() throws {
        let (trace, fitStatus) = try Self.ironed(.steadyTurn, duration: 60)
        XCTAssertEqual(fitStatus, 1, "reconstruct --calibrate-mag fails on a turn about one axis")
        XCTAssertFalse(try replay(trace).contains("magnetometer was rejected"))
        let dir = TestData.temporaryDirectory()
        try TraceWriter.write(trace, to: dir + "/turn.csv")
        let r = CommandRunner.run([
            "reconstruct", dir + "/turn.csv", "--output", dir + "/r.csv", "--calibrate-mag", dir + "/cal.json",
        ])
        XCTAssert(r.err.contains("the device turned about one axis only"), r.err)
        // The note says what the turns cannot tell, and proposes no --calibrate-mag (a reviewer's
        // turn about a tilted axis was told its iron was estimated, and was 39° off).
        XCTAssert(r.err.contains("turns, which were about one axis only"), r.err)
        XCTAssertFalse(r.err.contains("Write the calibration with --calibrate-mag"), r.err)
        // `info` says what `calibrate` will do with it.
        let info = CommandRunner.run(["info", dir + "/turn.csv"])
        XCTAssert(info.out.contains("mag file fit  none: 'calibrate --sensors mag' refuses"), info.out)
        XCTAssertNotEqual(
            CommandRunner.run(["calibrate", dir + "/turn.csv", "--sensors", "mag", "--output", dir + "/c.json"]).status,
            0)
        // Asked for every sensor, the refusal names the option that writes what did fit.
        let all = CommandRunner.run(["calibrate", dir + "/turn.csv", "--output", dir + "/c.json"])
        XCTAssertNotEqual(all.status, 0)
        XCTAssert(all.err.contains("'--sensors gyr' writes what did fit alone"), all.err)
        let gyr = CommandRunner.run(["calibrate", dir + "/turn.csv", "--sensors", "gyr", "--output", dir + "/c.json"])
        XCTAssertEqual(gyr.status, 0, gyr.err)
        let err = try replay(trace, ["--param", "magnetometerCalibration.gyroscopeAided=0"])
        XCTAssert(err.contains("warning: the magnetometer was rejected on"), err)
        XCTAssertFalse(err.contains("--calibrate-mag"), err)
        XCTAssert(
            err.contains("These readings determine no calibration (the field directions cover the sphere too little"),
            err)
        XCTAssert(err.contains("'motionfusion calibrate REC --sensors mag --output CAL.json'"), err)
    }

    /// Where the recording's readings determine a calibration and the filter could not use the
    /// magnetometer (the turns switched off), the warning proposes fitting it with
    /// `reconstruct --calibrate-mag`, which then writes it; with the turns, the filter calibrates
    /// on line and nothing is announced.
    func testFittableRecordingIsProposedForACalibration() throws {
        let (trace, fitStatus) = try Self.ironed(.orientations, duration: 120)
        XCTAssertEqual(fitStatus, 0, "reconstruct --calibrate-mag writes a calibration")
        XCTAssertFalse(try replay(trace).contains("magnetometer was rejected"))
        let err = try replay(trace, ["--param", "magnetometerCalibration.gyroscopeAided=0"])
        XCTAssert(err.contains("warning: the magnetometer was rejected on"), err)
        XCTAssert(err.contains("'motionfusion reconstruct TRACE --calibrate-mag CAL.json'"), err)
        let dir = TestData.temporaryDirectory()
        try TraceWriter.write(trace, to: dir + "/turns.csv")
        let info = CommandRunner.run(["info", dir + "/turns.csv"])
        XCTAssert(info.out.contains("mag file fit  determined"), info.out)
        let calibrate = CommandRunner.run([
            "calibrate", dir + "/turns.csv", "--sensors", "mag", "--output", dir + "/c.json",
        ])
        XCTAssertEqual(calibrate.status, 0, calibrate.err)
    }

    /// The real phyphox walk (a turn about the vertical): no `--calibrate-mag` proposed.
    func testPhyphoxWalkIsNotProposedForACalibration() throws {
        let path = try TestData.shared("formats/phyphox")
        let r = CommandRunner.run(["replay", path, "--output", TestData.temporaryDirectory() + "/p.csv"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("the magnetometer was rejected on"), r.err)
        XCTAssertFalse(r.err.contains("--calibrate-mag"), r.err)
        XCTAssert(r.err.contains("These readings determine no calibration"), r.err)
    }
}
