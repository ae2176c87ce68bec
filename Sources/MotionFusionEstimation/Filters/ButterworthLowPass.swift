/// Second-order Butterworth low-pass filter for 3-vectors, discretised exactly for every step.
///
/// The continuous filter `ÿ = ω²(u − y) − √2·ω·ẏ` (ω = 2π·cutoff, damping 1/√2) is advanced over each
/// step with its closed-form solution for an input held constant over the step (zero-order hold),
/// so the response is the same at any sample rate and across irregular steps and long gaps. The
/// step's exponential, sine and cosine are computed exactly when the step changes by more than
/// 1e-4/σ (σ = 2π·cutoff/√2, about 7e-5 of the time constant); smaller changes (timestamp jitter)
/// correct the last exact values with the angle-addition formulas and series to the fourth power,
/// whose truncation error (below 1e-21) is far under rounding.
///
/// For its first time constant (`1/(2π·cutoff)`) after the first input, or until its owner ends it
/// (``endWarmUp()``), the output is the mean of the inputs so far; the filter then continues from
/// that mean at rest. Started from its first input alone, it held that one reading for a time
/// constant: a device in motion at the start (its force a tilt of 13° away from gravity) had its
/// tilt confirmed by the filtered force for seconds while the Kalman filter's uncertainty shrank.
public struct ButterworthLowPass: Sendable, Codable {
    /// Cutoff frequency, Hz (infinite: the output is the input).
    public var cutoff: Double
    /// Output and its time derivative.
    var y = Vector3.zero, v = Vector3.zero
    /// Step the transition values were computed for, s, and the values: decay `e^(−σ·dt)`,
    /// `cos(ω_d·dt)`, `sin(ω_d·dt)/ω_d`.
    var step = -1.0
    var decay = 0.0, cosine = 0.0, sineOverFrequency = 0.0
    /// Whether the filter has seen a first input.
    public private(set) var primed = false
    /// While the output is the mean of the inputs so far: the time since the first input, s, and
    /// the inputs averaged (nil after, and in states saved before it was kept).
    var warmUp: WarmUp?
    struct WarmUp: Sendable, Codable {
        var time = 0.0
        var count = 1.0
    }

    /// Creates a filter with the cutoff frequency in Hz.
    public init(cutoff: Double) { self.cutoff = cutoff }

    /// Last output.
    public var output: Vector3 { y }
    /// Whether the output is still the mean of the inputs so far (the first time constant).
    public var warmingUp: Bool { warmUp != nil }

    /// Transition values for a step of `dt` (with σ = 2π·cutoff/√2): decay, cosine and sine over the
    /// damped frequency.
    @inline(__always)
    mutating func transition(_ dt: Double, sigma: Double) -> (decay: Double, cosine: Double, sineOverFrequency: Double)
    {
        let damped = sigma  // ω·√(1 − ζ²) with ζ = 1/√2
        let d = (dt - step) * sigma
        if dt == step { return (decay, cosine, sineOverFrequency) }
        guard abs(d) < 1e-4 else {
            step = dt
            decay = (-sigma * dt).exp
            cosine = (damped * dt).cos
            sineOverFrequency = (damped * dt).sin / damped
            return (decay, cosine, sineOverFrequency)
        }
        // e^(−d), cos d and sin d to the fourth power (σ = ω_d, so both angles are d).
        let d2 = d * d
        let expD = 1 - d * (1 - d * (0.5 - d * (1.0 / 6 - d / 24)))
        let cosD = 1 - d2 * (0.5 - d2 / 24)
        let sinD = d * (1 - d2 / 6)
        let sine = sineOverFrequency * damped
        return (
            decay * expD, cosine * cosD - sine * sinD, (sine * cosD + cosine * sinD) / damped
        )
    }

    /// Filters one input taken `dt` seconds after the previous one and returns the output.
    @discardableResult
    public mutating func update(_ x: Vector3, dt: Double) -> Vector3 {
        guard primed else {
            prime(x)
            return x
        }
        guard cutoff.isFinite else {
            y = x
            return x
        }
        guard dt > 0 else { return y }
        if var w = warmUp {
            w.time += dt
            w.count += 1
            y += (x - y) * (1 / w.count)
            warmUp = w.time * 2 * Double.pi * cutoff < 1 ? w : nil
            return y
        }
        let omega = 2 * Double.pi * cutoff
        let sigma = omega / 2.0.squareRoot()
        let (decay, cosine, sineOverFrequency) = transition(dt, sigma: sigma)
        // e = y − u obeys ë + 2σė + ω²e = 0 over the step.
        let e = y - x
        let newE = (e * cosine + (v + e * sigma) * sineOverFrequency) * decay
        v = (v * cosine - (e * (omega * omega) + v * sigma) * sineOverFrequency) * decay
        y = x + newE
        return y
    }

    /// Sets the state to the steady state for a constant input `x`, the first of the mean.
    public mutating func prime(_ x: Vector3) {
        primed = true
        y = x
        v = .zero
        // An infinite cutoff passes its input through: nothing to average.
        warmUp = cutoff.isFinite ? WarmUp() : nil
    }

    /// Ends the mean of the first inputs: the filter continues from it, at rest. (Restarting from
    /// the still input instead changed nothing for a fall at the start, and moved a 6D heading rate
    /// by 0.5 %.)
    @inline(__always)
    public mutating func endWarmUp() { warmUp = nil }

    /// Rotates the filter's state, used when the frame the inputs are expressed in is corrected.
    @inline(__always)
    public mutating func rotate(by q: Quaternion) {
        y = q.rotate(y)
        v = q.rotate(v)
    }

    /// Forgets the state.
    public mutating func reset() {
        primed = false
        y = .zero
        v = .zero
        warmUp = nil
    }
}
