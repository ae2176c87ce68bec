/// The weight of a new sample in a first-order low-pass (exponential smoothing) with time constant
/// `time` (s), for a step of `dt` seconds: `1 − e^(−dt/time)`. Exact for any step, so a smoothed
/// value follows the same time constant at every sample rate and across irregular steps; 1 when
/// `time` is 0 (no smoothing), 0 for a step that is not positive.
@inlinable
public func firstOrderSmoothing(_ dt: Double, time: Double) -> Double {
    guard dt > 0 else { return 0 }
    guard time > 0 else { return 1 }
    return 1 - (-dt / time).exp
}
