import Glibc

/// A still stretch's magnetic field, seen offline: at rest the earth's field stays fixed in the
/// sensor frame, so a still stretch whose horizontal field (its part perpendicular to the mean
/// specific force) turns is a slow turn about the vertical, not a rest. A rest judge cannot tell
/// such a turn from a gyroscope bias by the rate alone (a 1 °/s turn is a rate a bias could have).
///
/// The field must keep its strength and dip across the stretch (a magnet moved near a resting
/// device changes them), and the turn it shows must be one the gyroscope could have made with a
/// bias within the judge's bound; otherwise the field says nothing and the rest stands.
struct RestFieldTurn {
    /// Largest turn of the horizontal field across a rest, rad; also the largest change of the
    /// field's dip for its turn to count.
    var threshold: Double
    /// Largest relative change of the field's strength for its turn to count.
    var strengthTolerance: Double
    /// Largest gyroscope bias, rad/s, per axis (``RestBiasJudge/Parameters/biasClip``).
    var biasClip: Double
    /// Relative scale error of the gyroscope (``RestBiasJudge/Parameters/scaleTolerance``).
    var scaleTolerance: Double

    /// Whether the field proves that `samples` (one still stretch) turned about the vertical.
    func turned(_ samples: ArraySlice<SensorSample>) -> Bool {
        guard let first = samples.first?.t, let last = samples.last?.t, last - first >= 1 else { return false }
        // The field at each end: the mean over a second (a quarter of a short stretch).
        let edge = min(1, (last - first) / 4)
        var force = Vector3.zero, start = Vector3.zero, end = Vector3.zero
        var startCount = 0.0, endCount = 0.0
        for s in samples {
            if let a = s.accelerometer, a.isFinite { force += a }
            guard let m = s.magnetometer, m.isFinite else { continue }
            if s.t <= first + edge {
                start += m
                startCount += 1
            }
            if s.t >= last - edge {
                end += m
                endCount += 1
            }
        }
        guard let up = force.normalized, startCount > 0, endCount > 0 else { return false }
        start *= 1 / startCount
        end *= 1 / endCount
        let strength = start.norm
        guard strength > 0, abs(end.norm - strength) <= strengthTolerance * strength else { return false }
        let h0 = start - up * start.dot(up)
        let h1 = end - up * end.dot(up)
        // Near a magnetic pole the horizontal field is too weak to show a turn.
        guard h0.norm > 0.1 * strength, h1.norm > 0.1 * strength else { return false }
        let dip0 = atan2(start.dot(up), h0.norm), dip1 = atan2(end.dot(up), h1.norm)
        guard abs(dip1 - dip0) <= threshold else { return false }
        let fieldTurn = atan2(h0.cross(h1).dot(up), h0.dot(h1))
        guard abs(fieldTurn) > threshold else { return false }
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
