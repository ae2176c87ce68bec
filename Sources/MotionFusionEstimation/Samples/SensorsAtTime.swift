/// The sensors read at the latest time, to tell a repeated time from a repeated reading.
///
/// A merged timeline logs sensors sampled at the same instant on rows of their own (a magnetometer
/// row with the gyroscope row's time): the second row's time repeats the first's, but it reads
/// another sensor, so it is no duplicate timestamp. A row that reads a sensor already read at
/// that time is one.
public struct SensorsAtTime: Sendable, Codable, Equatable {
    /// The latest time, s (−∞ before the first).
    public var time = -Double.infinity
    /// The sensors read at it: ``gyroscope``, ``accelerometer``, ``magnetometer``, or'd.
    public var sensors: UInt8 = 0

    /// Bits of ``sensors``.
    public static let gyroscope: UInt8 = 1, accelerometer: UInt8 = 2, magnetometer: UInt8 = 4

    /// Nothing read yet.
    public init() {}

    /// The bits of the sensors a row reads.
    @inline(__always)
    public static func of(gyroscope: Bool, accelerometer: Bool, magnetometer: Bool) -> UInt8 {
        (gyroscope ? Self.gyroscope : 0) | (accelerometer ? Self.accelerometer : 0)
            | (magnetometer ? Self.magnetometer : 0)
    }

    /// Notes a row at time `t` that reads `sensors`; true when its time repeats the latest and it
    /// reads a sensor already read at it (a duplicate timestamp). A row of another time starts
    /// afresh.
    @inline(__always)
    public mutating func repeats(_ t: Double, _ sensors: UInt8) -> Bool {
        guard t == time else {
            time = t
            self.sensors = sensors
            return false
        }
        defer { self.sensors |= sensors }
        return self.sensors & sensors != 0
    }
}
