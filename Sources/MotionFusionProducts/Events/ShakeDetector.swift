/// Detects shakes: user acceleration (specific force minus low-passed gravity) that rises above a
/// threshold (on any axis) ``Parameters/minimumPeaks`` times within ``Parameters/window`` starts a shake (one
/// excursion, such as a quick turn, does not); it ends when the acceleration has stayed below half
/// the threshold for ``Parameters/quietTime``.
public struct ShakeDetector: Sendable {
    /// Tuning.
    public struct Parameters: Sendable {
        /// User acceleration (per axis) whose repeated crossing starts a shake, m/s². Default 8 (about 0.8 g).
        public var threshold = 8.0
        /// Time below half the threshold that ends a shake, s. Default 0.5.
        public var quietTime = 0.5
        /// Excursions above the threshold (counted per axis) needed within ``window`` to start a
        /// shake. Default 4.
        public var minimumPeaks = 4
        /// Window for counting excursions, s. Default 1.
        public var window = 1.0
        /// Low-pass time constant separating gravity, s. Default 0.5.
        public var gravityTime = 0.5
        /// Default parameters.
        public init() {}
    }

    /// A change of shake state.
    public enum Event: Equatable, Sendable {
        /// A shake began.
        case start
        /// A shake ended.
        case end
    }

    /// Tuning.
    public var parameters: Parameters
    /// Whether a shake is in progress.
    public private(set) var shaking = false
    var separator: GravitySeparator
    var quiet = 0.0
    var above = [false, false, false]
    var peaks: [Double] = []
    var clock = 0.0

    /// Creates a detector.
    public init(parameters: Parameters = Parameters()) {
        self.parameters = parameters
        separator = GravitySeparator(timeConstant: parameters.gravityTime)
    }

    /// Feeds one accelerometer reading; returns an event when the state changes.
    public mutating func update(accelerometer a: Vector3, dt: Double) -> Event? {
        let (_, user) = separator.update(a, dt: dt)
        let m = user.norm
        clock += dt
        if !shaking {
            // Count rising crossings of the threshold on each axis (half-threshold hysteresis):
            // a shake swings back and forth, a turn or a bump crosses once or twice.
            for k in 0..<3 {
                let v = abs(user[k])
                if !above[k] && v > parameters.threshold {
                    above[k] = true
                    peaks.append(clock)
                } else if above[k] && v < parameters.threshold / 2 {
                    above[k] = false
                }
            }
            peaks.removeAll { clock - $0 > parameters.window }
            if peaks.count >= parameters.minimumPeaks {
                shaking = true
                quiet = 0
                peaks.removeAll()
                return .start
            }
            return nil
        }
        if m < parameters.threshold / 2 {
            quiet += dt
            if quiet >= parameters.quietTime {
                shaking = false
                return .end
            }
        } else {
            quiet = 0
        }
        return nil
    }
}
