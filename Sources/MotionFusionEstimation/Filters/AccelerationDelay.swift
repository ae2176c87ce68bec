/// What the EKF's earth-frame specific-force low-pass delays, as the tilt measurement sees it.
///
/// The low-passed force shows the low-pass of the attitude errors over its recent past, not the
/// error now. Over that past the attitude was integrated with the bias estimate, so a bias error
/// `δb` turned it by `∫ R δb` between each past sample and now: the measurement is
/// `δθ + M·δb`, with `M = S − LP(S)` and `S` the integral of the attitude matrix `R` (earth from
/// sensor) over time. This keeps the first two rows of `M` (earth x and y, what the tilt shows),
/// each a ``ButterworthLowPass`` fed with the same steps as the force's, its state held relative to
/// the integral's current value (so it stays bounded over any run).
struct AccelerationDelay: Sendable, Codable {
    /// Low-passes of the integral's first two rows, less the integral's value at their last input, s.
    var x, y: ButterworthLowPass
    /// Integral's increment since the low-passes' last input, per row, s.
    var dx = Vector3.zero, dy = Vector3.zero

    init(cutoff: Double) {
        x = ButterworthLowPass(cutoff: cutoff)
        y = ButterworthLowPass(cutoff: cutoff)
    }

    /// The rows of `M`, s: the measured tilt error's dependence on the bias error (per axis).
    var rows: (x: Vector3, y: Vector3) { (dx - x.output, dy - y.output) }

    /// Adds one gyroscope step's integral of the attitude matrix, `R·dt`.
    mutating func integrate(_ step: Matrix3) {
        dx += step.row0
        dy += step.row1
    }

    /// Feeds the integral to the low-passes with the force's step `dt`.
    mutating func update(dt: Double) {
        // A step the low-pass skips keeps its increment for the next.
        guard dt > 0 || !x.primed else { return }
        x.update(dx, dt: dt)
        y.update(dy, dt: dt)
        x.y -= dx
        y.y -= dy
        dx = .zero
        dy = .zero
    }

    /// Ends the warm-up, as the force's low-pass does.
    mutating func endWarmUp() {
        x.endWarmUp()
        y.endWarmUp()
    }

    /// Forgets the past, as the force's low-pass does.
    mutating func reset() {
        x.reset()
        y.reset()
        dx = .zero
        dy = .zero
    }

    /// Time runs backwards from here: the integral over the held past changes sign.
    mutating func reverseTime() {
        x.y = x.y * -1
        y.y = y.y * -1
        dx = dx * -1
        dy = dy * -1
    }
}
