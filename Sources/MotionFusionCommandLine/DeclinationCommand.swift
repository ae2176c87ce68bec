import Glibc
import MotionFusion
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The settings of `declination`.
struct DeclinationSettings {
    var location = LocationSettings()
    /// The place and date, resolved once the options are read.
    var place: LocationOptions?
    var json = false
}

/// `motionfusion declination`: the World Magnetic Model at a place and date.
enum DeclinationCommand {
    static let command = Command<DeclinationSettings>(
        name: "declination", summary: "Declination, inclination and field strength from the World Magnetic Model",
        arguments: [],
        options: LocationSettings.options.map { $0.lifted(\.location) } + [
            .flag("json", "print the result as JSON", \.json)
        ],
        initial: DeclinationSettings(),
        finish: { s, positionals in
            try expectArguments(positionals, [])
            guard s.location.latitude != nil || s.location.longitude != nil else {
                throw CommandLineError.usage("missing --lat and --lon")
            }
            s.place = try s.location.resolved()
        },
        run: run)

    static func run(_ s: DeclinationSettings, _ output: ConsoleOutput) throws {
        let location = s.place!  // set by `finish`
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
                printf: """
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
        if let gv = r.gridVariation { output.out(String(printf: "grid variation       %8.3f°\n", gv)) }
    }
}
