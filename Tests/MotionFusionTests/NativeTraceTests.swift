import MotionFusion
import MotionFusionTestSupport
import XCTest

final class NativeTraceTests: XCTestCase {
    func read(_ text: String, strict: Bool = false) throws -> Trace {
        var options = DelimitedReadOptions()
        options.strict = strict
        return try TraceFormat.load(path: TestData.writeTemporary(text), options: options)
    }

    func assertError(
        _ text: String, _ kind: TraceError.Kind, line: Int, column: Int, contains: String, strict: Bool = false,
        file: StaticString = #filePath, lineNumber: UInt = #line
    ) {
        XCTAssertThrowsError(try read(text, strict: strict), file: file, line: lineNumber) { error in
            guard let e = error as? TraceError else {
                return XCTFail("expected TraceError, got \(error)", file: file, line: lineNumber)
            }
            XCTAssertEqual(e.kind, kind, "\(e)", file: file, line: lineNumber)
            XCTAssertEqual(e.location.line, line, "\(e)", file: file, line: lineNumber)
            XCTAssertEqual(e.location.column, column, "\(e)", file: file, line: lineNumber)
            XCTAssert(
                e.message.contains(contains), "\(e.message) should mention \(contains)", file: file, line: lineNumber)
            XCTAssert(e.description.hasPrefix(e.location.file), file: file, line: lineNumber)
        }
    }

    func testReadsBroadLayoutWithAnyColumnOrderAndCRLF() throws {
        let text =
            "acc_z,t,acc_x,acc_y,gyr_x,gyr_y,gyr_z,moving\r\n9.8,0,0.1,0.2,1,2,3,0\r\n9.7,0.01,0.1,0.2,nan,nan,nan,1\r\n"
        let trace = try read(text)
        XCTAssertEqual(trace.samples.count, 2)
        XCTAssertEqual(trace.samples[0].accelerometer, Vector3(0.1, 0.2, 9.8))
        XCTAssertEqual(trace.samples[0].gyroscope, Vector3(1, 2, 3))
        XCTAssertNil(trace.samples[1].gyroscope, "all-nan triplet marks the sensor missing")
        XCTAssertNil(trace.samples[0].magnetometer)
        XCTAssertEqual(trace.samples[1].moving, true)
        XCTAssertFalse(trace.has(.magnetometer))
    }

    func testSimulatedTraceRoundTripsBitForBit() throws {
        var s = MotionSimulator.Settings()
        s.duration = 5
        s.rate = 50
        let trace = MotionSimulator(settings: s).run()
        let path = TestData.temporaryDirectory() + "/sim.csv"
        try TraceWriter.write(trace, to: path)
        let back = try TraceFormat.load(path: path)
        XCTAssertEqual(back.samples.count, trace.samples.count)
        let firstDifference = back.samples.indices.first { back.samples[$0] != trace.samples[$0] }
        XCTAssertNil(firstDifference, "samples differ from index \(firstDifference ?? -1)")
    }

    func testStreamingReaderHandlesLinesAcrossChunks() throws {
        // A long file with a tiny chunk would split rows; the reader must reassemble them.
        var text = "t,acc_x,acc_y,acc_z\n"
        for i in 0..<20_000 { text += "\(Double(i) * 0.01),0.\(i),-1.5e-3,9.81\n" }
        let reader = try DelimitedTraceReader(path: TestData.writeTemporary(text))
        var n = 0
        var last = -1.0
        while let s = try reader.next() {
            XCTAssertGreaterThan(s.t, last)
            last = s.t
            n += 1
        }
        XCTAssertEqual(n, 20_000)
        XCTAssertEqual(reader.rows.lines.bytesRead, text.utf8.count)
    }

    func testErrorClassesNameLineAndColumn() {
        let h = "t,acc_x,acc_y,acc_z\n"
        assertError("", .empty, line: 1, column: 0, contains: "empty")
        assertError(h, .empty, line: 2, column: 0, contains: "no data rows")
        assertError(h + "0,1,2,3\n0.1,1,2x,3\n", .malformedNumber, line: 3, column: 8, contains: "'2x'")
        assertError(h + "0,1,2,3\n0.1,1,2\n", .wrongColumnCount, line: 3, column: 8, contains: "3 fields")
        assertError(h + "0,1,2,3,4\n", .wrongColumnCount, line: 2, column: 9, contains: "too many")
        assertError("clock,acc_x,acc_y,acc_z\n0,1,2,3\n", .missingColumn, line: 1, column: 0, contains: "'t'")
        assertError("t,acc_x,acc_y\n0,1,2\n", .missingColumn, line: 1, column: 0, contains: "acc_z")
        assertError("t,foo\n0,1\n", .missingColumn, line: 1, column: 0, contains: "no sensor columns")
        // Value faults are errors only with --strict (see ValueFaultTests for the default repair).
        assertError(h + "0,1,2,3\n0,1,2,3\n", .nonMonotonicTime, line: 3, column: 1, contains: "repeats", strict: true)
        assertError(
            h + "1,1,2,3\n0.5,1,2,3\n", .nonMonotonicTime, line: 3, column: 1, contains: "earlier", strict: true)
        assertError(h + "0,1,nan,3\n", .nonFiniteValue, line: 2, column: 5, contains: "missing", strict: true)
        assertError(h + "0,1,inf,3\n", .nonFiniteValue, line: 2, column: 5, contains: "inf", strict: true)
        assertError(h + "nan,1,2,3\n", .nonFiniteValue, line: 2, column: 1, contains: "time", strict: true)
    }

    func testUnknownColumnsWarnAndAreIgnored() throws {
        let trace = try read("t,acc_x,acc_y,acc_z,temperature\n0,0,0,9.81,25\n")
        XCTAssertEqual(trace.samples.count, 1)
        XCTAssert(trace.warnings.contains { $0.message.contains("temperature") })
    }

    /// Units the readings prove are applied, with a note naming them and `--units`; `--units`
    /// overrides them, and the check then warns without proposing a flag already given.
    func testImplausibleUnitsAreAppliedOrWarnedWithFix() throws {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n"
        for i in 0..<100 { text += "\(Double(i) * 0.01),0.001,0,0,0,0,1.0,0.2,0.1,-0.4\n" }
        let trace = try read(text)
        XCTAssertEqual(trace.samples[0].accelerometer!.z, standardGravity, accuracy: 1e-12)
        XCTAssertEqual(trace.samples[0].magnetometer!.x, 20, accuracy: 1e-12)
        let note = try XCTUnwrap(trace.warnings.first { $0.isNote && $0.message.hasPrefix(UnitEvidence.notePrefix) })
        XCTAssert(note.message.contains("acc=g (the accelerometer reads 1.0 at rest"), note.message)
        XCTAssert(note.message.contains("mag=gauss"), note.message)
        XCTAssert(note.message.contains("--units acc=…,mag=… overrides"), note.message)
        XCTAssertFalse(trace.warnings.contains { !$0.isNote && $0.message.contains("--units") }, "\(trace.warnings)")
        var asIs = DelimitedReadOptions()
        asIs.units = "acc=m/s2,mag=uT"
        let given = try TraceFormat.load(path: TestData.writeTemporary(text), options: asIs)
        XCTAssertEqual(given.samples[0].accelerometer!.z, 1)
        XCTAssertFalse(given.warnings.contains { $0.message.hasPrefix(UnitEvidence.notePrefix) })
        XCTAssert(
            given.warnings.contains {
                $0.message.contains("1.0 m/s² in the unit stated") && !$0.message.contains("--units acc=g")
            },
            "\(given.warnings)")
        var gyroDeg = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for i in 0..<100 { gyroDeg += "\(Double(i) * 0.01),\(i == 50 ? 60 : 0.5),0,0,0,0,9.81\n" }
        let g = try read(gyroDeg)
        XCTAssert(g.warnings.contains { $0.message.contains("--units gyr=deg/s") }, "\(g.warnings)")
        // Beyond any gyroscope's range in rad/s: a value fault, whose report suggests the unit.
        let spike = try read(gyroDeg.replacingOccurrences(of: ",60.0,", with: ",300.0,"))
        XCTAssert(spike.warnings.contains { $0.message.contains("beyond") && $0.message.contains("--units gyr=deg/s") })
    }
}

/// A gyroscope in °/s in a recording that rests for its first minute and then moves slowly (no two
/// still moments to compare): the slow motion's turns decide the unit, in whichever unit the file
/// holds, and linear accelerations alone decide nothing.
final class SlowTurnUnitTests: XCTestCase {
    /// 60 s at rest, then 30 s turning about x back and forth (up to 34 °/s) while the hand shakes
    /// the device by 0.3 m/s² at 2 Hz; `turning` false keeps the attitude and only shakes it.
    static func csv(degrees: Bool, turning: Bool = true) -> String {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        var q = Quaternion.identity
        let dt = 0.01
        for i in 0..<9_000 {
            let t = Double(i) * dt
            let moving = t >= 60
            let rate = Vector3(moving && turning ? 0.6 * sin(2 * .pi * (t - 60) / 8) : 0, 0, 0)
            let shake = moving ? Vector3(0.3 * sin(4 * .pi * t), 0.3 * cos(4 * .pi * t), 0) : .zero
            let f = q.inverseRotate(Vector3(0, 0, standardGravity) + shake)
            let g = degrees ? rate * (180 / .pi) : rate
            text += "\(t),\(g.x),\(g.y),\(g.z),\(f.x),\(f.y),\(f.z)\n"
            q = q * Quaternion(rotationVector: rate * dt)
        }
        return text
    }

    func read(_ text: String) throws -> Trace {
        try TraceFormat.load(path: TestData.writeTemporary(text), options: DelimitedReadOptions())
    }

    func unitNote(_ trace: Trace) -> String? {
        trace.warnings.first { $0.isNote && $0.message.hasPrefix(UnitEvidence.notePrefix) }?.message
    }

    func testSlowTurnsAfterALongRestDecideTheGyroscopeUnit() throws {
        let degrees = try read(Self.csv(degrees: true))
        let note = try XCTUnwrap(unitNote(degrees))
        XCTAssert(note.contains("gyr=deg/s") && note.contains("in a slow motion"), note)
        let radians = try read(Self.csv(degrees: false))
        XCTAssertNil(unitNote(radians))
        for (a, b) in zip(degrees.samples, radians.samples) {
            XCTAssertEqual(a.gyroscope!.x, b.gyroscope!.x, accuracy: 1e-9)
        }
        // Shaking without turning: the accelerometer's means barely turn, and nothing is applied.
        XCTAssertNil(unitNote(try read(Self.csv(degrees: true, turning: false))))
    }

    /// The same recording as per-sensor files in a folder: the merged files decide the same way.
    func testSlowTurnsAfterALongRestDecideInPerSensorFiles() throws {
        let dir = TestData.temporaryDirectory()
        var gyroscope = "time,x,y,z\n"
        var accelerometer = "time,x,y,z\n"
        for line in Self.csv(degrees: true).split(separator: "\n").dropFirst() {
            let v = line.split(separator: ",")
            gyroscope += "\(v[0]),\(v[1]),\(v[2]),\(v[3])\n"
            accelerometer += "\(v[0]),\(v[4]),\(v[5]),\(v[6])\n"
        }
        try gyroscope.write(toFile: dir + "/Gyroscope.csv", atomically: false, encoding: .utf8)
        try accelerometer.write(toFile: dir + "/Accelerometer.csv", atomically: false, encoding: .utf8)
        let trace = try TraceFormat.load(path: dir)
        let note = try XCTUnwrap(unitNote(trace))
        XCTAssert(note.contains("gyr=deg/s") && note.contains("in a slow motion"), note)
        let radians = try read(Self.csv(degrees: false))
        let last = try XCTUnwrap(trace.samples.last?.gyroscope)
        XCTAssertEqual(last.x, try XCTUnwrap(radians.samples.last?.gyroscope).x, accuracy: 1e-9)
    }
}

/// A gyroscope whose zero is far off (raw data without its calibration) reads about −9 rad/s per
/// axis at rest: units are plausible, but `info` and every reader's unit check name the offset per
/// axis and its fix; ordinary biases, a trace without an offset and a steady turn about the vertical
/// (whose accelerometer is still too) are not flagged.
final class GyroscopeOffsetTests: XCTestCase {
    func shifted(_ trace: Trace, by offset: Vector3) -> Trace {
        var t = trace
        for i in t.samples.indices { t.samples[i].gyroscope = t.samples[i].gyroscope.map { $0 + offset } }
        return t
    }

    func testOffsetIsFoundPerAxisOnlyWhenLarge() throws {
        let mixed = FilterTests.simulated(.mixed, duration: 60)
        let offset = Vector3(-9, -9.2, -8.8)
        let found = try XCTUnwrap(UnitCheck.gyroscopeOffset(shifted(mixed, by: offset).samples))
        // Within the simulated sensor's own bias.
        XCTAssertLessThan((found.offset - offset).norm, 0.05, "\(found.offset)")
        XCTAssertGreaterThan(found.samples, 100)
        XCTAssertNil(UnitCheck.gyroscopeOffset(mixed.samples), "no offset")
        XCTAssertNil(UnitCheck.gyroscopeOffset(shifted(mixed, by: Vector3(0.1, -0.1, 0.05)).samples), "a bias")
        for scenario in [MotionSimulator.Scenario.steadyTurn, .vehicle] {
            XCTAssertNil(UnitCheck.gyroscopeOffset(FilterTests.simulated(scenario).samples), "\(scenario)")
        }
        // A gyroscope in deg/s read as rad/s: a still rate of a degree per second reads as over a
        // radian per second, but the peaks name the units, not an offset.
        var degrees = mixed
        for i in degrees.samples.indices {
            degrees.samples[i].gyroscope = degrees.samples[i].gyroscope.map {
                ($0 + Vector3(0.02, -0.01, 0.015)) * (180 / .pi)
            }
        }
        XCTAssertNil(UnitCheck.gyroscopeOffset(degrees.samples), "deg/s read as rad/s")
        let unitWarnings = UnitCheck.check(degrees.samples, source: "dps.csv").map(\.message)
        XCTAssert(unitWarnings.contains { $0.contains("looks like deg/s") }, "\(unitWarnings)")
        XCTAssertFalse(unitWarnings.contains { $0.contains("zero offset") }, "\(unitWarnings)")
        // The reader's unit check says so with the fix.
        let warnings = UnitCheck.check(shifted(mixed, by: offset).samples, source: "raw.csv")
        // An offset small enough to be a °/s gyroscope's ordinary bias names that reading too.
        let small = UnitCheck.gyroscopeOffsetMessage(Vector3(0.18, 0.12, -0.24), samples: 100)
        XCTAssert(small.contains("or a gyroscope in °/s") && small.contains("--units gyr=deg/s"), small)
        let message = try XCTUnwrap(warnings.first { $0.message.contains("zero offset") }?.message)
        XCTAssertFalse(message.contains("or a gyroscope in °/s"), message)
        XCTAssert(
            message.contains("(-9.0") && message.contains("calibrate") && message.contains("--sensors gyr"), message)
    }

    /// A magnetometer whose median norm is a plausible field in gauss (0.22–0.67) is named as
    /// gauss; one above it (0.8: normalised readings with an iron offset, which a reviewer's trace
    /// got told was gauss) is named as either, with both flags.
    func testAMagnetometerNormAboveEarthsFieldInGaussMayBeNormalised() {
        func messages(_ field: Vector3) -> [String] {
            let samples = (0..<100).map {
                SensorSample(
                    t: Double($0) * 0.01, gyroscope: .zero, accelerometer: Vector3(0, 0, standardGravity),
                    magnetometer: field)
            }
            return UnitCheck.check(samples, source: "mag.csv").map(\.message)
        }
        let gauss = messages(Vector3(0.1, 0.2, -0.4))
        XCTAssert(gauss.contains { $0.contains("looks like gauss: pass --units mag=gauss") }, "\(gauss)")
        XCTAssertFalse(gauss.contains { $0.contains("mag=au") }, "\(gauss)")
        let either = messages(Vector3(0.3, 0.5, -0.55))
        XCTAssert(
            either.contains { $0.contains("--units mag=gauss") && $0.contains("normalised") && $0.contains("mag=au") },
            "\(either)")
    }

    /// A pendulum's rate passes zero at each turning point for a sample or two, where the force is
    /// g·cos of the swing: those samples are no rest, so no accelerometer norm "at rest" comes from
    /// them (a reviewer's pendulum swinging 50° was warned that its accelerometer read 6.5 m/s² at
    /// rest). A still stretch of a second still gives the norm.
    func testAPendulumsTurningPointsAreNoRest() {
        var samples = (0..<2000).map { k -> SensorSample in
            let t = Double(k) * 0.01
            let rate = 3 * cos(2 * .pi * 0.55 * t)
            return SensorSample(
                t: t, gyroscope: Vector3(rate, 0, 0), accelerometer: Vector3(0, 0, abs(rate) < 0.05 ? 6.3 : 11))
        }
        XCTAssertNil(UnitCheck.restNorms(samples).accelerometer, "turning points taken for rest")
        for k in 0..<100 {
            samples.append(
                SensorSample(t: 20 + Double(k) * 0.01, gyroscope: .zero, accelerometer: Vector3(0, 0, standardGravity)))
        }
        XCTAssertEqual(UnitCheck.restNorms(samples).accelerometer ?? 0, standardGravity, accuracy: 1e-9)
    }

    func testInfoNamesTheOffsetAndCalibrateFixesIt() throws {
        let dir = TestData.temporaryDirectory()
        let raw = dir + "/raw.csv"
        try TraceWriter.write(shifted(FilterTests.simulated(.mixed, duration: 60), by: Vector3(-9, -9, -9)), to: raw)
        let info = CommandRunner.run(["info", raw])
        XCTAssertEqual(info.status, 0)
        XCTAssert(info.out.contains("gyro offset   (-9.0"), info.out)
        XCTAssert(info.err.contains("zero offset") && info.err.contains("--sensors gyr"), info.err)
        let json = CommandRunner.run(["info", raw, "--json"])
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let axes = try XCTUnwrap(object["gyroscope_offset_rad_s"] as? [Double])
        XCTAssertEqual(axes.count, 3)
        for v in axes { XCTAssertEqual(v, -9, accuracy: 0.02) }
        // The suggested fix: the calibration holds the offset and removes the warning.
        let calibration = dir + "/cal.json"
        XCTAssertEqual(CommandRunner.run(["calibrate", raw, "--sensors", "gyr", "--output", calibration]).status, 0)
        let bias = try XCTUnwrap(SensorCalibration(contentsOf: calibration).gyroscopeBias)
        XCTAssertLessThan((bias - Vector3(-9, -9, -9)).norm, 0.03, "\(bias)")
        // Replayed with it, the offset is corrected: no warning asking for it again.
        let replayed = CommandRunner.run(["replay", raw, "--calibration", calibration, "--output", dir + "/e.csv"])
        XCTAssertEqual(replayed.status, 0, replayed.err)
        XCTAssertFalse(replayed.err.contains("zero offset"), replayed.err)
        let clean = CommandRunner.run(["info", TestData.projectData + "/sim_mixed_100hz.csv", "--json"])
        XCTAssert(clean.out.contains("\"gyroscope_offset_rad_s\":null"), clean.out)
        XCTAssertFalse(
            CommandRunner.run(["info", TestData.projectData + "/sim_mixed_100hz.csv"]).out.contains("gyro offset"))
    }
}
