/// Decides what a still stretch says about the gyroscope bias, in physical units.
///
/// A still gyroscope and accelerometer (``RestDetector``) do not make a rest: a steady turn about
/// the vertical (a turntable, a vehicle in a long bend, a person turning in place) keeps both
/// still too. So a still stretch counts as rest only when its rate is one a bias could have:
/// - before any rest has been seen, every axis of the rate less the initial offset within
///   ``Parameters/biasClip`` (not less a bias learnt in motion, which may have absorbed part of an
///   offset up to that bound);
/// - afterwards, less the bias estimate, within the bias uncertainty (``Parameters/gate`` standard deviations), never below
///   ``Parameters/rateTolerance`` nor above ``Parameters/biasClip``.
///
/// The verdict holds for the rest of the still stretch while the low-passed rate stays within
/// ``Parameters/restDrift`` of its value when rest was declared; beyond it (a spin-up too slow to
/// break the stillness bands) the stretch is a turn until the stillness breaks.
///
/// A still stretch that fails that test is a turn, unless physics rules a turn out: a rate
/// component perpendicular to gravity turns gravity in the sensor frame, and in 9D a component
/// along it turns the horizontal field. When the sensors do not turn as the gyroscope says they
/// should (they stay ``Parameters/turnConsistency`` times closer to where they started than to
/// where the predicted turn would have taken them, and further from there than a bias within
/// ``Parameters/biasClip`` could explain, by ``Parameters/minimumTurn``), the gyroscope reads an
/// offset, not a rotation: its wrong zero (raw
/// counts, a missing calibration) is taken as the initial offset. Without a magnetometer a
/// component along gravity cannot be told from a turn; it is taken with a proven perpendicular
/// offset (a sensor without its zero calibration lacks it on every axis) and otherwise left alone.
///
/// The bias estimate is kept within ``Parameters/biasClip`` of that initial offset (``clip(_:)``).
public struct RestBiasJudge: Sendable, Codable {
    /// Tuning; rates in rad/s, angles in rad, times in s.
    public struct Parameters: Sendable, Codable, ParameterRanges {
        /// Largest gyroscope bias learnt, per axis, around the initial offset, rad/s (VQF's default).
        /// Default 2 °/s.
        public var biasClip = 2.0.radians
        /// Smallest rate difference from the bias estimate that always counts as rest once a rest
        /// has been seen, rad/s: room for the noise of the low-passed rate, slow bias drift and a
        /// bias learnt in motion. Default 0.5 °/s.
        public var rateTolerance = 0.5.radians
        /// Largest change of the low-passed rate within one rest, rad/s. Default 0.2 °/s.
        public var restDrift = 0.2.radians
        /// Bias standard deviations within which a still rate counts as rest. Default 4.
        public var gate = 4.0
        /// Largest departure of the accelerometer's norm from standard gravity at rest, m/s²
        /// (sensor scale errors; a steady centripetal acceleration exceeds it). Default 1.
        public var gravityTolerance = 1.0
        /// How much further, rad, the sensors must be from where the predicted turn would have
        /// taken them than a bias and scale error explain, for their stillness to prove an offset.
        /// Default 3°.
        public var minimumTurn = 3.0.radians
        /// For the rate to be an offset, the accelerometer (or the horizontal field) must stay this
        /// many times closer to its start than to where the predicted turn would have taken it
        /// (a ratio of angles). Default 0.25.
        public var turnConsistency = 0.25
        /// Relative scale error of the gyroscope allowed for when a turn it predicts is checked
        /// against the sensors (a consumer part's scale is good to a few percent). Default 0.02.
        public var scaleTolerance = 0.02
        /// Smallest turn, rad, over a still stretch (a steady rate beyond ``biasClip``) before a
        /// specific force that stayed fixed in the sensor frame through it proves gravity lies along
        /// the rate axis (``steadyTurnAxis(rest:bias:)``). Default 30°.
        public var steadyTurnAngle = 30.0.radians
        /// Widest angle, rad, the smoothed accelerometer may sweep over that turn. A gravity
        /// component across the axis sweeps at least about its own angle from the axis. Default 2°.
        public var steadyTurnSweep = 2.0.radians
        /// Longest time, s, a steady turn may need to go through ``steadyTurnAngle`` for the EKF to
        /// wait for its proof before it judges a tilt the accelerometer contradicts wrong
        /// (``steadyTurnPending(rest:bias:)``): slower turns (under 5 °/s by default) do not delay
        /// that judgement. Default 6.
        public var steadyTurnProofTime = 6.0
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "biasClip": ParameterRange(0...1), "rateTolerance": ParameterRange(0...1), "restDrift": .above(0, upTo: 1),
            "gate": .above(0, upTo: 100), "gravityTolerance": .above(0, upTo: 10), "minimumTurn": .degrees(0...180),
            "turnConsistency": .fraction, "steadyTurnAngle": .degrees(0...180), "scaleTolerance": .fraction,
            "steadyTurnSweep": .degrees(0...180), "steadyTurnProofTime": .duration,
        ]
        /// Default parameters.
        public init() {}
    }

    /// What a sample's still stretch says.
    public enum Verdict: Equatable, Sendable {
        /// Not still, or a turn: nothing about the bias.
        case motion
        /// Rest: the low-passed rate measures the bias.
        case rest
        /// The gyroscope reads an offset far beyond a bias: the new bias estimate.
        case offset(Vector3)
    }

    /// Tuning.
    public var parameters: Parameters
    /// Initial offset, rad/s: zero until a still stretch proves an offset (a rest within the bound
    /// leaves it at zero); the bias stays within ``Parameters/biasClip`` of it.
    public private(set) var offset = Vector3.zero
    /// Whether a rest has measured the bias.
    public private(set) var established = false
    /// Accelerometer and magnetometer (noise-smoothed) when the current still stretch began.
    var startAccelerometer: Vector3?, startMagnetometer: Vector3?
    /// Noise-smoothed magnetometer.
    var magnetometerSmoothed: Vector3?
    /// Widest angle, rad, the smoothed accelerometer has made with its value at the start of the
    /// current still stretch.
    var accelerometerSweep = 0.0
    /// Whether the field has kept taking the turn the gyroscope reads through the current still
    /// stretch (``fieldFollowedTurn(from:to:turning:_:)`` at two points ``followedTurnSpan`` of
    /// predicted turn apart): a turn may bring it back to its start (after a whole revolution), but
    /// a field fixed in the sensor never follows one, and a field moved by a passing object meets
    /// the predicted turn once at most.
    var fieldTurned = false
    /// The predicted turn, rad, at which the field first followed it in the current still stretch.
    var fieldFollowed: Double?
    /// The low-passed rate, rad/s, when the current still stretch began; nil once it has changed by
    /// more than ``Parameters/restDrift`` and ``steadyRateChange`` (checked once the predicted turn
    /// is long enough to be followed, ``mayBeFollowed(_:_:)``). The turn is predicted as the
    /// rate times the time, so the field's following is judged only while it is set (a platform
    /// coasting to a stop met its prediction twice on the way, and its offset went unproven).
    var startRate: Vector3?
    /// Whether the last still stretch was a steady turn (or an offset that could not be proven).
    public private(set) var steadyTurn = false
    /// Low-passed rate when the current still stretch was declared rest, rad/s; nil while it is not.
    var restAnchor: Vector3?
    /// Whether the current still stretch has been judged a turn.
    var turning = false
    /// Largest bias error the estimate may still have, rad/s: ``Parameters/biasClip`` before a
    /// rest, then ``Parameters/gate`` standard deviations (at least ``Parameters/rateTolerance``).
    var biasLimit = Double.infinity

    /// Creates a judge.
    public init(parameters: Parameters = Parameters()) { self.parameters = parameters }

    /// Judges the sample just fed to `rest`, with the current bias estimate and its standard
    /// deviation per axis (infinite when unknown), and the magnetometer in 9D.
    ///
    /// Inlined into the filters, so that a sample in motion (most of them) makes no call; a still
    /// one goes on in ``judgeStill(rest:bias:biasSigma:magnetometer:)``.
    @inline(__always)
    public mutating func judge(
        rest: RestDetector, bias: Vector3, biasSigma: Vector3, magnetometer: Vector3?, dt: Double
    ) -> Verdict {
        let p = parameters
        let sigma = max(biasSigma.x, biasSigma.y, biasSigma.z)
        biasLimit = established ? min(p.biasClip, max(p.rateTolerance, p.gate * sigma)) : p.biasClip
        if let m = magnetometer {
            if let s = magnetometerSmoothed {
                magnetometerSmoothed = s + (m - s) * firstOrderSmoothing(dt, time: rest.parameters.noiseFilterTime)
            } else {
                magnetometerSmoothed = m
            }
        }
        guard rest.still else {
            restAnchor = nil
            turning = false
            startAccelerometer = nil
            startMagnetometer = nil
            steadyTurn = false
            return .motion
        }
        return judgeStill(rest: rest, bias: bias, biasSigma: biasSigma, magnetometer: magnetometer)
    }

    /// The rest of ``judge(rest:bias:biasSigma:magnetometer:dt:)`` for a still sample.
    @inline(never)
    mutating func judgeStill(rest: RestDetector, bias: Vector3, biasSigma: Vector3, magnetometer: Vector3?) -> Verdict {
        let p = parameters
        if startAccelerometer == nil {
            startAccelerometer = rest.accelerometerSmoothed
            startMagnetometer = magnetometer == nil ? nil : magnetometerSmoothed
            accelerometerSweep = 0
            fieldTurned = false
            fieldFollowed = nil
            startRate = rest.gyroscopeMean
        }
        if let start = startAccelerometer {
            accelerometerSweep = max(accelerometerSweep, Self.angle(start, rest.accelerometerSmoothed))
        }
        if let r = startRate, let m0 = startMagnetometer, let m1 = magnetometerSmoothed {
            // The rate as the verdict below judges it, and the turn it predicts since the start.
            let turning = (rest.gyroscopeMean - (established ? bias : offset)) * rest.stillTime
            if Self.mayBeFollowed(turning, p) {
                let limit = p.restDrift + Self.steadyRateChange * r.norm
                if (rest.gyroscopeMean - r).squaredNorm > limit * limit {
                    // Not a steady rate: no prediction holds, and none has.
                    fieldTurned = false
                    fieldFollowed = nil
                    startRate = nil
                } else if !fieldTurned, Self.fieldFollowedTurn(from: m0, to: m1, turning: turning, p) {
                    let turned = turning.norm
                    if let first = fieldFollowed {
                        fieldTurned = turned - first >= Self.followedTurnSpan
                    } else {
                        fieldFollowed = turned
                    }
                }
            }
        }
        guard rest.atRest else { return .motion }
        if let anchor = restAnchor {
            let drift = rest.gyroscopeMean - anchor
            if max(abs(drift.x), abs(drift.y), abs(drift.z)) <= p.restDrift { return .rest }
            restAnchor = nil
            turning = true
        }
        if turning { return .motion }
        let gravity = rest.accelerometerMean
        guard abs(gravity.norm - standardGravity) < p.gravityTolerance, let up = gravity.normalized else {
            return .motion
        }
        let rate = rest.gyroscopeMean - bias
        // Before any rest the rate is judged from the initial offset, not from a bias learnt in
        // motion, which may have absorbed part of an offset up to the bound.
        let judged = established ? rate : rest.gyroscopeMean - offset
        var consistent = true
        for k in 0..<3 {
            let limit =
                established ? min(p.biasClip, max(p.rateTolerance, p.gate * biasSigma[k])) : p.biasClip
            if !(abs(judged[k]) <= limit) { consistent = false }
        }
        if consistent {
            established = true
            steadyTurn = false
            restAnchor = rest.gyroscopeMean
            return .rest
        }
        steadyTurn = true
        turning = established
        guard !established, let start = startAccelerometer else { return .motion }
        let vertical = up * judged.dot(up)
        let horizontal = judged - vertical
        let stillTime = rest.stillTime
        // Perpendicular to gravity: the accelerometer must have turned with it. A turn about the
        // true vertical with a steady centripetal acceleration (a vehicle in a bend) tilts the
        // specific force away from the rate axis but keeps its component along the axis at g.
        let alongAxis = abs(gravity.dot(judged)) / judged.norm
        let vehicleTurn = abs(alongAxis - standardGravity) < p.gravityTolerance
        let horizontalOffset =
            !vehicleTurn
            && Self.stayed(start, rest.accelerometerSmoothed, turning: horizontal * stillTime, over: stillTime, p)
        // Along gravity: the horizontal field must have turned with it. Its direction alone is no
        // proof: a device's own iron (a car's) turns with it and can hold the direction nearly
        // still through a real turn. What such a turn leaves is a change of the field across the
        // vertical only, of more than ``turnedFieldChange`` of its strength (a world-fixed field
        // turned through 10° moves by a sixth of its horizontal part, whatever iron is added to
        // it), with less than ``turnedFieldLeak`` of it along the vertical; a field that changed
        // so took the turn, as did one that kept following the gyroscope's turn through the
        // still stretch (``fieldTurned``: a steady turn brings it back to its start after each
        // revolution, and a car's centripetal lean, which tilts the force the rate is split by,
        // left the predicted turn short of a revolution, so 30 °/s from the first sample became
        // an offset after 12 s).
        var verticalOffset = false
        if let m0 = startMagnetometer, let m1 = magnetometerSmoothed {
            let h0 = m0 - up * m0.dot(up)
            let h1 = m1 - up * m1.dot(up)
            let change = m1 - m0
            let along = abs(change.dot(up))
            let across = (change - up * change.dot(up)).norm
            let turnedAboutTheVertical =
                across > Self.turnedFieldChange * m0.norm && along < Self.turnedFieldLeak * across
            // The same field up to a turn about the vertical: its strength and its vertical part
            // kept, in the smoothed field and in this sample's reading.
            let tolerance = Self.steadyFieldStrength * m0.norm
            func kept(_ m: Vector3) -> Bool {
                abs(m.norm - m0.norm) <= tolerance && abs(m.dot(up) - m0.dot(up)) <= tolerance
            }
            let sameField = kept(m1) && kept(magnetometer ?? m1)
            verticalOffset =
                sameField && h0.norm > 0.2 * m0.norm && h1.norm > 0.2 * m1.norm && !fieldTurned
                && !turnedAboutTheVertical
                && Self.stayed(h0, h1, turning: vertical * stillTime, over: stillTime, p)
        } else {
            verticalOffset = horizontalOffset
        }
        guard horizontalOffset || verticalOffset else { return .motion }
        // The proven components of the rate become the bias.
        let rateVertical = up * rate.dot(up)
        var taken = bias
        if horizontalOffset { taken += rate - rateVertical }
        if verticalOffset { taken += rateVertical }
        offset = taken
        if horizontalOffset && verticalOffset {
            established = true
            steadyTurn = false
        }
        return .offset(taken)
    }

    /// The axis of a proven steady turn (of the low-passed rate less `bias`), unit vector in the
    /// sensor frame, or nil. The device has been still (``RestDetector/still``) while turning at a rate beyond any bias through at least
    /// ``Parameters/steadyTurnAngle``, and the specific force stayed within
    /// ``Parameters/steadyTurnSweep`` of its direction with its component along the axis near g:
    /// gravity, fixed in the world, then lies along the axis, and the specific force across it is
    /// a steady acceleration (the centripetal force of a vehicle in a bend or an off-centre
    /// turntable), not tilt.
    @inline(__always)
    public func steadyTurnAxis(rest: RestDetector, bias: Vector3) -> Vector3? {
        let p = parameters
        guard rest.still, startAccelerometer != nil else { return nil }
        let rate = rest.gyroscopeMean - bias
        let speed = rate.norm
        guard speed > p.biasClip, speed * rest.stillTime >= p.steadyTurnAngle, accelerometerSweep <= p.steadyTurnSweep,
            let axis = rate.normalized
        else { return nil }
        guard abs(abs(rest.accelerometerMean.dot(axis)) - standardGravity) < p.gravityTolerance else { return nil }
        return axis
    }

    /// Whether a steady turn may yet be proven in the current still stretch: the rate is beyond
    /// any bias and fast enough to go through ``Parameters/steadyTurnAngle`` within
    /// ``Parameters/steadyTurnProofTime``, and the specific force has kept its direction, but the
    /// turn has not yet gone through that angle.
    public func steadyTurnPending(rest: RestDetector, bias: Vector3) -> Bool {
        let p = parameters
        guard rest.still, startAccelerometer != nil, accelerometerSweep <= p.steadyTurnSweep else { return false }
        let speed = (rest.gyroscopeMean - bias).norm
        return speed > p.biasClip && speed * p.steadyTurnProofTime >= p.steadyTurnAngle
            && speed * rest.stillTime < p.steadyTurnAngle
    }

    /// Whether the specific force has kept its direction in the sensor through the current still
    /// stretch (within ``Parameters/steadyTurnSweep``): the sensor's up axis has stayed put.
    public var upAxisSteady: Bool { startAccelerometer != nil && accelerometerSweep <= parameters.steadyTurnSweep }

    /// The specific force `a` less the steady acceleration across the axis of a proven steady turn
    /// (``steadyTurnAxis(rest:bias:)``): the part that tells the tilt. `a` itself otherwise.
    /// The axis is known only to within the angle a bias error could tilt it (``biasLimit`` over
    /// the rate): a steady force across it within that angle is left to the accelerometer.
    @inline(__always)
    public func tiltSpecificForce(_ a: Vector3, rest: RestDetector, bias: Vector3) -> Vector3 {
        guard let axis = steadyTurnAxis(rest: rest, bias: bias) else { return a }
        let f = rest.accelerometerMean
        let across = f - axis * f.dot(axis)
        let rate = (rest.gyroscopeMean - bias).norm
        guard Double.atan2(across.norm, abs(f.dot(axis))) > Double.atan2(biasLimit, rate) else { return a }
        return a - across
    }

    /// The bias estimate kept within ``Parameters/biasClip`` of the initial offset on every axis.
    public func clip(_ bias: Vector3) -> Vector3 {
        let c = parameters.biasClip
        return Vector3(
            min(offset.x + c, max(offset.x - c, bias.x)), min(offset.y + c, max(offset.y - c, bias.y)),
            min(offset.z + c, max(offset.z - c, bias.z)))
    }

    /// Makes the judge one for the same gyroscope run backwards in time, whose rates are negated:
    /// the initial offset negated, the current still stretch forgotten.
    public mutating func reverseTime() {
        offset = offset * -1
        interrupt()
    }

    /// Forgets the current still stretch (a gap), keeping what was learnt about the bias.
    public mutating func interrupt() {
        restAnchor = nil
        turning = false
        startAccelerometer = nil
        startMagnetometer = nil
        magnetometerSmoothed = nil
    }

    /// Whether the smoothed field, `m0` at the start of the still stretch and `m1` now, has taken
    /// the turn the gyroscope reads since, `turning` (rotation vector, rad): a world-fixed field
    /// seen from the turning sensor turns about the same axis the other way, so its part across
    /// the axis moved by more than ``followedFieldChange`` of itself and lies
    /// ``Parameters/turnConsistency`` times closer to where that turn would have taken it than to
    /// its start, with the field's strength and that part's length kept (``steadyFieldStrength``
    /// of the strength). An object or a current moving the field, or its noise, does not follow
    /// the gyroscope's turn; a field fixed in the sensor (an offset) does not move.
    static func fieldFollowedTurn(from m0: Vector3, to m1: Vector3, turning: Vector3, _ p: Parameters) -> Bool {
        guard mayBeFollowed(turning, p), let axis = turning.normalized else { return false }
        let h0 = m0 - axis * m0.dot(axis)
        let h1 = m1 - axis * m1.dot(axis)
        let moved = (h1 - h0).norm
        let tolerance = steadyFieldStrength * m0.norm
        guard moved > followedFieldChange * h0.norm, abs(m1.norm - m0.norm) <= tolerance,
            abs(h1.norm - h0.norm) <= tolerance
        else { return false }
        // The sensor turning by θ sees a world-fixed vector turn by −θ.
        let expected = Quaternion(rotationVector: turning * -1).rotate(h0)
        return (h1 - expected).norm < p.turnConsistency * moved
    }

    /// Whether a predicted turn `turning` (rotation vector, rad) is long enough for
    /// ``fieldFollowedTurn(from:to:turning:_:)`` to find the field following it: the chord of the
    /// turn, at most its angle times the length of the field's part across the axis, must exceed
    /// (1 − ``Parameters/turnConsistency``) of the distance moved, itself beyond
    /// ``followedFieldChange`` of that length. A device at rest stops here.
    @inline(__always)
    static func mayBeFollowed(_ turning: Vector3, _ p: Parameters) -> Bool {
        let least = (1 - p.turnConsistency) * followedFieldChange
        return turning.squaredNorm > least * least
    }

    /// Largest change of the low-passed rate through a still stretch, relative to the rate at its
    /// start and beyond ``Parameters/restDrift``, for the turn to be predicted as that rate times
    /// the time (``fieldTurned``): 5 %.
    static let steadyRateChange = 0.05

    /// Predicted turn, rad, between two points at which the field followed it, for the field to
    /// have kept following it (``fieldTurned``): a quarter turn.
    static let followedTurnSpan = Double.pi / 2

    /// Change of the field's part across the turn's axis, relative to that part, beyond which a
    /// field that followed the gyroscope's turn took it (``fieldFollowedTurn(from:to:turning:_:)``):
    /// a half, the chord of a 29° turn, far beyond the noise of a field read still.
    static let followedFieldChange = 0.5

    /// Change of the smoothed field across the vertical over a still stretch, relative to its
    /// strength, beyond which (with little along the vertical) the field took a turn about the
    /// vertical (a still device's noise is a fraction of it).
    static let turnedFieldChange = 0.02
    /// Largest part of such a change along the vertical, relative to the part across it (a turn
    /// about the vertical leaves the field's vertical component; an object brought near changes
    /// it too).
    static let turnedFieldLeak = 0.6
    /// Largest change of the field's strength, and of its vertical part, over a still stretch,
    /// relative to its strength at the start, for its direction to prove anything: beyond it the
    /// field itself changed (a magnet brought near or attached), and a disturbed direction that
    /// happens to lie near the first proves no offset.
    static let steadyFieldStrength = 0.1

    /// Whether a world-fixed vector seen in the sensor frame stayed where it was (`start` → `now`)
    /// although the gyroscope says the sensor turned by `rotation` (rotation vector, rad) over
    /// `duration` s: it is further from where that turn would have taken it than a bias up to
    /// ``Parameters/biasClip`` and a scale error up to ``Parameters/scaleTolerance`` could explain,
    /// by at least ``Parameters/minimumTurn``, and
    /// ``Parameters/turnConsistency`` times closer to its start. Comparing positions, not angles
    /// turned, holds through whole turns (after 360° a turn brings the vector back to its start).
    static func stayed(
        _ start: Vector3, _ now: Vector3, turning rotation: Vector3, over duration: Double, _ p: Parameters
    ) -> Bool {
        // The sensor turning by θ sees a world-fixed vector turn by −θ.
        let expected = Quaternion(rotationVector: rotation * -1).rotate(start)
        let fromExpected = Self.angle(now, expected)
        let explained = (p.biasClip + p.scaleTolerance * rotation.norm / duration) * duration
        return fromExpected - explained > p.minimumTurn
            && Self.angle(now, start) < p.turnConsistency * fromExpected
    }

    /// Angle between two vectors, rad (0 when either is zero).
    static func angle(_ a: Vector3, _ b: Vector3) -> Double {
        let c = a.cross(b).norm
        let d = a.dot(b)
        return c == 0 && d == 0 ? 0 : Double.atan2(c, d)
    }
}
