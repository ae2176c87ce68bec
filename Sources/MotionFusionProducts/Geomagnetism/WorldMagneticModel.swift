import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The World Magnetic Model: Earth's main magnetic field as a degree-12 spherical-harmonic
/// expansion with linear secular variation (NOAA NCEI / BGS). Gives declination, inclination and
/// field strength anywhere near the Earth's surface, for true heading and for the expected field
/// a filter compares the magnetometer against.
public struct WorldMagneticModel: Sendable {
    /// The field at one place and time, in the local geodetic frame (X north, Y east, Z down).
    public struct Field: Sendable, Equatable {
        /// North component, nT.
        public var x: Double
        /// East component, nT.
        public var y: Double
        /// Down component, nT.
        public var z: Double
        /// Horizontal intensity, nT.
        public var horizontalIntensity: Double { (x * x + y * y).squareRoot() }
        /// Total intensity, nT.
        public var totalIntensity: Double { (x * x + y * y + z * z).squareRoot() }
        /// Inclination (dip), degrees, positive downward.
        public var inclination: Double { Double.atan2(z, horizontalIntensity).degrees }
        /// Declination, degrees, positive east of true north.
        public var declination: Double { Double.atan2(y, x).degrees }
        /// The field as an ENU vector in µT (for `KalmanFilter.Parameters.expectedFieldNorm` and dip).
        public var enuMicrotesla: Vector3 { Vector3(y, x, -z) * 0.001 }
    }

    /// A full evaluation: the field, its yearly change, grid variation and warnings.
    public struct Result: Sendable {
        /// The field.
        public var field: Field
        /// Secular variation: the change of X, Y, Z per year, nT/yr.
        public var secularVariation: Field
        /// Yearly change of declination and inclination, degrees/yr.
        public var declinationChange: Double, inclinationChange: Double
        /// Grid variation (declination relative to grid north of the polar stereographic grid),
        /// degrees, defined for latitudes beyond ±55°, else nil.
        public var gridVariation: Double?
        /// Validity warnings: dates outside the model span, the blackout and caution zones near the
        /// magnetic poles where the horizontal field is weak and compasses are unreliable.
        public var warnings: [String]
    }

    /// Model epoch, decimal year.
    public let epoch: Double
    /// Model name, e.g. `WMM-2025`.
    public let name: String
    /// Maximum degree.
    public let degree: Int
    // Coefficients indexed [n][m], nT and nT/yr.
    let g: [[Double]], h: [[Double]], gDot: [[Double]], hDot: [[Double]]

    /// A failure reading a coefficient file.
    public struct FormatError: Error, CustomStringConvertible {
        /// What is wrong and where.
        public var description: String
    }

    /// The World Magnetic Model 2025 (valid 2025.0–2030.0), from the embedded coefficients.
    public static let wmm2025: WorldMagneticModel = try! WorldMagneticModel(cof: wmm2025Coefficients)

    /// Parses NOAA's `.COF` format: a header line `epoch name date`, then `n m g h gdot hdot`
    /// lines, ended by a line of 9s.
    public init(cof text: String) throws {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard !lines.isEmpty else { throw FormatError(description: "empty coefficient file") }
        let header = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: true)
        guard header.count >= 2, let epoch = Double(header[0]) else {
            throw FormatError(description: "line 1: expected 'epoch name date'")
        }
        var rows = [(Int, Int, Double, Double, Double, Double)]()
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("9999") { break }
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 6, let n = Int(f[0]), let m = Int(f[1]), let gv = Double(f[2]), let hv = Double(f[3]),
                let gd = Double(f[4]), let hd = Double(f[5]), n >= 1, m >= 0, m <= n, n <= 100
            else {
                throw FormatError(description: "line \(i + 2): expected 'n m g h gdot hdot', got '\(line)'")
            }
            rows.append((n, m, gv, hv, gd, hd))
        }
        let degree = rows.map(\.0).max() ?? 0
        guard degree > 0 else { throw FormatError(description: "no coefficients") }
        var g = Array(repeating: Array(repeating: 0.0, count: degree + 1), count: degree + 1)
        var h = g
        var gDot = g
        var hDot = g
        for (n, m, gv, hv, gd, hd) in rows {
            g[n][m] = gv
            h[n][m] = hv
            gDot[n][m] = gd
            hDot[n][m] = hd
        }
        self.epoch = epoch
        self.name = String(header[1])
        self.degree = degree
        self.g = g
        self.h = h
        self.gDot = gDot
        self.hDot = hDot
    }

    // WGS 84 ellipsoid and the model's reference radius, km.
    static let semiMajorAxis = 6378.137
    static let flattening = 1 / 298.257223563
    static let referenceRadius = 6371.2

    /// The field at geodetic `latitude`, `longitude` (degrees), `height` above the WGS 84 ellipsoid
    /// (km) and `date` (decimal year).
    public func evaluate(latitude: Double, longitude: Double, heightKm: Double = 0, decimalYear: Double) -> Result {
        let e2 = Self.flattening * (2 - Self.flattening)
        let phi = latitude.radians
        let lambda = longitude.radians
        let sinPhi = phi.sin
        let cosPhi = phi.cos
        // Geodetic to geocentric spherical coordinates.
        let rc = Self.semiMajorAxis / (1 - e2 * sinPhi * sinPhi).squareRoot()
        let p = (rc + heightKm) * cosPhi
        let zc = (rc * (1 - e2) + heightKm) * sinPhi
        let r = (p * p + zc * zc).squareRoot()
        let phiC = Glibc.asin(zc / r)
        let dt = decimalYear - epoch
        let (main, change) = sphericalField(r: r, phiC: phiC, lambda: lambda, dt: dt)
        // Rotate from geocentric to geodetic components.
        let psi = phiC - phi
        func geodetic(_ f: (Double, Double, Double)) -> Field {
            Field(x: f.0 * psi.cos - f.2 * psi.sin, y: f.1, z: f.0 * psi.sin + f.2 * psi.cos)
        }
        let field = geodetic(main)
        let sv = geodetic(change)
        let hI = field.horizontalIntensity
        let f2 = field.totalIntensity * field.totalIntensity
        let declinationChange = (field.x * sv.y - field.y * sv.x) / (hI * hI) * (180 / .pi)
        let hDot = (field.x * sv.x + field.y * sv.y) / hI
        let inclinationChange = (hI * sv.z - field.z * hDot) / f2 * (180 / .pi)
        var grid: Double?
        if latitude > 55 {
            grid = (field.declination - longitude).wrappedTo180
        } else if latitude < -55 {
            grid = (field.declination + longitude).wrappedTo180
        }
        var warnings = [String]()
        if decimalYear < epoch || decimalYear > epoch + 5 {
            warnings.append(
                String(
                    printf: "date %.3f is outside the model's validity (%.1f to %.1f)", decimalYear, epoch, epoch + 5))
        }
        if hI < 2000 {
            warnings.append(
                String(
                    printf:
                        "horizontal intensity %.0f nT is below 2000 nT: blackout zone, compass headings are unreliable",
                    hI))
        } else if hI < 6000 {
            warnings.append(
                String(
                    printf:
                        "horizontal intensity %.0f nT is below 6000 nT: caution zone, compass headings may be degraded",
                    hI))
        }
        return Result(
            field: field, secularVariation: sv, declinationChange: declinationChange,
            inclinationChange: inclinationChange,
            gridVariation: grid, warnings: warnings)
    }

    /// Field and its yearly change in geocentric spherical components (north, east, down), nT.
    func sphericalField(r: Double, phiC: Double, lambda: Double, dt: Double) -> (
        (Double, Double, Double), (Double, Double, Double)
    ) {
        let n = degree
        let x = phiC.sin
        let c = phiC.cos
        // Schmidt semi-normalised associated Legendre functions of sin(φ') and their φ' derivatives.
        var pnm = Array(repeating: Array(repeating: 0.0, count: n + 1), count: n + 1)
        var dpnm = pnm
        pnm[0][0] = 1
        for k in 1...n {
            // Diagonal.
            if k == 1 {
                pnm[1][1] = c
                dpnm[1][1] = -x
            } else {
                let s = Double(2 * k - 1) / Double(2 * k)
                let f = s.squareRoot()
                pnm[k][k] = f * c * pnm[k - 1][k - 1]
                dpnm[k][k] = f * (c * dpnm[k - 1][k - 1] - x * pnm[k - 1][k - 1])
            }
            for m in 0..<k {
                let a = Double(2 * k - 1)
                let b = (Double(k - 1 + m) * Double(k - 1 - m)).squareRoot()
                let d = (Double(k * k - m * m)).squareRoot()
                let p2 = k >= 2 ? pnm[k - 2][m] : 0
                let dp2 = k >= 2 ? dpnm[k - 2][m] : 0
                pnm[k][m] = (a * x * pnm[k - 1][m] - b * p2) / d
                dpnm[k][m] = (a * (c * pnm[k - 1][m] + x * dpnm[k - 1][m]) - b * dp2) / d
            }
        }
        var bx = 0.0, by = 0.0, bz = 0.0
        var sx = 0.0, sy = 0.0, sz = 0.0
        let ratio = Self.referenceRadius / r
        var power = ratio * ratio
        let cosPhiC = max(abs(c), 1e-12)
        for k in 1...n {
            power *= ratio  // (a/r)^(k+2)
            for m in 0...k {
                let cm = (Double(m) * lambda).cos
                let sm = (Double(m) * lambda).sin
                let gt = g[k][m] + gDot[k][m] * dt
                let ht = h[k][m] + hDot[k][m] * dt
                let gd = gDot[k][m]
                let hd = hDot[k][m]
                bx -= power * (gt * cm + ht * sm) * dpnm[k][m]
                by += power * Double(m) * (gt * sm - ht * cm) * pnm[k][m] / cosPhiC
                bz -= power * Double(k + 1) * (gt * cm + ht * sm) * pnm[k][m]
                sx -= power * (gd * cm + hd * sm) * dpnm[k][m]
                sy += power * Double(m) * (gd * sm - hd * cm) * pnm[k][m] / cosPhiC
                sz -= power * Double(k + 1) * (gd * cm + hd * sm) * pnm[k][m]
            }
        }
        return ((bx, by, bz), (sx, sy, sz))
    }

    /// The decimal year of a calendar date: year + (day of year − 1) / days in the year.
    public static func decimalYear(year: Int, month: Int, day: Int) -> Double? {
        guard (1...12).contains(month), day >= 1 else { return nil }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard day <= lengths[month - 1] else { return nil }
        let dayOfYear = lengths.prefix(month - 1).reduce(0, +) + day
        return Double(year) + Double(dayOfYear - 1) / Double(leap ? 366 : 365)
    }
}

extension Double {
    /// `self` (degrees) wrapped into (−180, 180].
    var wrappedTo180: Double {
        var a = self.truncatingRemainder(dividingBy: 360)
        if a > 180 { a -= 360 } else if a <= -180 { a += 360 }
        return a
    }
}
