/// On-line hard- and soft-iron calibration of the magnetometer, learnt from the readings as they
/// come, with an accuracy level like Core Motion's calibrated magnetic field.
///
/// Readings are kept one per direction cell (64 cells spread evenly over the sphere of directions
/// around the current centre estimate; a new reading replaces the cell's older one, so the buffer
/// follows a changed environment). Every ``Parameters/refitInterval`` with new readings, a sphere
/// (hard iron) and, with enough cells, an ellipsoid (hard and soft iron) are fitted by linear least
/// squares. A fit is judged by the spread of the calibrated directions (``coverage``: 1 for the
/// whole sphere, about 0.3 for turns about one axis, 0 for a plane) and the scatter of the
/// calibrated strength (``residual``, relative); these give the level (``Accuracy``); a correction
/// is made from such a fit only at medium level or better (low is the level of uncorrected readings
/// over a partial turn). Until one is in use, the gyroscope's turns give a first calibration
/// (``GyroscopeAidedCalibration``, see ``turnedFit(newFits:attitude:biasCovariance:rate:)``):
/// medium level from turns about every axis, low level (applied) from turns about one axis. The
/// readings as they are (no correction) compete too, and win while their own residual is within
/// the low level's or no fit's residual is below ``Parameters/improvement`` times theirs: an
/// already calibrated sensor is left alone, and disturbances cannot talk it into a correction. A fit is
/// adopted when its level is higher than the one in use, or equal with a residual below
/// ``Parameters/improvement`` times that of the calibration in use on the same readings, or when
/// the calibration in use no longer fits the readings (its residual beyond the low level's).
///
/// Calibrated readings are `W · (raw − h)` with `det W = 1`, so they keep the raw units (µT,
/// gauss, counts: the fit needs none).
public struct MagnetometerSelfCalibration: Sendable, Codable {
    /// How far the calibration can be trusted; the raw values are Core Motion's
    /// `CMMagneticFieldCalibrationAccuracy`.
    public enum Accuracy: Int, Sendable, Codable, Comparable {
        /// No fit adopted yet: readings are used raw.
        case uncalibrated = -1
        /// The readings fit a sphere over a partial turn (not applied), or the gyroscope's turns about
        /// one axis determined the hard iron across it (applied).
        case low = 0
        /// A hard-iron fit over good coverage, or hard and soft iron from turns about every axis.
        case medium = 1
        /// A hard- and soft-iron fit over most of the sphere.
        case high = 2

        public static func < (a: Accuracy, b: Accuracy) -> Bool { a.rawValue < b.rawValue }
    }

    /// Tuning; coverage and residuals are dimensionless, times in seconds.
    public struct Parameters: Sendable, Codable, ParameterRanges {
        /// Whether readings are calibrated on line. Default true.
        public var enabled = true
        /// Smallest relative change of the reading (against the last one kept) for a new reading to
        /// be kept: rest adds nothing. Default 0.02.
        public var minimumChange = 0.02
        /// Time between fits while new readings arrive, s. Default 2.
        public var refitInterval = 2.0
        /// Time between further fits while no calibration is in use, s: until then the heading
        /// follows readings that may be far off, so a first fit is tried this soon after the last
        /// one when the readings or the turns bring something new (the fits every
        /// ``refitInterval`` stay where they were). Default 0.25.
        public var uncalibratedRefitInterval = 0.25
        /// Smallest coverage of a low, medium and high level fit. Defaults 0.15, 0.35, 0.6.
        public var lowCoverage = 0.15, mediumCoverage = 0.35, highCoverage = 0.6
        /// Largest relative RMS residual of a low, medium and high level fit. Defaults 0.05, 0.03,
        /// 0.015.
        public var lowResidual = 0.05, mediumResidual = 0.03, highResidual = 0.015
        /// Largest ratio of the longest to the shortest soft-iron axis accepted. Default 1.5.
        public var maximumAxisRatio = 1.5
        /// Largest hard-iron offset accepted, in fitted field strengths. Default 10.
        public var maximumOffset = 10.0
        /// Residual ratio a fit of the same level must reach to replace the one in use. Default 0.8.
        public var improvement = 0.8
        /// Smallest ratio of the readings' least to greatest variance (about their mean) for a fit:
        /// readings on one circle (a device turning about one axis) lie in a plane, and every
        /// sphere through the circle fits them, so their centre along its axis is unknown. A cap of
        /// the sphere 35° across or more passes. Default 0.02.
        public var minimumThickness = 0.02
        /// Whether the gyroscope's turns give a first calibration (``GyroscopeAidedCalibration``)
        /// until a fit of medium level is adopted. Default true.
        public var gyroscopeAided = true
        /// Smallest turn between the two readings of one of those equations, rad (half of it for a
        /// turn that has taken over 3 s). Default 0.349 (20°).
        public var gyroscopeTurn = 20.0.radians
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "minimumChange": .fraction, "refitInterval": .timeConstant, "uncalibratedRefitInterval": .timeConstant,
            "lowCoverage": .fraction,
            "mediumCoverage": .fraction, "highCoverage": .fraction, "lowResidual": .fraction,
            "mediumResidual": .fraction,
            "highResidual": .fraction, "maximumAxisRatio": ParameterRange(1...100),
            "maximumOffset": ParameterRange(0...1000),
            "improvement": .fraction, "minimumThickness": .fraction, "gyroscopeTurn": .degrees(1...180),
        ]
        /// Default parameters.
        public init() {}
    }

    /// Fewest filled cells for a sphere fit, and for an ellipsoid fit.
    static let sphereCells = 10, ellipsoidCells = 20
    /// The cell directions: a Fibonacci lattice of 64 points on the unit sphere.
    static let cells: [Vector3] = (0..<64).map { i in
        let z = 1 - (2 * Double(i) + 1) / 64
        let r = (1 - z * z).squareRoot()
        let phi = Double(i) * Double.pi * (3 - 5.0.squareRoot())
        return Vector3(r * phi.cos, r * phi.sin, z)
    }

    /// Squares per edge of each face of the cube around the sphere, for ``nearestCell(_:)``.
    static let cubeDivisions = 8

    /// The square of the cube, out of 6 × 8 × 8, that the direction `u` passes through: the face
    /// of its largest component, then the other two components over it, each in [−1, 1].
    @inline(__always)
    static func cubeSquare(_ u: Vector3) -> Int {
        let ax = abs(u.x), ay = abs(u.y), az = abs(u.z)
        let face: Int, s: Double, t: Double
        if ax >= ay && ax >= az {
            (face, s, t) = (u.x >= 0 ? 0 : 1, u.y / ax, u.z / ax)
        } else if ay >= az {
            (face, s, t) = (u.y >= 0 ? 2 : 3, u.x / ay, u.z / ay)
        } else {
            (face, s, t) = (u.z >= 0 ? 4 : 5, u.x / az, u.y / az)
        }
        let n = cubeDivisions
        let half = Double(n) / 2
        let i = min(n - 1, max(0, Int((s + 1) * half)))
        let j = min(n - 1, max(0, Int((t + 1) * half)))
        return (face * n + i) * n + j
    }

    /// The unit direction through the point (s, t) of a face of the cube (the inverse of
    /// ``cubeSquare(_:)``'s projection).
    static func cubeDirection(face: Int, _ s: Double, _ t: Double) -> Vector3 {
        let m = face % 2 == 0 ? 1.0 : -1.0
        switch face / 2 {
        case 0: return Vector3(m, s, t).normalized!
        case 1: return Vector3(s, m, t).normalized!
        default: return Vector3(s, t, m).normalized!
        }
    }

    /// The ``cells``, and for each square of the cube the cells that can be nearest to a direction
    /// through it, in increasing order: `candidates[start[k] ..< start[k + 1]]` (one table, so a
    /// search checks one lazy global, not three).
    /// Every direction of a square lies within its radius ρ (the angle from its centre to its
    /// farthest corner) of the centre, so the nearest cell to any of them lies within
    /// (nearest to the centre) + 2ρ of the centre (triangle inequality). ρ is widened by 1e-6 rad,
    /// so a cell left out is worse by far more than rounding (about 1e-16, 1e-8 rad through the
    /// arc cosine below).
    static let cellSearch: (cells: [Vector3], start: [Int], candidates: [UInt8]) = {
        let n = cubeDivisions
        var start = [0], list = [UInt8]()
        for face in 0..<6 {
            for i in 0..<n {
                for j in 0..<n {
                    let s0 = -1 + 2 * Double(i) / Double(n), s1 = -1 + 2 * Double(i + 1) / Double(n)
                    let t0 = -1 + 2 * Double(j) / Double(n), t1 = -1 + 2 * Double(j + 1) / Double(n)
                    let centre = cubeDirection(face: face, (s0 + s1) / 2, (t0 + t1) / 2)
                    let corners = [(s0, t0), (s0, t1), (s1, t0), (s1, t1)].map { cubeDirection(face: face, $0.0, $0.1) }
                    let radius = corners.map { centre.dot($0).acosClamped }.max()! + 1e-6
                    // Within an angle of the centre: a dot product with it above the angle's cosine.
                    let dots = cells.map { $0.dot(centre) }
                    let reach = min(Double.pi, dots.max()!.acosClamped + 2 * radius).cos
                    list += dots.indices.filter { dots[$0] >= reach }.map { UInt8($0) }
                    start.append(list.count)
                }
            }
        }
        return (cells, start, list)
    }()

    /// The first cell with the largest dot product with the unit vector `u`: what a search of all
    /// 64 cells finds, searching only the few candidates of the cube square `u` passes through.
    @inline(__always)
    static func nearestCell(_ u: Vector3) -> Int {
        let square = cubeSquare(u)
        let (cells, start, candidates) = Self.cellSearch
        var best = 0
        var bestDot = -2.0
        for k in start[square]..<start[square + 1] {
            let i = Int(candidates[k])
            let d = cells[i].dot(u)
            if d > bestDot {
                bestDot = d
                best = i
            }
        }
        return best
    }

    /// Tuning.
    public var parameters: Parameters
    /// Whether the calibration in use came from the gyroscope's turns (nil in states saved before
    /// they were followed).
    var turned: Bool?
    /// Whether the calibration in use came from the gyroscope's turns.
    public var turnedInUse: Bool { turned == true }
    /// Hard-iron offset in use, raw units.
    public private(set) var hardIron = Vector3.zero
    /// Soft-iron matrix in use (symmetric, determinant 1).
    public private(set) var softIron = Matrix3.identity
    /// Fitted field strength, raw units; NaN before a fit.
    public private(set) var strength = Double.nan
    /// Level of the calibration in use.
    public private(set) var accuracy = Accuracy.uncalibrated
    /// Coverage and relative residual of the calibration in use when it was adopted.
    public private(set) var coverage = 0.0, residual = Double.nan
    /// Kept readings, one per cell (zero where none).
    var kept = [Vector3](repeating: .zero, count: 64)
    /// Which cells hold a reading.
    var filled = [Bool](repeating: false, count: 64)
    /// Running mean of the readings: the centre estimate before a fit.
    var mean = Vector3.zero
    /// Readings averaged into ``mean``.
    var meanCount = 0.0
    /// Last reading kept.
    var last: Vector3?
    /// Time since the last regular fit, s, and whether a reading was kept since; that time when an
    /// early fit was last made since (nil: none, and in states saved before early fits).
    var sinceFit = 0.0
    var fresh = false
    var earlyFitAt: Double?
    /// Whether readings the filter rejected at low level were kept since the last adoption (nil:
    /// none, and in states saved before they were): a fit from the readings must then fit the
    /// gyroscope's turns too.
    var suspectReadings: Bool?
    /// The gyroscope-aided calibration's equations (nil until the first reading with a rate, and in
    /// states saved before it existed).
    var turns: GyroscopeAidedCalibration?

    /// Creates a calibration that learns from the readings.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// The calibrated reading (the raw one while uncalibrated).
    @inline(__always)
    public func apply(_ raw: Vector3) -> Vector3 {
        accuracy == .uncalibrated ? raw : softIron * (raw - hardIron)
    }

    /// Feeds one raw reading `dt` seconds after the previous sample, with the bias-corrected
    /// angular rate over those seconds (rad/s) when there is one; true when a new calibration was
    /// adopted (the field reference learnt from calibrated readings must be learnt again).
    /// - `attitude`, the filter's attitude (earth from sensor), shows the sensor's up direction, so
    ///   that a fit from turns about the vertical is judged by the readings' part across it, while
    ///   the filter's bias error across the turn axis (from `biasCovariance`, (rad/s)²; nil when
    ///   unknown) is small against the turn's rate (``largestRelativeBiasError``).
    /// - When the filter `rejected` the reading (it disagrees with the field the filter learnt),
    ///   what that means depends on the calibration in use. From medium level up the field is
    ///   disturbed around the device: the readings say nothing about the device's own iron, and
    ///   only the turns are followed (a field that moves with the device, a magnet attached and
    ///   then taken off, changes them as it changes a hard iron). At low level a partial
    ///   calibration (the hard iron across one turn axis) can itself be what the reading disagrees
    ///   with: it is kept, but a fit from the readings must then fit the turns too (readings kept
    ///   through a disturbance around the device do not). Uncalibrated, it is kept.
    /// - While `changedAround` (the field changed during a rest of the device, so the change
    ///   happened around it, not in its own iron), no new calibration is taken from the turns; a
    ///   calibration from them still gives way to the raw readings.
    public mutating func observe(
        _ raw: Vector3, rate: Vector3? = nil, dt: Double, rejected: Bool = false, changedAround: Bool = false,
        attitude: Quaternion? = nil, biasCovariance: Matrix3? = nil
    ) -> Bool {
        guard parameters.enabled, raw.isFinite else { return false }
        let disturbed = rejected && accuracy >= .medium
        if rejected && accuracy == .low { suspectReadings = true }
        var turnsDue = false
        if followsTurns {
            if turns == nil { turns = GyroscopeAidedCalibration() }
            turnsDue = turns!.observe(
                raw, rate: rate, dt: dt, minimumTurn: parameters.gyroscopeTurn,
                refitInterval: parameters.refitInterval, earlyInterval: earlyRefitInterval)
        }
        if disturbed {
            guard turnsDue, turned == true,
                let t = turnedFit(
                    newFits: !changedAround, attitude: attitude, biasCovariance: biasCovariance, rate: rate)
            else {
                return false
            }
            return adopt(t)
        }
        let moved = keep(raw, dt: dt)
        guard turnsDue, followsTurns,
            let t = turnedFit(newFits: !changedAround, attitude: attitude, biasCovariance: biasCovariance, rate: rate)
        else {
            return moved
        }
        return adopt(t) || moved
    }

    /// Follows the turns of a sample without a magnetometer reading (its bias-corrected rate over
    /// the `dt` seconds before it, rad/s): a magnetometer slower than the gyroscope.
    public mutating func rotate(rate: Vector3?, dt: Double) {
        guard parameters.enabled, followsTurns, turns != nil else { return }
        turns!.rotate(rate: rate, dt: dt)
    }

    /// Starts the turns afresh (a gap, a clock stepping back): no turn in progress.
    public mutating func interruptTurns() { turns?.interrupt() }

    /// Becomes `other` (the filter's own calibration as it stood later in the same recording:
    /// ``MagnetometerLookAhead``), what it has learnt and all, but with no turn in progress: the
    /// turn going on at the end of that stretch does not go on from the first sample.
    public mutating func resume(from other: MagnetometerSelfCalibration) {
        self = other
        interruptTurns()
    }

    /// The interval of early fits while no calibration is in use
    /// (``Parameters/uncalibratedRefitInterval``), nil after.
    var earlyRefitInterval: Double? {
        accuracy == .uncalibrated ? parameters.uncalibratedRefitInterval : nil
    }

    /// Whether the gyroscope's turns are followed: switched on, and no fit of medium level from
    /// the readings in use.
    var followsTurns: Bool { parameters.gyroscopeAided && (accuracy < .medium || turned == true) }

    /// Keeps `raw` in its direction cell when it differs from the last one kept, and fits the kept
    /// readings every ``Parameters/refitInterval`` with new ones; true when that moved the
    /// calibration.
    mutating func keep(_ raw: Vector3, dt: Double) -> Bool {
        sinceFit += max(0, dt)
        if let l = last, (raw - l).norm < parameters.minimumChange * max(raw.norm, l.norm) {
            return refitIfDue(kept: false)
        }
        last = raw
        meanCount = min(meanCount + 1, 1000)
        mean += (raw - mean) * (1 / meanCount)
        let centre = accuracy == .uncalibrated ? mean : hardIron
        if let u = (raw - centre).normalized {
            let best = Self.nearestCell(u)
            kept[best] = raw
            filled[best] = true
            fresh = true
            return refitIfDue(kept: true)
        }
        return refitIfDue(kept: false)
    }

    /// Fits the kept readings when a reading was kept since the last fit and
    /// ``Parameters/refitInterval`` has passed since the last regular one, or, while no
    /// calibration is in use, when this reading was `kept` and ``earlyRefitInterval`` has passed
    /// since the last fit of either kind (which leaves the regular fits where they were).
    mutating func refitIfDue(kept: Bool) -> Bool {
        guard fresh else { return false }
        if sinceFit >= parameters.refitInterval {
            sinceFit = 0
            earlyFitAt = nil
            fresh = false
            return fitReadings()
        }
        guard kept, let early = earlyRefitInterval, sinceFit - (earlyFitAt ?? 0) >= early else { return false }
        earlyFitAt = sinceFit
        return fitReadings()
    }

    /// What the gyroscope's turns say should be in use, when it differs from the calibration in use:
    /// - their fit, if it determines more directions than the one in use (three: medium level,
    ///   two: low), or as many with a strength scatter below ``Parameters/improvement`` times that
    ///   one's, and the raw readings are not already calibrated (their strength scatter beyond
    ///   ``Parameters/lowResidual``, and the fit's below ``Parameters/improvement`` times theirs; for
    ///   turns about the sensor's up axis (from `attitude`), within ``verticalTurnAxis``, the
    ///   scatter of the readings' part across it does as well, under ``singleAxisFitHolds(_:_:)``
    ///   and while the bias error across the axis (from `biasCovariance`) is within
    ///   ``largestRelativeBiasError`` of the current `rate`);
    /// - the raw readings, when a calibration taken from the turns no longer fits them and the raw
    ///   readings do (a magnet attached to the device and taken off again).
    ///
    /// Only the second when `newFits` is false. Its coverage is that of its readings' calibrated
    /// directions.
    func turnedFit(newFits: Bool, attitude: Quaternion?, biasCovariance: Matrix3?, rate: Vector3?) -> Fit? {
        let p = parameters
        guard p.gyroscopeAided, let turns, turns.equations.count >= GyroscopeAidedCalibration.fewest else { return nil }
        if newFits, let t = turns.fit(maximumAxisRatio: p.maximumAxisRatio),
            t.hardIron.norm < p.maximumOffset * t.strength
        {
            let raw = turns.scatter(.zero, .identity)
            let whole = turns.scatter(t.hardIron, t.softIron)
            var steadier = raw > p.lowResidual && whole < p.improvement * raw
            // Turns about the vertical: judged by the readings' part across the axis as well (nil:
            // by their strength).
            var judgedAcross: Vector3?
            var scatter = whole
            if !steadier, let axis = t.axis, let q = attitude, let c = biasCovariance, let r = rate,
                // The bias error's mean variance across the axis.
                (c.trace - axis.dot(c * axis)) / 2 <= r.squaredNorm * Self.largestRelativeBiasError
                    * Self.largestRelativeBiasError,
                abs(axis.dot(q.conjugate.rotate(Vector3(0, 0, 1)))) >= Self.verticalTurnAxis,
                Self.singleAxisFitHolds(t, turns)
            {
                let rawAcross = turns.scatter(.zero, .identity, across: axis)
                let across = turns.scatter(t.hardIron, t.softIron, across: axis)
                if rawAcross > p.lowResidual && across < p.improvement * rawAcross {
                    steadier = true
                    scatter = across
                    judgedAcross = axis
                }
            }
            let level: Accuracy = t.directions == 3 ? .medium : .low
            if steadier,
                level > accuracy
                    || (level == accuracy
                        && scatter < p.improvement * turns.scatter(hardIron, softIron, across: judgedAcross))
            {
                var fit = Fit(
                    hardIron: t.hardIron, softIron: t.softIron, strength: t.strength, accuracy: level,
                    coverage: turns.coverage(t.hardIron, t.softIron), residual: whole,
                    ellipsoid: t.softIron != .identity)
                fit.turned = true
                return fit
            }
        }
        // The latest equations tell whether it still fits: the ring keeps those from before a change.
        // A fit across a single turn axis (low level) is judged by the misfit it was taken at.
        let recent = GyroscopeAidedCalibration.fewest
        typealias Turns = GyroscopeAidedCalibration
        let largest = accuracy == .low ? Turns.largestSingleAxisMisfit : Turns.largestMisfit
        guard turned == true, !turns.fits(hardIron, softIron, recent: recent, largest: largest),
            turns.fits(.zero, .identity, recent: recent)
        else { return nil }
        return Fit(hardIron: .zero, softIron: .identity, strength: .nan, ellipsoid: false)
    }

    /// Smallest cosine of the angle between a single turn axis and the sensor's up direction for
    /// the turns' fit across it to be judged by the readings' part across the axis (15°): the hard
    /// iron along the axis, which turns about it cannot show, then moves the field mostly along
    /// the vertical, not the heading (about an axis across it, a level roll, it moves north).
    static let verticalTurnAxis = 0.966
    /// Smallest hard iron across a single turn axis that the turns' fit is taken for, relative to
    /// the field's strength: a field around the device wandering by a few percent of its strength
    /// (a vehicle's currents), or noise against the small horizontal part of a steep field, moves
    /// the readings' circle by up to that much over a few turns. At 5 % a hard iron left unfitted puts
    /// north at most 7° off where the horizontal part is 40 % of the field.
    static let smallestSingleAxisOffset = 0.05
    /// Largest mean resultant length of the directions, across a single turn axis, of the turns'
    /// calibrated readings (``GyroscopeAidedCalibration/resultant(_:_:across:)``) for the turns' fit
    /// across that axis: a bias error `δb` about the axis turns each equation by `δb/ω` of its
    /// turn, which moves the fitted hard iron by that fraction of the horizontal field, at right
    /// angles to the readings; over turns round the whole circle these moves cancel, over part of
    /// it they add up (eight 20° turns at 10 °/s with 0.5 °/s of bias error put it 1 µT off).
    /// 0.5 asks for about 230° of turns.
    static let largestSingleAxisResultant = 0.5

    /// Largest bias error of the filter, relative to the turn's rate, for a fit across a turn axis
    /// judged by the readings' part across it: a bias error `e` across the axis, fixed in the
    /// sensor, turns each equation's field about a level axis by `e/ω` of its turn, which moves
    /// the vertical field across the axis as a hard iron of the strength times `e/ω` would, the
    /// same way all round the circle. At 0.025 that is half ``smallestSingleAxisOffset``.
    static let largestRelativeBiasError = 0.025

    /// Whether the turns' fit `t` across a single turn axis meets ``smallestSingleAxisOffset`` and
    /// ``largestSingleAxisResultant``, and fits the turns to within
    /// ``GyroscopeAidedCalibration/largestSingleAxisMisfit`` of their chord times the readings'
    /// part across the axis (a magnet passing during the turns misfits them by far more; against
    /// the whole strength it could pass); true for a fit over every axis.
    static func singleAxisFitHolds(_ t: GyroscopeAidedCalibration.Fit, _ turns: GyroscopeAidedCalibration) -> Bool {
        guard let axis = t.axis else { return true }
        let across = t.hardIron - axis * t.hardIron.dot(axis)
        return across.norm >= smallestSingleAxisOffset * t.strength
            && turns.resultant(t.hardIron, t.softIron, across: axis) <= largestSingleAxisResultant
            && turns.fits(
                t.hardIron, t.softIron, largest: GyroscopeAidedCalibration.largestSingleAxisMisfit, across: axis)
    }

    /// Puts `fit` in use; true when it moved the calibration.
    mutating func adopt(_ fit: Fit) -> Bool {
        let moved = fit.hardIron != hardIron || fit.softIron != softIron
        turned = fit.turned
        suspectReadings = nil
        // A fit of medium level from the readings ends the turns; they start afresh if it is lost.
        if !fit.turned && fit.accuracy >= .medium { turns = nil }
        hardIron = fit.hardIron
        softIron = fit.softIron
        strength = fit.strength
        accuracy = fit.accuracy
        coverage = fit.coverage
        residual = fit.residual
        return moved
    }

    /// The sphere and ellipsoid fits over the kept readings, and the readings as they are: adopts
    /// the best when it beats the calibration in use; true when that moved the calibration.
    mutating func fitReadings() -> Bool {
        var points = [Vector3]()
        points.reserveCapacity(kept.count)
        for i in kept.indices where filled[i] { points.append(kept[i]) }
        guard points.count >= Self.sphereCells, Self.thickness(points) >= parameters.minimumThickness else {
            return false
        }
        var best: Fit?
        // A correction is made only from a fit of medium level or better: the sphere's, then the
        // ellipsoid's when it is better still.
        func consider(_ candidate: Fit?) {
            guard let c = candidate, let judged = judge(c, points), judged.accuracy >= .medium else { return }
            if best == nil || judged.accuracy > best!.accuracy
                || (judged.accuracy == best!.accuracy && judged.residual < best!.residual)
            {
                best = judged
            }
        }
        consider(Self.sphere(points))
        if points.count >= Self.ellipsoidCells {
            consider(Self.ellipsoid(points, maximumAxisRatio: parameters.maximumAxisRatio))
        }
        // The readings as they are (an already calibrated sensor) stay unless a fit is clearly better.
        let mean = points.reduce(0) { $0 + $1.norm } / Double(points.count)
        let raw = judge(Fit(hardIron: .zero, softIron: .identity, strength: mean, ellipsoid: true), points)
        if let r = raw,
            best == nil || r.residual <= parameters.lowResidual
                || best!.residual > parameters.improvement * r.residual
        {
            best = r
        }
        guard let fit = best else { return false }
        // Readings the filter rejected at low level are kept: a new fit from the readings must
        // then also fit the gyroscope's turns (readings kept through a disturbance around the
        // device do not).
        if suspectReadings == true, accuracy == .low, fit.hardIron != .zero || fit.softIron != .identity,
            let turns, turns.equations.count >= GyroscopeAidedCalibration.fewest,
            !turns.fits(fit.hardIron, fit.softIron)
        {
            return false
        }
        if accuracy != .uncalibrated {
            let current = Self.residual(points, hardIron, softIron, strength)
            let stale = !(current <= parameters.lowResidual)
            let better =
                fit.accuracy > accuracy || (fit.accuracy == accuracy && fit.residual < parameters.improvement * current)
            guard stale || better else { return false }
        }
        return adopt(fit)
    }

    /// A candidate calibration.
    struct Fit {
        var hardIron: Vector3
        var softIron: Matrix3
        var strength: Double
        var accuracy = Accuracy.uncalibrated
        var coverage = 0.0, residual = Double.nan
        var ellipsoid: Bool
        /// Whether it came from the gyroscope's turns.
        var turned = false
    }

    /// The level a fit reaches on `points`, or nil when it reaches none.
    func judge(_ f: Fit, _ points: [Vector3]) -> Fit? {
        let p = parameters
        guard f.strength > 0, f.strength.isFinite, f.hardIron.norm < p.maximumOffset * f.strength else { return nil }
        var fit = f
        fit.residual = Self.residual(points, f.hardIron, f.softIron, f.strength)
        var scatter = Matrix3.zero
        for m in points {
            guard let u = (f.softIron * (m - f.hardIron)).normalized else { continue }
            scatter += Matrix3.outer(u, u)
        }
        let values = SymmetricEigen.decompose(scatter * (1 / Double(points.count))).values
        fit.coverage = 3 * min(values.x, values.y, values.z)
        if f.ellipsoid && fit.coverage >= p.highCoverage && fit.residual <= p.highResidual {
            fit.accuracy = .high
        } else if fit.coverage >= p.mediumCoverage && fit.residual <= p.mediumResidual {
            fit.accuracy = .medium
        } else if fit.coverage >= p.lowCoverage && fit.residual <= p.lowResidual {
            fit.accuracy = .low
        }
        return fit.accuracy == .uncalibrated ? nil : fit
    }

    /// The points' least variance about their mean over their greatest (0 for points in a plane).
    static func thickness(_ points: [Vector3]) -> Double {
        let mean = points.reduce(Vector3.zero, +) * (1 / Double(points.count))
        var scatter = Matrix3.zero
        for m in points { scatter += Matrix3.outer(m - mean, m - mean) }
        let values = SymmetricEigen.decompose(scatter).values
        let largest = max(values.x, values.y, values.z)
        return largest > 0 ? max(0, min(values.x, values.y, values.z)) / largest : 0
    }

    /// Relative RMS of the calibrated strength about `strength`.
    static func residual(_ points: [Vector3], _ h: Vector3, _ w: Matrix3, _ strength: Double) -> Double {
        var sum = 0.0
        for m in points {
            let e = (w * (m - h)).norm - strength
            sum += e * e
        }
        return (sum / Double(points.count)).squareRoot() / strength
    }

    /// The normal equations `A x = b` of the least-squares fit `row(m)·x = y(m)` over `points`:
    /// `A = Σ rowᵀ·row` (`size`×`size`, row-major) and `b = Σ rowᵀ·y`, summed point by point in
    /// index order. `fill` writes a point's row and returns its `y`; the row is one buffer on the
    /// stack and the sums go through raw pointers, so a point allocates nothing and checks no bounds.
    @inline(__always)
    static func normalEquations(
        _ points: [Vector3], size n: Int, _ fill: (Vector3, UnsafeMutablePointer<Double>) -> Double
    ) -> (a: [Double], b: [Double]) {
        var a = [Double](repeating: 0, count: n * n)
        var b = [Double](repeating: 0, count: n)
        withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { buffer in
            let row = buffer.baseAddress!
            a.withUnsafeMutableBufferPointer { a in
                b.withUnsafeMutableBufferPointer { b in
                    for m in points {
                        let y = fill(m, row)
                        for i in 0..<n {
                            b[i] += row[i] * y
                            for j in 0..<n { a[i * n + j] += row[i] * row[j] }
                        }
                    }
                }
            }
        }
        return (a, b)
    }

    /// Hard iron only: `|m|² = 2 c·m + k`, least squares, radius `√(k + |c|²)`.
    static func sphere(_ points: [Vector3]) -> Fit? {
        let scale = points.reduce(0) { max($0, $1.norm) }
        guard scale > 0 else { return nil }
        let (a, b) = normalEquations(points, size: 4) { raw, row in
            let m = raw * (1 / scale)
            (row[0], row[1], row[2], row[3]) = (2 * m.x, 2 * m.y, 2 * m.z, 1)
            return m.squaredNorm
        }
        guard let x = SymmetricEigen.choleskySolve(a, b) else { return nil }
        let c = Vector3(x[0], x[1], x[2])
        let r2 = x[3] + c.squaredNorm
        guard r2 > 0 else { return nil }
        return Fit(hardIron: c * scale, softIron: .identity, strength: r2.squareRoot() * scale, ellipsoid: false)
    }

    /// Hard and soft iron: the quadric `mᵀQm + 2bᵀm = 1`, least squares; centre `−Q⁻¹b`, and the
    /// symmetric square root of the normalised `Q` split into shape (determinant 1) and strength.
    static func ellipsoid(_ points: [Vector3], maximumAxisRatio: Double) -> Fit? {
        let scale = points.reduce(0) { max($0, $1.norm) }
        guard scale > 0 else { return nil }
        let (a, b) = normalEquations(points, size: 9) { raw, row in
            let m = raw * (1 / scale)
            (row[0], row[1], row[2]) = (m.x * m.x, m.y * m.y, m.z * m.z)
            (row[3], row[4], row[5]) = (2 * m.x * m.y, 2 * m.x * m.z, 2 * m.y * m.z)
            (row[6], row[7], row[8]) = (2 * m.x, 2 * m.y, 2 * m.z)
            return 1
        }
        guard let x = SymmetricEigen.choleskySolve(a, b) else { return nil }
        let q = Matrix3(Vector3(x[0], x[3], x[4]), Vector3(x[3], x[1], x[5]), Vector3(x[4], x[5], x[2]))
        guard let qi = q.inverse else { return nil }
        let centre = qi * Vector3(x[6], x[7], x[8]) * -1
        // Q/s is positive definite for an ellipsoid, whichever side of it the origin lies.
        let s = 1 + centre.dot(q * centre)
        guard s != 0, s.isFinite else { return nil }
        let (values, vectors) = SymmetricEigen.decompose(q * (1 / s))
        guard values.x > 0, values.y > 0, values.z > 0 else { return nil }
        let roots = Vector3(values.x.squareRoot(), values.y.squareRoot(), values.z.squareRoot())
        let longest = max(roots.x, roots.y, roots.z)
        let shortest = min(roots.x, roots.y, roots.z)
        guard longest / shortest <= maximumAxisRatio else { return nil }
        // |sqrt(Q) (m − c)| = 1; with det W = 1, W = sqrt(Q) / det(sqrt(Q))^(1/3) and the strength
        // is the inverse of that cube root.
        let cube = (roots.x * roots.y * roots.z).cubeRoot
        let w = vectors * Matrix3.diagonal(roots * (1 / cube)) * vectors.transposed
        return Fit(hardIron: centre * scale, softIron: w, strength: scale / cube, ellipsoid: true)
    }
}

extension MagnetometerSelfCalibration.Parameters {
    /// Decodes the parameters, each absent one at its default: a state saved before a parameter
    /// was added restores with the value the saving filter ran with (but for
    /// ``uncalibratedRefitInterval``: such a state makes early fits from now on).
    public init(from decoder: Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func read<T: Decodable>(_ key: CodingKeys, _ value: inout T) throws {
            if let v = try c.decodeIfPresent(T.self, forKey: key) { value = v }
        }
        try read(.enabled, &enabled)
        try read(.minimumChange, &minimumChange)
        try read(.refitInterval, &refitInterval)
        // Absent in states saved before early fits: they make them from now on.
        try read(.uncalibratedRefitInterval, &uncalibratedRefitInterval)
        try read(.lowCoverage, &lowCoverage)
        try read(.mediumCoverage, &mediumCoverage)
        try read(.highCoverage, &highCoverage)
        try read(.lowResidual, &lowResidual)
        try read(.mediumResidual, &mediumResidual)
        try read(.highResidual, &highResidual)
        try read(.maximumAxisRatio, &maximumAxisRatio)
        try read(.maximumOffset, &maximumOffset)
        try read(.improvement, &improvement)
        try read(.minimumThickness, &minimumThickness)
        try read(.gyroscopeAided, &gyroscopeAided)
        try read(.gyroscopeTurn, &gyroscopeTurn)
    }
}
