import Foundation
import MotionFusion

/// Location and date options shared by `declination`, `replay` and `reconstruct`.
struct LocationOptions {
    var latitude: Double
    var longitude: Double
    var heightKm: Double
    var decimalYear: Double
    var dateText: String

    static let names: Set<String> = ["lat", "lon", "height-km", "date"]

    /// Parses `--lat/--lon [--height-km] [--date]`; nil when neither latitude nor longitude is given.
    static func parse(_ args: ParsedArguments) throws -> LocationOptions? {
        let lat = try args.double("lat")
        let lon = try args.double("lon")
        guard lat != nil || lon != nil else {
            if args.values["height-km"] != nil || args.values["date"] != nil {
                throw CommandLineError.usage("--height-km and --date need --lat and --lon")
            }
            return nil
        }
        guard let lat, let lon else { throw CommandLineError.usage("give both --lat and --lon (degrees)") }
        guard (-90...90).contains(lat) else {
            throw CommandLineError.usage("--lat must be in [-90, 90] degrees, got \(lat)")
        }
        guard (-180...360).contains(lon) else {
            throw CommandLineError.usage("--lon must be in [-180, 360] degrees, got \(lon)")
        }
        let height = try args.double("height-km") ?? 0
        guard (-10...1000).contains(height) else { throw CommandLineError.usage("--height-km must be in [-10, 1000]") }
        var text = args.values["date"] ?? ""
        let year: Double
        if text.isEmpty {
            let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date())
            year = WorldMagneticModel.decimalYear(year: c.year!, month: c.month!, day: c.day!)!
            text = String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        } else {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard parts.count == 3,
                let y = WorldMagneticModel.decimalYear(year: parts[0], month: parts[1], day: parts[2])
            else {
                throw CommandLineError.usage("--date expects YYYY-MM-DD, got '\(text)'")
            }
            year = y
        }
        return LocationOptions(latitude: lat, longitude: lon, heightKm: height, decimalYear: year, dateText: text)
    }

    func evaluate() -> WorldMagneticModel.Result {
        WorldMagneticModel.wmm2025.evaluate(
            latitude: latitude, longitude: longitude, heightKm: heightKm, decimalYear: decimalYear)
    }
}

/// `motionfusion declination --lat DEG --lon DEG [--height-km KM] [--date YYYY-MM-DD] [--json]`.
enum DeclinationCommand {
    static let usage = "motionfusion declination --lat DEG --lon DEG [--height-km KM] [--date YYYY-MM-DD] [--json]"

    static func run(_ arguments: [String], _ output: ConsoleOutput) throws {
        let args = try ParsedArguments(arguments, valueOptions: LocationOptions.names, flagOptions: ["json"])
        guard args.positionals.isEmpty else {
            throw CommandLineError.usage("unexpected argument '\(args.positionals[0])'")
        }
        guard let location = try LocationOptions.parse(args) else {
            throw CommandLineError.usage("missing --lat and --lon")
        }
        let r = location.evaluate()
        for w in r.warnings { output.err("warning: \(w)\n") }
        let f = r.field
        if args.flags.contains("json") {
            var object: [String: Any] = [
                "model": WorldMagneticModel.wmm2025.name, "latitude_deg": location.latitude,
                "longitude_deg": location.longitude, "height_km": location.heightKm, "date": location.dateText,
                "decimal_year": location.decimalYear, "declination_deg": f.declination,
                "inclination_deg": f.inclination,
                "total_intensity_nt": f.totalIntensity, "horizontal_intensity_nt": f.horizontalIntensity, "x_nt": f.x,
                "y_nt": f.y, "z_nt": f.z, "declination_change_deg_per_year": r.declinationChange,
                "inclination_change_deg_per_year": r.inclinationChange, "warnings": r.warnings,
            ]
            if let gv = r.gridVariation { object["grid_variation_deg"] = gv }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            output.out(String(decoding: data, as: UTF8.self) + "\n")
            return
        }
        output.out(
            String(
                format: """
                    World Magnetic Model 2025 at %.4f°, %.4f°, %.3f km, %@ (%.3f)
                    declination          %8.3f°  (%+.3f°/yr, east positive)
                    inclination          %8.3f°  (%+.3f°/yr, down positive)
                    total intensity      %8.1f nT
                    horizontal intensity %8.1f nT
                    north X              %8.1f nT
                    east Y               %8.1f nT
                    down Z               %8.1f nT

                    """, location.latitude, location.longitude, location.heightKm, location.dateText,
                location.decimalYear,
                f.declination, r.declinationChange, f.inclination, r.inclinationChange, f.totalIntensity,
                f.horizontalIntensity,
                f.x, f.y, f.z))
        if let gv = r.gridVariation { output.out(String(format: "grid variation       %8.3f°\n", gv)) }
    }
}
