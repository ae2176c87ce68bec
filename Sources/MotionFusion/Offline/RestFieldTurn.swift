import Glibc

/// A still stretch's magnetic field, seen offline: at rest the earth's field stays fixed in the
/// sensor frame, so a still stretch whose horizontal field (its part perpendicular to the mean
/// specific force) turns steadily is a slow turn about the vertical, not a rest. A rest judge
/// cannot tell such a turn from a gyroscope bias by the rate alone (a 1 °/s turn is a rate a bias
/// could have). The raw readings are used (a hard iron, fixed in the sensor, does not turn).
///
/// The field counts as turning only when it keeps its strength and dip across the stretch (a magnet
/// moved near a resting device changes them), turns at a mean rate of at least `minimumRate` (a
/// slow drift of a nearby field does not), turns steadily (at evenly spaced points its angle stays
/// within a tenth of the turn of the straight line from start to end: a step, an object put down
/// beside the device, does not), and by a turn the gyroscope could have made with a bias within the
/// judge's bound; otherwise the field says nothing and the rest stands.
struct RestFieldTurn {
    /// Largest turn of the horizontal field across a rest, rad; also the largest change of the
    /// field's dip for its turn to count.
    var threshold: Double
    /// Largest relative change of the field's strength for its turn to count.
    var strengthTolerance: Double
    /// Smallest mean rate of the field's turn, rad/s, for it to count.
    var minimumRate: Double
    /// Largest gyroscope bias, rad/s, per axis (``RestBiasJudge/Parameters/biasClip``).
    var biasClip: Double
    /// Relative scale error of the gyroscope (``RestBiasJudge/Parameters/scaleTolerance``).
    var scaleTolerance: Double

    /// Points between the end windows at which the turn's steadiness is checked.
    static let checkpoints = 7

    /// Whether the field proves that `samples` (one still stretch) turned about the vertical.
    func turned(_ samples: ArraySlice<SensorSample>) -> Bool {
        guard let (first, last, width) = samples.stretchWindows else { return false }
        var force = Vector3.zero
        for s in samples { if let a = s.accelerometer, a.isFinite { force += a } }
        guard let up = force.normalized else { return false }
        func field(from start: Double) -> Vector3? { samples.mean(of: \.magnetometer, from: start, width: width) }
        guard let start = field(from: first), let end = field(from: last - width) else { return false }
        let strength = start.norm
        guard strength > 0, abs(end.norm - strength) <= strengthTolerance * strength else { return false }
        let h0 = start - up * start.dot(up)
        let h1 = end - up * end.dot(up)
        // Near a magnetic pole the horizontal field is too weak to show a turn.
        guard h0.norm > 0.1 * strength, h1.norm > 0.1 * strength else { return false }
        let dip0 = atan2(start.dot(up), h0.norm), dip1 = atan2(end.dot(up), h1.norm)
        guard abs(dip1 - dip0) <= threshold else { return false }
        /// The horizontal field's signed turn about `up` from the start window to `m`.
        func turn(to m: Vector3) -> Double {
            let h = m - up * m.dot(up)
            return atan2(h0.cross(h).dot(up), h0.dot(h))
        }
        let fieldTurn = turn(to: end)
        let span = last - width - first
        guard abs(fieldTurn) > threshold, abs(fieldTurn) >= minimumRate * span else { return false }
        for k in 1...Self.checkpoints {
            let fraction = Double(k) / Double(Self.checkpoints + 1)
            guard let m = field(from: first + fraction * span) else { continue }
            if abs(turn(to: m) - fraction * fieldTurn) > 0.1 * abs(fieldTurn) { return false }
        }
        // The gyroscope's turn about the vertical; the field turns the other way in the sensor frame.
        var gyroscopeTurn = 0.0
        var previous: Double?
        for s in samples {
            if let p = previous, let w = s.gyroscope, w.isFinite { gyroscopeTurn += w.dot(up) * (s.t - p) }
            previous = s.t
        }
        let allowance = biasClip * (last - first) + scaleTolerance * abs(gyroscopeTurn) + threshold
        return abs(fieldTurn + gyroscopeTurn) <= allowance
    }
}

extension ArraySlice where Element == SensorSample {
    /// The first and last times of a still stretch of at least a second, and the width of the
    /// windows its readings are averaged over (a second, or a quarter of a shorter stretch).
    var stretchWindows: (first: Double, last: Double, width: Double)? {
        guard let first = first?.t, let last = last?.t, last - first >= 1 else { return nil }
        return (first, last, Swift.min(1, (last - first) / 4))
    }

    /// The mean of the finite readings of `sensor` over the samples from `start` to `start + width`
    /// (s), or nil without one.
    func mean(of sensor: KeyPath<SensorSample, Vector3?>, from start: Double, width: Double) -> Vector3? {
        var sum = Vector3.zero
        var count = 0.0
        for s in self where s.t >= start && s.t <= start + width {
            guard let v = s[keyPath: sensor], v.isFinite else { continue }
            sum += v
            count += 1
        }
        return count > 0 ? sum * (1 / count) : nil
    }
}
