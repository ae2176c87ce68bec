import MotionFusion
import MotionFusionTestSupport
import XCTest

/// A gyroscope sitting at the end of its range is found, flagged per sample and named by `replay`;
/// readings that vary by their noise never are.
final class GyroscopeClippingTests: XCTestCase {
    /// A fast rotation at 200 Hz whose gyroscope saturates at 85 % of its largest rate.
    static func clipped() -> (trace: Trace, limit: Double) {
        let trace = FilterTests.simulated(.fastRotation, duration: 30, rate: 200)
        let largest = trace.samples.compactMap(\.gyroscope).map { max(abs($0.x), abs($0.y), abs($0.z)) }.max()!
        let limit = 0.85 * largest
        var clipped = trace
        func clip(_ v: Double) -> Double { abs(v) > limit ? (v < 0 ? -limit : limit) : v }
        for i in clipped.samples.indices {
            clipped.samples[i].gyroscope = clipped.samples[i].gyroscope.map {
                Vector3(clip($0.x), clip($0.y), clip($0.z))
            }
        }
        return (clipped, limit)
    }

    func testDetectorFindsTheRangeOnlyOnAPlateau() {
        var c = GyroscopeClipping()
        // Noise around a fast rate: never clipped.
        for i in 0..<1000 {
            XCTAssertEqual(c.observe(Vector3(4 + 0.01 * sin(Double(i)), 0, 0)), .zero)
        }
        // A reading held 30 times (a logger repeating a slower gyroscope's value on every row) is
        // no range, however often it is repeated.
        for _ in 0..<30 { XCTAssertEqual(c.observe(Vector3(4.5, 0.1, 0)), .zero) }
        XCTAssertEqual(c.observe(Vector3(4.4, 0, 0)), .zero)
        // Ten new readings in a row at the largest magnitude, beyond 2 rad/s (the other axes
        // measuring): the range.
        for i in 0..<9 { XCTAssertEqual(c.observe(Vector3(5, 0.01 * Double(i), 0)), .zero) }
        XCTAssertEqual(c.observe(Vector3(5, 0.5, 0)), Vector3(5, 0, 0))
        // From then on every reading of it is clipped, of either sign, and nothing below it.
        XCTAssertEqual(c.observe(Vector3(-5, 0, 0)), Vector3(5, 0, 0))
        XCTAssertEqual(c.observe(Vector3(4.9, 0, 0)), .zero)
        // A still gyroscope repeating a small value is not saturated.
        var still = GyroscopeClipping()
        for _ in 0..<100 { XCTAssertEqual(still.observe(Vector3(0.01, 0, 0)), .zero) }
    }

    func testReplayFlagsAndNamesAClippedGyroscope() throws {
        let (trace, limit) = Self.clipped()
        let estimates = RunConfiguration(.ekf, mode: .nineD).estimates(trace.samples)
        var flagged = 0
        for (e, s) in zip(estimates, trace.samples) where e.diagnostics.gyroscopeClipped {
            flagged += 1
            let g = try XCTUnwrap(s.gyroscope)
            XCTAssertEqual(max(abs(g.x), abs(g.y), abs(g.z)), limit, accuracy: 1e-12, "flagged only at the range")
        }
        XCTAssertGreaterThan(flagged, 100)
        let plain = RunConfiguration(.ekf, mode: .nineD).estimates(
            FilterTests.simulated(.fastRotation, duration: 30, rate: 200).samples)
        XCTAssertFalse(plain.contains { $0.diagnostics.gyroscopeClipped }, "a gyroscope within its range")

        let dir = TestData.temporaryDirectory()
        try TraceWriter.write(trace, to: dir + "/clipped.csv")
        let r = CommandRunner.run(["replay", dir + "/clipped.csv", "--output", dir + "/out.csv"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("the gyroscope read the end of its range on"), r.err)
    }
}
