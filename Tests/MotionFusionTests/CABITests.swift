import Foundation
import MotionFusion
import MotionFusionC
import MotionFusionTestSupport
import XCTest

/// The C ABI (Sources/MotionFusionC) is the library's: a filter's saved state is the runner's own
/// format, states in the earlier format still restore, and the folder plan is the one the command
/// line follows, with its messages.
final class CABITests: XCTestCase {
    /// A filter object of the C ABI.
    final class Handle {
        let pointer: OpaquePointer

        init(_ kind: String, _ mode: String, _ parameters: String? = nil) throws {
            var handle: OpaquePointer?
            var error = [CChar](repeating: 0, count: 1024)
            let status = mf_filter_create(kind, mode, parameters, &handle, &error, error.count)
            guard status == 0, let handle else { throw StatusError(message: String(cString: error), status: status) }
            pointer = handle
        }

        deinit { mf_filter_free(pointer) }

        func step(_ samples: [[Double]]) {
            for s in samples { s.withUnsafeBufferPointer { _ = mf_filter_step(pointer, $0.baseAddress, nil) } }
        }

        var state: String {
            get throws {
                var json: UnsafeMutablePointer<CChar>?
                var error = [CChar](repeating: 0, count: 1024)
                let status = mf_filter_save_state(pointer, &json, &error, error.count)
                guard status == 0, let json else { throw StatusError(message: String(cString: error), status: status) }
                defer { mf_string_free(json) }
                return String(cString: json)
            }
        }

        func restore(_ state: String) throws {
            var error = [CChar](repeating: 0, count: 1024)
            let status = mf_filter_restore_state(pointer, state, &error, error.count)
            guard status == 0 else { throw StatusError(message: String(cString: error), status: status) }
        }
    }

    /// Samples `range` of a short motion (t, gyroscope, accelerometer, magnetometer): every third
    /// without a gyroscope value and every other one without a magnetometer's, so the runner holds
    /// values. The first 60 are the ones the state in the earlier format below ran.
    static func samples(_ range: Range<Int>) -> [[Double]] {
        range.map { i in
            let g = i % 3 != 0 ? [0.01 * sin(Double(i) * 0.1), 0.02, -0.01] : [Double](repeating: .nan, count: 3)
            let m = i % 2 == 0 ? [20.0, -5, -40] : [Double](repeating: .nan, count: 3)
            return [Double(i) * 0.01] + g + [0.1, 0.2 * cos(Double(i) * 0.05), 9.8] + m
        }
    }

    /// A Mahony 9D filter's state after `samples(0..<60)`, saved by the C ABI before it saved the
    /// runner's format (main at a78ac58): `{"filter":KIND,"mode":…,"parameters":…,"runner":…,"state":…}`.
    static let earlierState = #"""
        {"filter":"mahony","mode":"9d","parameters":{"integration.gapRatio":2,"integration.rateChangeSteps":3,"integration.stepAveragingTime":1,"ki":0.0012,"kp":0.74},"runner":{"clipping":{"largest":{"x":0.009999232575641009,"y":0.02,"z":0.01},"range":{"x":0,"y":0,"z":0},"runX":0,"runY":40,"runZ":40},"lastAccelerometer":{"x":0.1,"y":-0.19634044059969083,"z":9.8},"lastGyroscope":{"x":-0.0037387666483023603,"y":0.02,"z":-0.01},"lastGyroscopeTime":0.59,"lastTime":0.59},"state":{"attitude":{"w":0.6341954842231705,"x":0.004411793697419927,"y":0.004877006457142294,"z":0.773144772132184},"headingReferenced":true,"initialised":true,"integral":{"x":-1.1944419872715222e-05,"y":-3.791699756333637e-06,"z":6.117999336366426e-07},"integrator":{"longSteps":0,"previousRate":{"x":-0.0037387666483023603,"y":0.02,"z":-0.01},"typicalStep":0.009999999999999998},"use":{"accelerometerRejected":false,"atRest":false,"centripetal":{"x":0,"y":0,"z":0},"magnetometerRejected":true}}}
        """#

    func testTheSavedStateIsTheRunnersWithItsSetup() throws {
        let a = try Handle("mahony", "9d")
        a.step(Self.samples(0..<60))
        let text = try a.state
        // What FilterRunner.savedState() writes, then the setup.
        var runner = FilterRunner(MahonyFilter(), settings: RunConfiguration().runner)
        try runner.restoreState(Data(text.utf8))
        let run = String(decoding: try runner.savedState(), as: UTF8.self)
        XCTAssertEqual(
            text,
            run.dropLast()
                + #","setup":{"kind":"mahony","mode":"9d","parameters":{"integration.gapRatio":2,"integration.rateChangeSteps":3,"integration.stepAveragingTime":1,"ki":0.0012,"kp":0.74}}}"#
        )
        // The runner restored from it continues exactly as the filter object does.
        let more = Self.samples(60..<100)
        a.step(more)
        for s in more {
            runner.step(
                SensorSample(
                    t: s[0], gyroscope: Vector3(s[1], s[2], s[3]), accelerometer: Vector3(s[4], s[5], s[6]),
                    magnetometer: Vector3(s[7], s[8], s[9])))
        }
        let after = try JSONValue.parse(Array(try a.state.utf8))
        let expected = try JSONValue.parse(Array(try runner.savedState()))
        XCTAssertEqual(after["filter"], expected["filter"])
        XCTAssertEqual(after["runner"], expected["runner"])
    }

    /// An EKF state saved before the filter gained a parameter names fewer parameters: it restores
    /// into a filter that runs the new one at its default (the value the saver ran with), and its
    /// own state (without the timer kept since) continues exactly; with another value it is refused.
    func testAStateSavedBeforeAParameterWasAddedRestores() throws {
        let a = try Handle("ekf", "9d")
        a.step(Self.samples(0..<60))
        var saved = try JSONValue.parse(Array(try a.state.utf8))
        guard case .object(var setup) = saved["setup"], case .object(var parameters) = setup["parameters"],
            case .object(var filter) = saved["filter"], case .object(var all) = saved
        else { return XCTFail("a saved state is an object with its setup") }
        for added in ["motionBiasRate", "motionBiasScaleTime", "sustainedAccelerationTime"] {
            XCTAssertNotNil(parameters.removeValue(forKey: added), added)
        }
        filter.removeValue(forKey: "accelerationDepartureTime")
        setup["parameters"] = .object(parameters)
        all["setup"] = .object(setup)
        all["filter"] = .object(filter)
        // The gyroscope-aided calibration's parameters and the early fits' interval came later
        // still, anywhere in the saved state (the filter's parameters hold the on-line
        // calibration's); so did their state, which a restore starts afresh (checked after the
        // comparison below).
        var removed = Set<String>()
        func strip(_ v: JSONValue, _ later: [String]) -> JSONValue {
            switch v {
            case .object(let o):
                var kept = [String: JSONValue]()
                for (k, x) in o {
                    if let name = later.first(where: { k == $0 || k.hasSuffix("." + $0) }) {
                        removed.insert(name)
                    } else {
                        kept[k] = strip(x, later)
                    }
                }
                return .object(kept)
            case .array(let a): return .array(a.map { strip($0, later) })
            default: return v
            }
        }
        saved = strip(.object(all), ["gyroscopeAided", "gyroscopeTurn", "uncalibratedRefitInterval"])
        XCTAssertEqual(removed, ["gyroscopeAided", "gyroscopeTurn", "uncalibratedRefitInterval"])
        let b = try Handle("ekf", "9d")
        try b.restore(saved.text)
        let more = Self.samples(60..<100)
        a.step(more)
        b.step(more)
        XCTAssertEqual(
            try JSONValue.parse(Array(try b.state.utf8))["filter"],
            try JSONValue.parse(Array(try a.state.utf8))["filter"])
        let withoutTurns = strip(saved, ["turns", "turned", "fieldChangedAtRest", "restField", "earlyFitAt"])
        XCTAssert(removed.contains("turns"), "\(removed)")
        XCTAssertNoThrow(try Handle("ekf", "9d").restore(withoutTurns.text))
        let other = try Handle("ekf", "9d", "motionBiasRate=0.001")
        XCTAssertThrowsError(try other.restore(saved.text)) {
            XCTAssertTrue("\($0)".contains("with other parameters"), "\($0)")
        }
    }

    func testAStateInTheEarlierFormatStillRestores() throws {
        let old = try JSONValue.parse(Array(Self.earlierState.utf8))
        let b = try Handle("mahony", "9d")
        try b.restore(Self.earlierState)
        let restored = try JSONValue.parse(Array(try b.state.utf8))
        // The filter's state and the runner's memory, value for value (numbers to the bit).
        XCTAssertEqual(restored["filter"], old["state"])
        // The runner's memory holds the magnetometer's saturation since that format: restored at
        // its start (nothing found), the rest value for value.
        guard case .object(var runner)? = restored["runner"] else { return XCTFail("no runner memory") }
        XCTAssertEqual(runner.removeValue(forKey: "magnetometerClipping")?["upper"]?["x"], .string("inf"))
        // And the accelerometer's time since the one after it: none, so nothing is held.
        XCTAssertEqual(runner.removeValue(forKey: "lastAccelerometerTime"), .string("-inf"))
        XCTAssertEqual(runner.removeValue(forKey: "sensorsAtTime")?["time"], .string("-inf"))
        XCTAssertNil(runner["heldAccelerometer"])
        XCTAssertEqual(JSONValue.object(runner), old["runner"])
        XCTAssertEqual(restored["setup"]?["parameters"], old["parameters"])
        // It continues as the same state saved in the runner's format does.
        let c = try Handle("mahony", "9d")
        try c.restore(try b.state)
        b.step(Self.samples(60..<100))
        c.step(Self.samples(60..<100))
        XCTAssertEqual(try b.state, try c.state)
        // The oldest states have no runner: the runner starts afresh.
        let runnerStart = try XCTUnwrap(Self.earlierState.range(of: #","runner":"#))
        let stateStart = try XCTUnwrap(Self.earlierState.range(of: #","state":"#))
        var withoutRunner = Self.earlierState
        withoutRunner.removeSubrange(runnerStart.lowerBound..<stateStart.lowerBound)
        XCTAssertFalse(withoutRunner.contains(#""runner""#))
        let d = try Handle("mahony", "9d")
        try d.restore(withoutRunner)
        let fresh = try JSONValue.parse(Array(try d.state.utf8))
        XCTAssertEqual(fresh["filter"], old["state"])
        XCTAssertEqual(fresh["runner"], try JSONValue.parse(Array(try Handle("mahony", "9d").state.utf8))["runner"])
    }

    func testAStateRestoresOnlyIntoTheSameSetup() throws {
        let a = try Handle("mahony", "9d")
        a.step(Self.samples(0..<10))
        let text = try a.state
        for (kind, mode, parameters, belongs) in [
            ("ekf", "9d", nil, "mahony 9d filter"), ("mahony", "6d", nil, "mahony 9d filter"),
            ("mahony", "9d", "kp=0.5", "mahony 9d filter with other parameters"),
        ] {
            for state in [text, Self.earlierState] {
                let other = try Handle(kind, mode, parameters)
                XCTAssertThrowsError(try other.restore(state)) { error in
                    let e = StatusError.from(error)
                    XCTAssertEqual(e.status, 1)
                    XCTAssertTrue(e.message.hasSuffix("it belongs to a \(belongs)"), e.message)
                }
            }
        }
        // The runner's format alone names no setup: refused rather than guessed.
        let run = String(text[..<text.range(of: #","setup":"#)!.lowerBound]) + "}"
        XCTAssertThrowsError(try Handle("mahony", "9d").restore(run)) { error in
            XCTAssertTrue(StatusError.from(error).message.contains("it names no filter setup"), "\(error)")
        }
        // Text that is not JSON: the syntax error is named, not only the refusal.
        XCTAssertThrowsError(try Handle("mahony", "9d").restore(#"{"filter": nan"#)) { error in
            let message = StatusError.from(error).message
            XCTAssertTrue(message.hasPrefix("not a saved state of this filter (mahony): "), message)
            XCTAssertTrue(message.hasSuffix("; expected what mf_filter_save_state wrote"), message)
            do {
                _ = try JSONValue.parse(Array(#"{"filter": nan"#.utf8))
                XCTFail("the text is malformed")
            } catch {
                XCTAssertTrue(message.contains("\(error)"), "the syntax error is named: \(message)")
            }
        }
    }

    /// `mf_folder_plan` is the plan `replay SRC --output FOLDER` runs, with the notices it prints:
    /// entries skipped, then outputs renamed.
    func testTheFolderPlanIsTheCommandLines() throws {
        let src = TestData.temporaryDirectory() + "/src"
        try FileManager.default.createDirectory(atPath: src + "/empty", withIntermediateDirectories: true)
        let trace = try String(contentsOfFile: TestData.projectData + "/sim_mixed_100hz.csv", encoding: .utf8)
        let short = trace.split(separator: "\n").prefix(201).joined(separator: "\n") + "\n"
        for name in ["walk.csv", "walk.txt", "run.csv"] {
            try short.write(toFile: src + "/" + name, atomically: true, encoding: .utf8)
        }
        var plan: UnsafeMutablePointer<CChar>?
        var error = [CChar](repeating: 0, count: 1024)
        let folder = TestData.temporaryDirectory() + "/planned"
        XCTAssertEqual(mf_folder_plan(src, folder, nil, nil, 0, &plan, &error, error.count), 0, String(cString: error))
        let p = try JSONValue.parse(Array(String(cString: try XCTUnwrap(plan)).utf8))
        mf_string_free(plan)
        let notes = [
            "note: skipping \(src)/empty: a folder that holds no recording",
            "\(src)/walk.txt -> walk-2.csv (another trace has the same name)",
        ]
        XCTAssertEqual(p["notes"], .array(notes.map { .string($0) }))
        XCTAssertEqual(p["inputs"], .array(["run.csv", "walk.csv", "walk.txt"].map { .string(src + "/" + $0) }))
        XCTAssertEqual(p["outputs"], .array(["run.csv", "walk.csv", "walk-2.csv"].map { .string(folder + "/" + $0) }))
        let out = TestData.temporaryDirectory() + "/run"
        let r = CommandRunner.run(["replay", src, "--output", out])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssertEqual(Array(r.err.split(separator: "\n").prefix(2).map(String.init)), notes)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out).sorted(), ["run.csv", "walk-2.csv", "walk.csv"])
        // A single trace is no folder run.
        XCTAssertEqual(mf_folder_plan(src + "/run.csv", folder, nil, nil, 0, &plan, &error, error.count), 0)
        XCTAssertEqual(String(cString: try XCTUnwrap(plan)), #"{"folder":false}"#)
        mf_string_free(plan)
    }
}
