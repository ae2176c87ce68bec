import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The attitude reference frame of delivered device motion, as the platforms' motion APIs name them.
public enum MotionReferenceFrame: Sendable, Equatable {
    /// Z vertical, heading arbitrary (gyroscope and accelerometer only; 6D).
    case arbitraryHeadingZVertical
    /// Z vertical, Y to magnetic north (ENU with magnetic north; 9D).
    case magneticNorthZVertical
    /// Z vertical, Y to true north: magnetic north turned by the declination (degrees, east positive).
    case trueNorthZVertical(declinationDegrees: Double)
}

/// How fast a replay delivers samples.
public enum ReplayPacing: Sendable, Equatable {
    /// As fast as the filter runs.
    case asFastAsPossible
    /// At the recording's own pace, multiplied by `speed` (1 = real time).
    case realTime(speed: Double)
}

/// The clock a paced replay reads and waits on. ``system`` is the wall clock; a program that
/// replays in simulated time, or a test, passes its own.
public struct ReplayClock: Sendable {
    /// The current time, s, from any fixed origin.
    public var now: @Sendable () -> Double
    /// Waits the given number of seconds (always > 0).
    public var sleep: @Sendable (Double) -> Void

    /// A clock of the given reading and waiting.
    public init(now: @escaping @Sendable () -> Double, sleep: @escaping @Sendable (Double) -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// The wall clock.
    public static let system = ReplayClock(
        now: { Date().timeIntervalSinceReferenceDate }, sleep: { if $0 > 0 { usleep(useconds_t(min($0, 3600) * 1e6)) } }
    )
}

/// Replays a recorded trace through a filter the way a live device's motion service delivers
/// device motion: availability checks per sensor, an update interval (with resampling), push
/// delivery to a handler or an `AsyncStream`, pull access to the latest value, reference frames,
/// and attitude relative to a reference attitude.
///
/// ```swift
/// let manager = MotionReplayManager(trace: trace)
/// manager.deviceMotionUpdateInterval = 1.0 / 50
/// manager.startDeviceMotionUpdates(using: .magneticNorthZVertical) { motion in print(motion.magneticHeading) }
/// ```
public final class MotionReplayManager: @unchecked Sendable {
    /// The trace being replayed.
    public let trace: Trace
    /// How the trace is run: filter and tuning, calibration, runner settings. The mode follows the
    /// reference frame asked for at start; the output rate follows
    /// ``deviceMotionUpdateInterval``. Default: the EKF with default parameters.
    public var configuration = RunConfiguration()
    /// Interval between delivered updates, s; 0 delivers one update per input sample. Default 0.
    public var deviceMotionUpdateInterval: Double {
        get { configuration.outputRate.map { 1 / $0 } ?? 0 }
        set { configuration.outputRate = newValue > 0 ? 1 / newValue : nil }
    }
    /// Delivery pace. Default as fast as possible.
    public var pacing: ReplayPacing = .asFastAsPossible
    /// The clock ``pacing`` follows. Default ``ReplayClock/system``.
    public var clock = ReplayClock.system
    /// When set, attitudes are delivered relative to it: `reference* ⊗ attitude`.
    public var referenceAttitude: Quaternion?
    private let lock = Lock()
    private var latest: MotionEstimate?
    private var stopped = false

    /// Creates a manager for a trace.
    public init(trace: Trace) { self.trace = trace }

    /// Whether the trace has gyroscope, accelerometer and magnetometer values.
    public var isGyroAvailable: Bool { trace.has(.gyroscope) }
    /// Whether the trace has accelerometer values.
    public var isAccelerometerAvailable: Bool { trace.has(.accelerometer) }
    /// Whether the trace has magnetometer values.
    public var isMagnetometerAvailable: Bool { trace.has(.magnetometer) }
    /// Whether device motion can be computed (gyroscope and accelerometer present).
    public var isDeviceMotionAvailable: Bool { isGyroAvailable && isAccelerometerAvailable }
    /// The reference frames this trace supports.
    public var availableReferenceFrames: [MotionReferenceFrame] {
        var frames = [MotionReferenceFrame.arbitraryHeadingZVertical]
        if isMagnetometerAvailable { frames += [.magneticNorthZVertical, .trueNorthZVertical(declinationDegrees: 0)] }
        return frames
    }

    /// The most recent update (pull access); nil before the first.
    public var deviceMotion: MotionEstimate? {
        lock.lock()
        defer { lock.unlock() }
        return latest
    }

    /// Stops a running replay after the update being delivered.
    public func stopDeviceMotionUpdates() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    /// The updates the replay delivers, computed without pacing.
    public func updates(using frame: MotionReferenceFrame) -> [MotionEstimate] {
        var run = configuration
        run.mode = frame == .arbitraryHeadingZVertical ? .sixD : .nineD
        var list = run.estimates(trace.samples)
        var turn = Quaternion.identity
        if case .trueNorthZVertical(let d) = frame { turn = OutputReference.trueNorthRotation(declinationDegrees: d) }
        for i in list.indices {
            var q = (turn * list[i].attitude).normalized
            if let r = referenceAttitude { q = (r.conjugate * q).normalized }
            list[i].attitude = q
        }
        return list
    }

    /// Replays the trace, calling `handler` with each update in order (push delivery). Returns
    /// when the trace ends or ``stopDeviceMotionUpdates()`` is called.
    public func startDeviceMotionUpdates(
        using frame: MotionReferenceFrame = .magneticNorthZVertical, handler: (MotionEstimate) -> Void
    ) {
        lock.lock()
        stopped = false
        lock.unlock()
        let list = updates(using: frame)
        let clock = self.clock
        let wallStart = clock.now()
        let traceStart = list.first?.t ?? 0
        for u in list {
            if case .realTime(let speed) = pacing, speed > 0 {
                let due = (u.t - traceStart) / speed
                let wait = due - (clock.now() - wallStart)
                if wait > 0 { clock.sleep(wait) }
            }
            lock.lock()
            latest = u
            let stop = stopped
            lock.unlock()
            if stop { return }
            handler(u)
        }
    }

    /// The updates as an asynchronous stream (push delivery for Swift concurrency). The stream
    /// finishes at the end of the trace or when the consumer stops iterating.
    public func deviceMotionUpdates(using frame: MotionReferenceFrame = .magneticNorthZVertical) -> AsyncStream<
        MotionEstimate
    > {
        AsyncStream { continuation in
            let task = Task.detached { [self] in
                self.startDeviceMotionUpdates(using: frame) { u in
                    if Task.isCancelled { self.stopDeviceMotionUpdates() }
                    continuation.yield(u)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
