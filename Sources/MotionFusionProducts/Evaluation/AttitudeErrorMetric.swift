/// The BROAD error metric (Laidig et al., 2021): total, heading and inclination RMSE in degrees over
/// the samples that are moving and have ground truth.
///
/// For each sample the earth-frame error is `e = q_est ⊗ q_truth*`. Total error is its rotation
/// angle `2·acos|e_w|`; heading error is the angle of its rotation about the vertical,
/// `2·atan|e_z / e_w|`; inclination error is the rest, `2·acos√(e_w² + e_z²)`.
///
/// In 6D the heading is unobservable, so a constant heading offset is removed first: the circular
/// mean of the signed heading errors `2·atan2(e_z, e_w)` over the scored samples.
public struct AttitudeErrorMetric: Sendable {
    /// The scores.
    public struct Result: Sendable, Equatable {
        /// Total RMSE, degrees.
        public var totalRMSE: Double
        /// Heading RMSE, degrees.
        public var headingRMSE: Double
        /// Inclination RMSE, degrees.
        public var inclinationRMSE: Double
        /// Samples scored.
        public var samplesUsed: Int
        /// Heading offset removed (6D), degrees; 0 in 9D.
        public var headingOffset: Double

        /// Creates a result.
        public init(
            totalRMSE: Double, headingRMSE: Double, inclinationRMSE: Double, samplesUsed: Int, headingOffset: Double
        ) {
            self.totalRMSE = totalRMSE
            self.headingRMSE = headingRMSE
            self.inclinationRMSE = inclinationRMSE
            self.samplesUsed = samplesUsed
            self.headingOffset = headingOffset
        }
    }

    /// Scores estimates against truth. `moving` marks the scored samples (all when `nil`); samples
    /// with a `nil` or non-finite estimate or truth are skipped. Returns `nil` when nothing is scored.
    public static func evaluate(
        estimates: [Quaternion?], truth: [Quaternion?], moving: [Bool]? = nil, mode: FusionMode
    ) -> Result? {
        precondition(estimates.count == truth.count, "one estimate per truth sample")
        var acc = Accumulator(mode: mode)
        for i in estimates.indices {
            acc.add(estimate: estimates[i], truth: truth[i], moving: moving.map { $0[i] })
        }
        return acc.result
    }

    /// Collects scored samples one at a time (constant memory per scored sample: one error
    /// quaternion), for traces too long to hold in memory.
    public struct Accumulator: Sendable {
        var errors: [Quaternion] = []
        /// Sensors of the estimate: decides the 6D heading alignment.
        public var mode: FusionMode

        /// Creates an empty accumulator.
        public init(mode: FusionMode) { self.mode = mode }

        /// Adds one sample; skipped unless moving (when known) with finite estimate and truth.
        public mutating func add(estimate: Quaternion?, truth: Quaternion?, moving: Bool?) {
            if moving == false { return }
            guard let e = estimate, let t = truth, e.isFinite, t.isFinite, e.squaredNorm > 0, t.squaredNorm > 0 else {
                return
            }
            errors.append((e.normalized * t.normalized.conjugate).normalized)
        }

        /// The scores so far, or nil when nothing was scored.
        public var result: Result? {
            AttitudeErrorMetric.score(errors, mode: mode)
        }
    }

    /// Scores earth-frame error quaternions `q_est ⊗ q_truth*`.
    static func score(_ errors: [Quaternion], mode: FusionMode) -> Result? {
        guard !errors.isEmpty else { return nil }
        var offset = Quaternion.identity
        var offsetAngle = 0.0
        if mode == .sixD {
            var s = 0.0
            var c = 0.0
            for e in errors {
                let h = 2 * Double.atan2(e.z, e.w)
                s += h.sin
                c += h.cos
            }
            offsetAngle = Double.atan2(s, c)
            offset = Quaternion(axis: .unitZ, angle: -offsetAngle)
        }
        var total = 0.0
        var heading = 0.0
        var inclination = 0.0
        for raw in errors {
            let e = mode == .sixD ? (offset * raw).normalized : raw
            let t = 2 * abs(e.w).acosClamped
            let h = e.w == 0 ? Double.pi : 2 * Double.atan2(abs(e.z), abs(e.w))
            let inc = 2 * (e.w * e.w + e.z * e.z).squareRoot().acosClamped
            total += t * t
            heading += h * h
            inclination += inc * inc
        }
        let n = Double(errors.count)
        return Result(
            totalRMSE: (total / n).squareRoot().degrees, headingRMSE: (heading / n).squareRoot().degrees,
            inclinationRMSE: (inclination / n).squareRoot().degrees, samplesUsed: errors.count,
            headingOffset: offsetAngle.degrees)
    }

    /// Scores estimates against the truth and `moving` flags of a trace (one estimate per sample).
    public static func evaluate(estimates: [Quaternion?], trace: Trace, mode: FusionMode) -> Result? {
        let hasMoving = trace.samples.contains { $0.moving != nil }
        return evaluate(
            estimates: estimates, truth: trace.samples.map(\.truth),
            moving: hasMoving ? trace.samples.map { $0.moving ?? false } : nil, mode: mode)
    }
}
