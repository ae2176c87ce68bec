import Foundation
import MotionFusionTestSupport
import XCTest

/// Without OpenBLAS and LAPACKE, the batch reconstruction fails with the fix named and writes
/// nothing, instead of keeping its initialiser's attitude in silence; what needs no LAPACK still runs.
final class MissingLAPACKTests: XCTestCase {
    /// A folder where another valid shared library (zlib, which every Debian system has) sits under
    /// OpenBLAS's and LAPACKE's names, so that a process started with it first on `LD_LIBRARY_PATH`
    /// loads a library without their entry points, as on a machine with a broken or foreign install.
    func impostorLibraries() throws -> String {
        let folders = ["/lib", "/usr/lib", "/lib64", "/usr/lib64"].flatMap {
            [$0, $0 + "/x86_64-linux-gnu", $0 + "/aarch64-linux-gnu"]
        }
        let zlib = try XCTUnwrap(
            folders.map { $0 + "/libz.so.1" }.first { FileManager.default.fileExists(atPath: $0) }, "zlib not found")
        let dir = TestData.temporaryDirectory() + "/impostors"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for name in ["libopenblas.so.0", "libopenblas.so", "liblapacke.so.3", "liblapacke.so"] {
            try? FileManager.default.removeItem(atPath: dir + "/" + name)
            // The file itself, not a link (zlib's name is usually a relative link).
            try FileManager.default.copyItem(
                atPath: URL(fileURLWithPath: zlib).resolvingSymlinksInPath().path, toPath: dir + "/" + name)
        }
        return dir
    }

    /// A 20 s simulated trace in a fresh temporary folder: the folder and the trace's path.
    func simulatedTrace() throws -> (folder: String, trace: String) {
        let dir = TestData.temporaryDirectory()
        let trace = dir + "/mixed.csv"
        let simulated = CommandRunner.run([
            "simulate", "--scenario", "mixed", "--duration", "20", "--rate", "100", "--output", trace,
        ])
        XCTAssertEqual(simulated.status, 0, simulated.err)
        return (dir, trace)
    }

    func testReconstructFailsWithTheFixWhenLAPACKIsMissing() throws {
        let (dir, trace) = try simulatedTrace()
        let environment = ["LD_LIBRARY_PATH": try impostorLibraries()]

        let out = dir + "/batch.csv"
        let batch = try CommandRunner.process(["reconstruct", trace, "--output", out], environment: environment)
        XCTAssertNotEqual(batch.status, 0, "the batch method cannot run without LAPACK")
        XCTAssertTrue(batch.err.contains("apt-get install libopenblas0 liblapacke"), batch.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing written")

        // The smoother and the filters need no LAPACK: same results as with it.
        for args in [["reconstruct", "--method", "smoother"], ["replay"]] {
            let without = dir + "/without.csv"
            let with = dir + "/with.csv"
            let a = try CommandRunner.process(
                args + [trace, "--output", without], environment: environment)
            let b = try CommandRunner.process(args + [trace, "--output", with])
            XCTAssertEqual(a.status, 0, a.err)
            XCTAssertEqual(b.status, 0, b.err)
            XCTAssertEqual(
                try String(contentsOfFile: without, encoding: .utf8), try String(contentsOfFile: with, encoding: .utf8),
                args.joined(separator: " "))
        }
    }

    /// A library file named by MOTIONFUSION_LAPACK that cannot be used is an error naming it, never a
    /// quiet fallback to the system's libraries (which are installed here).
    func testANamedLibraryThatCannotBeUsedIsAnError() throws {
        let (dir, trace) = try simulatedTrace()
        let zlib = try impostorLibraries() + "/liblapacke.so.3"  // a real shared library without LAPACKE
        for (named, expected) in [(dir + "/absent.so", "could not be loaded"), (zlib, "has no LAPACKE_dpbtrf_work")] {
            let out = dir + "/batch.csv"
            let r = try CommandRunner.process(
                ["reconstruct", trace, "--output", out], environment: ["MOTIONFUSION_LAPACK": named])
            XCTAssertEqual(r.status, 1, r.err)
            XCTAssertTrue(r.err.contains(named) && r.err.contains(expected), r.err)
            XCTAssertTrue(r.err.contains("MOTIONFUSION_LAPACK"), r.err)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing written")
        }
        // "system" names the system's libraries: the run succeeds.
        let system = try CommandRunner.process(
            ["reconstruct", trace, "--output", dir + "/system.csv"], environment: ["MOTIONFUSION_LAPACK": "system"])
        XCTAssertEqual(system.status, 0, system.err)
    }
}
