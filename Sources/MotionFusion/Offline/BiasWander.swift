import MotionFusionMath

/// How fast a recording's gyroscope bias wanders, as its rests show it: the mean rate of each rest
/// at least ``minimumRest`` long measures the bias, and its change from the latest such rest at
/// least ``minimumSeparation`` earlier, over the time between them, measures its random walk (per
/// axis, squared change per second; the median over the pairs of rests, so one slow turn taken for
/// a rest does not decide it). Rests closer together show the noise of their means (a vibrating
/// device's rests differ by a few hundredths of a degree per second) more than the walk.
///
/// In 9D the batch estimator's bias random walk is the larger of its setting and this (see
/// ``BatchAttitudeEstimator/Parameters/biasRandomWalk``): a part whose bias wanders faster than the
/// setting allows (one warming up over a long run) would otherwise have its rests and its field
/// pull against a prior that holds the bias still between rests.
struct BiasWander {
    /// Shortest rest whose mean rate counts, s.
    static let minimumRest = 2.0
    /// Shortest time between the middles of two rests compared, s.
    static let minimumSeparation = 60.0

    /// The current rest: sum and count of its rates, first and last time.
    private var sum = Vector3.zero, count = 0, start = Double.nan, end = Double.nan
    /// Middle time and mean rate of each rest that counted.
    private var rests: [(t: Double, rate: Vector3)] = []
    /// Squared change per axis and second from each rest to the latest one at least
    /// ``minimumSeparation`` before it, rad²/s³.
    private var changes: [Double] = []

    /// Takes one sample: its time, gyroscope rate (rad/s) and whether it is at rest.
    mutating func add(t: Double, gyroscope: Vector3?, atRest: Bool) {
        guard atRest, let g = gyroscope, t.isFinite, g.isFinite else {
            finishRest()
            return
        }
        if count == 0 { start = t }
        sum += g
        count += 1
        end = t
    }

    /// Random walk density the rests so far show, rad/s/√s; 0 before two rests.
    var walk: Double { (Quickselect.median(changes) ?? 0).squareRoot() }

    private mutating func finishRest() {
        defer {
            sum = .zero
            count = 0
        }
        guard count > 0, end - start >= Self.minimumRest else { return }
        let rest = (t: (start + end) / 2, rate: sum * (1 / Double(count)))
        if let l = rests.last(where: { rest.t - $0.t >= Self.minimumSeparation }) {
            changes.append((rest.rate - l.rate).squaredNorm / 3 / (rest.t - l.t))
        }
        rests.append(rest)
    }
}
