/// Glitches in the values of a well-formed file — what real loggers emit now and then. They never
/// stop a run: the affected sensor (or ground truth) is treated as missing for that sample and the
/// row is kept, so there is still one output row per input row. The exceptions are a row that is
/// no data at all (a spreadsheet's summary line), dropped, and a row that holds no value to read
/// (an estimation filter's row between the IMU's), skipped; both are counted. Each kind is reported
/// once, with its count and first location. With `strict` set they are errors instead (exit status 1).
///
/// Structural problems — a field that is not a number in a row of numbers, a wrong field count,
/// a missing column, more rows that are not data than ``DelimitedRows/maximumJunk(rows:)`` — are
/// always errors (``TraceError``).
public struct ValueFaults: Sendable {
    /// A kind of value fault.
    public enum Kind: String, CaseIterable, Sendable {
        /// Some but not all three axes of a sensor are NaN (empty or `nan`).
        case partialAxes = "some axes missing"
        /// A sensor axis is ±infinity.
        case infinite = "infinite value"
        /// A sensor value beyond any real sensor's range (|gyroscope| > 100 rad/s,
        /// |accelerometer| > 2000 m/s², |magnetometer| > 10⁵ in the file's units).
        case outOfRange = "value beyond any sensor's range"
        /// The same timestamp as the previous row.
        case duplicateTime = "duplicate timestamp"
        /// A timestamp earlier than the previous row's.
        case backwardTime = "time goes backwards"
        /// A timestamp that is NaN or infinite.
        case invalidTime = "timestamp not finite"
        /// A ground-truth quaternion partly missing, infinite, zero or far from unit norm.
        case invalidTruth = "invalid ground-truth quaternion"
        /// The same in an estimate file's attitude (read by `evaluate`).
        case invalidEstimate = "invalid estimate quaternion"
        /// A `moving` flag other than 0 or 1.
        case invalidFlag = "moving flag not 0 or 1"
        /// A row that is mostly not numbers among the data (counted by ``DelimitedRows``).
        case junkRow = "row that is not data"
        /// A row of numbers whose fields another delimiter separates (counted by ``DelimitedRows``).
        case foreignDelimiter = "row with another delimiter"
    }

    /// One kind's tally.
    public struct Tally: Sendable {
        /// How often it occurred.
        public var count: Int
        /// Where it occurred first.
        public var first: SourceLocation
        /// What the first occurrence was (value and sensor).
        public var detail: String
    }

    /// Largest plausible gyroscope magnitude, rad/s.
    public static let gyroscopeLimit = 100.0
    /// Largest plausible accelerometer magnitude, m/s².
    public static let accelerometerLimit = 2000.0
    /// Largest plausible magnetometer magnitude in the file's units.
    public static let magnetometerLimit = 1e5

    /// Whether a fault is an error rather than a repair (`--strict`).
    public var strict = false
    /// The tallies, by kind.
    public private(set) var tallies: [Kind: Tally] = [:]

    /// Creates an empty log.
    public init(strict: Bool = false) { self.strict = strict }

    /// Total number of faults.
    public var total: Int { tallies.values.reduce(0) { $0 + $1.count } }

    /// Records a fault, or throws it as an error in strict mode.
    public mutating func record(_ kind: Kind, at location: SourceLocation, _ detail: String) throws {
        if strict {
            throw TraceError(
                kind == .duplicateTime || kind == .backwardTime ? .nonMonotonicTime : .nonFiniteValue, location,
                "\(detail) (--strict refuses value faults; without it the value is treated as missing and reported)")
        }
        if tallies[kind] == nil {
            tallies[kind] = Tally(count: 1, first: location, detail: detail)
        } else {
            tallies[kind]!.count += 1
        }
    }

    /// Sets the tally of a kind counted elsewhere (rows dropped by ``DelimitedRows``).
    public mutating func set(_ kind: Kind, count: Int, first: SourceLocation, _ detail: String) {
        tallies[kind] = Tally(count: count, first: first, detail: detail)
    }

    /// Adds another log's tallies (the files of one recording).
    public mutating func absorb(_ other: ValueFaults) {
        for (kind, t) in other.tallies {
            if tallies[kind] == nil { tallies[kind] = t } else { tallies[kind]!.count += t.count }
        }
    }

    /// One warning per kind: what, how often, where first, and what was done.
    public var warnings: [TraceWarning] {
        Kind.allCases.compactMap { kind in
            guard let t = tallies[kind] else { return nil }
            let action: String
            switch kind {
            case .duplicateTime: action = "the row is kept and the gyroscope is not integrated over it"
            case .backwardTime: action = "the row is kept and not integrated; the filter continues from the later time"
            case .invalidTime: action = "the row is kept with the previous row's time and not integrated"
            case .invalidTruth: action = "ground truth treated as missing there"
            case .invalidEstimate: action = "the row is left out of the score"
            case .invalidFlag: action = "the flag is treated as missing there"
            case .junkRow, .foreignDelimiter: action = "the row is dropped (no output row)"
            default: action = "that sensor is treated as missing for the sample"
            }
            let times = t.count == 1 ? "once" : "\(t.count) times"
            return TraceWarning(
                t.first, "\(kind.rawValue) \(times), first: \(t.detail); \(action) (--strict makes this an error)")
        }
    }

    /// Checks three axes of a sensor: all NaN is "no value"; some NaN, an infinity, or a magnitude
    /// beyond `limit` is a fault (the sensor is treated as missing); otherwise the vector.
    /// `hint` suggests a cause of out-of-range values; `location(k)` gives axis k's location.
    @inlinable
    public mutating func screen(
        _ x: Double, _ y: Double, _ z: Double, limit: Double, sensor: String, hint: @autoclosure () -> String = "",
        location: (Int) -> SourceLocation
    ) throws -> Vector3? {
        if x.isFinite && y.isFinite && z.isFinite {
            let v = Vector3(x, y, z)
            if v.squaredNorm <= limit * limit { return v }
            let cause = hint()
            // A norm that overflows says nothing: the reading itself then.
            let norm = v.norm
            let size = norm.isFinite ? "magnitude \(norm)" : "reading (\(x), \(y), \(z))"
            try record(
                .outOfRange, at: location(0), "\(sensor) \(size) beyond \(limit)\(cause.isEmpty ? "" : " (\(cause))")")
            return nil
        }
        if x.isNaN && y.isNaN && z.isNaN { return nil }
        let values = [x, y, z]
        let k = values.firstIndex { !$0.isFinite }!
        if values.contains(where: \.isInfinite) {
            let i = values.firstIndex(where: \.isInfinite)!
            try record(.infinite, at: location(i), "\(sensor) \(["x", "y", "z"][i]) is \(values[i])")
        } else {
            try record(.partialAxes, at: location(k), "\(sensor) \(["x", "y", "z"][k]) is missing")
        }
        return nil
    }

    /// Checks a ground-truth quaternion with the native policy: four NaN is "no truth"; within
    /// 1e-6 of unit norm it is kept exactly; a norm between 0.5 and 2 is renormalised (reported
    /// once as a warning through `renormalised`); anything else (partly missing, infinite, zero,
    /// far from unit) is a fault. Huge components are scaled before the norm is taken.
    /// An estimate file's attitude is screened the same way, reported as `fault`.
    @inlinable
    public mutating func screenTruth(
        _ q: Quaternion, location: @autoclosure () -> SourceLocation, renormalised: inout Int,
        as fault: Kind = .invalidTruth
    ) throws -> Quaternion? {
        if q.w.isNaN && q.x.isNaN && q.y.isNaN && q.z.isNaN { return nil }
        guard q.isFinite else {
            try record(
                fault, at: location(),
                "quaternion (\(q.w), \(q.x), \(q.y), \(q.z)) is partly missing or infinite")
            return nil
        }
        let norm = q.robustNorm
        if abs(norm - 1) <= 1e-6 { return q }
        guard norm > 0.5 && norm < 2 else {
            try record(fault, at: location(), "quaternion norm \(norm), expected 1")
            return nil
        }
        if abs(norm - 1) > 1e-3 { renormalised += 1 }
        return q.normalized
    }
}
