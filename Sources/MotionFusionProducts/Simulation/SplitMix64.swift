/// SplitMix64 (Steele, Lea, Flood 2014): a small, fast generator whose stream depends only on its
/// state, so seeded simulations and benchmark variants reproduce to the bit on every platform.
public struct SplitMix64: Sendable {
    /// The state; the stream follows from it alone.
    public var state: UInt64

    /// A generator in state `state` (callers mix their seed into it as they please).
    public init(state: UInt64) { self.state = state }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 random bits.
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Standard normal (Box–Muller, one value per two uniforms).
    public mutating func gaussian() -> Double {
        let u1 = max(uniform(), 1e-300)
        let u2 = uniform()
        return (-2 * u1.log).squareRoot() * (2 * .pi * u2).cos
    }
}
