/// Orientation-change and shake events over a trace, as `motionfusion events` prints them.
public struct MotionEventDetector: Sendable {
    /// One event.
    public struct Event: Equatable, Sendable {
        /// What happened.
        public enum Kind: Equatable, Sendable {
            /// The device orientation changed to this one.
            case orientation(DeviceOrientation)
            /// A shake began.
            case shakeStart
            /// A shake ended.
            case shakeEnd
        }

        /// Time, s.
        public var t: Double
        /// What happened.
        public var kind: Kind
    }

    /// Orientation detection tuning.
    public var orientation = DeviceOrientationDetector.Parameters()
    /// Shake detection tuning.
    public var shake = ShakeDetector.Parameters()

    /// Creates a detector with default tuning.
    public init() {}

    /// The events of the samples, in time order.
    public func events(_ samples: [SensorSample]) -> [Event] {
        var o = DeviceOrientationDetector(parameters: orientation)
        var s = ShakeDetector(parameters: shake)
        var out = [Event]()
        var lastT: Double?
        for sample in samples {
            guard let a = sample.accelerometer, a.isFinite else { continue }
            let dt = lastT.map { max(0, min(1, sample.t - $0)) } ?? 0
            lastT = sample.t
            if let e = s.update(accelerometer: a, dt: dt) {
                out.append(Event(t: sample.t, kind: e == .start ? .shakeStart : .shakeEnd))
            }
            if !s.shaking, let change = o.update(accelerometer: a, dt: dt) {
                out.append(Event(t: sample.t, kind: .orientation(change)))
            }
        }
        return out
    }
}
