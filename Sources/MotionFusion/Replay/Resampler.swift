/// Delivers estimates at a fixed update interval, as a device's motion service does: the filter
/// runs on every input sample, and each output instant gets the estimate interpolated between the
/// two filter outputs around it (slerp for the attitude).
public struct Resampler: Sendable {
    /// Output rate, Hz.
    public var rate: Double

    /// Creates a resampler.
    public init(rate: Double) {
        precondition(rate > 0, "rate must be positive")
        self.rate = rate
    }

    /// The estimates at `t0, t0 + 1/rate, …` up to the last sample.
    public func resample(_ trace: Trace, filter: FilterKind, mode: FusionMode) -> [MotionEstimate] {
        var out = [MotionEstimate]()
        guard let first = trace.samples.first?.t else { return out }
        let interval = 1 / rate
        var k = 0
        var next = first
        var previous: MotionEstimate?
        filter.run(trace.samples, mode: mode) { e in
            while next <= e.t {
                if let p = previous, e.t > p.t, next > p.t {
                    var m = e
                    let u = (next - p.t) / (e.t - p.t)
                    m.attitude = p.attitude.slerp(to: e.attitude, t: u)
                    m.t = next
                    out.append(m)
                } else {
                    var m = e
                    m.t = next
                    out.append(m)
                }
                k += 1
                next = first + Double(k) * interval
            }
            previous = e
        }
        return out
    }
}
