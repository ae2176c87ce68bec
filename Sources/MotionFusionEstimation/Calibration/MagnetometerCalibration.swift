import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Hard- and soft-iron magnetometer calibration by a robust ellipsoid (quadric) fit.
///
/// Raw readings of a rotating magnetometer lie on an ellipsoid `(m − h)ᵀ A (m − h) = 1`. The fit
/// solves the general quadric `xᵀQx + pᵀx = 1` by linear least squares (LAPACK `dgels`), with
/// iteratively reweighted passes that down-weight outliers (magnetic disturbances), then recovers
/// the hard-iron offset `h` (µT) and the symmetric soft-iron matrix `W` with
/// `calibrated = W · (raw − h)`, `|calibrated|` equal to the fitted field strength and
/// `det W = 1` (the soft-iron matrix changes the shape, the field strength carries the scale).
public struct MagnetometerCalibration: Sendable, Equatable {
    /// Hard-iron offset, µT.
    public var hardIron: Vector3
    /// Soft-iron matrix (symmetric, determinant 1).
    public var softIron: Matrix3
    /// Fitted field strength, µT.
    public var fieldStrength: Double
    /// RMS of `|calibrated| − fieldStrength` over the inliers, µT.
    public var residual: Double
    /// How well the calibrated field directions cover the sphere: three times the smallest
    /// eigenvalue of their scatter matrix `mean(u uᵀ)` — 1 for directions spread evenly over the
    /// sphere, about 0.3 for turns about one axis (a cone), 0 for a plane or a single direction.
    public var coverage: Double
    /// Samples used (inliers) and offered.
    public var samplesUsed: Int, samplesOffered: Int

    /// Creates a calibration.
    public init(
        hardIron: Vector3, softIron: Matrix3, fieldStrength: Double, residual: Double, coverage: Double,
        samplesUsed: Int, samplesOffered: Int
    ) {
        self.hardIron = hardIron
        self.softIron = softIron
        self.fieldStrength = fieldStrength
        self.residual = residual
        self.coverage = coverage
        self.samplesUsed = samplesUsed
        self.samplesOffered = samplesOffered
    }

    /// Applies the calibration to a raw reading.
    @inlinable
    public func apply(_ raw: Vector3) -> Vector3 { softIron * (raw - hardIron) }

    /// Why a fit was refused, with what to do about it.
    public enum FitError: Error, Equatable, CustomStringConvertible {
        /// Too few readings.
        case tooFewSamples(Int)
        /// The field directions do not cover the sphere well enough to determine an ellipsoid:
        /// the coverage, and the angle the directions span, degrees.
        case insufficientCoverage(coverage: Double, spanDegrees: Double)
        /// The quadric is not an ellipsoid (a degenerate or noisy recording).
        case notAnEllipsoid
        /// The fitted field strength is not plausible: the strength, and why.
        case implausibleStrength(Double, String)
        /// The readings scatter too much around the fitted sphere (relative RMS residual).
        case residualTooLarge(Double)

        public var description: String {
            switch self {
            case .tooFewSamples(let n):
                return
                    "magnetometer calibration needs at least \(MagnetometerCalibration.minimumSamples) readings, got \(n)"
            case .insufficientCoverage(let c, let span):
                // A wide span with low coverage is a turn about one axis (a circle of directions).
                let shape =
                    span >= 180
                    ? "directions on a band around one axis: the device turned about one axis only"
                    : String(printf: "directions within %.0f° of each other", span)
                return String(
                    printf:
                        "the field directions cover the sphere too little to fit an ellipsoid (coverage %.0f%%, %@; %.0f%% is needed): rotate the device slowly through all orientations — face up, on each edge, face down — and record again",
                    c * 100, shape, MagnetometerCalibration.minimumCoverage * 100)
            case .notAnEllipsoid:
                return
                    "magnetometer readings do not fit an ellipsoid: too little rotation, or strong disturbances; rotate the device through all orientations away from metal and magnets"
            case .implausibleStrength(let r, let why):
                return String(printf: "the fitted field strength %.3g is implausible: %@", r, why)
            case .residualTooLarge(let rel):
                return String(
                    printf:
                        "the readings scatter %.0f%% around the fitted sphere: magnetic disturbances during the recording? record again away from metal, magnets and electronics",
                    rel * 100)
            }
        }
    }

    /// Fewest readings a fit accepts.
    public static let minimumSamples = 50
    /// Smallest ``coverage`` a fit accepts.
    public static let minimumCoverage = 0.4
    /// Largest RMS residual relative to the field strength a fit accepts.
    public static let maximumRelativeResidual = 0.1
    /// Field strengths accepted in µT (Earth's 22–67 µT with room for buildings).
    public static let plausibleStrength: ClosedRange<Double> = 10...150

    /// Coverage (see ``coverage``) of a set of directions, and the angle they span around their
    /// mean direction, degrees.
    public static func directionCoverage(_ vectors: [Vector3]) -> (coverage: Double, spanDegrees: Double) {
        var scatter = Matrix3.zero
        var mean = Vector3.zero
        var n = 0.0
        for v in vectors {
            guard let u = v.normalized else { continue }
            scatter += Matrix3.outer(u, u)
            mean += u
            n += 1
        }
        guard n > 0 else { return (0, 0) }
        scatter = scatter * (1 / n)
        let smallest = SymmetricEigen3.eigenvalues(scatter).min() ?? 0
        var span = 360.0
        if let m = mean.normalized {
            var widest = 0.0
            for v in vectors { if let u = v.normalized { widest = max(widest, u.dot(m).acosClamped) } }
            span = min(360, 2 * widest.degrees)
        }
        return (max(0, 3 * smallest), span)
    }
}

/// Eigenvalues of a symmetric 3×3 matrix in closed form (trigonometric solution of the
/// characteristic cubic).
public enum SymmetricEigen3 {
    /// The three eigenvalues, ascending.
    public static func eigenvalues(_ a: Matrix3) -> [Double] {
        let p1 = a.row0.y * a.row0.y + a.row0.z * a.row0.z + a.row1.z * a.row1.z
        let q = a.trace / 3
        if p1 < 1e-30 { return [a.row0.x, a.row1.y, a.row2.z].sorted() }
        let p2 =
            (a.row0.x - q) * (a.row0.x - q) + (a.row1.y - q) * (a.row1.y - q) + (a.row2.z - q) * (a.row2.z - q) + 2 * p1
        let p = (p2 / 6).squareRoot()
        let b = (a - Matrix3.diagonal(q)) * (1 / p)
        let r = max(-1, min(1, b.determinant / 2))
        let phi = r.acosClamped / 3
        let e1 = q + 2 * p * phi.cos
        let e3 = q + 2 * p * (phi + 2 * .pi / 3).cos
        return [e3, 3 * q - e1 - e3, e1].sorted()
    }
}
