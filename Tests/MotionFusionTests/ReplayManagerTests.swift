import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

final class ReplayManagerTests: XCTestCase {
    func trace(duration: Double = 10) -> Trace {
        var s = MotionSimulator.Settings()
        s.scenario = .slowRotation
        s.duration = duration
        s.rate = 100
        s.errors = .calibrated
        return MotionSimulator(settings: s).run()
    }

    func testAvailabilityFollowsTheTrace() {
        var t = trace()
        let m = MotionReplayManager(trace: t)
        XCTAssertTrue(m.isDeviceMotionAvailable && m.isMagnetometerAvailable)
        XCTAssertEqual(m.availableReferenceFrames.count, 3)
        for i in t.samples.indices { t.samples[i].magnetometer = nil }
        let noMag = MotionReplayManager(trace: t)
        XCTAssertFalse(noMag.isMagnetometerAvailable)
        XCTAssertEqual(noMag.availableReferenceFrames, [.arbitraryHeadingZVertical])
    }

    func testPushPullAndUpdateInterval() {
        let t = trace()
        let m = MotionReplayManager(trace: t)
        var pushed = [MotionEstimate]()
        m.startDeviceMotionUpdates { pushed.append($0) }
        XCTAssertEqual(pushed.count, t.samples.count, "one update per sample by default")
        XCTAssertEqual(m.deviceMotion?.t, pushed.last?.t, "pull gives the latest update")
        m.deviceMotionUpdateInterval = 0.02
        var resampled = [MotionEstimate]()
        m.startDeviceMotionUpdates { resampled.append($0) }
        XCTAssert((500...501).contains(resampled.count), "\(resampled.count) updates at 50 Hz over 10 s")
        for k in 1..<resampled.count { XCTAssertEqual(resampled[k].t - resampled[k - 1].t, 0.02, accuracy: 1e-9) }
        // A resampled attitude lies between the filter outputs around its instant.
        let after = pushed.firstIndex { $0.t >= resampled[250].t }!
        let a = pushed[after - 1].attitude
        let b = pushed[after].attitude
        XCTAssertLessThanOrEqual(resampled[250].attitude.angle(to: a), a.angle(to: b) + 1e-12)
        XCTAssertLessThanOrEqual(resampled[250].attitude.angle(to: b), a.angle(to: b) + 1e-12)
    }

    func testReferenceFramesAndRelativeAttitude() {
        let t = trace()
        let m = MotionReplayManager(trace: t)
        let magnetic = m.updates(using: .magneticNorthZVertical)
        let trueNorth = m.updates(using: .trueNorthZVertical(declinationDegrees: 12))
        for k in stride(from: 0, to: magnetic.count, by: 97) {
            assertAngleDegrees(
                trueNorth[k].attitude.headingDegrees(), magnetic[k].attitude.headingDegrees() + 12, tolerance: 1e-6)
        }
        m.referenceAttitude = magnetic[0].attitude
        let relative = m.updates(using: .magneticNorthZVertical)
        assertSameRotation(relative[0].attitude, .identity, tolerance: 1e-12)
        assertSameRotation(
            relative[500].attitude, magnetic[0].attitude.conjugate * magnetic[500].attitude, tolerance: 1e-12)
        m.referenceAttitude = nil
        let arbitrary = m.updates(using: .arbitraryHeadingZVertical)
        XCTAssertTrue(arbitrary.allSatisfy { $0.diagnostics.magnetometerRejected })
    }

    func testAsyncStreamAndRealTimePacing() async {
        let t = trace(duration: 2)
        let m = MotionReplayManager(trace: t)
        var count = 0
        for await _ in m.deviceMotionUpdates() { count += 1 }
        XCTAssertEqual(count, t.samples.count)
        // 2 s of recording at 20× speed takes about 0.1 s.
        m.pacing = .realTime(speed: 20)
        let start = Date()
        m.startDeviceMotionUpdates { _ in }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertGreaterThan(elapsed, 0.09)
        XCTAssertLessThan(elapsed, 2)
    }

    func testStopEndsDelivery() {
        let m = MotionReplayManager(trace: trace())
        var n = 0
        m.startDeviceMotionUpdates { _ in
            n += 1
            if n == 10 { m.stopDeviceMotionUpdates() }
        }
        XCTAssertEqual(n, 10)
    }

    /// A clock that jumps ahead for one sample and comes back, or is reset, does not end the output:
    /// a time more than the longest gap before the latest one starts a new grid there, and a small
    /// step back (a timing glitch) is skipped.
    func testOutputRateRestartsAfterAClockReset() {
        var run = RunConfiguration(.mahony, mode: .sixD)
        run.outputRate = 100
        let times = [0, 0.01, 0.02, 1000, 0.03, 0.04, 0.035, 0.05, -30, -29.99].map { $0 }
        let samples = times.map { SensorSample(t: $0, gyroscope: .zero, accelerometer: Vector3(0, 0, 9.81)) }
        let out = run.estimates(samples).map(\.t)
        XCTAssertEqual(out, [0, 0.01, 0.02, 1000, 0.03, 0.04, 0.05, -30, -29.99])
    }

    /// An output rate jumps over a gap in one step however many instants it holds (it used to
    /// step through them: a gap of 1e9 s at 100 Hz ran for minutes), skips samples at an infinite
    /// time, starts a new grid where the old one has no precision left, and never repeats a time
    /// (instants closer than a double resolves at 1e17 s collapse into one row).
    func testOutputRateJumpsOverGapsOfAnyLength() {
        var run = RunConfiguration(.mahony, mode: .sixD)
        run.outputRate = 100
        let samples = [0, 0.01, 0.02, 1e9, 1e9 + 0.005, 1e9 + 0.02, .infinity, 1e17, 1e17 + 64].map {
            SensorSample(t: $0, gyroscope: .zero, accelerometer: Vector3(0, 0, 9.81))
        }
        let times = run.estimates(samples).map(\.t)
        let grid = { (k: Double) in k / 100 }
        XCTAssertEqual(times, [0, 0.01, 0.02, 1e9, grid(100_000_000_001), grid(100_000_000_002), 1e17, 1e17 + 64])
        XCTAssert(times.allSatisfy(\.isFinite))
    }
}
