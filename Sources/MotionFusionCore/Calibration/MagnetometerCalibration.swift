import Foundation

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
    /// Fraction of 26 evenly spread directions that the calibrated readings come close to
    /// (within 35°): 1 for a full tumble, about 0.3 for a rotation in one plane.
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

    /// Why a fit was refused.
    public enum FitError: Error, Equatable, CustomStringConvertible {
        /// Too few readings.
        case tooFewSamples(Int)
        /// The readings do not cover enough directions to determine an ellipsoid.
        case insufficientCoverage(Double)
        /// The quadric is not an ellipsoid (a degenerate or noisy recording).
        case notAnEllipsoid

        public var description: String {
            switch self {
            case .tooFewSamples(let n):
                return "magnetometer calibration needs at least 50 readings, got \(n)"
            case .insufficientCoverage(let c):
                return String(
                    format:
                        "magnetometer readings cover only %.0f%% of directions (a rotation in one plane?): an ellipsoid cannot be fitted reliably; turn the device through all orientations",
                    c * 100)
            case .notAnEllipsoid:
                return "magnetometer readings do not fit an ellipsoid (strong disturbances or too little rotation)"
            }
        }
    }

    /// The 26 directions of a cube's faces, edges and corners.
    static let directions: [Vector3] = {
        var d = [Vector3]()
        for x in -1...1 {
            for y in -1...1 {
                for z in -1...1 where x != 0 || y != 0 || z != 0 {
                    d.append(Vector3(Double(x), Double(y), Double(z)).normalized!)
                }
            }
        }
        return d
    }()

    /// Fraction of the 26 directions that some reading lies within 35° of.
    public static func directionCoverage(_ vectors: [Vector3]) -> Double {
        var hit = [Bool](repeating: false, count: directions.count)
        let limit = 35.0.radians.cos
        for v in vectors {
            guard let u = v.normalized else { continue }
            for (i, d) in directions.enumerated() where !hit[i] && u.dot(d) >= limit { hit[i] = true }
        }
        return Double(hit.filter { $0 }.count) / Double(directions.count)
    }
}
