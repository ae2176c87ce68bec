import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// A gesture log in continuous motion (never at rest, so no turn between still moments): its
/// gyroscope in °/s is told by norms beyond any gyroscope's range as rad/s while the accelerometer
/// reads as a moving body does in g; a warning about a gyroscope beyond range quotes its real peak,
/// not the largest value left once those beyond range are dropped.
final class GyroscopeInMotionTests: XCTestCase {
    static let rate = 119.0
    static let rows = 1190

    /// Row `k`'s accelerometer in g (median norm about 1.5 g) and gyroscope in °/s (up to ±950 on
    /// x), no rest.
    static func motion(_ k: Int) -> (a: Vector3, g: Vector3) {
        let t = Double(k) / rate
        let a = Vector3(
            1.2 * sin(2 * .pi * 2 * t), 1 + 0.8 * cos(2 * .pi * 1.5 * t), 0.9 * sin(2 * .pi * 0.9 * t + 0.5))
        let g = Vector3(
            950 * sin(2 * .pi * 1.3 * t), 600 * sin(2 * .pi * 0.7 * t + 1), 400 * cos(2 * .pi * 1.1 * t))
        return (a, g)
    }

    /// `aX,aY,aZ,gX,gY,gZ`: accelerometer in g (median norm about 1.5 g), gyroscope in °/s up to
    /// ±950 on x, no rest.
    static func gesture() -> (text: String, peak: Double) {
        var text = "aX,aY,aZ,gX,gY,gZ\n"
        var peak = 0.0
        for k in 0..<rows {
            let (a, g) = motion(k)
            let cells = [a.x, a.y, a.z, g.x, g.y, g.z].map { String(format: "%.3f", $0) }
            let read = Vector3(Double(cells[3])!, Double(cells[4])!, Double(cells[5])!)
            peak = max(peak, read.norm)
            text += cells.joined(separator: ",") + "\n"
        }
        return (text, peak)
    }

    static func write() throws -> (path: String, peak: Double) {
        let (text, peak) = gesture()
        let path = TestData.temporaryDirectory() + "/gesture.csv"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return (path, peak)
    }

    func testDegreesPerSecondInContinuousMotionAreInferred() throws {
        let (path, peak) = try Self.write()
        var options = DelimitedReadOptions()
        options.sampleRate = Self.rate
        let trace = try TraceFormat.load(path: path, options: options)
        XCTAssertEqual(trace.samples.count, Self.rows)
        // None dropped as beyond range: every reading is read, in rad/s.
        XCTAssertEqual(trace.samples.filter { $0.gyroscope != nil }.count, Self.rows)
        let fastest = trace.samples.compactMap { $0.gyroscope?.norm }.max() ?? 0
        XCTAssertEqual(fastest, peak * .pi / 180, accuracy: 1e-9)
        let note = trace.warnings.map(\.message).first { $0.hasPrefix(UnitEvidence.notePrefix) } ?? ""
        XCTAssert(note.contains("gyr=deg/s (the gyroscope reaches \((peak * 1000).rounded() / 1000), beyond"), note)
        XCTAssertFalse(
            trace.warnings.contains { $0.message.contains("beyond any sensor's range") }, "\(trace.warnings)")
        // Never at rest: the accelerometer's norm quoted is the median, and said to be.
        let g = trace.warnings.map(\.message).first { $0.contains("which looks like g") } ?? ""
        XCTAssert(g.hasPrefix("accelerometer median norm (never at rest) is 1."), g)
    }

    /// Stated in rad/s, the readings beyond 100 rad/s are dropped: the warning quotes the peak as
    /// read, not the largest reading left.
    func testThePeakQuotedIsTheLargestReading() throws {
        let (path, peak) = try Self.write()
        var options = DelimitedReadOptions()
        options.sampleRate = Self.rate
        options.units = "gyr=rad/s"
        let trace = try TraceFormat.load(path: path, options: options)
        XCTAssertLessThan(trace.samples.filter { $0.gyroscope != nil }.count, Self.rows)
        let warning = trace.warnings.map(\.message).first { $0.hasPrefix("gyroscope peaks at") } ?? ""
        XCTAssert(
            warning.hasPrefix("gyroscope peaks at \((peak * 1000).rounded() / 1000) rad/s"), "\(peak): \(warning)")
    }

    /// The gesture as an MPU-6050 writes it at ±16 g and ±2000 °/s: raw counts, 2048 per g and
    /// 16.4 per °/s, whole numbers (`accScale` and `gyroScale` per g and per °/s; `slow` divides
    /// the gyroscope's rates so its peak in counts stays within ±4000 as °/s). `fraction` writes
    /// the accelerometer with three decimals instead of whole numbers.
    static func counts(accScale: Double, gyroScale: Double, slow: Double, fraction: Bool = false) throws -> String {
        var text = "aX,aY,aZ,gX,gY,gZ\n"
        for k in 0..<rows {
            let (a, g) = motion(k)
            let acc = [a.x, a.y, a.z].map { v -> String in
                fraction ? String(format: "%.3f", v * accScale) : String(format: "%.0f", (v * accScale).rounded())
            }
            let gyr = [g.x, g.y, g.z].map { String(format: "%.0f", ($0 * gyroScale / slow).rounded()) }
            text += (acc + gyr).joined(separator: ",") + "\n"
        }
        let path = TestData.temporaryDirectory() + "/counts.csv"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    static func load(_ path: String, units: String? = nil) throws -> Trace {
        var options = DelimitedReadOptions()
        options.sampleRate = rate
        if let units { options.units = units }
        return try TraceFormat.load(path: path, options: options)
    }

    /// Raw counts (median norm about 3000, in the 500–4000 band of a moving body in mg, but all
    /// whole numbers) are not mg: the gyroscope beside them is not read as °/s, and the warning
    /// names raw counts beside °/s.
    func testRawCountsAreNotReadAsDegreesPerSecond() throws {
        let path = try Self.counts(accScale: 2048, gyroScale: 16.4, slow: 6)
        let trace = try Self.load(path)
        let messages = trace.warnings.map(\.message)
        let note = messages.first { $0.hasPrefix(UnitEvidence.notePrefix) } ?? ""
        XCTAssertFalse(note.contains("gyr="), note)
        let gyroscope = messages.first { $0.hasPrefix("gyroscope peaks at") } ?? ""
        XCTAssert(gyroscope.contains("or raw counts as the accelerometer's readings"), gyroscope)
        XCTAssert(gyroscope.contains("--units gyr=0.061deg/s for 16.4 counts per °/s"), gyroscope)
    }

    /// The same motion in mg with decimals is mg: the gyroscope's °/s are still found.
    func testMilliGWithDecimalsStillTellsDegreesPerSecond() throws {
        let path = try Self.counts(accScale: 1000, gyroScale: 1, slow: 1, fraction: true)
        let trace = try Self.load(path)
        let note = trace.warnings.map(\.message).first { $0.hasPrefix(UnitEvidence.notePrefix) } ?? ""
        XCTAssert(note.contains("gyr=deg/s (the gyroscope reaches"), note)
    }

    /// A gyroscope beyond ±4000 °/s read as °/s is not proposed as °/s; one found in °/s whose peak
    /// is still past what a gyroscope measures is not proposed in °/s again.
    func testDegreesPerSecondAreNotProposedBeyondTheirRange() throws {
        let beyond = try Self.load(try Self.counts(accScale: 1, gyroScale: 16.4, slow: 1, fraction: true))
        let messages = beyond.warnings.map(\.message)
        // Neither the warning nor the value fault of the readings beyond range proposes °/s.
        XCTAssertFalse(messages.contains { $0.contains("gyr=deg/s") }, "\(messages)")
        XCTAssert(messages.contains { $0.contains("raw counts? give their scale, e.g. --units gyr=") }, "\(messages)")
        let warning = messages.first { $0.hasPrefix("gyroscope peaks at") } ?? ""
        XCTAssert(warning.contains("beyond any gyroscope's range in rad/s and as °/s"), warning)
        let found = try Self.load(try Self.counts(accScale: 1, gyroScale: 16.4, slow: 6, fraction: true))
        let all = found.warnings.map(\.message)
        XCTAssert(all.contains { $0.hasPrefix(UnitEvidence.notePrefix) && $0.contains("gyr=deg/s") }, "\(all)")
        XCTAssertFalse(all.contains { $0.contains("pass --units gyr=deg/s") }, "\(all)")
        let peak = all.first { $0.hasPrefix("gyroscope peaks at") } ?? ""
        XCTAssert(peak.contains("in the unit found from the readings, beyond any gyroscope's range"), peak)
    }
}
