import Foundation
import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

/// NOAA's official WMM2025 test values, every row and every column.
final class WorldMagneticModelTests: XCTestCase {
    func testTheFullOfficialTestTable() throws {
        let path = TestData.projectData + "/WMM2025_TEST_VALUES.txt"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var rows = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let f = line.split(separator: " ").map { Double($0) ?? .nan }
            guard f.count == 19 else { continue }
            rows += 1
            let r = WorldMagneticModel.wmm2025.evaluate(
                latitude: f[2], longitude: f[3], heightKm: f[1], decimalYear: f[0])
            let where_ = "date \(f[0]) height \(f[1]) lat \(f[2]) lon \(f[3])"
            // Values are published to 0.1 nT and 0.01°: agree to within that rounding.
            XCTAssertEqual(r.field.x, f[4], accuracy: 0.1, "X " + where_)
            XCTAssertEqual(r.field.y, f[5], accuracy: 0.1, "Y " + where_)
            XCTAssertEqual(r.field.z, f[6], accuracy: 0.1, "Z " + where_)
            XCTAssertEqual(r.field.horizontalIntensity, f[7], accuracy: 0.1, "H " + where_)
            XCTAssertEqual(r.field.totalIntensity, f[8], accuracy: 0.1, "F " + where_)
            XCTAssertEqual(r.field.inclination, f[9], accuracy: 0.01, "I " + where_)
            XCTAssertEqual(r.field.declination, f[10], accuracy: 0.01, "D " + where_)
            if f[11].isNaN {
                XCTAssertNil(r.gridVariation, "GV " + where_)
            } else {
                XCTAssertEqual(r.gridVariation ?? .nan, f[11], accuracy: 0.01, "GV " + where_)
            }
            XCTAssertEqual(r.secularVariation.x, f[12], accuracy: 0.1, "Xdot " + where_)
            XCTAssertEqual(r.secularVariation.y, f[13], accuracy: 0.1, "Ydot " + where_)
            XCTAssertEqual(r.secularVariation.z, f[14], accuracy: 0.1, "Zdot " + where_)
            XCTAssertEqual(r.declinationChange, f[18], accuracy: 0.01, "Ddot " + where_)
            XCTAssertEqual(r.inclinationChange, f[17], accuracy: 0.01, "Idot " + where_)
        }
        XCTAssertEqual(rows, 12)
    }

    func testEmbeddedCoefficientsEqualTheDataFile() throws {
        let file = try String(contentsOfFile: TestData.projectData + "/WMM2025.COF", encoding: .utf8)
        let model = try WorldMagneticModel(cof: file)
        XCTAssertEqual(model.epoch, 2025)
        XCTAssertEqual(model.name, "WMM-2025")
        XCTAssertEqual(model.degree, 12)
        let a = model.evaluate(latitude: 52.5, longitude: 13.3, decimalYear: 2026.9)
        let b = WorldMagneticModel.wmm2025.evaluate(latitude: 52.5, longitude: 13.3, decimalYear: 2026.9)
        XCTAssertEqual(a.field, b.field)
    }

    func testWarningsAndDates() {
        let late = WorldMagneticModel.wmm2025.evaluate(latitude: 0, longitude: 0, decimalYear: 2031)
        XCTAssert(late.warnings.contains { $0.contains("outside the model's validity") })
        // Near the north magnetic pole the horizontal field vanishes: blackout zone.
        let pole = WorldMagneticModel.wmm2025.evaluate(latitude: 85.7, longitude: 139, decimalYear: 2025.5)
        XCTAssert(pole.warnings.contains { $0.contains("blackout") }, "\(pole.field.horizontalIntensity)")
        XCTAssertEqual(WorldMagneticModel.decimalYear(year: 2027, month: 7, day: 2)!, 2027.5, accuracy: 0.002)
        XCTAssertEqual(WorldMagneticModel.decimalYear(year: 2028, month: 1, day: 1), 2028)
        XCTAssertNil(WorldMagneticModel.decimalYear(year: 2027, month: 2, day: 29))
        XCTAssertThrowsError(try WorldMagneticModel(cof: "nonsense"))
    }

    func testDeclinationCommand() throws {
        var out = ""
        var err = ""
        let console = ConsoleOutput(out: { out += $0 }, err: { err += $0 })
        let status = MotionFusionCLI.run(
            ["declination", "--lat", "-80", "--lon", "240", "--height-km", "100", "--date", "2027-07-02", "--json"],
            output: console)
        XCTAssertEqual(status, 0, err)
        let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
        let r = WorldMagneticModel.wmm2025.evaluate(
            latitude: -80, longitude: 240, heightKm: 100,
            decimalYear: WorldMagneticModel.decimalYear(year: 2027, month: 7, day: 2)!)
        for (key, value) in [
            ("declination_deg", r.field.declination), ("inclination_deg", r.field.inclination),
            ("total_intensity_nt", r.field.totalIntensity), ("horizontal_intensity_nt", r.field.horizontalIntensity),
            ("x_nt", r.field.x), ("y_nt", r.field.y), ("z_nt", r.field.z),
        ] {
            XCTAssertEqual(json[key] as? Double ?? .nan, value, accuracy: 1e-9, key)
        }
        XCTAssertEqual(MotionFusionCLI.run(["declination", "--lat", "91", "--lon", "0"], output: console), 2)
        XCTAssertEqual(
            MotionFusionCLI.run(["declination", "--lat", "10", "--lon", "0", "--date", "2025-13-01"], output: console),
            2)
        XCTAssertEqual(MotionFusionCLI.run(["declination", "--lat", "10"], output: console), 2)
    }

    /// Without `--date` the model is evaluated for today (UTC) in the executable too, which has no
    /// time-zone database (it crashed there on a missing `UTC` zone); and the civil-date
    /// conversion agrees with the one dates are parsed with.
    func testLocationWithoutADateMeansToday() throws {
        let now = Date().timeIntervalSince1970
        let today = DateTimeText.utcDate(secondsSince1970: now)
        let r = try CommandRunner.process(["declination", "--lat", "52.5", "--lon", "13.3", "--json"])
        XCTAssertEqual(r.status, 0, r.err)
        let explicit = CommandRunner.run([
            "declination", "--lat", "52.5", "--lon", "13.3", "--json", "--date",
            String(format: "%04d-%02d-%02d", today.year, today.month, today.day),
        ])
        let a = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        let b = try JSONSerialization.jsonObject(with: Data(explicit.out.utf8)) as? [String: Any]
        XCTAssertEqual(a?["declination_deg"] as? Double ?? .nan, b?["declination_deg"] as? Double ?? 1, accuracy: 1e-3)
        for (seconds, date) in [
            (0.0, (1970, 1, 1)), (951_782_400.0, (2000, 2, 29)), (1_709_251_200.0 + 86_399, (2024, 3, 1)),
            (-86_400.0, (1969, 12, 31)), (4_107_542_400.0, (2100, 3, 1)),
        ] {
            let d = DateTimeText.utcDate(secondsSince1970: seconds)
            XCTAssertEqual([d.year, d.month, d.day], [date.0, date.1, date.2], "\(seconds)")
        }
    }

    /// `replay --lat/--lon/--date` writes true heading: magnetic heading plus the model's declination.
    func testReplayUsesTheModelForTrueHeading() throws {
        var s = MotionSimulator.Settings()
        s.duration = 10
        s.errors = .calibrated
        let path = TestData.temporaryDirectory() + "/t.csv"
        try TraceWriter.write(MotionSimulator(settings: s).run(), to: path)
        let out = TestData.temporaryDirectory() + "/e.csv"
        let console = ConsoleOutput(out: { _ in }, err: { _ in })
        XCTAssertEqual(
            MotionFusionCLI.run(
                ["replay", path, "--lat", "52.5", "--lon", "13.3", "--date", "2026-06-01", "--output", out],
                output: console), 0)
        let text = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        let header = text[0].split(separator: ",").map(String.init)
        let row = text[500].split(separator: ",").map { Double($0)! }
        let heading = row[header.firstIndex(of: "heading")!]
        let magnetic = row[header.firstIndex(of: "magnetic_heading")!]
        let d = WorldMagneticModel.wmm2025.evaluate(
            latitude: 52.5, longitude: 13.3, decimalYear: WorldMagneticModel.decimalYear(year: 2026, month: 6, day: 1)!
        ).field.declination
        assertAngleDegrees(heading, magnetic + d, tolerance: 1e-4)
    }
}
