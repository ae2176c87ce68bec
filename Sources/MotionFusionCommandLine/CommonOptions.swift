import Glibc
import MotionFusion

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How input traces are read: the options of every command that reads a trace.
struct InputSettings {
    var format: TraceFormat?
    var read = DelimitedReadOptions()

    static let options: [Option<InputSettings>] = [
        .choice(
            "format",
            "recording format; detected from the header, the folder layout or the .zip contents when omitted",
            \.format),
        Option(
            "columns", value: "KEY=COL,…",
            "read any delimited file: t, gyr, acc, mag (x column; y and z follow), gt (quaternion w first) or moving, each a 1-based column number or a header name, e.g. t=1,acc=6,gyr=9,mag=12"
        ) { s, v in s.read.columns = v },
        Option(
            "units", value: "KEY=UNIT,…",
            "units of the file, over the header's hints and the units its readings prove: gyr=rad/s|deg/s|mdps, acc=m/s2|g|mg, mag=uT|gauss|mgauss|nT|mT|T|au, t=s|ms|us|ns|count (a sample counter; needs --sample-rate), each optionally after a scale for raw counts, e.g. gyr=0.0625deg/s, and acc after a minus sign for accelerations written opposite to the specific force, as iOS does: acc=-g (default SI)"
        ) { s, v in
            var check = SensorUnits()
            try check.set(spec: v)
            s.read.units = v
        },
        Option(
            "remap", value: "AXES",
            "axis remap (a proper rotation) applied to every sensor, e.g. x,-z,y or +X-Z+Y (body x, y, z from the raw axes), or per sensor: mag=+Y+X-Z, acc=x,-z,y,mag=-y,-x,-z (a leading remap without a key applies to the sensors not named)"
        ) {
            s, v in
            s.read.remap = try SensorRemap(spec: v)
        },
        Option(
            "header-rows", value: "N",
            "lines before the data, the first naming the columns (default: 1, or 2 when the second gives units or completes sensor headings; 0 needs --columns)"
        ) {
            s, v in
            s.read.headerRows = try parseCount("header-rows", v, in: 0...1000)
        },
        Option(
            "skip-lines", value: "N",
            "lines skipped before the header (default: comments, metadata and a sep= line before it are detected)"
        ) {
            s, v in
            s.read.skipLines = try parseCount("skip-lines", v, in: 0...1_000_000)
        },
        Option(
            "sample-rate", value: "HZ",
            "the rate of rows without a time column (row k at k/HZ s), or of a sample counter read as time (--units t=count)"
        ) {
            s, v in
            s.read.sampleRate = try parseNumber("sample-rate", v, in: 1e-3...1e7)
        },
        Option(
            "delimiter", value: TextDialect.separatorNames.joined(separator: "|"),
            "field separator (detected when omitted, as is a decimal comma)"
        ) {
            s, v in
            guard let sep = TextDialect.separator(named: v) else {
                throw CommandLineError.usage(
                    "--delimiter must be one of \(TextDialect.separatorNames.joined(separator: ", ")); got '\(v.escapedForMessage)'"
                )
            }
            s.read.separator = sep
        },
        Option(
            "strict", value: nil,
            "refuse value faults (NaN or infinite axes, values beyond any sensor's range, repeated or backward time) instead of treating the sample as missing"
        ) { s, _ in s.read.strict = true },
    ]

    /// Opens `path` for a command that reads one trace, refusing a folder of traces (which would
    /// otherwise be said to hold no recognised recording) with the count, one of them, and the
    /// command run on that one: `motionfusion command TRACE arguments…`.
    func openOne(_ path: String, command: String, arguments: [String] = []) throws -> SampleReader {
        var folder = false
        if format == nil, FileManager.default.fileExists(atPath: path, isDirectory: &folder), folder,
            (try? TraceFormat.detect(path: path)) == nil,
            let traces = try? TraceInputs.expand(path, format: nil), let first = traces.first
        {
            let count = traces.count == 1 ? "one trace" : "\(traces.count) traces"
            let example = (["motionfusion", command, first] + arguments).map(\.shellWord).joined(separator: " ")
            throw CommandLineError.input(
                "\(path.escapedForMessage): \(command) reads one trace at a time, and this folder holds \(count) (such as \(PathText.name(first).escapedForMessage)): run it on each file, e.g. \(example)"
            )
        }
        return try open(path, command: command, arguments: arguments)
    }

    /// Opens `path` for streaming, turning read errors into command-line errors. A file named for
    /// one sensor whose columns are not a trace's (Sensor Logger's `Gyroscope.csv`: `time,
    /// seconds_elapsed,z,y,x`) is said to be one sensor's file of the recording its folder holds,
    /// with the command that reads the folder: `motionfusion command FOLDER arguments…` (the
    /// folder alone without a `command`).
    func open(_ path: String, command: String? = nil, arguments: [String] = []) throws -> SampleReader {
        do {
            return try TraceFormat.open(path: path, format: format, options: read)
        } catch let e as TraceError where e.kind == .missingColumn && format == nil {
            var failure = CommandLineError.from(e)
            if let names = TraceFormat.headerNames(path: path), ColumnLayout.namesAnAttitude(names) {
                // Not a file whose sensor columns went unnamed: no --columns to choose.
                failure.message =
                    "\(e.location): its columns (\(names.map { $0.escapedForMessage }.joined(separator: ","))) are an orientation (an app's own attitude: a quaternion, or roll, pitch and yaw), not sensor readings"
                if let r = TraceFormat.recording(besides: path) {
                    let example =
                        command.map { c in
                            (["motionfusion", c, r.folder] + arguments).map(\.shellWord).joined(separator: " ")
                        } ?? "'\(r.folder.escapedForMessage)'"
                    failure.message +=
                        "; its folder is a recording of the sensors (\(r.format.rawValue)), read when the folder is passed, e.g. \(example)"
                }
            } else if let r = TraceFormat.recording(ofSensorFile: path) {
                var sensors = SensorKind.allCases.filter(r.sensors.contains).map(\.rawValue)
                if sensors.count > 1 { sensors[sensors.count - 1] = "and " + sensors[sensors.count - 1] }
                let example =
                    command.map { c in
                        "e.g. " + (["motionfusion", c, r.folder] + arguments).map(\.shellWord).joined(separator: " ")
                    } ?? "'\(r.folder.escapedForMessage)'"
                failure.message +=
                    "; \(PathText.name(path).escapedForMessage) is one sensor's file of a per-sensor recording: its folder is a recording (\(r.format.rawValue)) of the \(sensors.joined(separator: sensors.count > 2 ? ", " : " ")), read together when the folder is passed, \(example)"
            }
            throw failure
        } catch {
            throw CommandLineError.from(error)
        }
    }
}

extension String {
    /// The string as one word of a POSIX shell command: as it is when it holds only characters
    /// the shell leaves alone, else single-quoted.
    var shellWord: String {
        let plain =
            !isEmpty
            && unicodeScalars.allSatisfy { c in
                c.isASCII
                    && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "-_./:=,+@%".unicodeScalars.contains(c))
            }
        return plain
            ? self : "'" + split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}

/// How a trace is run: filter, mode, tuning, frame, north reference, calibration, output rate.
struct RunSettings {
    var filter: FilterKind?
    var mode: FusionMode?
    var frame: EarthFrame?
    var rate: Double?
    var declination: Double?
    var location = LocationSettings()
    var calibrationPath: String?
    var lookAhead: Double?
    var parameters: String?
    /// The configuration built by ``build(batchParameters:)``.
    var configuration = RunConfiguration()
    /// `reconstruct`'s batch estimator tuning: the `--param` items named `batch.…`.
    var batch = BatchAttitudeEstimator.Parameters()
    /// Whether `--param` named any of them.
    var batchTuned = false
    /// World Magnetic Model validity warnings for the location and date.
    var modelWarnings: [String] = []

    /// The run options; `filters` adds `--filter` (reconstruct always runs the EKF).
    static func options(filters: Bool) -> [Option<RunSettings>] {
        var list = [Option<RunSettings>]()
        if filters {
            list.append(.choice("filter", "estimator (default ekf, the most accurate)", \.filter))
        }
        list += [
            .choice(
                "mode", "sensors fused: 6d (gyroscope and accelerometer) or 9d (with magnetometer; default)", \.mode),
            Option(
                "param", value: "NAME=VALUE,…",
                filters
                    ? "set filter parameters by name, in SI units, e.g. gyroscopeNoise=0.003 (see docs/Filters.md)"
                    : "set parameters by name, in SI units: the EKF's (the initialiser and the smoother), e.g. gyroscopeNoise=0.003 (docs/Filters.md), and the batch estimator's as batch.NAME, e.g. batch.knotInterval=0.05 (docs/Offline.md)"
            ) { s, v in s.parameters = v },
            .choice("frame", "earth frame of the written attitude and angles (default enu)", \.frame),
            .number(
                "rate", value: "HZ",
                "write estimates at this rate, interpolated from the per-sample "
                    + (filters ? "filter" : "reconstruction") + " (the row count then follows the duration)",
                \.rate, in: 0.001...100_000),
            .number(
                "declination", value: "DEG",
                "reference the written attitude and heading to true north, declination degrees east",
                \.declination, in: -180...180, conflicts: ["lat", "lon"]),
        ]
        list += LocationSettings.options.map { $0.lifted(\.location) }
        if filters {
            list.append(
                .number(
                    "look-ahead", value: "SECONDS",
                    "longest opening stretch of a file over which the magnetometer calibration the filter (ekf, complementary; 9d) starts with is decided, at most 40000 samples (default 120; 0: strictly sample by sample, as standard input and pipes always run)",
                    \.lookAhead, in: 0...3600))
        }
        list += [
            .text(
                "calibration", value: "CAL.json", "apply a sensor calibration written by `motionfusion calibrate`",
                \.calibrationPath)
        ]
        return list
    }

    /// Builds the run configuration from the options (and the calibration file); with
    /// `batchParameters` (`reconstruct`), the `--param` items named `batch.…` tune ``batch``.
    mutating func build(batchParameters: Bool) throws {
        var c = RunConfiguration(filter ?? .default, mode: nil)
        if let mode {
            guard c.filter.kind.modes.contains(mode) else {
                throw CommandLineError.usage(
                    "filter \(c.filter.kind.rawValue) supports only --mode \(c.filter.kind.modes.map(\.rawValue).joined(separator: "|"))"
                )
            }
            c.mode = mode
        }
        if let parameters {
            do {
                var filterParameters = parameters
                if batchParameters {
                    filterParameters = try batch.takeParameters(from: parameters)
                    batchTuned = filterParameters != parameters
                }
                try c.filter.setParameters(filterParameters)
            } catch {
                throw CommandLineError.usage("--param: \(error)")
            }
        }
        c.frame = frame ?? .enu
        c.outputRate = rate
        if let lookAhead { c.magnetometerLookAhead = lookAhead }
        c.declinationDegrees = declination
        if let place = try location.resolved() {
            let r = place.evaluate()
            c.declinationDegrees = r.field.declination
            c.filter.setExpectedField(ExpectedField(r.field))
            modelWarnings = r.warnings
        }
        if let path = calibrationPath {
            do {
                c.calibration = try SensorCalibration(contentsOf: path)
            } catch {
                throw CommandLineError.input("\(error)")
            }
        }
        configuration = c
    }
}

/// `--lat/--lon [--height-km] [--date]`: a place and date for the World Magnetic Model, declared
/// once for `declination`, `replay` and `reconstruct` (where `--declination` excludes them).
struct LocationSettings {
    var latitude: Double?, longitude: Double?, heightKm: Double?, date: String?

    static let options: [Option<LocationSettings>] = [
        .number(
            "lat", value: "DEG",
            "latitude, degrees north: the World Magnetic Model gives the declination (true north) and the expected field",
            \.latitude, in: -90...90),
        .number("lon", value: "DEG", "longitude, degrees east, with --lat", \.longitude, in: -180...360),
        .number(
            "height-km", value: "KM", "height above the WGS-84 ellipsoid, with --lat/--lon (default 0)", \.heightKm,
            in: -10...1000),
        .text(
            "date", value: "YYYY-MM-DD", "date for the World Magnetic Model, with --lat/--lon (default today)", \.date),
    ]

    /// The location; nil when neither latitude nor longitude is given.
    func resolved() throws -> LocationOptions? {
        guard latitude != nil || longitude != nil else {
            if heightKm != nil || date != nil {
                throw CommandLineError.usage("--height-km and --date need --lat and --lon")
            }
            return nil
        }
        guard let latitude, let longitude else { throw CommandLineError.usage("give both --lat and --lon (degrees)") }
        var text = date ?? ""
        let year: Double
        if text.isEmpty {
            // Today in UTC, from the clock alone (FoundationEssentials has no time-zone database).
            let c = DateTimeText.utcDate(secondsSince1970: Date().timeIntervalSince1970)
            year = WorldMagneticModel.decimalYear(year: c.year, month: c.month, day: c.day) ?? 2026
            text = String(printf: "%04d-%02d-%02d", c.year, c.month, c.day)
        } else {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 3, let y = parts[0], let m = parts[1], let d = parts[2],
                let decimal = WorldMagneticModel.decimalYear(year: y, month: m, day: d)
            else {
                throw CommandLineError.usage(
                    "--date expects a calendar date YYYY-MM-DD, got '\(text.escapedForMessage)'")
            }
            year = decimal
        }
        return LocationOptions(
            latitude: latitude, longitude: longitude, heightKm: heightKm ?? 0, decimalYear: year, dateText: text)
    }
}

/// A place and date resolved from ``LocationSettings``.
struct LocationOptions {
    var latitude: Double
    var longitude: Double
    var heightKm: Double
    var decimalYear: Double
    var dateText: String

    /// The World Magnetic Model there and then.
    func evaluate() -> WorldMagneticModel.Result {
        WorldMagneticModel.wmm2025.evaluate(
            latitude: latitude, longitude: longitude, heightKm: heightKm, decimalYear: decimalYear)
    }
}
