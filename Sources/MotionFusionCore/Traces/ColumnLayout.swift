import Foundation

/// Which columns of a delimited file hold time, each sensor's axes, ground truth and the moving
/// flag; in which units they are written; and how the sensor axes map onto the device's.
public struct ColumnLayout: Sendable, Equatable {
    /// A quantity read from a column.
    public enum Slot: Int, CaseIterable, Sendable {
        case gyroscopeX = 0, gyroscopeY, gyroscopeZ
        case accelerometerX, accelerometerY, accelerometerZ
        case magnetometerX, magnetometerY, magnetometerZ
        case truthW, truthX, truthY, truthZ
        case moving, time
    }

    /// Number of slots.
    public static let slotCount = Slot.allCases.count

    /// 0-based column of each slot present.
    public var columns: [Slot: Int] = [:]
    /// Units of time and of each sensor.
    public var units = SensorUnits()
    /// Axis remap applied to every sensor (body = remap(raw)). Default identity.
    public var remap = AxisRemap.identity

    /// An empty layout.
    public init() {}

    /// The slot fed by each column (-1 for none), for ``DelimitedRows/select(_:)``.
    public func slotsByColumn(count: Int) -> [Int] {
        var out = [Int](repeating: -1, count: count)
        for slot in Slot.allCases { if let c = columns[slot], c < count { out[c] = slot.rawValue } }
        return out
    }

    /// Whether the three columns of a sensor starting at `first` are all present.
    public func has(_ first: Slot) -> Bool {
        (0..<3).allSatisfy { columns[Slot(rawValue: first.rawValue + $0)!] != nil }
    }

    /// The native layout: columns named `t, gyr_x…, acc_x…, mag_x…, gt_qw…, moving` in any order.
    public static let nativeNames: [String: Slot] = [
        "t": .time, "gyr_x": .gyroscopeX, "gyr_y": .gyroscopeY, "gyr_z": .gyroscopeZ, "acc_x": .accelerometerX,
        "acc_y": .accelerometerY, "acc_z": .accelerometerZ, "mag_x": .magnetometerX, "mag_y": .magnetometerY,
        "mag_z": .magnetometerZ, "gt_qw": .truthW, "gt_qx": .truthX, "gt_qy": .truthY, "gt_qz": .truthZ,
        "moving": .moving,
    ]

    /// The sensor groups, their slots and the names used in messages and `--columns`.
    static let groups: [(key: String, label: String, slots: [Slot])] = [
        ("gyr", "gyroscope", [.gyroscopeX, .gyroscopeY, .gyroscopeZ]),
        ("acc", "accelerometer", [.accelerometerX, .accelerometerY, .accelerometerZ]),
        ("mag", "magnetometer", [.magnetometerX, .magnetometerY, .magnetometerZ]),
        ("gt", "ground-truth quaternion", [.truthW, .truthX, .truthY, .truthZ]),
    ]

    /// Word stems (lower case, without separators) that name each sensor in common headers; a
    /// column whose name is a stem followed by `x`, `y` or `z` is that axis.
    static let stems: [(group: Int, stems: Set<String>)] = [
        (
            0,
            [
                "gyr", "gyro", "gyros", "gyroscope", "omega", "w", "g", "wrss", "angularvelocity", "angularrate",
                "rotationrate", "rate",
            ]
        ),
        (1, ["acc", "accel", "accelerometer", "acceleration", "a", "arss", "specificforce"]),
        (2, ["mag", "magn", "magnetometer", "magneticfield", "field", "m", "b"]),
    ]
    /// Names of a time column (lower case, without separators and unit hints).
    static let timeNames: Set<String> = ["t", "time", "timestamp", "times", "seconds", "sec"]
    /// Names of a time column whose unit the name implies: Xsens's `SampleTimeFine` (µs).
    static let timeNamesWithUnit: [String: String] = ["sampletimefine": "us"]

    /// A column name reduced for matching: lower case, unit hint and `#` removed, no separators.
    static func key(_ name: String) -> String {
        var s = name.lowercased()
        if let cut = s.firstIndex(where: { $0 == "(" || $0 == "[" }) { s = String(s[..<cut]) }
        return String(s.filter { $0.isLetter || $0.isNumber })
    }

    /// The unit hint of a column name: the text in its last parentheses or brackets, if any.
    static func unitHint(_ name: String) -> String? {
        guard let open = name.lastIndex(where: { $0 == "(" || $0 == "[" }) else { return nil }
        let rest = name[name.index(after: open)...]
        guard let close = rest.firstIndex(where: { $0 == ")" || $0 == "]" }) else { return nil }
        return String(rest[..<close])
    }

    /// The layout a header names: native names, and common names for time and the sensors' x/y/z
    /// columns (`Gyroscope X (deg/s)`, `w_RS_S_x [rad s^-1]`, `accel_x`, `gx`…) in the columns the
    /// native names leave, with units from hints in the names. Throws when a quantity (the time, a
    /// sensor axis) is named twice or a sensor incompletely.
    public static func fromHeader(_ names: [String], file: String) throws -> ColumnLayout {
        var layout = ColumnLayout()
        func claim(_ slot: Slot, _ c: Int) throws {
            if let other = layout.columns[slot], other != c {
                throw TraceError(
                    .duplicateColumn, SourceLocation(file: file, line: 1, column: 0),
                    "columns '\(names[other].escapedForMessage)' and '\(names[c].escapedForMessage)' both name \(slot.label); choose one with --columns"
                )
            }
            layout.columns[slot] = c
        }
        var matched = Set<Int>()
        for (c, name) in names.enumerated() {
            if let slot = nativeNames[name.lowercased()] {
                try claim(slot, c)
                matched.insert(c)
            }
        }
        // Common names for what the native names left open (a header may mix both: `timestamp,
        // gyr_x,…` or `t,accel_x,…`). A quantity a native name already gives keeps that column,
        // and the other is an unknown column (warned about); two common names for one quantity
        // are ambiguous.
        let native = !matched.isEmpty
        for (c, name) in names.enumerated() where !matched.contains(c) {
            let k = key(name)
            if timeNames.contains(k) || timeNamesWithUnit[k] != nil || (k.hasPrefix("time") && unitHint(name) != nil) {
                if native && layout.columns[.time] != nil { continue }
                try claim(.time, c)
                if let hint = unitHint(name) ?? timeNamesWithUnit[k], let scale = SensorUnits.timeScale(hint) {
                    layout.units.time = scale
                }
                continue
            }
            guard let axis = k.last.flatMap({ "xyz".firstIndex(of: $0) }) else { continue }
            let stem = String(k.dropLast())
            guard let group = stems.first(where: { $0.stems.contains(stem) })?.group else { continue }
            let a = "xyz".distance(from: "xyz".startIndex, to: axis)
            if native && layout.columns[groups[group].slots[a]] != nil { continue }
            try claim(groups[group].slots[a], c)
            if let hint = unitHint(name) { try layout.units.set(groups[group].key, hint, strictly: false) }
        }
        try layout.checkComplete(names: names, file: file)
        return layout
    }

    /// Throws unless every sensor group present has all its axes.
    func checkComplete(names: [String], file: String) throws {
        for g in Self.groups {
            let present = g.slots.filter { columns[$0] != nil }
            if !present.isEmpty && present.count != g.slots.count {
                let missing = g.slots.filter { columns[$0] == nil }.map(\.name)
                throw TraceError(
                    .missingColumn, SourceLocation(file: file, line: 1, column: 0),
                    "\(g.label) columns incomplete: missing \(missing.joined(separator: ", "))")
            }
        }
    }

    /// Parses `--columns KEY=COL,…`: KEY is `t`, `gyr`, `acc`, `mag`, `gt` (quaternion w,x,y,z) or
    /// `moving`; COL is a 1-based column number or an exact header name. A sensor names its x
    /// column (the quaternion its w column) and the other axes follow in the next columns.
    public mutating func setColumns(_ spec: String, names: [String], columnCount: Int) throws {
        columns = [:]
        // The key given for each column so far: a key given twice, or two keys sharing a column,
        // is refused (one column cannot be two quantities).
        var owners = [Int: String]()
        func take(_ key: String, _ span: Range<Int>) throws {
            guard !owners.values.contains(key) else { throw ColumnSpecError("--columns: '\(key)' is given twice") }
            for c in span {
                if let other = owners[c] {
                    throw ColumnSpecError("--columns: '\(other)' and '\(key)' both use column \(c + 1)")
                }
                owners[c] = key
            }
        }
        func malformed(_ item: Substring) -> Error {
            ColumnSpecError("--columns expects KEY=COLUMN pairs such as t=1,acc=6,gyr=9; got '\(item)'")
        }
        try KeyValueList.forEach(spec, malformed: malformed) { name, value, item in
            guard !value.isEmpty else { throw malformed(item) }
            let column: Int
            if let n = Int(value) {
                guard n >= 1 && n <= columnCount else {
                    throw ColumnSpecError("--columns \(name)=\(n): the file has \(columnCount) columns")
                }
                column = n - 1
            } else if let i = names.firstIndex(of: value)
                ?? names.firstIndex(where: { $0.lowercased() == value.lowercased() })
            {
                column = i
            } else {
                throw ColumnSpecError(
                    "--columns \(name)=\(value): no column of that name; the header has: \(names.map { $0.escapedForMessage }.joined(separator: ", "))"
                )
            }
            let key = name.lowercased()
            switch key {
            case "t", "time":
                try take("t", column..<column + 1)
                columns[.time] = column
            case "moving":
                try take("moving", column..<column + 1)
                columns[.moving] = column
            default:
                guard let g = Self.groups.first(where: { $0.key == key || $0.label.hasPrefix(key) }) else {
                    throw ColumnSpecError("--columns: unknown key '\(name)'; use t, gyr, acc, mag, gt or moving")
                }
                guard column + g.slots.count <= columnCount else {
                    throw ColumnSpecError(
                        "--columns \(name): \(g.label) needs \(g.slots.count) columns from column \(column + 1); the file has \(columnCount)"
                    )
                }
                try take(g.key, column..<column + g.slots.count)
                for (k, slot) in g.slots.enumerated() { columns[slot] = column + k }
            }
        }
    }
}

extension ColumnLayout.Slot {
    /// The slot's name in messages (the native column name).
    public var name: String {
        ColumnLayout.nativeNames.first { $0.value == self }!.key
    }

    /// A description of the quantity.
    var label: String {
        switch self {
        case .time: return "the time"
        case .moving: return "the moving flag"
        default:
            let g = ColumnLayout.groups.first { $0.slots.contains(self) }!
            return "the \(g.label) \(name.split(separator: "_").last ?? "")"
        }
    }
}

/// A malformed `--columns`, `--units` or `--remap` value (a usage error).
public struct ColumnSpecError: Error, CustomStringConvertible {
    /// What is wrong.
    public var description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}

/// The units a file writes time and each sensor in, as factors to SI (s, rad/s, m/s², µT).
public struct SensorUnits: Sendable, Equatable {
    /// Seconds per time unit. Default 1.
    public var time = 1.0
    /// The time unit as a power of ten of seconds (s 0, ms −3, µs −6, ns −9), or nil.
    public var timeExponent: Int? {
        switch time {
        case 1: return 0
        case 1e-3: return -3
        case 1e-6: return -6
        case 1e-9: return -9
        default: return nil
        }
    }
    /// rad/s per gyroscope unit. Default 1.
    public var gyroscope = 1.0
    /// m/s² per accelerometer unit. Default 1.
    public var accelerometer = 1.0
    /// µT per magnetometer unit. Default 1.
    public var magnetometer = 1.0
    /// Whether the time column is a sample counter (`--units t=count`): times are its count over the
    /// rate given with it (`--sample-rate`).
    public var timeIsCount = false
    /// Whether the magnetometer is in arbitrary units (kept unscaled; filters use its direction).
    public var magnetometerArbitrary = false
    /// Which were set explicitly (by `--units` or a header hint), by key.
    public var explicit: Set<String> = []

    /// Default units: SI.
    public init() {}

    /// The accepted unit names, by key, for help texts.
    public static let choices: [(key: String, units: [String])] = [
        ("gyr", ["rad/s", "deg/s"]), ("acc", ["m/s2", "g", "mg"]), ("mag", ["uT", "gauss", "nT", "mT", "au"]),
        ("t", ["s", "ms", "us", "ns", "count"]),
    ]

    /// The factor to seconds of a time unit name, or nil.
    static func timeScale(_ unit: String) -> Double? {
        switch normalise(unit) {
        case "s", "sec", "seconds": return 1
        case "ms": return 1e-3
        case "us", "µs", "microseconds": return 1e-6
        case "ns", "nanoseconds": return 1e-9
        default: return nil
        }
    }

    static func normalise(_ unit: String) -> String {
        unit.lowercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "^", with: "")
            .replacingOccurrences(of: "²", with: "2").replacingOccurrences(of: "μ", with: "µ")
    }

    /// Sets the unit of `key` (`t`, `gyr`, `acc`, `mag`). With `strictly` false, an unknown unit
    /// (a hint in a header) is ignored.
    public mutating func set(_ key: String, _ unit: String, strictly: Bool) throws {
        let u = Self.normalise(unit)
        var ok = true
        switch key.lowercased() {
        case "t", "time":
            if ["count", "counter", "samples", "index"].contains(u) {
                timeIsCount = true
                time = 1
            } else if let s = Self.timeScale(u) {
                time = s
                timeIsCount = false
            } else {
                ok = false
            }
        case "gyr", "gyro", "gyroscope":
            switch u {
            case "rad/s", "rads-1", "rad/sec", "rps": gyroscope = 1
            case "deg/s", "°/s", "dps", "degs-1", "deg/sec": gyroscope = .pi / 180
            default: ok = false
            }
        case "acc", "accel", "accelerometer":
            switch u {
            case "m/s2", "ms-2", "m/s/s", "mps2": accelerometer = 1
            case "g": accelerometer = standardGravity
            case "mg": accelerometer = standardGravity / 1000
            default: ok = false
            }
        case "mag", "magnetometer":
            magnetometerArbitrary = false
            switch u {
            case "ut", "µt", "microtesla": magnetometer = 1
            case "gauss", "gs", "g": magnetometer = 100
            case "mgauss", "mg": magnetometer = 0.1
            case "nt", "nanotesla": magnetometer = 0.001
            case "mt", "millitesla": magnetometer = 1000
            case "au", "a.u.", "arbitrary", "normalised", "normalized", "1", "-":
                magnetometer = 1
                magnetometerArbitrary = true
            default: ok = false
            }
        default:
            throw ColumnSpecError("--units: unknown key '\(key)'; use gyr, acc, mag or t")
        }
        if ok {
            explicit.insert(key.lowercased().prefix(1) == "t" ? "t" : String(key.lowercased().prefix(3)))
        } else if strictly {
            let known = Self.choices.first {
                $0.key == String(key.lowercased().prefix(3)) || ($0.key == "t" && key.lowercased().hasPrefix("t"))
            }
            throw ColumnSpecError(
                "--units \(key)=\(unit): unknown unit; use \(known?.units.joined(separator: ", ") ?? "a known unit")")
        }
    }

    /// Parses `--units gyr=deg/s,acc=g,mag=uT,t=ms` on top of the current units.
    public mutating func set(spec: String) throws {
        var given = Set<String>()
        try KeyValueList.forEach(
            spec,
            malformed: { ColumnSpecError("--units expects KEY=UNIT pairs such as gyr=deg/s,acc=g; got '\($0)'") }
        ) { name, unit, _ in
            let key = name.lowercased() == "time" ? "t" : name.lowercased()
            guard given.insert(key).inserted else { throw ColumnSpecError("--units: '\(name)' is given twice") }
            try set(name, unit, strictly: true)
        }
    }
}

extension AxisRemap {
    /// Parses a remap written as three signed axes separated by commas, `x,-z,y` (body x = raw x,
    /// body y = raw −z, body z = raw y), or spelled as a mounting, `+X-Z+Y`.
    public init?(spec: String) {
        let parts = spec.split(separator: ",").map { String($0).trimmingSpaces.uppercased() }
        if parts.count == 3 {
            let text = parts.map { $0.hasPrefix("-") || $0.hasPrefix("+") ? $0 : "+" + $0 }.joined()
            self.init(text)
        } else {
            self.init(spec.replacingOccurrences(of: " ", with: ""))
        }
    }
}
