import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        /// The nanoseconds of a time split in two columns (`secs`, `nsecs`), added to the time.
        case timeNanoseconds
        /// Core Motion's gravity, added to its user acceleration in the accelerometer's slots: the
        /// specific force of a device-motion export without a raw accelerometer (MotionSense's
        /// `gravity.x` beside `userAcceleration.x`).
        case gravityX, gravityY, gravityZ
        /// A sensor's own clock, when each sensor's time has a column (ImuCollector's
        /// `Acc Timestamp` beside `Gyro Timestamp`): its readings are timed by it, not by ``time``.
        case gyroscopeTime, accelerometerTime, magnetometerTime
    }

    /// Number of slots.
    public static let slotCount = Slot.allCases.count

    /// 0-based column of each slot present.
    public var columns: [Slot: Int] = [:]
    /// Units of time and of each sensor.
    public var units = SensorUnits()
    /// Axis remap of each sensor (body = remap(raw)). Default identity.
    public var remap = SensorRemap()

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

    /// The clock slot of each sensor (``Slot/gyroscopeTime``…), in ``groups`` order.
    static let clockSlots: [Slot] = [.gyroscopeTime, .accelerometerTime, .magnetometerTime]

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

    /// Parses `--columns KEY=COL,…`: KEY is `t`, `gyr`, `acc`, `mag`, `gt` (quaternion w,x,y,z),
    /// `moving`, or a sensor's own clock `gyr_t`, `acc_t`, `mag_t`; COL is a 1-based column number or an exact header name (of `names`, else of
    /// `otherNames`: the names joined with a second header row). A sensor names its x column (the
    /// quaternion its w column) and the other axes follow in the next columns.
    public mutating func setColumns(
        _ spec: String, names: [String], columnCount: Int, otherNames: [String] = []
    ) throws {
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
                ?? otherNames.firstIndex(where: { $0.lowercased() == value.lowercased() })
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
            case _ where key.hasSuffix("_t") && key.count > 2:
                // A sensor's own clock: `acc_t=acc_timestamp` (the name ``Slot/name`` gives it).
                let sensor = key.dropLast(2)
                guard
                    let g = Self.groups.prefix(3).firstIndex(where: { $0.key == sensor || $0.label.hasPrefix(sensor) })
                else {
                    throw ColumnSpecError(
                        "--columns: unknown key '\(name)'; a sensor's own clock is gyr_t, acc_t or mag_t")
                }
                try take("\(Self.groups[g].key)_t", column..<column + 1)
                columns[Self.clockSlots[g]] = column
            default:
                guard let g = Self.groups.first(where: { $0.key == key || $0.label.hasPrefix(key) }) else {
                    throw ColumnSpecError(
                        "--columns: unknown key '\(name)'; use t, gyr, acc, mag, gt, moving, or a sensor's own clock gyr_t, acc_t or mag_t"
                    )
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

extension ColumnLayout {
    /// Adds what the header's names say of the quantities `--columns` left out: `--columns t=GPST`
    /// chooses the time and leaves the sensors to their names. A sensor or the time given with
    /// `--columns` keeps its columns, and no name claims a column `--columns` took.
    mutating func fill(fromNames names: [String], file: String) throws {
        var given = Set<String>()
        if columns[.time] != nil { given.insert("t") }
        for g in Self.groups.prefix(3) where has(g.slots[0]) { given.insert(g.key) }
        let named = try Self.fromHeader(names, file: file, taken: Set(columns.values), given: given)
        for (slot, c) in named.columns where columns[slot] == nil { columns[slot] = c }
        for key in ["t", "gyr", "acc", "mag"] where !given.contains(key) { units.take(key, from: named.units) }
    }
}

extension SensorUnits {
    /// Takes the unit of `key` (`t`, `gyr`, `acc`, `mag`) from `other`, with whether it was stated.
    mutating func take(_ key: String, from other: SensorUnits) {
        switch key {
        case "t":
            time = other.time
            timeIsCount = other.timeIsCount
        case "gyr": gyroscope = other.gyroscope
        case "acc":
            accelerometer = other.accelerometer
            accelerometerSign = other.accelerometerSign
        default:
            magnetometer = other.magnetometer
            magnetometerArbitrary = other.magnetometerArbitrary
        }
        if other.explicit.contains(key) { explicit.insert(key) } else { explicit.remove(key) }
    }
}

extension ColumnLayout.Slot {
    /// The slot's name in messages (the native column name).
    public var name: String {
        switch self {
        case .gravityX, .gravityY, .gravityZ: "gravity_\(["x", "y", "z"][rawValue - Self.gravityX.rawValue])"
        case .gyroscopeTime, .accelerometerTime, .magnetometerTime:
            "\(ColumnLayout.groups[rawValue - Self.gyroscopeTime.rawValue].key)_t"
        default: ColumnLayout.nativeNames.first { $0.value == self }?.key ?? "t_ns"
        }
    }

    /// A description of the quantity.
    var label: String {
        switch self {
        case .time: return "the time"
        case .timeNanoseconds: return "the time's nanoseconds"
        case .moving: return "the moving flag"
        case .gravityX, .gravityY, .gravityZ: return "the gravity \(name.split(separator: "_").last ?? "")"
        case .gyroscopeTime, .accelerometerTime, .magnetometerTime:
            return "the \(ColumnLayout.groups[rawValue - Self.gyroscopeTime.rawValue].label)'s time"
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
    /// −1 for accelerations written with the opposite sign to the specific force (iOS's Core
    /// Motion: −1 g along z on a phone lying face up; `--units acc=-g`, or the header's
    /// `accelerometerAcceleration` columns), else 1.
    public var accelerometerSign = 1.0
    /// µT per magnetometer unit. Default 1.
    public var magnetometer = 1.0
    /// Whether the time column is a sample counter (`--units t=count`): times are its count over the
    /// rate given with it (`--sample-rate`).
    public var timeIsCount = false
    /// Whether the magnetometer is in arbitrary units (kept unscaled; filters use its direction).
    public var magnetometerArbitrary = false
    /// Which were set explicitly (by `--units` or a header hint), by key.
    public var explicit: Set<String> = []
    /// Which were found from the readings (``UnitEvidence``), by key.
    public var evident: Set<String> = []

    /// Default units: SI.
    public init() {}

    /// The accepted unit names, by key, for help texts.
    public static let choices: [(key: String, units: [String])] = [
        ("gyr", ["rad/s", "deg/s", "mdps"]), ("acc", ["m/s2", "g", "mg"]),
        ("mag", ["uT", "gauss", "mgauss", "nT", "mT", "T", "au"]),
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
        unit.lowercased().replacing(" ", with: "").replacing("^", with: "")
            .replacing("(", with: "").replacing(")", with: "")
            .replacing("²", with: "2").replacing("μ", with: "µ")
    }

    /// Sets the unit of `key` (`t`, `gyr`, `acc`, `mag`). A unit may carry a scale factor for raw
    /// counts, `0.0625deg/s` or `1/16 deg/s` (a BNO055 gyroscope's count), and the accelerometer's
    /// a minus sign for accelerations written opposite to the specific force (`acc=-g`, iOS's).
    /// With `strictly` false, an unknown unit (a hint in a header) is ignored.
    public mutating func set(_ key: String, _ unit: String, strictly: Bool) throws {
        var unit = unit.trimmingSpaces
        var sign = 1.0
        if let first = unit.first, first == "-" || first == "−" {
            guard ["acc", "accel", "accelerometer"].contains(key.lowercased()) else {
                throw ColumnSpecError(
                    "--units \(key)=\(unit): only the accelerometer takes a minus sign (acc=-g: accelerations written opposite to the specific force, as iOS does); turn axes with --remap"
                )
            }
            sign = -1
            unit.removeFirst()
        }
        let parsed = Self.splitFactor(unit)
        let factor = parsed?.factor ?? 1
        let u = Self.normalise(parsed?.unit ?? unit)
        var ok = parsed != nil
        func scale(_ value: Double?) -> Double? {
            guard let value else {
                ok = false
                return nil
            }
            // 100 µs is 100 / 10⁶ s, correctly rounded (100 × 10⁻⁶ is not).
            let inverse = 1 / value
            return inverse == inverse.rounded() ? factor / inverse : value * factor
        }
        switch key.lowercased() {
        case "t", "time":
            if ["count", "counter", "samples", "index"].contains(u) && factor == 1 {
                timeIsCount = true
                time = 1
            } else if let s = scale(Self.timeScale(u)) {
                time = s
                timeIsCount = false
            }
        case "gyr", "gyro", "gyroscope":
            if let s = scale(Self.gyroscopeScale(u)) { gyroscope = s }
        case "acc", "accel", "accelerometer":
            if let s = scale(Self.accelerometerScale(u)) {
                accelerometer = s
                accelerometerSign = sign
            }
        case "mag", "magnetometer":
            // Shimmer's calibrated magnetometer is in `local_flux`: no physical unit.
            if ["au", "a.u.", "arbitrary", "normalised", "normalized", "1", "-", "local_flux"].contains(u) {
                magnetometer = 1
                magnetometerArbitrary = true
            } else if let s = scale(Self.magnetometerScale(u)) {
                magnetometer = s
                magnetometerArbitrary = false
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
                "--units \(key)=\(unit): unknown unit; use \(known?.units.joined(separator: ", ") ?? "a known unit"), optionally after a scale factor for raw counts (gyr=0.0625deg/s)"
            )
        }
    }

    /// rad/s per unit of a gyroscope unit name, or nil.
    static func gyroscopeScale(_ u: String) -> Double? {
        switch u {
        case "rad/s", "rads-1", "rad/sec", "rps": return 1
        case "deg/s", "°/s", "dps", "degs-1", "deg/sec": return .pi / 180
        // Millidegrees per second: ST's SensorTile logs (`GyroX [mdps]`).
        case "mdeg/s", "m°/s", "mdps", "mdegs-1", "mdeg/sec": return .pi / 180 / 1000
        default: return nil
        }
    }

    /// m/s² per unit of an accelerometer unit name, or nil.
    static func accelerometerScale(_ u: String) -> Double? {
        switch u {
        case "m/s2", "ms-2", "m/s/s", "mps2": return 1
        case "g": return standardGravity
        case "mg": return standardGravity / 1000
        default: return nil
        }
    }

    /// µT per unit of a magnetometer unit name, or nil.
    static func magnetometerScale(_ u: String) -> Double? {
        switch u {
        case "ut", "µt", "microtesla": return 1
        case "gauss", "gs", "g": return 100
        case "mgauss", "mg": return 0.1
        case "nt", "nanotesla": return 0.001
        case "mt", "millitesla": return 1000
        case "t", "tesla": return 1e6
        default: return nil
        }
    }

    /// A unit split into its leading scale factor and the unit: `0.0625deg/s` → (0.0625, `deg/s`),
    /// `1/16 deg/s` → (0.0625, `deg/s`), `deg/s` → (1, `deg/s`); nil for a factor that is not a
    /// finite positive number or a factor without a unit.
    static func splitFactor(_ text: String) -> (factor: Double, unit: String)? {
        let chars = Array(text.trimmingSpaces)
        var i = 0
        func number() -> Double? {
            let start = i
            while i < chars.count && (chars[i].isASCII && (chars[i].isNumber || chars[i] == ".")) { i += 1 }
            guard i > start else { return nil }
            // An exponent: `e-3`, `E6`.
            if i + 1 < chars.count && (chars[i] == "e" || chars[i] == "E") {
                var j = i + 1
                if chars[j] == "-" || chars[j] == "+" { j += 1 }
                if j < chars.count && chars[j].isASCII && chars[j].isNumber {
                    i = j
                    while i < chars.count && chars[i].isASCII && chars[i].isNumber { i += 1 }
                }
            }
            return Double(String(chars[start..<i]))
        }
        guard let numerator = number() else { return (1, String(chars)) }
        var factor = numerator
        if i < chars.count && chars[i] == "/", chars.count > i + 1, chars[i + 1].isASCII, chars[i + 1].isNumber {
            i += 1
            guard let denominator = number() else { return nil }
            factor /= denominator
        }
        while i < chars.count && (chars[i] == " " || chars[i] == "*" || chars[i] == "×") { i += 1 }
        let unit = String(chars[i...])
        // A bare number is a unit name only as the magnetometer's `1` (normalised).
        if unit.isEmpty { return i == chars.count && String(chars) == "1" ? (1, "1") : nil }
        guard factor.isFinite && factor > 0 else { return nil }
        return (factor, unit)
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
