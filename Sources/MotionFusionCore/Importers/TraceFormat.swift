import Foundation

/// The recording formats MotionFusion reads, and detection from headers and folder layouts.
public enum TraceFormat: String, CaseIterable, Sendable {
    /// MotionFusion's native CSV (the BROAD layout).
    case native
    /// EuRoC / ASL folder (`mav0/imu0/data.csv`, ground truth from `state_groundtruth_estimate0`).
    case euroc
    /// x-io Fusion example CSV (`Time (s),Gyroscope X (deg/s),…`).
    case xioFusion = "xio-fusion"
    /// x-IMU3 GUI log folder (`Inertial.csv`, `Magnetometer.csv`).
    case ximu3 = "x-imu3"
    /// phyphox per-sensor CSV export folder.
    case phyphox
    /// Sensor Logger per-sensor CSV folder.
    case sensorLogger = "sensor-logger"

    /// Reads the trace at `path` (file or folder) in `format`, or detects the format when `nil`.
    public static func load(path: String, format: TraceFormat? = nil) throws -> Trace {
        let f = try format ?? detect(path: path)
        var trace: Trace
        switch f {
        case .native: return try Trace.readNative(path: path)
        case .euroc: trace = try EuRoCImporter.load(path: path)
        case .xioFusion: trace = try XioFusionImporter.load(path: path)
        case .ximu3: trace = try XIMU3Importer.load(path: path)
        case .phyphox: trace = try PhyphoxImporter.load(path: path)
        case .sensorLogger: trace = try SensorLoggerImporter.load(path: path)
        }
        trace.format = f.rawValue
        trace.warnings += UnitCheck.check(trace)
        return trace
    }

    /// First line of a file (without BOM and line ending), or nil.
    static func firstLine(_ path: String) -> String? {
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        let data = h.readData(ofLength: 4096)
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }).first.map(String.init)
    }

    static func isDirectory(_ path: String) -> Bool {
        var dir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &dir) && dir.boolValue
    }

    static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }

    /// Detects the format of a file or folder from its header lines and layout.
    public static func detect(path: String) throws -> TraceFormat {
        let here = SourceLocation(file: path, line: 0, column: 0)
        guard FileManager.default.fileExists(atPath: path) else {
            throw TraceError(.unreadable, here, "no such file or folder")
        }
        if isDirectory(path) {
            if EuRoCImporter.imuFile(in: path) != nil { return .euroc }
            if FileManager.default.fileExists(atPath: join(path, "Inertial.csv")) { return .ximu3 }
            for name in ["Accelerometer.csv", "Gyroscope.csv", "Magnetometer.csv"] {
                let p = join(path, name)
                guard let header = firstLine(p) else { continue }
                if header.hasPrefix("time,seconds_elapsed") { return .sensorLogger }
                if header.hasPrefix("\"Time (s)\"") || header.hasPrefix("Time (s),\"") || header.contains("\"X (") {
                    return .phyphox
                }
            }
            throw TraceError(
                .unknownFormat, here,
                "folder holds no recognised recording (expected EuRoC mav0/imu0/data.csv, x-IMU3 Inertial.csv, or phyphox / Sensor Logger Accelerometer.csv)"
            )
        }
        guard let header = firstLine(path) else {
            throw TraceError(
                .empty, SourceLocation(file: path, line: 1, column: 0), "file is empty; expected a header line")
        }
        let lower = header.lowercased()
        if lower.hasPrefix("#timestamp") && lower.contains("w_rs_s_x") { return .euroc }
        if lower.hasPrefix("time (s),gyroscope x (deg/s)") { return .xioFusion }
        if lower.hasPrefix("timestamp (us),gyroscope x") { return .ximu3 }
        if lower.hasPrefix("time,seconds_elapsed") { return .sensorLogger }
        if lower.hasPrefix("\"time (s)\"") { return .phyphox }
        let cols = Set(
            lower.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")) })
        if cols.contains("t") || cols.contains("gyr_x") || cols.contains("acc_x") || cols.contains("mag_x") {
            return .native
        }
        throw TraceError(
            .unknownFormat, SourceLocation(file: path, line: 1, column: 1),
            "unrecognised header '\(header.prefix(80))'; expected the native header (t,gyr_x,…) or a supported format (\(TraceFormat.allCases.map(\.rawValue).joined(separator: ", "))); pass --format NAME"
        )
    }
}
