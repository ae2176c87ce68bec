/// Accelerometer-only separation of gravity and user acceleration: a first-order low-pass per
/// axis gives gravity, the remainder (the high-pass) is user acceleration. For devices without a
/// gyroscope; with one, ``MotionEstimate`` separates them far better.
public struct GravitySeparator: Sendable {
    /// Low-pass time constant, s. Default 0.5.
    public var timeConstant: Double
    /// Current gravity estimate (specific-force convention: points up), m/s².
    public private(set) var gravity = Vector3.zero
    var primed = false

    /// Creates a separator.
    public init(timeConstant: Double = 0.5) { self.timeConstant = timeConstant }

    /// Feeds one accelerometer reading `dt` seconds after the previous; returns
    /// (gravity, user acceleration).
    public mutating func update(_ a: Vector3, dt: Double) -> (gravity: Vector3, user: Vector3) {
        if !primed {
            gravity = a
            primed = true
        } else if dt > 0 {
            gravity += (a - gravity) * (dt / (timeConstant + dt))
        }
        return (gravity, a - gravity)
    }
}
