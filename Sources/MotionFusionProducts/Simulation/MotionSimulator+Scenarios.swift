extension MotionSimulator {
    /// A body axis of the sensor.
    public enum Axis: String, CaseIterable, Sendable {
        case x, y, z

        /// The component index: 0, 1, 2.
        public var index: Int {
            switch self {
            case .x: return 0
            case .y: return 1
            case .z: return 2
            }
        }
    }

    /// The motion of ``Scenario/steadyTurn``.
    public struct SteadyTurn: Sendable {
        /// Rate, °/s. Default 10.
        public var rateDegrees = 10.0
        /// Body axis of the rotation. Default z.
        public var axis = Axis.z
        /// Rest before the turn, s. Default 2; 0 starts the turn at the first sample.
        public var rest = 2.0
        /// Time over which the rate rises smoothly from 0 to ``rateDegrees``, s. Default 1; 0 turns
        /// at the full rate from the start.
        public var spinUp = 1.0

        /// The default turn.
        public init() {}
    }

    /// The drive of ``Scenario/vehicle``: a circle to the left, so the yaw rate is
    /// ``speed`` / ``radius`` and the centripetal acceleration ``speed``² / ``radius``.
    public struct Vehicle: Sendable {
        /// Speed, m/s. Default 10.
        public var speed = 10.0
        /// Radius of the circle, m. Default 50.
        public var radius = 50.0
        /// Rest before driving, s. Default 2.
        public var rest = 2.0
        /// Time over which the speed rises smoothly from 0, s. Default 3.
        public var ramp = 3.0

        /// The default drive.
        public init() {}
    }
}
