/// The mean angular rate over each step, for the filters to integrate.
///
/// A gyroscope sample is taken to hold for the step that ends at it (what integrating IMUs deliver,
/// and what the anti-alias delay of MEMS gyroscopes approximates), so over a regular or jittered
/// step the mean rate is the sample itself. A step much longer than the typical step means samples
/// were lost: the sample then covers only a typical step at its end, and over the rest the rate is
/// interpolated linearly from the sample before the gap. The typical step is learnt from the
/// timestamps, so no sample rate is assumed; a lasting change of rate is adopted after a few steps.
public struct GyroscopeIntegrator: Sendable, Codable {
    /// Tuning.
    public struct Parameters: Sendable, Codable, ParameterRanges {
        /// A step longer than this many typical steps is a gap with lost samples. Default 2.
        public var gapRatio = 2.0
        /// Time constant of the typical-step estimate, s. Default 1.
        public var stepAveragingTime = 1.0
        /// Consecutive long steps after which they are taken as the new typical step (a change of
        /// sample rate, not lost samples). Default 3.
        public var rateChangeSteps = 3
        /// The values each parameter accepts (see ``ParameterRanges``).
        public static let ranges: [String: ParameterRange] = [
            "gapRatio": ParameterRange(1...1000), "stepAveragingTime": .timeConstant,
            "rateChangeSteps": ParameterRange(1...1000),
        ]
        /// Default parameters.
        public init() {}
    }

    /// Typical step, s; NaN until the first step.
    public internal(set) var typicalStep = Double.nan
    /// The previous gyroscope sample, rad/s, while the samples are consecutive.
    public internal(set) var previousRate: Vector3?
    /// Consecutive steps longer than a gap.
    public internal(set) var longSteps = 0

    /// Creates an integrator that has seen nothing.
    public init() {}

    /// Makes the integrator one for the same gyroscope run backwards in time: the previous rate
    /// negated.
    public mutating func reverseTime() { previousRate = previousRate.map { $0 * -1 } }

    /// The mean rate over the step of `dt` seconds that ends with the gyroscope sample `g`.
    @inline(__always)
    public mutating func meanRate(_ g: Vector3, dt: Double, _ p: Parameters) -> Vector3 {
        var rate = g
        guard dt > 0 else { return g }
        if !typicalStep.isFinite {
            typicalStep = dt
        } else if dt > p.gapRatio * typicalStep {
            longSteps += 1
            if longSteps >= p.rateChangeSteps {
                typicalStep = dt
                longSteps = 0
            } else if let previous = previousRate {
                // The sample covers its own typical step; the lost stretch before it is bridged.
                let own = typicalStep
                rate = (g * own + (previous + g) * (0.5 * (dt - own))) * (1 / dt)
            }
        } else {
            longSteps = 0
            typicalStep += (dt - typicalStep) * firstOrderSmoothing(dt, time: p.stepAveragingTime)
        }
        previousRate = g
        return rate
    }

    /// Marks a break in the gyroscope samples (missing values, a reinitialisation): nothing is
    /// bridged across it.
    public mutating func interrupt() { previousRate = nil }
}
