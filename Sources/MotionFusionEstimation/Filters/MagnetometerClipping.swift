/// Finds a magnetometer axis sitting at the end of its range: a magnet near the device, or a range
/// set too small for the field with the device's own iron. A saturated axis reads its extreme value
/// exactly while the device turns; a measuring axis follows the turn. An axis is clipped once it has
/// read exactly the largest magnitude it ever read on ``minimumRun`` new readings in a row, over
/// which the gyroscope turned the field across it by at least ``minimumSweep`` of the field's
/// strength; from then on that magnitude is its range, and every reading of it is clipped.
///
/// A reading equal to the one before it in every axis is a held one (a logger repeating its last
/// value at a higher output rate): it neither extends nor ends a run. An axis along the turn's axis
/// keeps its value honestly; the sweep it should have shown is then zero, so it is not taken for
/// clipped.
public struct MagnetometerClipping: Sendable, Codable, Equatable {
    /// New readings in a row at the largest magnitude that can prove a range.
    public static let minimumRun = 10
    /// Change the gyroscope says the axis should have shown over the run, as a share of the field's
    /// strength, for the run to prove a range: 5 % (a few degrees of turn across the axis), far
    /// beyond any magnetometer's resolution.
    public static let minimumSweep = 0.05

    /// Largest magnitude read per axis, sensor units.
    public private(set) var largest = Vector3.zero
    /// New readings in a row at that magnitude, per axis.
    var runX = 0, runY = 0, runZ = 0
    /// Change the turns should have made per axis over the runs, sensor units.
    var sweep = Vector3.zero
    /// The range proven per axis, sensor units (0 until proven).
    public private(set) var range = Vector3.zero
    /// The last reading taken at an axis's largest magnitude, and whether a reading below every
    /// largest magnitude came after it.
    var last: Vector3?
    var lastQuiet = false
    /// Whether no run is in progress and no range is proven.
    var quiet = true

    public init() {}

    /// Takes one finite reading, with the angular rate over the `dt` seconds before it when known
    /// (rad/s); true when an axis of it is clipped.
    @inline(__always)
    public mutating func observe(_ m: Vector3, rate: Vector3?, dt: Double) -> Bool {
        // Most readings: no run in progress, no range proven, and every axis below its largest
        // magnitude. (A held reading equal to one of them is one of them too.)
        if quiet && abs(m.x) < largest.x && abs(m.y) < largest.y && abs(m.z) < largest.z {
            lastQuiet = true
            return false
        }
        return observeAtTheLargest(m, rate: rate, dt: dt)
    }

    @inline(never)
    mutating func observeAtTheLargest(_ m: Vector3, rate: Vector3?, dt: Double) -> Bool {
        let held = !lastQuiet && m == last
        last = m
        lastQuiet = false
        // The field turns in the sensor frame as dm/dt = m × ω.
        let change = rate.map { m.cross($0) * max(0, dt) } ?? .zero
        let strength = m.norm
        let x = Self.axis(abs(m.x), abs(change.x), strength, held, &largest.x, &runX, &sweep.x, &range.x)
        let y = Self.axis(abs(m.y), abs(change.y), strength, held, &largest.y, &runY, &sweep.y, &range.y)
        let z = Self.axis(abs(m.z), abs(change.z), strength, held, &largest.z, &runZ, &sweep.z, &range.z)
        quiet = runX == 0 && runY == 0 && runZ == 0 && range == .zero
        return x || y || z
    }

    @inline(__always)
    static func axis(
        _ a: Double, _ change: Double, _ strength: Double, _ held: Bool, _ largest: inout Double,
        _ run: inout Int, _ sweep: inout Double, _ range: inout Double
    ) -> Bool {
        if range > 0 { return a >= range }
        if held { return false }
        if a > largest {
            largest = a
            run = 1
            sweep = 0
        } else if a == largest {
            run += 1
            sweep += change
        } else {
            run = 0
            sweep = 0
        }
        guard run >= minimumRun, largest > 0, sweep >= minimumSweep * strength else { return false }
        range = largest
        return true
    }
}
