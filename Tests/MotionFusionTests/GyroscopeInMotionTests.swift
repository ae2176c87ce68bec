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

    /// `aX,aY,aZ,gX,gY,gZ`: accelerometer in g (median norm about 1.5 g), gyroscope in °/s up to
    /// ±950 on x, no rest.
    static func gesture() -> (text: String, peak: Double) {
        var text = "aX,aY,aZ,gX,gY,gZ\n"
        var peak = 0.0
        for k in 0..<rows {
            let t = Double(k) / rate
            let a = Vector3(
                1.2 * sin(2 * .pi * 2 * t), 1 + 0.8 * cos(2 * .pi * 1.5 * t), 0.9 * sin(2 * .pi * 0.9 * t + 0.5))
            let g = Vector3(
                950 * sin(2 * .pi * 1.3 * t), 600 * sin(2 * .pi * 0.7 * t + 1), 400 * cos(2 * .pi * 1.1 * t))
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
}
