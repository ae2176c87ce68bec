/// The magnetometer's hard and soft iron from the gyroscope's turns, before its readings cover
/// enough of the sphere for ``MagnetometerSelfCalibration``'s fits.
///
/// Between two readings the device turned by `D` (body then ← body now, integrated from the
/// bias-corrected gyroscope), and the field around it stayed the same, so the calibrated readings
/// turned with it: `W (m − h) = Dᵀ W (m₀ − h)` for the soft iron `W` and hard iron `h`. Each turn of
/// ``MagnetometerSelfCalibration/Parameters/gyroscopeTurn`` or more gives one such equation (three
/// rows), or of half of it once the turn has taken over ``longestTurn``; the last ``capacity`` are
/// kept.
///
/// - **Hard iron** (`W = I`): `(I − Dᵀ) h = m − Dᵀ m₀`, linear in `h`. A turn about an axis `u` by
///   `θ` tells `h` across `u` only (`(I − D)(I − Dᵀ) = 2 (1 − cos θ)(I − u uᵀ)`), so turns about two
///   axes determine all of it, and turns about one axis its part across that axis: enough for the
///   heading while that axis is the vertical (a turntable, a vehicle, a person turning), where the
///   readings lie on one circle and no sphere can be fitted. The part along an axis no turn has
///   shown is left at zero.
/// - **Hard and soft iron**, once turns about every axis determine the hard iron: with
///   `W = I + E` (`E` symmetric, trace zero: `W`'s scale is the field's unit, which the turns cannot
///   tell) and `c = W h`, the equation `W m − Dᵀ W m₀ − (I − Dᵀ) c = 0` is linear in `E` and `c`
///   (eight unknowns). `W` is then scaled to determinant 1, as the fits over the sphere give it.
///
/// A wobble of ±20° about each axis determines both, where a sphere fit needs a third of the
/// sphere; the sphere and ellipsoid fits replace this calibration once the readings cover enough.
public struct GyroscopeAidedCalibration: Sendable, Codable {
    /// One equation: the readings `m₀` and `m` at the ends of a turn, and the turn as `Dᵀ`.
    struct Equation: Sendable, Codable {
        var start: Vector3
        var m: Vector3
        var turnBack: Matrix3
    }

    /// The equations kept (the oldest replaced first).
    static let capacity = 48
    /// Fewest equations for a fit.
    static let fewest = 8
    /// Longest time one equation's turn may take, s: the gyroscope's bias error, integrated over
    /// it, moves `D` (0.5 °/s over 3 s turns `D` by 1.5°). A turn that has taken that long ends
    /// with an equation once it reaches half the smallest turn: a car circling at 5.7 °/s takes
    /// 3.5 s for 20°, and gave none (its hard iron was never fitted); a bias error moves such a
    /// turn by the same share of it as a faster one's.
    static let longestTurn = 3.0
    /// Largest RMS misfit of the equations, relative to their scale (the chord of the turn times
    /// the fitted strength): a hard-iron fit of readings with ±10 % soft iron misfits by about 0.1,
    /// a magnet moving past by far more.
    static let largestMisfit = 0.15
    /// The same for a fit of the hard iron across a single turn axis (a vehicle, a turntable, a
    /// person turning): there the raw readings turn by a fraction of the true turn while the iron
    /// outweighs the earth's horizontal field, so the heading stops without a fit, and a field
    /// wandering by a few percent of its strength over a second or two (a car's own currents)
    /// misfits 20° turns by about a fifth of their chord, though it averages out over the turns.
    static let largestSingleAxisMisfit = 0.25
    /// Smallest eigenvalue of the hard iron's normal matrix over the sum of the equations' weights
    /// `2 (1 − cos θ)` (⅔ for turns about every axis alike, ½ across two, 0 along a single turn
    /// axis) for a direction to count as determined.
    static let determined = 0.1
    /// Longest time a rate is held for samples without one, s.
    static let longestHold = 0.1

    /// Reading at the start of the current turn (nil until the first reading).
    var start: Vector3?
    /// Turn since that reading, body then ← body now.
    var turn = Quaternion.identity
    /// Time since that reading, s, and the angle turned through since (the sum of the steps'
    /// angles, at least the turn's; nil in states saved before it was kept), rad.
    var turnTime = 0.0
    var turnPath: Double?
    /// The equations, oldest first once ``capacity`` is reached (a ring from ``next``).
    var equations: [Equation] = []
    var next = 0
    /// Equations added so far (wrapping: only a change is looked at).
    var added = 0
    /// The last bias-corrected rate, rad/s, and how long it has been held without a new one, s
    /// (nil until the first rate).
    var heldRate: Vector3?
    var heldTime: Double?
    /// Time since a fit was last due at the regular interval, s, and that time when an early fit
    /// (``observe(_:rate:dt:minimumTurn:refitInterval:earlyInterval:)``) was last due since (nil:
    /// none, and in states saved before early fits).
    var sinceFit = 0.0
    var earlyFitAt: Double?

    /// A fit: hard iron, soft iron (determinant 1; the identity when only the hard iron was
    /// determined), the mean calibrated strength of the equations' readings, how many directions
    /// (2 or 3) the turns determined, and, for 2, the direction they did not (the turns' axis, a
    /// unit vector in the sensor frame).
    public struct Fit: Sendable {
        public var hardIron: Vector3
        public var softIron: Matrix3
        public var strength: Double
        public var directions: Int
        public var axis: Vector3?
    }

    /// No turns yet.
    public init() {}

    /// Equations kept.
    public var count: Int { equations.count }

    /// Integrates the turn over the `dt` seconds before a sample at its bias-corrected `rate`
    /// (rad/s), for every sample with a gyroscope whether or not it has a magnetometer reading; a
    /// sample without a rate turns at the last one for up to ``longestHold`` (a merged timeline's
    /// magnetometer rows), after which the turn starts afresh.
    public mutating func rotate(rate: Vector3?, dt: Double) {
        if let r = rate, r.isFinite {
            heldRate = r
            heldTime = 0
        }
        guard dt > 0, dt.isFinite else { return }
        sinceFit += dt
        if rate == nil {
            heldTime = (heldTime ?? 0) + dt
            if heldTime! > Self.longestHold { interrupt() }
        }
        guard start != nil, let w = heldRate else { return }
        let step = w * dt
        turn = (turn * Quaternion(rotationVector: step)).renormalized
        turnTime += dt
        turnPath = (turnPath ?? 0) + step.squaredNorm.squareRoot()
    }

    /// Starts afresh: no turn in progress and no rate held (a gap, a clock stepping back).
    public mutating func interrupt() {
        start = nil
        turn = .identity
        turnPath = 0
        turnTime = 0
        heldRate = nil
        heldTime = nil
    }

    /// Feeds one raw reading with the bias-corrected angular rate over the `dt` seconds before it
    /// (see ``rotate(rate:dt:)``); an equation is added once the device has turned by
    /// `minimumTurn` radians since the start of the current turn (half of it after
    /// ``longestTurn``). True when a fit is due: an equation was added at least `refitInterval`
    /// seconds after the last time a regular fit was due, or, given an `earlyInterval`, at least
    /// that long after the last fit of either kind (early fits leave the regular ones where they
    /// were).
    public mutating func observe(
        _ raw: Vector3, rate: Vector3?, dt: Double, minimumTurn: Double, refitInterval: Double,
        earlyInterval: Double? = nil
    ) -> Bool {
        rotate(rate: rate, dt: dt)
        let before = added
        take(raw, minimumTurn: minimumTurn)
        guard added != before else { return false }
        if sinceFit >= refitInterval {
            sinceFit = 0
            earlyFitAt = nil
            return true
        }
        guard let early = earlyInterval, sinceFit - (earlyFitAt ?? 0) >= early else { return false }
        earlyFitAt = sinceFit
        return true
    }

    /// Ends the current turn at `raw` with an equation when it reached `minimumTurn` (half of it
    /// once it has taken longer than ``longestTurn``), or starts a new one there when it took
    /// longer than ``longestTurn`` without.
    mutating func take(_ raw: Vector3, minimumTurn: Double) {
        guard raw.isFinite else { return }
        guard let m0 = start, heldRate != nil else {
            start = raw
            turn = .identity
            turnPath = 0
            turnTime = 0
            return
        }
        // The turn is at least `least` when cos(θ/2) is at most cos(least/2); it is at most the
        // angle turned through, so the cosine is needed only once that has reached it.
        let least = turnTime > Self.longestTurn ? minimumTurn / 2 : minimumTurn
        if (turnPath ?? .infinity) >= least && abs(turn.w) <= (least / 2).cos {
            let e = Equation(start: m0, m: raw, turnBack: Matrix3(turn.normalized).transposed)
            if equations.count < Self.capacity {
                equations.append(e)
            } else {
                equations[next] = e
                next = (next + 1) % Self.capacity
            }
            added &+= 1
        } else if turnTime <= Self.longestTurn {
            return
        }
        start = raw
        turn = .identity
        turnPath = 0
        turnTime = 0
    }

    /// The calibration the equations determine, or nil: too few equations, fewer than two
    /// directions determined, or a misfit beyond ``largestMisfit`` (``largestSingleAxisMisfit``
    /// when turns about a single axis determined two directions): a disturbed field, or readings
    /// not of one sensor.
    public func fit(maximumAxisRatio: Double) -> Fit? {
        guard equations.count >= Self.fewest else { return nil }
        var n = Matrix3.zero
        var r = Vector3.zero
        var weight = 0.0
        for e in equations {
            let a = Matrix3.identity - e.turnBack
            let ata = a.transposed * a
            n += ata
            r += a.transposed * (e.m - e.turnBack * e.start)
            // 2 (1 − cos θ): the square of the chord the turn moves a unit vector across it by.
            weight += ata.trace / 2
        }
        guard weight > 0 else { return nil }
        let (values, vectors) = SymmetricEigen.decompose(n)
        var h = Vector3.zero
        var directions = 0
        var axis: Vector3?
        for i in 0..<3 {
            let v = Vector3(vectors.row0[i], vectors.row1[i], vectors.row2[i])
            guard values[i] >= Self.determined * weight else {
                axis = v
                continue
            }
            h += v * (v.dot(r) / values[i])
            directions += 1
        }
        guard directions >= 2 else { return nil }
        var w = Matrix3.identity
        if directions == 3, let soft = softIronFit(maximumAxisRatio: maximumAxisRatio) { (h, w) = soft }
        let largest = directions == 3 ? Self.largestMisfit : Self.largestSingleAxisMisfit
        guard fits(h, w, largest: largest) else { return nil }
        let strength = equations.reduce(0) { $0 + (w * ($1.m - h)).norm } / Double(equations.count)
        return Fit(
            hardIron: h, softIron: w, strength: strength, directions: directions, axis: directions == 2 ? axis : nil)
    }

    /// Whether the calibration `w (m − h)` fits the equations (the `recent` latest ones, when
    /// given): their RMS misfit at most `largest` (``largestMisfit`` when nil) of their scale. A
    /// relative error ε of the readings misfits each equation by about ε times the chord of its
    /// turn (`√(2 (1 − cos θ))`) times the strength.
    /// Given the `across` axis of turns about one axis, the scale is the readings' part across it
    /// (the circle's radius) instead of their strength.
    public func fits(
        _ h: Vector3, _ w: Matrix3, recent: Int? = nil, largest: Double? = nil, across axis: Vector3? = nil
    ) -> Bool {
        let n = min(equations.count, recent ?? equations.count)
        var misfit = 0.0, weight = 0.0, strength = 0.0
        let count = equations.count
        // The latest equation: the last appended until the ring is full, then the one before `next`.
        let latest = count < Self.capacity ? count - 1 : (next - 1 + count) % count
        for k in 0..<n {
            let e = equations[(latest - k + count) % count]
            misfit += (w * (e.m - h) - e.turnBack * (w * (e.start - h))).squaredNorm
            weight += (3 - e.turnBack.trace)
            strength += Self.radius(w * (e.m - h), across: axis)
        }
        strength /= Double(max(1, n))
        let allowed = (largest ?? Self.largestMisfit) * strength
        return strength > 0 && weight > 0 && (misfit / weight).squareRoot() <= allowed
    }

    /// The mean resultant length of the directions, across the unit `axis`, of the equations'
    /// readings calibrated by `w (m − h)`: 1 for readings all one way, 0 for readings spread evenly
    /// round the circle (0 when none has a part across the axis).
    public func resultant(_ h: Vector3, _ w: Matrix3, across axis: Vector3) -> Double {
        var sum = Vector3.zero
        for e in equations {
            let c = w * (e.m - h)
            if let u = (c - axis * c.dot(axis)).normalized { sum += u }
        }
        return equations.isEmpty ? 0 : sum.norm / Double(equations.count)
    }

    /// The symmetric trace-zero parts of `E`, in the order of the unknowns.
    static let softIronBasis: [Matrix3] = [
        Matrix3(Vector3(1, 0, 0), .zero, Vector3(0, 0, -1)),
        Matrix3(.zero, Vector3(0, 1, 0), Vector3(0, 0, -1)),
        Matrix3(Vector3(0, 1, 0), Vector3(1, 0, 0), .zero),
        Matrix3(Vector3(0, 0, 1), .zero, Vector3(1, 0, 0)),
        Matrix3(.zero, Vector3(0, 0, 1), Vector3(0, 1, 0)),
    ]

    /// Hard and soft iron by linear least squares over `E` and `c` (see the type's comment), or nil
    /// when the system is singular or the soft iron is not a plausible one (not positive definite,
    /// or axes further apart than `maximumAxisRatio`).
    func softIronFit(maximumAxisRatio: Double) -> (hardIron: Vector3, softIron: Matrix3)? {
        let basis = Self.softIronBasis
        var ata = [Double](repeating: 0, count: 64)
        var atb = [Double](repeating: 0, count: 8)
        for e in equations {
            // Residual W m − Dᵀ W m₀ − (I − Dᵀ) c = (m − Dᵀ m₀) + Σ xⱼ colⱼ.
            let y = e.m - e.turnBack * e.start
            let a = Matrix3.identity - e.turnBack
            var columns = [Vector3](repeating: .zero, count: 8)
            for j in 0..<5 { columns[j] = basis[j] * e.m - e.turnBack * (basis[j] * e.start) }
            for k in 0..<3 { columns[5 + k] = Vector3(-a.row0[k], -a.row1[k], -a.row2[k]) }
            for i in 0..<8 {
                atb[i] -= columns[i].dot(y)
                for j in i..<8 { ata[i * 8 + j] += columns[i].dot(columns[j]) }
            }
        }
        // The lower triangle: the same dot products, summed in the same order.
        for i in 1..<8 { for j in 0..<i { ata[i * 8 + j] = ata[j * 8 + i] } }
        guard let x = SymmetricEigen.choleskySolve(ata, atb), x.allSatisfy(\.isFinite) else { return nil }
        var w = Matrix3.identity
        for j in 0..<5 { w += basis[j] * x[j] }
        let values = SymmetricEigen.decompose(w).values
        let shortest = min(values.x, values.y, values.z), longest = max(values.x, values.y, values.z)
        guard shortest > 0, longest / shortest <= maximumAxisRatio, let inverse = w.inverse else { return nil }
        let h = inverse * Vector3(x[5], x[6], x[7])
        return (h, w * (1 / w.determinant.cubeRoot))
    }

    /// The coverage of the equations' readings' calibrated directions
    /// (``MagnetometerCalibration/directionCoverage(_:)``).
    public func coverage(_ h: Vector3, _ w: Matrix3) -> Double {
        MagnetometerCalibration.directionCoverage(equations.map { w * ($0.m - h) }).coverage
    }

    /// The relative RMS scatter of the equations' readings' calibrated strength about its mean
    /// (the raw readings' for the hard iron zero and the identity), or, given the `across` axis of
    /// turns about one axis, of their part across it: readings turning about one axis lie on a
    /// circle around it, whose radius the field's horizontal part sets, and a hard iron across the
    /// axis moves the circle off centre by its own size against that radius (a 4 µT offset against
    /// a 22 µT horizontal field puts north 11° off at worst) while the whole strength, the vertical
    /// part added, scatters by under 2 %.
    public func scatter(_ h: Vector3, _ w: Matrix3, across axis: Vector3? = nil) -> Double {
        Recording.spread(equations.map { Self.radius(w * ($0.m - h), across: axis) })
    }

    /// The length of `c`'s part across the unit `axis` (the radius of the circle a reading turning
    /// about it follows), or of `c` itself without one.
    @inline(__always)
    static func radius(_ c: Vector3, across axis: Vector3?) -> Double {
        guard let a = axis else { return c.norm }
        return (c - a * c.dot(a)).norm
    }
}
