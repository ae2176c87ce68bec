import Glibc

/// A still stretch's specific force, seen offline: at rest gravity stays fixed in the sensor frame,
/// so a still stretch whose force turns steadily is a slow turn about a tilted axis, not a rest. A
/// rest judge cannot tell such a turn from a gyroscope bias by the rate alone (a 1 °/s turn is a
/// rate a bias could have, and its force moves too slowly for the stillness bands to see it); in
/// 6D it is the only sensor that shows the turn.
///
/// The force counts as turning only when it keeps its strength across the stretch (a vehicle
/// speeding up changes it), turns by more than `threshold` at a mean rate of at least `minimumRate`,
/// and turns steadily: the angle it has gone through, summed between evenly spaced points, stays
/// within a tenth of the whole of its share of the time (a step, a device nudged once, does not).
struct RestForceTurn {
    /// Smallest turn of the force across the stretch, rad, for it to count.
    var threshold: Double
    /// Largest change of the force's strength, m/s², for its turn to count.
    var strengthTolerance: Double
    /// Smallest mean rate of the force's turn, rad/s, for it to count.
    var minimumRate: Double

    /// Whether the force proves that `samples` (one still stretch) turned.
    func turned(_ samples: ArraySlice<SensorSample>) -> Bool {
        guard let (first, last, width) = samples.stretchWindows else { return false }
        let span = last - width - first
        var points = [Vector3]()
        for k in 0...(RestFieldTurn.checkpoints + 1) {
            let start = first + Double(k) / Double(RestFieldTurn.checkpoints + 1) * span
            guard let f = samples.mean(of: \.accelerometer, from: start, width: width) else { return false }
            points.append(f)
        }
        let strength = points[0].norm
        guard strength > 0, points.allSatisfy({ abs($0.norm - strength) <= strengthTolerance }) else { return false }
        func angle(_ a: Vector3, _ b: Vector3) -> Double { atan2(a.cross(b).norm, a.dot(b)) }
        var path = [0.0]
        for k in 1..<points.count { path.append(path[k - 1] + angle(points[k - 1], points[k])) }
        let total = path.last!
        guard total > threshold, total >= minimumRate * span else { return false }
        for k in 1...RestFieldTurn.checkpoints {
            let fraction = Double(k) / Double(RestFieldTurn.checkpoints + 1)
            if abs(path[k] - fraction * total) > 0.1 * total { return false }
        }
        return true
    }
}
