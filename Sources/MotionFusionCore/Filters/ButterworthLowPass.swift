/// Second-order Butterworth low-pass filter for 3-vectors (bilinear transform, prewarped cutoff),
/// with coefficients recomputed only when the step changes, so variable rates work.
public struct ButterworthLowPass: Sendable, Codable {
    /// Cutoff frequency, Hz.
    public var cutoff: Double
    var b0 = 0.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    var coefficientStep = -1.0
    // Direct form II transposed state.
    var s1 = Vector3.zero, s2 = Vector3.zero
    /// Last output.
    public private(set) var output = Vector3.zero
    /// Whether the filter has seen a first input.
    public private(set) var primed = false

    /// Creates a filter with the cutoff frequency in Hz.
    public init(cutoff: Double) { self.cutoff = cutoff }

    mutating func coefficients(_ dt: Double) {
        // Timestamps jitter by rounding; recompute only when the step really changes.
        if abs(dt - coefficientStep) <= 1e-3 * coefficientStep { return }
        coefficientStep = dt
        // Keep the cutoff below Nyquist so the prewarp stays finite.
        let fc = min(cutoff, 0.45 / dt)
        let k = (Double.pi * fc * dt).sin / (Double.pi * fc * dt).cos
        let r2 = 2.0.squareRoot()
        let norm = 1 / (1 + r2 * k + k * k)
        b0 = k * k * norm
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - r2 * k + k * k) * norm
    }

    /// Filters one input taken `dt` seconds after the previous one and returns the output.
    @discardableResult
    public mutating func update(_ x: Vector3, dt: Double) -> Vector3 {
        guard primed else {
            prime(x)
            return x
        }
        guard dt > 0 else { return output }
        coefficients(dt)
        let y = x * b0 + s1
        s1 = x * b1 - y * a1 + s2
        s2 = x * b2 - y * a2
        output = y
        return y
    }

    /// Sets the state to the steady state for a constant input `x`.
    public mutating func prime(_ x: Vector3) {
        primed = true
        output = x
        if coefficientStep <= 0 { coefficients(0.01) }
        s2 = x * (b2 - a2)
        s1 = x * (1 - b0)
    }

    /// Rotates the filter's state, used when the frame the inputs are expressed in is corrected.
    public mutating func rotate(by q: Quaternion) {
        s1 = q.rotate(s1)
        s2 = q.rotate(s2)
        output = q.rotate(output)
    }

    /// Forgets the state.
    public mutating func reset() {
        primed = false
        s1 = .zero
        s2 = .zero
        output = .zero
    }
}
