/// Finds a gyroscope sitting at the end of its range. A saturated axis reads its extreme value
/// exactly, sample after sample, while the device turns faster than it can measure; a measured
/// rate varies by its noise. An axis is clipped once it has read exactly the largest magnitude it
/// ever read, at least ``minimumRange``, on ``minimumRun`` new readings in a row; from then on that
/// magnitude is its range, and every reading of it is clipped. A reading equal to the one before it
/// in every axis is a held one (a logger repeating a slower sensor's last value on every row: one
/// app repeats it about 30 times): it neither extends nor ends a run, unless every axis reads its
/// largest magnitude, at least ``minimumRange`` (saturated on all three axes).
public struct GyroscopeClipping: Sendable, Codable, Equatable {
    /// Smallest range taken for a saturation, rad/s (115 °/s: below every gyroscope's range, above
    /// the rates a plateau of noise could repeat). A repeat of a smaller value is a still reading.
    public static let minimumRange = 2.0
    /// New readings in a row at the largest magnitude that prove the range.
    public static let minimumRun = 10

    /// Largest magnitude read per axis, rad/s.
    public private(set) var largest = Vector3.zero
    /// Readings in a row at that magnitude, per axis.
    var runX = 0, runY = 0, runZ = 0
    /// The range proven per axis, rad/s (0 until proven).
    public private(set) var range = Vector3.zero
    /// The last reading taken (nil in states saved before it was kept).
    var last: Vector3?

    public init() {}

    /// Takes one reading; returns the range of each axis that is clipped in it, 0 for the others
    /// (all zero: nothing clipped).
    public mutating func observe(_ g: Vector3) -> Vector3 {
        // Saturated on all three axes, a gyroscope repeats whole readings: those are no held ones.
        let everyAxisAtItsLargest =
            abs(g.x) == largest.x && abs(g.y) == largest.y && abs(g.z) == largest.z
            && min(largest.x, largest.y, largest.z) >= Self.minimumRange
        let held = g == last && !everyAxisAtItsLargest
        last = g
        return Vector3(
            Self.axis(abs(g.x), held, &largest.x, &runX, &range.x),
            Self.axis(abs(g.y), held, &largest.y, &runY, &range.y),
            Self.axis(abs(g.z), held, &largest.z, &runZ, &range.z))
    }

    @inline(__always)
    static func axis(
        _ a: Double, _ held: Bool, _ largest: inout Double, _ run: inout Int, _ range: inout Double
    ) -> Double {
        if held { return range > 0 && a >= range ? range : 0 }
        if a > largest {
            largest = a
            run = 1
        } else if a == largest {
            run += 1
        } else {
            run = 0
        }
        if range > 0 { return a >= range ? range : 0 }
        guard run >= minimumRun, largest >= minimumRange else { return 0 }
        range = largest
        return range
    }
}
