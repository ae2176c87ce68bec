/// The magnetometer's readings through a still stretch, as their mean and scatter: a device turning
/// steadily about one axis sees a world-fixed field turn about that axis, so the readings lie on a
/// circle in a plane across it. The plane's normal is the axis, measured by the field alone (a
/// gyroscope bias tilts the rate's axis; a hard iron only moves the circle).
struct FieldTurn: Sendable, Codable {
    /// The first reading: the others are summed about it, so the scatter keeps its digits whatever
    /// the units and offset.
    let origin: Vector3
    /// Readings summed, and their sums and sums of products about ``origin``.
    var count = 0.0
    var sum = Vector3.zero
    var products = Matrix3.zero

    /// Least ratio of the scatter across the chord of the turned arc (its sagitta) to the scatter
    /// along the normal, for the plane to count as shown. Noise alone scatters a reading equally in
    /// every direction, so the ratio is about 1 until the arc has curved beyond the noise: with
    /// 0.3 µT of noise and a 21 µT horizontal field, about 45° of turn. 4.
    static let planeContrast = 4.0

    /// Starts with no reading, about `origin`.
    init(origin: Vector3) { self.origin = origin }

    /// Adds a reading.
    mutating func add(_ m: Vector3) {
        let d = m - origin
        count += 1
        sum += d
        products += Matrix3.outer(d, d)
    }

    /// The normal of the readings' plane, oriented as `axis`, when the readings show a plane
    /// (``planeContrast``) whose normal lies within `angle` (rad) of `axis`; nil otherwise.
    func axis(near axis: Vector3, within angle: Double) -> Vector3? {
        guard count >= 3 else { return nil }
        let mean = sum * (1 / count)
        let scatter = products * (1 / count) + Matrix3.outer(mean, mean) * -1
        let (values, vectors) = SymmetricEigen.decompose(scatter)
        let least = values.x <= values.y && values.x <= values.z ? 0 : values.y <= values.z ? 1 : 2
        let middle = min(values[(least + 1) % 3], values[(least + 2) % 3])
        guard middle > 0, middle >= Self.planeContrast * max(values[least], 0) else { return nil }
        let column = Vector3(vectors.row0[least], vectors.row1[least], vectors.row2[least])
        guard let normal = column.normalized else { return nil }
        let oriented = normal.dot(axis) < 0 ? normal * -1 : normal
        let c = oriented.cross(axis).norm
        guard Double.atan2(c, oriented.dot(axis)) <= angle else { return nil }
        return oriented
    }
}
