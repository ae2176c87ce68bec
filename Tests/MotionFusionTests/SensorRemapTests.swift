import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// `--remap` per sensor: a magnetometer whose axes differ from the accelerometer's reads back to
/// the native trace exactly; mirrors and malformed entries are usage errors naming the fix.
final class SensorRemapTests: XCTestCase {
    func testSpellings() throws {
        let swapped = AxisRemap("+Y+X-Z")!
        XCTAssertEqual(try SensorRemap(spec: "x,-z,y"), SensorRemap(AxisRemap("+X-Z+Y")!))
        var magOnly = SensorRemap()
        magOnly.magnetometer = swapped
        XCTAssertEqual(try SensorRemap(spec: "mag=+Y+X-Z"), magOnly)
        XCTAssertEqual(try SensorRemap(spec: "magnetometer = y, x, -z"), magOnly)
        var both = SensorRemap()
        both.accelerometer = AxisRemap("+X-Z+Y")!
        both.magnetometer = AxisRemap("-Y-X-Z")!
        XCTAssertEqual(try SensorRemap(spec: "acc=x,-z,y,mag=-y,-x,-z"), both)
        var mixed = SensorRemap(AxisRemap("+X-Z+Y")!)
        mixed.magnetometer = swapped
        XCTAssertEqual(try SensorRemap(spec: "+X-Z+Y,mag=+Y+X-Z"), mixed)
        XCTAssertEqual(try SensorRemap(spec: "x,-z,y,mag=y,x,-z"), mixed)
        XCTAssertEqual(try SensorRemap(spec: mixed.spec), mixed)
        XCTAssertTrue(try SensorRemap(spec: "x,y,z").isIdentity)

        func refused(_ spec: String, _ says: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try SensorRemap(spec: spec), spec, file: file, line: line) {
                XCTAssert("\($0)".contains(says), "\(spec): \($0)", file: file, line: line)
            }
        }
        refused("x,y,-z", "mirror")
        refused("x,y,-z", "-X+Y-Z")
        refused("mag=+X+Y-Z", "mirror")
        // The fix names the whole value, each mirror turned, keys kept: it parses when pasted.
        refused("mag=+Y+X+Z", "--remap mag=-Y+X+Z;")
        refused("x,-z,y,mag=y,x,z", "--remap x,-z,y,mag=-Y+X+Z;")
        refused("y,x,z,mag=y,x,z", "--remap -Y+X+Z,mag=-Y+X+Z;")
        XCTAssertNoThrow(try SensorRemap(spec: "x,-z,y,mag=-Y+X+Z"))
        refused("mag=x,x,z", "not a remap")
        refused("foo=x,y,z", "the keys are gyr, acc and mag")
        refused("mag=x,y,z,mag=y,x,-z", "given twice")
        refused("x,y,z,y,x,-z", "two remaps without a sensor key")
        refused("acc=x,-z", "not a remap")
    }

    /// A file whose accelerometer and gyroscope are mounted as x,-z,y and whose magnetometer is
    /// +Y+X-Z: per-sensor remaps give the native trace's estimates exactly.
    func testPerSensorRemapGivesTheNativeEstimates() throws {
        let native = TestData.projectData + "/sim_mixed_100hz.csv"
        let trace = try TraceFormat.load(path: native)
        // raw such that body = remap(raw): x,-z,y for the inertial sensors, +Y+X-Z for the magnetometer.
        func inertial(_ v: Vector3) -> Vector3 { Vector3(v.x, v.z, -v.y) }
        func magnetic(_ v: Vector3) -> Vector3 { Vector3(v.y, v.x, -v.z) }
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z\n"
        for s in trace.samples {
            let (g, a, m) = (inertial(s.gyroscope!), inertial(s.accelerometer!), magnetic(s.magnetometer!))
            text += [s.t, g.x, g.y, g.z, a.x, a.y, a.z, m.x, m.y, m.z].map { "\($0)" }.joined(separator: ",") + "\n"
        }
        let dir = TestData.temporaryDirectory()
        let mounted = dir + "/mounted.csv"
        try text.write(toFile: mounted, atomically: true, encoding: .utf8)
        XCTAssertEqual(
            CommandRunner.run(["replay", native, "--mode", "9d", "--output", dir + "/native.csv"]).status, 0)
        let expected = try String(contentsOfFile: dir + "/native.csv", encoding: .utf8)
        for spec in ["x,-z,y,mag=+Y+X-Z", "gyr=x,-z,y,acc=+X-Z+Y,mag=y,x,-z"] {
            let out = dir + "/remapped.csv"
            let r = CommandRunner.run(["replay", mounted, "--mode", "9d", "--remap", spec, "--output", out])
            XCTAssertEqual(r.status, 0, r.err)
            XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), expected, spec)
            try FileManager.default.removeItem(atPath: out)
        }
        // One remap for every sensor leaves the magnetometer wrong: different headings.
        let one = CommandRunner.run(["replay", mounted, "--mode", "9d", "--remap", "x,-z,y", "--output", "-"])
        XCTAssertEqual(one.status, 0, one.err)
        XCTAssertNotEqual(one.out, expected)
        // Every command that reads a trace takes it.
        let info = CommandRunner.run(["info", mounted, "--remap", "x,-z,y,mag=+Y+X-Z", "--json"])
        XCTAssertEqual(info.status, 0, info.err)
        // A mirror is a usage error naming a rotation.
        let mirror = CommandRunner.run(["replay", mounted, "--remap", "acc=x,-z,y,mag=x,y,-z"])
        XCTAssertEqual(mirror.status, 2, mirror.err)
        XCTAssert(mirror.err.contains("mirror") && mirror.err.contains("-X+Y-Z"), mirror.err)
        // The suggested command works when pasted.
        XCTAssert(mirror.err.contains("--remap acc=x,-z,y,mag=-X+Y-Z;"), mirror.err)
        let pasted = CommandRunner.run(["info", mounted, "--remap", "acc=x,-z,y,mag=-X+Y-Z"])
        XCTAssertEqual(pasted.status, 0, pasted.err)
    }

    /// The ground truth a file holds is of its own sensor frame: a remap turns it with the sensors,
    /// so a remapped recording scores as the recording itself (it scored 90° before).
    func testRemapTurnsTheGroundTruthToo() throws {
        let dir = TestData.temporaryDirectory()
        try TraceWriter.write(FilterTests.simulated(.mixed, duration: 30), to: dir + "/t.csv")
        func total(_ extra: [String]) -> String {
            let r = CommandRunner.run(["replay", dir + "/t.csv", "--score", "--output", dir + "/o.csv"] + extra)
            XCTAssertEqual(r.status, 0, r.err)
            return r.err.components(separatedBy: "total ").last?.prefix { $0 != "°" }.description ?? ""
        }
        let plain = try XCTUnwrap(Double(total([])))
        for remap in ["x,-z,y", "-x,-y,z", "+Y-X+Z"] {
            let turned = try XCTUnwrap(Double(total(["--remap", remap])))
            XCTAssertEqual(turned, plain, accuracy: 0.01, remap)
        }
    }
}
