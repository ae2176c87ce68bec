/// Whether the magnetometer's heading errors change with the heading, so that its heading
/// corrections must not teach the gyroscope's bias.
///
/// A hard iron `h` across the vertical that no calibration has removed adds to the earth's
/// horizontal field `H` a vector that turns with the device: as the heading goes round, the
/// azimuth the readings give is off by up to `asin(h/H)`, by an amount that changes with the
/// heading. Read as truth, that error's change looks like a rate the gyroscope missed, and a
/// filter that learns its bias from heading corrections learns it (a car circling at 5.7 °/s with
/// 11 µT of hard iron learnt 0.9 °/s of bias about the vertical, doubling the heading's swing).
/// The same iron makes the squared strength `|m|²` swing by `2 H h` as the heading goes round,
/// which no attitude error changes (a tilt error moves the horizontal strength the filter
/// computes, not the strength itself: measured through the attitude, a calibrated sensor in a
/// car, whose tilt errs by a degree or two in bends, looked as if it carried iron).
///
/// The squared strength of each reading used, averaged over ``recentTime``, is compared with its
/// average over ``longTime``. Half the difference, the swing, is judged against the squared
/// horizontal strength (its average over ``longTime``, from the filter's attitude: the swing over
/// it is the `h/H` the heading error follows) with ``largestForBias``, and against the squared
/// strength with ``smallestStrengthSwing``; the smaller of the two ratios is the swing's excess,
/// and the largest excess seen, fading over ``longTime``, is ``peak``. While it is above 1, and a
/// rest has measured the bias, the heading corrections leave the bias alone (the filters keep
/// learning it at rest and from the accelerometer). Before any rest they are the one teacher of
/// the vertical bias, and what the first seconds' accelerations taught it must be unlearnt: held
/// there, simulated cars started in motion mostly got worse (10 of 15, EKF, with an earlier form
/// of the measure).
public struct HorizontalFieldDeviation: Sendable, Codable {
    /// Averaging time of the recent squared strength, s: the readings' noise averages out, a
    /// device's swing through the heading does not.
    static let recentTime = 1.0
    /// Averaging time of the long squared and horizontal strengths, and the time over which a
    /// swing seen fades, s: a car circles in about a minute.
    static let longTime = 30.0
    /// Largest swing of the squared strength over the squared horizontal strength for heading
    /// corrections to teach the bias: an iron across the vertical of 8 % of the horizontal field,
    /// a heading error changing by about ±5° with the heading.
    static let largestForBias = 0.08
    /// Smallest swing of the squared strength over itself that counts: a calibrated sensor's scale
    /// errors and noise stay under it, and at a steep dip the horizontal field is too small to
    /// judge a swing against alone (at 85°, 4 µT: a 0.5 % scale error swings `|m|²` by a quarter
    /// of its square).
    static let smallestStrengthSwing = 0.02

    /// Recent and long averages of the squared strength, and the long average of the horizontal
    /// strength, the readings' units (nil before the first reading).
    var recent: Double?
    var long: Double?
    var horizontal: Double?
    /// Largest excess of the swing seen (1 at a threshold), fading over ``longTime``.
    public private(set) var peak = 0.0

    /// No reading yet.
    public init() {}

    /// Adds a reading used `dt` seconds after the previous one, by its squared strength and its
    /// horizontal strength (earth frame); true when heading corrections may teach the bias.
    public mutating func observe(squaredStrength s2: Double, horizontal h: Double, dt: Double) -> Bool {
        guard h > 0, h.isFinite, s2.isFinite else { return teachesBias }
        var r = recent ?? s2
        var l = long ?? s2
        var lh = horizontal ?? h
        r += (s2 - r) * firstOrderSmoothing(dt, time: Self.recentTime)
        let fade = firstOrderSmoothing(dt, time: Self.longTime)
        l += (s2 - l) * fade
        lh += (h - lh) * fade
        (recent, long, horizontal) = (r, l, lh)
        let swing = abs(r - l) / 2
        let excess = min(swing / (lh * lh * Self.largestForBias), swing / (l * Self.smallestStrengthSwing))
        peak = max(excess, peak * (1 - fade))
        return teachesBias
    }

    /// Observes a reading used in `deviation` (started at the first), as ``observe(squaredStrength:horizontal:dt:)``;
    /// true when its heading correction may teach the bias: always before a rest has measured
    /// the bias (`biasMeasured` false), otherwise while ``teachesBias``.
    public static func headingTeachesBias(
        _ deviation: inout HorizontalFieldDeviation?, squaredStrength s2: Double, horizontal h: Double, dt: Double,
        biasMeasured: Bool
    ) -> Bool {
        var d = deviation ?? HorizontalFieldDeviation()
        let teaches = d.observe(squaredStrength: s2, horizontal: h, dt: dt)
        deviation = d
        return teaches || !biasMeasured
    }

    /// Time a new calibration's heading step is left to settle before heading corrections teach
    /// the bias again, when the strength swung before it, s: the heading steps to where the new
    /// calibration puts north within a few seconds, which is no rate error.
    static let settlingTime = 10.0

    /// A new calibration: the averages start again from its readings, whose strength differs, and
    /// a swing seen before it fades within ``settlingTime``.
    public mutating func recalibrated() {
        recent = nil
        long = nil
        horizontal = nil
        if peak > 1 {
            peak = min(peak, (Self.settlingTime / Self.longTime).exp)
        }
    }

    /// Whether heading corrections may teach the bias: the largest excess seen is at most 1.
    public var teachesBias: Bool { peak <= 1 }
}
