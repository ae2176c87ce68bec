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

    /// A clock that moves only when the replay waits on it or a test advances it: pacing is checked
    /// against the recording's timestamps, never against the wall clock.
    final class ManualClock: @unchecked Sendable {
        private let lock = NSLock()
        private var time = 0.0
        private var waits = 0

        /// The current time and the number of waits so far.
        var reading: (time: Double, waits: Int) {
            lock.lock()
            defer { lock.unlock() }
            return (time, waits)
        }

        /// Moves the time on by `seconds`, counting a wait when the replay asked for it.
        func advance(_ seconds: Double, wait: Bool = false) {
            lock.lock()
            time += seconds
            if wait { waits += 1 }
            lock.unlock()
        }

        var replayClock: ReplayClock {
            ReplayClock(now: { self.reading.time }, sleep: { self.advance($0, wait: true) })
        }
    }

    func testAsyncStream() async {
        let t = trace(duration: 2)
        let m = MotionReplayManager(trace: t)
        var times = [Double]()
        for await u in m.deviceMotionUpdates() { times.append(u.t) }
        XCTAssertEqual(times, t.samples.map(\.t), "every sample, in order")
    }

    /// At `speed`, an update is delivered when (its time − the first update's) / `speed` has passed
    /// on the replay's clock, neither earlier nor later; as fast as possible, the replay never waits; a consumer
    /// slower than the recording gets every update, late, without waits.
    func testRealTimePacingFollowsTheTimestamps() {
        let t = trace(duration: 2)
        let m = MotionReplayManager(trace: t)
        let clock = ManualClock()
        m.clock = clock.replayClock
        m.pacing = .realTime(speed: 20)
        var delivered = [(t: Double, at: Double)]()
        m.startDeviceMotionUpdates { delivered.append(($0.t, clock.reading.time)) }
        XCTAssertEqual(delivered.map(\.t), t.samples.map(\.t), "every sample, in order")
        for d in delivered {
            XCTAssertEqual(d.at, (d.t - t.samples[0].t) / 20, accuracy: 1e-9, "update at \(d.t) s")
        }

        m.pacing = .asFastAsPossible
        let before = clock.reading
        var count = 0
        m.startDeviceMotionUpdates { _ in count += 1 }
        XCTAssertEqual(count, t.samples.count)
        XCTAssertEqual(clock.reading.waits, before.waits, "no waits as fast as possible")
        XCTAssertEqual(clock.reading.time, before.time)

        // Each update takes the consumer 1 s of clock time, 2000 times the recording's step at 20×.
        m.pacing = .realTime(speed: 20)
        let start = clock.reading
        var late = [Double]()
        m.startDeviceMotionUpdates { u in
            late.append(clock.reading.time - start.time - (u.t - t.samples[0].t) / 20)
            clock.advance(1)
        }
        XCTAssertEqual(late.count, t.samples.count, "every update")
        XCTAssertEqual(clock.reading.waits, start.waits, "no waits for a slow consumer")
        XCTAssert(late.allSatisfy { $0 >= -1e-9 }, "never early")
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
