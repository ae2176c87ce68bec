/// Finds a magnetometer axis sitting at an end of its range: a magnet near the device, or a range
/// set too small for the field with the device's own iron. A saturated axis reads its extreme value
/// exactly while the device turns; a measuring axis follows the turn.
///
/// Each end of each axis is judged on its own (a range need not be symmetric: +100 / −80 counts).
/// An end is proven once the axis has read exactly its largest (or most negative) value so far on
/// ``minimumRun`` new readings in a row while the gyroscope says it should have moved: the run's
/// first reading, turned by the net rotation since (from the bias-corrected rates), differs on
/// that axis from the value read by at least ``minimumDeparture`` of the field's strength, and the
/// rotation is at least ``minimumTurnRate`` of the run's time. A still device (noise, any bias a
/// filter allows), an axis along the turn (it keeps its value honestly) and an axis at the crest of
/// a slow turn (where it changes only to second order) are not taken for clipped. From then on
/// every reading at or beyond that end is clipped.
///
/// A reading equal to the one before it in every axis is a held one (a logger repeating its last
/// value at a higher output rate) and neither extends nor ends a run, unless every axis sits at an
/// end of values that have moved (a field beyond the range on all three axes repeats whole
/// readings).
public struct MagnetometerClipping: Sendable, Codable, Equatable {
    /// New readings in a row at an end that can prove it.
    public static let minimumRun = 10
    /// Departure of the turned first reading from the value read, on the axis, that proves an end:
    /// 5 % of the field's strength (a few degrees of turn), far beyond any resolution.
    public static let minimumDeparture = 0.05
    /// Net rotation over the run per second of it, rad/s (3 °/s: beyond the 2 °/s a gyroscope bias
    /// is bounded by).
    public static let minimumTurnRate = 3.0 * .pi / 180

    /// Largest and most negative value read per axis, sensor units.
    public private(set) var highest = Vector3(-.infinity, -.infinity, -.infinity)
    public private(set) var lowest = Vector3(.infinity, .infinity, .infinity)
    /// The proven ends per axis, sensor units (infinite until proven).
    public private(set) var upper = Vector3(.infinity, .infinity, .infinity)
    public private(set) var lower = Vector3(-.infinity, -.infinity, -.infinity)
    /// Per axis, the run in progress: new readings in a row at an end (positive at the highest,
    /// negative at the lowest), its first reading, the rotation since (sensor frame) and its time, s.
    var runX = 0, runY = 0, runZ = 0
    var firstX = Vector3.zero, firstY = Vector3.zero, firstZ = Vector3.zero
    var turnX = Quaternion.identity, turnY = Quaternion.identity, turnZ = Quaternion.identity
    var timeX = 0.0, timeY = 0.0, timeZ = 0.0
    /// The last reading taken at an end, and whether a reading within every end came after it.
    var last: Vector3?
    var lastQuiet = false
    /// Whether no run is in progress and no end is proven.
    var quiet = true

    public init() {}

    /// Takes one finite reading, with the angular rate over the `dt` seconds before it when known
    /// and the gyroscope bias estimate (rad/s, asked only for a reading at an end); true when an
    /// axis of it is clipped.
    @inline(__always)
    public mutating func observe(
        _ m: Vector3, rate: Vector3?, bias: @autoclosure () -> Vector3 = .zero, dt: Double
    ) -> Bool {
        // Most readings: no run in progress, no end proven, and every axis strictly within the
        // values read so far. (A held reading equal to one of them is one of them too.)
        if quiet && m.x < highest.x && m.x > lowest.x && m.y < highest.y && m.y > lowest.y && m.z < highest.z
            && m.z > lowest.z
        {
            lastQuiet = true
            return false
        }
        return observeAtAnEnd(m, rate: rate.map { $0 - bias() }, dt: dt)
    }

    @inline(never)
    mutating func observeAtAnEnd(_ m: Vector3, rate: Vector3?, dt: Double) -> Bool {
        // Every axis at an end of values that have moved (at the start every value is its own end).
        let everyAxisAtAnEnd =
            highest.x > lowest.x && highest.y > lowest.y && highest.z > lowest.z
            && (m.x >= highest.x || m.x <= lowest.x) && (m.y >= highest.y || m.y <= lowest.y)
            && (m.z >= highest.z || m.z <= lowest.z)
        let held = !lastQuiet && m == last && !everyAxisAtAnEnd
        last = m
        lastQuiet = false
        let step = max(0, dt)
        let turn = Quaternion(rotationVector: (rate ?? .zero) * step)
        let strength = m.norm
        let x = Self.axis(
            0, m, turn, step, strength, held, &highest.x, &lowest.x, &upper.x, &lower.x, &runX, &firstX,
            &turnX, &timeX)
        let y = Self.axis(
            1, m, turn, step, strength, held, &highest.y, &lowest.y, &upper.y, &lower.y, &runY, &firstY,
            &turnY, &timeY)
        let z = Self.axis(
            2, m, turn, step, strength, held, &highest.z, &lowest.z, &upper.z, &lower.z, &runZ, &firstZ,
            &turnZ, &timeZ)
        quiet =
            runX == 0 && runY == 0 && runZ == 0 && upper.x == .infinity && upper.y == .infinity
            && upper.z == .infinity && lower.x == -.infinity && lower.y == -.infinity && lower.z == -.infinity
        return x || y || z
    }

    /// Axis `k` of the reading `m`, with the rotation over the step before it: whether it is
    /// clipped.
    @inline(__always)
    static func axis(
        _ k: Int, _ m: Vector3, _ step: Quaternion, _ dt: Double, _ strength: Double, _ held: Bool,
        _ highest: inout Double, _ lowest: inout Double, _ upper: inout Double, _ lower: inout Double,
        _ run: inout Int, _ first: inout Vector3, _ turn: inout Quaternion, _ time: inout Double
    ) -> Bool {
        let v = m[k]
        if v >= upper || v <= lower { return true }
        if held { return false }
        // The end this reading is at (+1 highest, −1 lowest), extending or starting a run.
        var end = 0
        if v > highest {
            highest = v
            end = 1
            run = 0
        } else if v == highest {
            end = 1
        }
        if v < lowest {
            lowest = v
            end = -1
            run = 0
        } else if v == lowest && end == 0 {
            end = -1
        }
        guard end != 0, run == 0 || (run > 0) == (end > 0) else {
            run = 0
            return false
        }
        if run == 0 {
            first = m
            turn = .identity
            time = 0
        } else {
            turn = turn * step
            time += dt
        }
        run += end
        guard abs(run) >= minimumRun else { return false }
        let angle = turn.angle
        let departure = abs(turn.inverseRotate(first)[k] - v)
        guard departure >= minimumDeparture * strength, angle >= minimumTurnRate * time else { return false }
        if end > 0 { upper = v } else { lower = v }
        return true
    }
}
