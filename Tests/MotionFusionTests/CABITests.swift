import Foundation
import MotionFusion
import MotionFusionC
import MotionFusionTestSupport
import XCTest

/// The C ABI (Sources/MotionFusionC) is the library's: the folder plan is the one the command line
/// follows, with its messages.
final class CABITests: XCTestCase {
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
