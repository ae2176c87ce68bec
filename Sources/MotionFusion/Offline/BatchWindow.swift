import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One window of the batch estimator: the samples, the knots and their states, and the
/// Gauss–Newton solver over them (see ``BatchAttitudeEstimator`` for the model).
///
/// Unknowns, in band order, per knot `k`: the earth-frame attitude error `θₖ` (3), the gyroscope
/// bias `bₖ` (3), the horizontal velocity `vₖ` (2) and the magnetic azimuth disturbance `dₖ` (1);
/// then the constants shared by every knot (the magnetometer hard iron, when estimated) as the
/// border of the arrowhead system.
///
/// Here the samples, states and preintegration; the assembly of the normal equations in
/// BatchWindow+Assembly.swift, the factors in +Factors (gyroscope, bias walk, rest, velocity and
/// accelerometer, gravity, disturbance, prior) and +Magnetometer, the Gauss–Newton loop and the
/// marginal in +Solver.
struct BatchWindow {
    /// Unknowns per knot.
    static let knotSize = 9
    /// Place of each unknown of a knot in the band: logical order (θ 0–2, b 3–5, v 6–7, d 8) is
    /// stored as (v, d, θ, b), so that the widest coupling (θ or b of knot k with the same of
    /// knot k + 1) spans 11 places instead of 17: the band factor costs (11/17)² as much.
    @inline(__always)
    static func slot(_ a: Int) -> Int { a < 6 ? a + 3 : (a < 8 ? a - 6 : 2) }
    /// Physical band index of logical unknown `i`.
    @inline(__always)
    static func physical(_ i: Int) -> Int { (i / knotSize) * knotSize + slot(i % knotSize) }
    /// Lower bandwidth of the normal matrix in that order.
    static let bandwidth = 11
    /// Unknowns a magnetometer sample touches at most: θz, b (3), d, and the 11 constants.
    static let magStride = 16

    // MARK: Samples

    /// Sample times, s (as read; only the steps are used).
    var t: [Double] = []
    /// Gyroscope rate over the step ending at each sample, rad/s (zero when unknown).
    var rate: [Vector3] = []
    /// Step ending at each sample, s (0 for the first sample and for a non-increasing time).
    var step: [Double] = []
    /// Extra attitude variance over the step, rad², where the rate is unknown.
    var blind: [Double] = []
    /// Specific force, m/s² (held across short gaps), and whether it is usable.
    var acc: [Vector3] = []
    var accValid: [Bool] = []
    /// Magnetometer (delay compensated), any unit, whether usable, and the time it stands for, s.
    var mag: [Vector3] = []
    var magValid: [Bool] = []
    var magTime: [Double] = []
    /// Norm of each magnetometer value.
    var magNorm: [Double] = []
    /// Cached integration of each knot (fast path), and each magnetometer value turned into its
    /// knot's frame with that integration.
    var cache: [KnotIntegration?] = []
    /// Sine of the reference dip, and how far a departure of one dip tolerance moves it (set at
    /// each assembly).
    var referenceSinDip = 0.0
    var referenceDipScale = 1.0
    var magKnot: [Vector3] = []
    /// Rest flags.
    var rest: [Bool] = []

    // MARK: Knots and states

    /// Sample index of each knot; knot `k` stands for samples `knots[k] ..< knots[k + 1]`.
    var knots: [Int] = []
    /// Attitude, bias and horizontal velocity at each knot.
    var q: [Quaternion] = []
    var b: [Vector3] = []
    var v: [SIMD2<Double>] = []
    /// Slowly varying error of the magnetic azimuth at each knot, rad.
    var d: [Double] = []
    /// The constants (border unknowns): the hard iron (reading units); with a magnetometer
    /// calibration also the symmetric soft iron `(w00, w11, w22, w01, w02, w12)` and the earth
    /// field's horizontal and downward components `(H, Z)` (reading units).
    var globals: [Double] = []
    /// Learnt field strength (reading units) and dip (rad), for the disturbance weights.
    var fieldNorm = Double.nan
    var fieldDip = Double.nan
    /// Whether the reference field is kept as set (learnt at rest) rather than re-learnt.
    var fieldReferenceFixed = false
    /// Robust weights: accelerometer per knot interval, magnetometer per sample.
    var accWeight: [Double] = []
    /// Robust weight of each knot's gravity-direction factor.
    var gravityWeight: [Double] = []
    var magWeight: [Float] = []

    /// Gaussian prior on the first knot (and the constants).
    struct Prior {
        var attitude: Quaternion
        var bias: Vector3
        var velocity: SIMD2<Double>
        var disturbance: Double
        var globals: [Double]
        /// Information over (θ, b, v, d, constants).
        var information: Matrix
    }
    var prior: Prior?

    // MARK: Configuration

    let parameters: BatchAttitudeEstimator.Parameters
    let useMagnetometer: Bool
    let estimateHardIron: Bool
    /// Full magnetometer calibration: hard and soft iron with a full-vector field factor.
    let calibrating: Bool
    var borderWidth: Int { calibrating ? 11 : (estimateHardIron ? 3 : 0) }

    init(parameters: BatchAttitudeEstimator.Parameters, useMagnetometer: Bool, calibrating: Bool) {
        self.parameters = parameters
        self.useMagnetometer = useMagnetometer
        self.calibrating = useMagnetometer && calibrating
        estimateHardIron = useMagnetometer && (parameters.estimateHardIron || self.calibrating)
        globals = [Double](repeating: 0, count: self.calibrating ? 11 : (estimateHardIron ? 3 : 0))
        if self.calibrating {
            globals[3] = 1
            globals[4] = 1
            globals[5] = 1
        }
    }

    /// The hard iron (zero when not estimated).
    var hardIron: Vector3 { globals.count >= 3 ? Vector3(globals[0], globals[1], globals[2]) : .zero }
    /// The soft iron (identity when not estimated).
    var softIron: Matrix3 {
        guard calibrating else { return .identity }
        let g = globals
        return Matrix3(Vector3(g[3], g[6], g[7]), Vector3(g[6], g[4], g[8]), Vector3(g[7], g[8], g[5]))
    }

    var sampleCount: Int { t.count }
    var knotCount: Int { knots.count }

    /// Sample range of knot `k`.
    @inline(__always)
    func range(_ k: Int) -> Range<Int> {
        knots[k]..<(k + 1 < knots.count ? knots[k + 1] : t.count)
    }

    // MARK: Preintegration

    /// Gyroscope integration from a knot with the knot's bias: `rotation` turns the current
    /// sample's frame into the knot's, `jacobian` is its derivative (right perturbation) with
    /// respect to the bias, `variance` the attitude noise accumulated over `duration`.
    struct Preintegration {
        var rotation = Matrix3.identity
        var quaternion = Quaternion.identity
        /// `Σ ΔR_j·dt_j` over the steps so far: with it the bias Jacobian is `−ΔRᵀ·sum` (the
        /// closed form of `J ← Eᵀ·J − Jr(φ)·dt` with `Jr ≈ I`, exact to the first order in the
        /// rotation per step), so no 3×3 product is needed per sample.
        var sum = Matrix3.zero
        var variance = 0.0
        var duration = 0.0

        /// The derivative of `rotation` (right perturbation) with respect to the bias.
        var jacobian: Matrix3 { (rotation.transposed * sum) * -1 }

        /// Integrates the bias-corrected rate `omega` over `dt`, adding `noise` (rad²/s) per second
        /// and `extra` (rad²).
        @inline(__always)
        mutating func advance(_ omega: Vector3, _ dt: Double, noise: Double, extra: Double) {
            guard dt > 0 else { return }
            quaternion = quaternion * Quaternion(rotationVector: omega * dt)
            rotation = Matrix3(quaternion)
            sum += rotation * dt
            variance += noise * dt + extra
            duration += dt
        }
    }

    /// Advances `pre` over the step ending at sample `i` with knot `k`'s bias.
    @inline(__always)
    func advance(_ pre: inout Preintegration, _ i: Int, bias: Vector3) {
        let dt = step[i]
        guard dt > 0 else { return }
        let omega = rate[i] - bias
        let s2 = parameters.rateScaleUncertainty * parameters.rateScaleUncertainty
        let n2 = parameters.gyroscopeNoise * parameters.gyroscopeNoise
        pre.advance(omega, dt, noise: n2 + s2 * omega.squaredNorm, extra: blind[i])
    }

    /// Time the sample stands for in sums over a knot (the step after it), s.
    @inline(__always)
    func weightTime(_ i: Int) -> Double { i + 1 < t.count ? step[i + 1] : 0 }
}
