/// Delivers estimates at a fixed rate, as a device's motion service does at an update interval: the
/// filter runs on every input sample, and each output instant `t0 + k/rate` gets the estimate
/// interpolated between the two outputs around it (slerp for the attitude and the ground truth).
/// Instants inside a gap longer than `maximumGap` get no output; a time more than `maximumGap`
/// before the latest one (a clock reset) starts a new grid there. Streaming: feed estimates in order.
public struct Resampler: Sendable {
    /// Output rate, Hz.
    public let rate: Double
    /// Longest interval between two inputs that is interpolated across, s.
    public let maximumGap: Double
    var origin = Double.nan
    var index = 0
    var previous: (estimate: MotionEstimate, input: SensorSample)?

    /// Creates a resampler.
    public init(rate: Double, maximumGap: Double = 1) {
        precondition(rate > 0 && rate.isFinite, "rate must be positive")
        self.rate = rate
        self.maximumGap = maximumGap
    }

    /// The next output instant.
    var nextTime: Double { origin + Double(index) / rate }

    /// Adds the estimate after `input` and emits every output instant up to its time.
    public mutating func push(
        _ e: MotionEstimate, _ input: SensorSample, emit: (MotionEstimate, SensorSample) throws -> Void
    ) rethrows {
        // An estimate at a time that is not finite has no place on the grid.
        guard e.t.isFinite else { return }
        if origin.isNaN {
            origin = e.t
            index = 0
        }
        defer { if previous == nil || e.t > previous!.estimate.t { previous = (e, input) } }
        guard let (p, pin) = previous else {
            try emit(e, input)
            index = 1
            return
        }
        if e.t < p.t - maximumGap {
            // The clock was reset (or had jumped ahead and came back): a new grid starts at this
            // sample, as at the start, instead of dropping every instant before the old latest
            // time.
            origin = e.t
            previous = (e, input)
            try emit(e, input)
            index = 1
            return
        }
        guard e.t > p.t else { return }
        if e.t - p.t > maximumGap {
            // Skip the instants inside the gap, computed rather than counted: a gap may hold more
            // instants than could be stepped through.
            let first = ((e.t - origin) * rate).rounded(.down)
            if first < 1e15 {
                index = max(index, Int(first) - 1)
                while nextTime < e.t { index += 1 }
            } else {
                // Beyond a double's whole numbers the grid has no precision left: a new grid
                // starts at the sample after the gap.
                origin = e.t
                index = 0
            }
        }
        while nextTime <= e.t {
            let t = nextTime
            let u = (t - p.t) / (e.t - p.t)
            var m = u < 0.5 ? p : e
            m.t = t
            m.attitude = p.attitude.slerp(to: e.attitude, t: u)
            var reference = SensorSample(t: t, moving: u < 0.5 ? pin.moving : input.moving)
            if let a = pin.truth, let b = input.truth { reference.truth = a.slerp(to: b, t: u) }
            try emit(m, reference)
            index += 1
            if nextTime <= t {
                // Instants closer together than a double resolves at this time would repeat the
                // row's time: go on from the first instant after it.
                let next = ((t.nextUp - origin) * rate).rounded(.down)
                if next < 1e15 {
                    index = max(index, Int(next))
                    while nextTime <= t { index += 1 }
                } else {
                    origin = t.nextUp
                    index = 0
                }
            }
        }
    }
}
