import Foundation
import MotionFusion
import XCTest

@testable import AccuracyMatrix

/// `--series` writes the per-sample errors of the offline reconstruction as it does a filter's
/// (it crashed on `reconstruct`).
final class SeriesTests: XCTestCase {
    func testReconstructSeriesHasOneRowPerSampleWithItsErrors() throws {
        let condition = "turn-z-10-rest0"
        let trial = try XCTUnwrap(Datasets.scenarioConditions.first { $0.name == condition }).make()[0]
        let out = NSTemporaryDirectory() + "series-\(UUID().uuidString).csv"
        defer { try? FileManager.default.removeItem(atPath: out) }
        try Series.write(condition: condition, trial: trial.name, estimator: "reconstruct", mode: "9d", to: out)
        let rows = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(rows.count, trial.trace.samples.count + 1)
        XCTAssert(rows[0].hasPrefix("t,heading_err,incl_err,"), String(rows[0]))
        // The errors are the reconstruction's: its RMS inclination error is the metric's.
        let inclination = rows.dropFirst().map { Double($0.split(separator: ",")[2])! }
        XCTAssert(inclination.allSatisfy(\.isFinite))
        let rms = (inclination.map { $0 * $0 }.reduce(0, +) / Double(inclination.count)).squareRoot()
        let metric = try XCTUnwrap(
            AttitudeErrorMetric.evaluate(
                estimates: reconstruction(trial.trace, mode: .nineD), trace: trial.trace, mode: .nineD))
        XCTAssertEqual(rms, metric.inclinationRMSE, accuracy: 0.05 * metric.inclinationRMSE + 0.01)
    }
}
