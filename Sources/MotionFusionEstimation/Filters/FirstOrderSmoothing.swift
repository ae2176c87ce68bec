/// The weight of a new sample in a first-order low-pass (exponential smoothing) with time constant
/// `time` (s), for a step of `dt` seconds: `1 − e^(−dt/time)`. Exact for any step, so a smoothed
/// value follows the same time constant at every sample rate and across irregular steps; 1 when
/// `time` is 0 (no smoothing), 0 for a step that is not positive.
///
/// Steps much shorter than the time constant (`dt/time` < 1/8, every sample at ordinary rates) use
/// the series `x − x²/2 + x³/6 − …` to the 10th power (truncation error below 1e-16 of the value, so
/// the same value as the exponential to within rounding), at a fraction of its cost.
@inlinable @inline(__always)
public func firstOrderSmoothing(_ dt: Double, time: Double) -> Double {
    guard dt > 0 else { return 0 }
    guard time > 0 else { return 1 }
    let x = dt / time
    guard x < 0.125 else { return -(-x).expMinusOne }
    // Σ_{k=1…10} (−1)^(k+1) x^k / k!, in Estrin's form (short dependency chains).
    let x2 = x * x, x4 = x2 * x2
    let a = (1 - x * 0.5) + x2 * (1.0 / 6 - x * (1.0 / 24))
    let b = (1.0 / 120 - x * (1.0 / 720)) + x2 * (1.0 / 5_040 - x * (1.0 / 40_320))
    let c = 1.0 / 362_880 - x * (1.0 / 3_628_800)
    return x * (a + x4 * (b + x4 * c))
}
