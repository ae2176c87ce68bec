import Foundation
import MotionFusion

/// The settings of `declination`.
struct DeclinationSettings {
    var latitude: Double?, longitude: Double?, heightKm: Double?, date: String?
    var json = false
}

/// `motionfusion declination`: the World Magnetic Model at a place and date.
enum DeclinationCommand {
    static let command = Command<DeclinationSettings>(
        name: "declination", summary: "Declination, inclination and field strength from the World Magnetic Model",
        arguments: [],
        options: [
            .number("lat", value: "DEG", "latitude, degrees north", \.latitude, in: -90...90),
            .number("lon", value: "DEG", "longitude, degrees east", \.longitude, in: -180...360),
            .number(
                "height-km", value: "KM", "height above the WGS-84 ellipsoid (default 0)", \.heightKm, in: -10...1000),
            .text("date", value: "YYYY-MM-DD", "date (default today)", \.date),
            .flag("json", "print the result as JSON", \.json),
        ],
        initial: DeclinationSettings(),
        finish: { s, positionals in
            try expectArguments(positionals, [])
            guard s.latitude != nil, s.longitude != nil else { throw CommandLineError.usage("missing --lat and --lon") }
        },
        run: run)

    static func run(_ s: DeclinationSettings, _ output: ConsoleOutput) throws {
        guard
            let location = try LocationOptions.from(
                latitude: s.latitude, longitude: s.longitude, heightKm: s.heightKm, date: s.date)
        else { throw CommandLineError.usage("missing --lat and --lon") }
        let r = location.evaluate()
        for w in r.warnings { output.err("warning: \(w)\n") }
        let f = r.field
        if s.json {
            var object: [String: JSONValue] = [
                "model": .string(WorldMagneticModel.wmm2025.name), "latitude_deg": .number(location.latitude),
                "longitude_deg": .number(location.longitude), "height_km": .number(location.heightKm),
                "date": .string(location.dateText), "decimal_year": .number(location.decimalYear),
                "declination_deg": .number(f.declination), "inclination_deg": .number(f.inclination),
                "total_intensity_nt": .number(f.totalIntensity),
                "horizontal_intensity_nt": .number(f.horizontalIntensity),
                "x_nt": .number(f.x), "y_nt": .number(f.y), "z_nt": .number(f.z),
                "declination_change_deg_per_year": .number(r.declinationChange),
                "inclination_change_deg_per_year": .number(r.inclinationChange),
                "warnings": .array(r.warnings.map { .string($0) }),
            ]
            if let gv = r.gridVariation { object["grid_variation_deg"] = .number(gv) }
            output.out(JSONValue.object(object).text + "\n")
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
                f.horizontalIntensity, f.x, f.y, f.z))
        if let gv = r.gridVariation { output.out(String(format: "grid variation       %8.3f°\n", gv)) }
    }
}
