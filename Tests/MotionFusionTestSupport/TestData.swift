import Foundation
import XCTest

/// Locations of test data: the project's own `data/` and the shared real recordings beside the
/// checkout (`../shared/data`), which may be absent on a fresh clone.
public enum TestData {
    /// The package root (two levels above this file's folder).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The project's `data/` folder.
    public static var projectData: String { packageRoot + "/data" }

    /// `../shared/data` beside the checkout, or `MOTIONFUSION_SHARED_DATA` when set.
    public static var sharedData: String {
        if let env = ProcessInfo.processInfo.environment["MOTIONFUSION_SHARED_DATA"] { return env }
        return (packageRoot as NSString).deletingLastPathComponent + "/shared/data"
    }

    /// The path of a shared file or folder, or throws `XCTSkip` saying plainly what is missing.
    public static func shared(_ relative: String) throws -> String {
        let p = sharedData + "/" + relative
        guard FileManager.default.fileExists(atPath: p) else {
            throw XCTSkip("skipped: shared recording \(p) is not present on this machine")
        }
        return p
    }

    /// All BROAD trial CSV files, sorted, or throws `XCTSkip`.
    public static func broadTrials() throws -> [String] {
        let dir = try shared("broad")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
        guard !files.isEmpty else { throw XCTSkip("skipped: no BROAD trials in \(dir)") }
        return files.map { dir + "/" + $0 }
    }

    /// The built `motionfusion` executable (release, else debug), or throws `XCTSkip`.
    public static func executable() throws -> String {
        // The configuration built last: a debug test run must not use a stale release binary.
        let candidates = ["/.build/release/motionfusion", "/.build/debug/motionfusion"].map { packageRoot + $0 }
            .filter { FileManager.default.isExecutableFile(atPath: $0) }
        func modified(_ path: String) -> Date {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
        }
        guard let binary = candidates.max(by: { modified($0) < modified($1) }) else {
            throw XCTSkip("skipped: the motionfusion executable is not built")
        }
        return binary
    }

    /// The test process's own folder in the system's temporary folder, holding every
    /// ``temporaryDirectory()``; removed with all it holds when the process exits (nothing of a
    /// run is left in the temporary folder).
    static let runDirectory: String = {
        let p = NSTemporaryDirectory() + "motionfusion-tests-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestData.runDirectory) }
        return p
    }()

    /// A fresh temporary folder, inside ``runDirectory``.
    public static func temporaryDirectory() -> String {
        let p = runDirectory + "/" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    /// Writes `text` to a temporary file named `name` and returns its path.
    public static func writeTemporary(_ text: String, name: String = "trace.csv") -> String {
        let p = temporaryDirectory() + "/" + name
        try? text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }
}

/// Runs `body` for each index on all cores and collects the results without sharing a Swift
/// array between threads (each index writes its own slot of preallocated storage).
public func parallelMap<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
    let storage = UnsafeMutableBufferPointer<T?>.allocate(capacity: count)
    storage.initialize(repeating: nil)
    defer {
        storage.deinitialize()
        storage.deallocate()
    }
    DispatchQueue.concurrentPerform(iterations: count) { i in storage[i] = body(i) }
    return storage.map { $0! }
}
