/// The axis remap of each sensor (`--remap`): one rotation for every sensor, or one per sensor when
/// a magnetometer's axes differ from the accelerometer's (`body = remap.apply(raw)`). Only proper
/// rotations: a mirror would turn the attitude inside out.
public struct SensorRemap: Sendable, Equatable {
    /// The gyroscope's remap. Default identity.
    public var gyroscope = AxisRemap.identity
    /// The accelerometer's remap. Default identity.
    public var accelerometer = AxisRemap.identity
    /// The magnetometer's remap. Default identity.
    public var magnetometer = AxisRemap.identity

    /// No remap.
    public init() {}

    /// One remap for every sensor.
    public init(_ every: AxisRemap) {
        gyroscope = every
        accelerometer = every
        magnetometer = every
    }

    /// The remap of `sensor`.
    public subscript(sensor: SensorKind) -> AxisRemap {
        get {
            switch sensor {
            case .gyroscope: gyroscope
            case .accelerometer: accelerometer
            case .magnetometer: magnetometer
            }
        }
        set {
            switch sensor {
            case .gyroscope: gyroscope = newValue
            case .accelerometer: accelerometer = newValue
            case .magnetometer: magnetometer = newValue
            }
        }
    }

    /// Whether no sensor is remapped.
    public var isIdentity: Bool { self == SensorRemap() }

    /// The spelling `--remap` accepts back: one remap, or `KEY=AXES` entries.
    public var spec: String {
        if gyroscope == accelerometer && accelerometer == magnetometer { return gyroscope.description }
        return SensorKind.allCases.filter { self[$0] != .identity }.map { "\(Self.key($0))=\(self[$0])" }
            .joined(separator: ",")
    }

    static func key(_ sensor: SensorKind) -> String {
        switch sensor {
        case .gyroscope: "gyr"
        case .accelerometer: "acc"
        case .magnetometer: "mag"
        }
    }

    static let syntax =
        "three signed axes naming each of x, y, z once, e.g. x,-z,y or +X-Z+Y (body x, y, z from the raw axes), for every sensor, or per sensor as gyr=…, acc=…, mag=… entries, e.g. mag=+Y+X-Z or acc=x,-z,y,mag=-y,-x,-z (a leading entry without a key applies to the sensors not named)"

    /// Parses `--remap`: `x,-z,y` or `+X-Z+Y` for every sensor, or comma-separated `KEY=AXES`
    /// entries with KEY `gyr`, `acc` or `mag` (`acc=x,-z,y,mag=+Y+X-Z`), optionally after one
    /// entry without a key for the sensors not named (`+X-Z+Y,mag=+Y+X-Z`). The commas of an
    /// `x,-z,y` spelling belong to its entry: a part without `=` continues the entry before it
    /// until that has three axes. Throws ``ColumnSpecError`` (a usage error) naming the fix.
    public init(spec: String) throws {
        var entries = [(key: String?, axes: [String], item: String)]()
        for part in spec.split(separator: ",", omittingEmptySubsequences: false) {
            let text = String(part).trimmingSpaces
            if let eq = text.firstIndex(of: "=") {
                let key = String(text[..<eq]).trimmingSpaces
                entries.append((key, [String(text[text.index(after: eq)...]).trimmingSpaces], text))
            } else if let last = entries.last, last.axes.count < 3, last.axes.allSatisfy(Self.isSingleAxis),
                Self.isSingleAxis(text)
            {
                entries[entries.count - 1].axes.append(text)
                entries[entries.count - 1].item += "," + text
            } else {
                entries.append((nil, [text], text))
            }
        }
        var named = [SensorKind: AxisRemap]()
        var every: AxisRemap?
        for entry in entries {
            let value = entry.axes.joined(separator: ",")
            guard let remap = AxisRemap(spec: value) else {
                guard let proper = Self.rotation(mirroredBy: value) else {
                    throw ColumnSpecError(
                        "--remap: '\(entry.item.escapedForMessage)' is not a remap: expected \(Self.syntax)")
                }
                // The whole value again, each mirror turned into a rotation, so that it can be pasted.
                let fixed = entries.map { e in
                    Self.rotation(mirroredBy: e.axes.joined(separator: ",")).map {
                        (e.key.map { $0 + "=" } ?? "") + "\($0)"
                    }
                        ?? e.item
                }
                throw ColumnSpecError(
                    "--remap: '\(entry.item.escapedForMessage)' is a mirror, not a rotation (its determinant is -1: one axis has the wrong sign or two are swapped); a rotation is, e.g., \(proper) (the first axis negated): --remap \(fixed.joined(separator: ",").escapedForMessage); only proper rotations are accepted"
                )
            }
            guard let key = entry.key else {
                guard every == nil else {
                    throw ColumnSpecError(
                        "--remap: two remaps without a sensor key ('\(every!)' and '\(remap)'); name the sensors, e.g. acc=\(every!),mag=\(remap)"
                    )
                }
                every = remap
                continue
            }
            guard let sensor = SensorKind.allCases.first(where: { Self.names($0).contains(key.lowercased()) }) else {
                throw ColumnSpecError(
                    "--remap: unknown sensor '\(key.escapedForMessage)' in '\(entry.item.escapedForMessage)'; the keys are gyr, acc and mag"
                )
            }
            guard named.updateValue(remap, forKey: sensor) == nil else {
                throw ColumnSpecError("--remap: the \(sensor.rawValue) is given twice")
            }
        }
        self.init(every ?? .identity)
        for (sensor, remap) in named { self[sensor] = remap }
    }

    static func names(_ sensor: SensorKind) -> [String] {
        switch sensor {
        case .gyroscope: ["gyr", "gyro", "gyroscope"]
        case .accelerometer: ["acc", "accel", "accelerometer"]
        case .magnetometer: ["mag", "magnetometer"]
        }
    }

    /// `x`, `-z`, `+y`: one signed axis of the comma spelling.
    static func isSingleAxis(_ text: String) -> Bool {
        let t = text.lowercased()
        let axis = t.hasPrefix("-") || t.hasPrefix("+") ? String(t.dropFirst()) : t
        return ["x", "y", "z"].contains(axis)
    }

    /// The rotation `value` becomes with its first axis negated, when `value` is a mirror (three
    /// signed axes with determinant -1); nil otherwise.
    static func rotation(mirroredBy value: String) -> AxisRemap? {
        guard AxisRemap(spec: value) == nil else { return nil }
        var chars = Array(AxisRemap.mounting(spec: value).uppercased())
        guard chars.count == 6, chars[0] == "+" || chars[0] == "-" else { return nil }
        chars[0] = chars[0] == "+" ? "-" : "+"
        return AxisRemap(String(chars))
    }
}

extension AxisRemap {
    /// Parses a remap written as three signed axes separated by commas, `x,-z,y` (body x = raw x,
    /// body y = raw −z, body z = raw y), or spelled as a mounting, `+X-Z+Y`.
    public init?(spec: String) { self.init(Self.mounting(spec: spec)) }

    /// The mounting spelling of a remap written either way: `x,-z,y` becomes `+X-Z+Y`; a mounting
    /// spelling loses its spaces.
    static func mounting(spec: String) -> String {
        let parts = spec.split(separator: ",").map { String($0).trimmingSpaces.uppercased() }
        guard parts.count == 3 else { return spec.replacing(" ", with: "") }
        return parts.map { $0.hasPrefix("-") || $0.hasPrefix("+") ? $0 : "+" + $0 }.joined()
    }
}
