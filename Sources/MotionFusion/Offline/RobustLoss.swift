/// Robust losses for iteratively reweighted least squares: each returns the weight `ρ′(u)/u` of a
/// residual `u` already divided by the loss's scale, so that a weighted least-squares step with
/// these weights minimises the robust cost.
public enum RobustLoss: String, CaseIterable, Sendable, Codable {
    /// Plain least squares: every weight 1.
    case quadratic
    /// Huber: quadratic up to the scale, linear beyond (weight `1/|u|` past 1).
    case huber
    /// Cauchy (Lorentzian): `ρ(u) = ½ log(1 + u²)`, weight `1/(1 + u²)`; gross outliers fade out.
    case cauchy

    /// The IRLS weight of a scaled residual whose square is `u2`.
    @inlinable
    public func weight(squaredScaledResidual u2: Double) -> Double {
        guard u2.isFinite else { return 0 }
        switch self {
        case .quadratic: return 1
        case .huber: return u2 <= 1 ? 1 : 1 / u2.squareRoot()
        case .cauchy: return 1 / (1 + u2)
        }
    }
}
