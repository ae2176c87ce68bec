import Foundation
import MotionFusion
import MotionFusionCommandLine
import MotionFusionTestSupport
import XCTest

/// The magnetometer calibration a recording's run starts with (``RunConfiguration/magnetometerLookAhead``):
/// the one the filter trusts within the opening stretch is in use from the first sample when every
/// reading before it bears it out; live input runs strictly sample by sample.
final class MagnetometerLookAheadTests: XCTestCase {
    /// A hard iron of 50 µT (twice the horizontal field) and soft iron on the mixed script, whose
    /// leading rest and slow turns leave the on-line calibration nothing to fit for its first
    /// seconds.
    static func ironTrace(duration: Double = 40) -> Trace {
        var e = ScenarioSuiteTests.errors()
        e.fixedHardIron = Vector3(30, -40, 0)
        e.fixedSoftIron = Matrix3(Vector3(1.1, 0.03, -0.02), Vector3(0.03, 0.92, 0.05), Vector3(-0.02, 0.05, 1.05))
        return ScenarioSuiteTests.simulated(.mixed, duration: duration, errors: e, rate: 100)
    }

    /// With the default look-ahead both calibrating filters are calibrated from the first sample:
    /// the heading over the first 8 s (before the filter run sample by sample trusts any fit) is
    /// within 3°, and the first estimate reports medium level or better. Run strictly sample by
    /// sample (0 s), the same 8 s follow the raw readings, tens of degrees off; from 20 s on, with
    /// both runs calibrated, the one that started calibrated is no worse (within 0.5°).
    func testACalibrationTrustedLaterIsInUseFromTheFirstSample() {
        let trace = Self.ironTrace()
        for kind in ScenarioSuiteTests.biasKinds {
            let ahead = RunConfiguration(kind, mode: .nineD)
            XCTAssertEqual(ahead.magnetometerLookAhead, 120, "the default")
            var causal = ahead
            causal.magnetometerLookAhead = 0
            let withLookAhead = ahead.estimates(trace.samples)
            let sampleBySample = causal.estimates(trace.samples)
            XCTAssertGreaterThanOrEqual(
                withLookAhead.first!.diagnostics.magnetometerAccuracy, .medium, "\(kind): level at the first sample")
            XCTAssertEqual(sampleBySample.first!.diagnostics.magnetometerAccuracy, .uncalibrated, "\(kind)")
            XCTAssertLessThan(
                ScenarioSuiteTests.rmsHeadingError(withLookAhead, trace, from: 0, to: 8), 3,
                "\(kind): RMS heading error (°), 0–8 s")
            XCTAssertGreaterThan(
                ScenarioSuiteTests.rmsHeadingError(sampleBySample, trace, from: 0, to: 8), 20,
                "\(kind) sample by sample: RMS heading error (°), 0–8 s")
            // Once both runs are calibrated, the one that started so is no worse.
            let late = ScenarioSuiteTests.rmsHeadingError(withLookAhead, trace, from: 20, to: 40)
            let lateSampleBySample = ScenarioSuiteTests.rmsHeadingError(sampleBySample, trace, from: 20, to: 40)
            XCTAssertLessThan(late, lateSampleBySample + 0.5, "\(kind): RMS heading error (°), 20–40 s")
            XCTAssertEqual(withLookAhead.count, trace.samples.count)
        }
    }

    /// A magnet attached 4 s or 20 s in, one on the device through the first 3 s of its leading
    /// rest and then taken off, or an iron that grows from nothing over the minute: the
    /// calibration the filter trusts afterwards does not fit the readings before it (in every 2 s
    /// of the stretch), so it is not back-dated, and the opening is the sample-by-sample run's
    /// (within 0.5°). A median over all the readings held let the magnet attached at 4 s through;
    /// the strength alone let the one at rest through, since the fit took its few readings into
    /// its ellipsoid (its angle to the vertical is not the earth field's).
    func testACalibrationTheOpeningReadingsContradictIsNotBackDated() {
        let clean = ScenarioSuiteTests.simulated(.fastRotation, duration: 60, rate: 100)
        let magnet = Vector3(30, -40, 20)
        func withIron(_ iron: (Double) -> Double) -> Trace {
            var trace = clean
            for i in trace.samples.indices {
                let share = iron(trace.samples[i].t)
                trace.samples[i].magnetometer = trace.samples[i].magnetometer.map { $0 + magnet * share }
            }
            return trace
        }
        let cases: [(String, Trace, Double)] = [
            ("attached at 4 s", withIron { $0 >= 4 ? 1 : 0 }, 4),
            ("attached at 20 s", withIron { $0 >= 20 ? 1 : 0 }, 20),
            ("taken off at 3 s", withIron { $0 < 3 ? 1 : 0 }, 60),
            ("growing over 60 s", withIron { $0 / 60 }, 20),
        ]
        for (name, trace, opening) in cases {
            for kind in ScenarioSuiteTests.biasKinds {
                let ahead = RunConfiguration(kind, mode: .nineD)
                var causal = ahead
                causal.magnetometerLookAhead = 0
                let withLookAhead = ScenarioSuiteTests.rmsHeadingError(
                    ahead.estimates(trace.samples), trace, from: 0, to: opening)
                let sampleBySample = ScenarioSuiteTests.rmsHeadingError(
                    causal.estimates(trace.samples), trace, from: 0, to: opening)
                XCTAssertEqual(
                    withLookAhead, sampleBySample, accuracy: 0.5,
                    "\(kind), \(name): RMS heading error (°) over the first \(opening) s, against sample by sample")
            }
        }
    }

    /// `replay --look-ahead 0` writes what standard input gives, row for row; the default differs
    /// on a file whose calibration is trusted late, and scores far better.
    func testReplayOfAFileLooksAheadAndStandardInputDoesNot() throws {
        let dir = TestData.temporaryDirectory()
        let file = dir + "/iron.csv"
        let columns = TraceWriter.Columns.all
        let text = ([columns.header] + Self.ironTrace(duration: 30).samples.map(columns.row)).joined(separator: "\n")
        try (text + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        func replay(_ args: [String], input: Data? = nil) throws -> (out: String, err: String) {
            let r = try CommandRunner.process(["replay"] + args + ["--output", "-", "--score"], input: input)
            XCTAssertEqual(r.status, 0, r.err)
            return (r.out, r.err)
        }
        func total(_ err: String) -> Double {
            let line = err.split(separator: "\n").first { $0.contains(" total ") }!
            return Double(line.split(separator: " ").first { $0.hasSuffix("°,") }!.dropLast(2))!
        }
        let ahead = try replay([file])
        let causal = try replay([file, "--look-ahead", "0"])
        let piped = try replay(["-"], input: try Data(contentsOf: URL(fileURLWithPath: file)))
        XCTAssertEqual(piped.out, causal.out, "standard input runs sample by sample")
        XCTAssertNotEqual(ahead.out, causal.out)
        XCTAssertLessThan(total(ahead.err), 3)
        XCTAssertGreaterThan(total(causal.err), 10)
    }
    /// A consumer part's iron (`simulate --scenario mixed --errors consumer --seed 2`): the
    /// gyroscope's turns give the hard iron across one axis (low level) at 37 s, and with that
    /// partial calibration the EKF rejected nearly half the readings; while they counted as
    /// disturbed the calibration learnt only from the turns and never reached medium (12.2° over
    /// the run). Kept, and their fit checked against the turns, they reach it: over the last
    /// minute the 9D heading is within 3° at medium level or better, as the complementary filter's
    /// is, which rejects no readings.
    func testAPartialCalibrationWhoseReadingsTheEKFRejectsStillLearnsFromThem() {
        var s = MotionSimulator.Settings()
        s.scenario = .mixed
        s.duration = 120
        s.rate = 100
        s.errors = SensorErrorModel()  // the consumer grade
        s.seed = 2
        let trace = MotionSimulator(settings: s).run()
        for kind in ScenarioSuiteTests.biasKinds {
            let estimates = RunConfiguration(kind, mode: .nineD).estimates(trace.samples)
            XCTAssertGreaterThanOrEqual(estimates.last!.diagnostics.magnetometerAccuracy, .medium, "\(kind)")
            XCTAssertLessThan(
                ScenarioSuiteTests.rmsHeadingError(estimates, trace, from: 60, to: 120), 3,
                "\(kind): RMS heading error (°) over the last minute")
        }
    }
}
