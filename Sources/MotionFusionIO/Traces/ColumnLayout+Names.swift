/// Reading a layout from the names in a header: what each name says a column holds, how sure the
/// name is, and the choice among names that claim the same quantity.
extension ColumnLayout {
    /// What one column's name says it holds.
    struct NameMatch: Equatable {
        /// What the column holds.
        enum Quantity: Equatable {
            /// The time (seconds, or the unit the name gives).
            case time
            /// The nanoseconds of a time in two columns, with the key the seconds column shares.
            case nanoseconds(prefix: String)
            /// Axis 0…2 of sensor group 0…2 (``ColumnLayout/groups``).
            case axis(group: Int, axis: Int)
            /// The own clock of sensor group 0…2 (ImuCollector's `Acc Timestamp`).
            case sensorTime(group: Int)
        }

        var quantity: Quantity
        /// How sure the name is, lower being surer: 0 a native name, or an app's own exact name
        /// (Physics Toolbox's `gFx`); 1 a common name (`Gyroscope X`, `accel_x`, `gx`, a sensor's own
        /// clock, a ROS header stamp); 2 a name read word by word (`field.angular_velocity.x`), a
        /// bare axis under a sensor's unit, `p,q,r`, `f_x`, or a generic clock (`time`, `timestamp`, `GPST`);
        /// 3 a second choice (uncompensated or uncalibrated values, linear or user acceleration, a
        /// phone's fused `motion` values, a time of receipt such as `%time`, elapsed seconds, a
        /// clock read word by word); 4 a local wall clock whose name gives its UTC offset in place
        /// of a unit (MetaBase's `time (-07:00)` beside `epoch (ms)`). Only the surest source of
        /// each quantity is used.
        var rank: Int
        /// The unit the name states (`(deg/s)`, `_ms`) or implies (`%time` is in ns), if any.
        var unit: String?
        /// What the three axes of one sensor's columns share: the name without its axis.
        var source: String = ""
    }

    /// Word stems (lower case, without separators) that name each sensor in common headers; a
    /// column whose name is a stem followed by `x`, `y` or `z` is that axis.
    static let stems: [(group: Int, stems: Set<String>)] = [
        (
            0,
            [
                "gyr", "gyro", "gyros", "gyroscope", "omega", "w", "g", "wrss", "angularvelocity", "angularrate",
                "rotationrate", "rate", "angvel",
            ]
        ),
        (1, ["acc", "accel", "accl", "accelerometer", "acceleration", "a", "arss", "specificforce"]),
        (2, ["mag", "magn", "magnetometer", "magneticfield", "field", "m", "b"]),
    ]

    /// Stems that name a sensor less surely (rank 2): `f_x` is a specific force in navigation
    /// texts, but may be another force beside an accelerometer.
    static let weakStems: [String: Int] = ["f": 1]

    /// Words that name each sensor when a name is read word by word (`UnCompGyroX`,
    /// `imu.angular_velocity.x`); `angular` needs `velocity` or `rate`, `rotation` needs `rate`.
    static let sensorWords: [Set<String>] = [
        ["gyr", "gyro", "gyros", "gyroscope", "gyrometer", "omega", "angvel", "angularvelocity", "angularrate"],
        ["acc", "accel", "accl", "accelerometer", "acceleration", "accelerations", "specificforce"],
        ["mag", "magn", "magnetometer", "magnetic", "magneticfield", "compass"],
    ]
    /// Words that rule a column out as raw sensor axes: derived quantities, estimates and
    /// statistics.
    static let excludedWords: Set<String> = [
        "free", "gravity", "grav", "earth", "euler", "quat", "quaternion", "orientation", "bias", "cov",
        "covariance", "std", "stddev", "var", "variance", "delta", "noise", "angle", "angles", "position", "pos",
        "offset", "est", "estimate", "estimated", "rotated",
    ]
    /// Whole column names that are an attitude's components, not a sensor's axes: a quaternion's
    /// (`qw`…`qz`, `q0`…`q3`) and Euler angles (`roll`, `pitch`, `yaw`), as apps write their own
    /// orientation (Sensor Logger's `Orientation.csv`). A rate names its sensor or its rate
    /// (`gyro_roll`, `yaw_rate`): more than one word.
    static let attitudeNames: Set<String> = [
        "qw", "qx", "qy", "qz", "q0", "q1", "q2", "q3", "roll", "pitch", "yaw", "heading", "azimuth",
    ]
    /// Whether the header holds an attitude (a quaternion's four components, or roll, pitch and
    /// yaw, as whole names or three names of ``namesAttitudeComponent(_:)``) and names no sensor: a
    /// file of an app's own orientation, not of sensor readings. A bare `w` beside bare `x`, `y`
    /// and `z` is a quaternion too (x-IMU3's `Quaternion.csv`).
    public static func namesAnAttitude(_ names: [String]) -> Bool {
        // A header that names a sensor too (MotionSense's `attitude.roll` beside `rotationRate.x`)
        // is a recording of the sensors, whatever else it holds.
        guard !names.contains(where: { namesSensor(words($0)) }) else { return false }
        let whole = Set(
            names.compactMap { name -> String? in
                let w = words(name)
                return w.count == 1 ? w[0] : nil
            })
        return whole.isSuperset(of: ["qw", "qx", "qy", "qz"]) || whole.isSuperset(of: ["w", "x", "y", "z"])
            || whole.isSuperset(of: ["roll", "pitch", "yaw"]) || whole.isSuperset(of: ["q0", "q1", "q2", "q3"])
            || names.filter { namesAttitudeComponent(words($0)) }.count >= 3
    }
    /// Words that name a quaternion when an axis follows (`quat_w`, `Quaternion W`, `orientation.w`,
    /// `q_ned_w`, `att_w`), and those axes.
    static let quaternionWords: Set<String> = ["q", "quat", "quaternion", "orientation", "att", "attitude"]
    static let quaternionAxes: Set<String> = ["w", "x", "y", "z", "0", "1", "2", "3"]
    /// Words of Euler angles (`roll_deg`, `Euler X (deg)`, `phi`, `theta`, `psi`).
    static let eulerWords: Set<String> = ["roll", "pitch", "yaw", "phi", "theta", "psi", "euler"]
    /// Words of a rate of change (`yaw_rate`, `roll_dot`, `pitch_speed`, `body_rates_roll`): with
    /// them an attitude's word names a gyroscope's axis.
    static let rateWords: Set<String> = ["rate", "rates", "dot", "speed", "vel", "velocity", "omega", "angvel"]
    /// Whether a name's `words` are an attitude's component, not a sensor's axis: a whole
    /// ``attitudeNames`` name, or, without a sensor's word or a rate's (`gyro_roll`, `yaw_rate`,
    /// `phi_dot`), a quaternion's word with an axis or an Euler angle's word.
    static func namesAttitudeComponent(_ words: [String]) -> Bool {
        if words.count == 1 && attitudeNames.contains(words[0]) { return true }
        if namesSensor(words) || words.contains(where: rateWords.contains) { return false }
        return (words.contains(where: quaternionWords.contains) && words.contains(where: quaternionAxes.contains))
            || words.contains(where: eulerWords.contains)
    }
    /// The other things flight and weather loggers record beside the sensors (temperature,
    /// pressure, altitude), which rule a column out only when no word in it names a sensor
    /// (``namesSensor(_:)``): `gyro_temp_comp_x_dps` is a temperature-compensated gyroscope.
    static let environmentWords: Set<String> = [
        "temperature", "temp", "celsius", "pressure", "pres", "pascals", "altitude", "alt", "baro", "barometric",
        "humidity",
    ]
    /// Whether `words` (or two of them in a row: `angular`,`rate`) name a sensor.
    static func namesSensor(_ words: [String]) -> Bool {
        let joined = Set(words + zip(words, words.dropFirst()).map { $0 + $1 })
        return sensorWords.contains { !$0.isDisjoint(with: joined) }
            || !joined.isDisjoint(with: ["angular", "rotationrate", "turnrate"])
    }
    /// Whether `words` rule a column out as a sensor's axis: a derived quantity's word, or a
    /// temperature's, pressure's or altitude's without a sensor's word.
    static func rulesOut(_ words: [String]) -> Bool {
        namesAttitudeComponent(words) || words.contains(where: excludedWords.contains)
            || (words.contains(where: environmentWords.contains) && !namesSensor(words))
    }
    /// Whether a name no rule reads (``match(_:)``) still looks like a sensor's axis: a sensor's
    /// word and an axis word, nothing ruled out (`raw_acceleration_x_furlongs`), for a note.
    static func looksLikeUnreadAxis(_ name: String) -> Bool {
        let w = coreWords(name).words
        return match(name) == nil && w.contains { ["x", "y", "z"].contains($0) } && namesSensor(w) && !rulesOut(w)
    }
    /// Words that make a source a second choice: uncompensated values, and what a phone derives
    /// from its sensors (`linear` and `user` acceleration leave gravity out; Core Motion's `motion`
    /// values, as SensorLog writes them beside the raw ones, are its fusion's).
    static let secondaryWords: Set<String> = [
        "uncomp", "uncompensated", "uncalibrated", "uncal", "raw", "linear", "user", "motion",
    ]
    /// Names (as ``key(_:)`` gives them) of Core Motion's raw accelerometer x, as iOS loggers write
    /// it (SensorLog's `accelerometerAccelerationX(G)`): −1 g along z on a phone lying face up.
    static let coreMotionAccelerometerKeys: Set<String> = ["accelerometeraccelerationx"]

    /// Names (as written, spaces around them trimmed) that together mark LP-Research's LPMS CSV
    /// (OpenMAT and LpmsControl: `SensorId, TimeStamp (s), FrameNumber, AccX (g), …`, with
    /// `QuatW`, `LinAccX (g)` and the others as the outputs enabled), whose accelerometer reads −1 g
    /// along z on a sensor lying level (its own quaternion a pure yaw there): the direction of
    /// gravity, the opposite of the specific force. Spelt exactly so: other loggers' `sensor_id`,
    /// `frame_number` and `acc_x` are no LPMS.
    static let lpmsNames: Set<String> = ["SensorId", "FrameNumber", "AccX (g)"]

    /// A maker whose accelerometer columns are written with gravity's sign, opposite to the
    /// specific force, whatever their unit.
    enum GravitySignedAccelerometer {
        /// Core Motion's raw accelerometer (``coreMotionAccelerometerKeys``): −1 g along z on a
        /// phone lying face up.
        case coreMotion
        /// An LPMS's (``lpmsNames``): −1 g along z on a sensor lying level.
        case lpms

        /// Whose columns they are and what they read at rest, for the note.
        var description: String {
            switch self {
            case .coreMotion: "Core Motion's raw ones"
            case .lpms: "LP-Research LPMS's (OpenMAT/LpmsControl: SensorId, FrameNumber, AccX (g)…)"
            }
        }
        var restReading: String {
            switch self {
            case .coreMotion: "-1 g along z on a phone lying face up"
            case .lpms: "-1 g along z on a sensor lying level"
            }
        }
        var maker: String {
            switch self {
            case .coreMotion: "Core Motion's"
            case .lpms: "LPMS's"
            }
        }
    }

    /// Whose sign convention the layout's accelerometer follows when it is written with gravity's
    /// sign (``GravitySignedAccelerometer``), or nil.
    func gravitySignedAccelerometer(_ names: [String]) -> GravitySignedAccelerometer? {
        guard let c = columns[.accelerometerX], c < names.count else { return nil }
        let k = Self.key(names[c])
        if Self.coreMotionAccelerometerKeys.contains(k) { return .coreMotion }
        if names[c].trimmingSpaces == "AccX (g)", Self.lpmsNames.isSubset(of: names.map(\.trimmingSpaces)) {
            return .lpms
        }
        return nil
    }

    /// The columns of Core Motion's gravity beside its user acceleration when that is the
    /// layout's accelerometer (no raw one): `gravity.x` beside `userAcceleration.x` (MotionSense),
    /// `motionGravityX(G)` beside `motionUserAccelerationX(G)`; nil otherwise.
    func userAccelerationGravity(_ names: [String]) -> [Int]? {
        guard has(.accelerometerX) else { return nil }
        var gravity = [Int]()
        for slot in [Slot.accelerometerX, .accelerometerY, .accelerometerZ] {
            let k = Self.key(names[columns[slot]!])
            guard k.contains("useracceleration") else { return nil }
            let wanted = k.replacing("useracceleration", with: "gravity")
            let found = names.indices.filter { Self.key(names[$0]) == wanted }
            guard found.count == 1 else { return nil }
            gravity.append(found[0])
        }
        return gravity
    }

    /// Stems in g unless the header says otherwise: Physics Toolbox's `gFx` (g-force, gravity
    /// included).
    static let stemsInG: Set<String> = ["gf"]
    /// Unit words a name may end with after its axis (`gyro_x_dps`, `acc_x_mg`), joined when
    /// there are several (FIRM's `raw_angular_rate_x_deg_per_s`, `raw_acceleration_x_gs`).
    static let unitWords: [String: String] = [
        "dps": "deg/s", "degs": "deg/s", "degpers": "deg/s", "degpersec": "deg/s", "mdps": "mdps", "rads": "rad/s",
        "radpers": "rad/s", "radpersec": "rad/s", "g": "g", "gs": "g", "mg": "mg", "ms2": "m/s2", "mps2": "m/s2",
        "mpers2": "m/s2", "mperssquared": "m/s2", "meterspers2": "m/s2", "metersperssquared": "m/s2",
        "meterspersecondsquared": "m/s2", "metrespers2": "m/s2", "metresperssquared": "m/s2",
        "metrespersecondsquared": "m/s2",
        "ut": "uT", "microtesla": "uT", "microteslas": "uT", "nt": "nT", "gauss": "gauss",
    ]

    /// Names of a time column (lower case, without separators and unit hints), with their rank and
    /// unit (nil: seconds unless the evidence says otherwise).
    static let timeNames: [String: (rank: Int, unit: String?)] = {
        var names: [String: (rank: Int, unit: String?)] = [:]
        for n in [
            "t", "time", "timestamp", "times", "timestamps", "seconds", "sec", "secs", "epoch", "unixtime",
            // Date-times (read as such when the rows hold them, see ``DateTimeText``).
            "datetime", "utc", "utctime", "timeutc", "isotime", "loggingtime",
        ] {
            names[n] = (2, nil)
        }
        // A time with its unit as a suffix: `time_ms`, `timestamp_us`, `t_s`.
        let units = [
            "s": "s", "sec": "s", "ms": "ms", "msec": "ms", "us": "us", "usec": "us", "ns": "ns", "nsec": "ns",
        ]
        for p in ["t", "time", "timestamp"] { for (u, unit) in units { names[p + u] = (2, unit) } }
        for p in ["elapsed", "elapsedtime", "timeelapsed", "secondselapsed", "elapsedseconds"] {
            names[p] = (3, nil)
            for (u, unit) in units { names[p + u] = (3, unit) }
        }
        // Arduino's clocks since power-up.
        names["millis"] = (2, "ms")
        names["micros"] = (2, "us")
        // GNSS/INS logs: GPS time (of week).
        for n in ["gpst", "gpstime", "gpstow", "gpssow", "sow", "tow", "gpsseconds"] { names[n] = (2, "s") }
        // A sensor's own clock: VectorNav's TimeStartup (ns), Xsens's SampleTimeFine (µs on a
        // DOT; an MTi's 10 kHz ticks are told from the steps, see ``UnitEvidence``).
        names["timestartup"] = (1, "ns")
        names["timegps"] = (2, "ns")
        names["sampletimefine"] = (1, "us")
        // WitMotion's device clock (`Chip Time()`, date-times) over its `Time`, the time of day the
        // computer received the row.
        names["chiptime"] = (1, nil)
        // Polar Sensor Logger's sensor clock (`sensor timestamp [ns]`, ns since 2000) over its
        // `Phone timestamp`, the phone's date-time stamping each batch received (many rows alike);
        // its unit is its name's (`[ns]`) or the readings', as any time's.
        names["sensortimestamp"] = (1, nil)
        // ROS: the message's header stamp (ns as `rostopic echo -p` writes it, or seconds and
        // nanoseconds in two columns), over the time the message was recorded.
        names["rosbagtimestamp"] = (3, "ns")
        // SensorLog (iOS): each sensor's sample time since boot beside the wall clock of the row
        // (`loggingTime`, jittered by the logging); the gyroscope's is the one the filters
        // integrate over.
        names["gyrotimestampsincereboot"] = (1, "s")
        return names
    }()

    /// Nanosecond names that complete a seconds column with the same prefix (`secs` and `nsecs`,
    /// `header.stamp.sec` and `header.stamp.nanosec`).
    static let nanosecondSuffixes = ["nanoseconds", "nanosecs", "nanosec", "nsecs", "nsec"]
    static let secondSuffixes = ["seconds", "secs", "sec"]

    /// The words of a name, lower case: split at separators and at case changes
    /// (`UnCompGyroX` → `un`,`comp`,`gyro`,`x`… with `uncomp` rejoined), unit hint removed.
    static func words(_ name: String) -> [String] {
        var text = Substring(name)
        if let cut = text.firstIndex(where: { $0 == "(" || $0 == "[" }) { text = text[..<cut] }
        var out = [String]()
        var current = ""
        var previous: Character?
        let chars = Array(text)
        for (i, c) in chars.enumerated() {
            guard c.isLetter || c.isNumber else {
                if !current.isEmpty { out.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let p = previous, !current.isEmpty {
                let lowerToUpper = p.isLowercase && c.isUppercase
                // `IMUData` → `IMU`, `Data`: an upper-case run ends before an upper case letter
                // that starts a lower-case word.
                let acronymEnd =
                    p.isUppercase && c.isUppercase && i + 1 < chars.count && chars[i + 1].isLowercase
                if lowerToUpper || acronymEnd {
                    out.append(current)
                    current = ""
                }
            }
            current.append(c)
            previous = c
        }
        if !current.isEmpty { out.append(current) }
        var words = out.map { $0.lowercased() }
        // Prefixes split from their word by case: `UnComp`, `UnCalibrated`.
        var k = 0
        while k + 1 < words.count {
            if words[k] == "un" {
                words[k] += words[k + 1]
                words.remove(at: k + 1)
            }
            k += 1
        }
        return words
    }

    /// What a column's name says it holds, or nil.
    static func match(_ name: String) -> NameMatch? {
        if let slot = nativeNames[name.lowercased()] {
            switch slot {
            // A capital `T` beside a named time is another quantity (ArduPilot's IMU temperature
            // beside `TimeUS`): surer names of a time come first; alone it is still the time.
            case .time where name == "T": return NameMatch(quantity: .time, rank: 4)
            case .time: return NameMatch(quantity: .time, rank: 0)
            case .gyroscopeX, .gyroscopeY, .gyroscopeZ, .accelerometerX, .accelerometerY, .accelerometerZ,
                .magnetometerX, .magnetometerY, .magnetometerZ:
                let group = (slot.rawValue - Slot.gyroscopeX.rawValue) / 3
                return NameMatch(
                    quantity: .axis(group: group, axis: slot.rawValue % 3), rank: 0, source: "native")
            default: return nil
            }
        }
        if let indexed = indexedMatch(name) { return indexed }
        let k = key(name)
        // A UTC offset in place of a unit (`time (-07:00)`) is no unit: the column is a local
        // wall clock, a last choice.
        let offset = unitHint(name).map(isUTCOffset) ?? false
        let hint = offset ? nil : unitHint(name)
        let trimmed = name.trimmingSpaces.lowercased()
        if var time = timeMatch(k, trimmed: trimmed, hint: hint) ?? wordTimeMatch(name, hint: hint) {
            if offset { time.rank = 4 }
            return time
        }
        if let clock = sensorTimeMatch(k, hint: hint) { return clock }
        for suffix in nanosecondSuffixes where k.hasSuffix(suffix) {
            return NameMatch(quantity: .nanoseconds(prefix: String(k.dropLast(suffix.count))), rank: 1)
        }
        // Aviation's body rates.
        if let axis = ["p", "q", "r"].firstIndex(of: k) {
            return NameMatch(quantity: .axis(group: 0, axis: axis), rank: 2, unit: hint, source: "pqr")
        }
        if let axis = ["rollrate", "pitchrate", "yawrate"].firstIndex(of: k) {
            return NameMatch(quantity: .axis(group: 0, axis: axis), rank: 2, unit: hint, source: "rollpitchyawrate")
        }
        // A stem and the axis: `accel_x`, `Gyroscope X`, `gx`, `w_RS_S_x`.
        if let axis = k.last.flatMap({ "xyz".firstIndex(of: $0) }) {
            let stem = String(k.dropLast())
            let a = "xyz".distance(from: "xyz".startIndex, to: axis)
            if stem == "linearacceleration" {
                return NameMatch(quantity: .axis(group: 1, axis: a), rank: 3, unit: hint, source: stem)
            }
            if let group = stems.first(where: { $0.stems.contains(stem) })?.group {
                return NameMatch(quantity: .axis(group: group, axis: a), rank: 1, unit: hint, source: stem)
            }
            // An app's own name, surer than any common one: Physics Toolbox's g-force `gFx` (in g,
            // gravity included) beside its linear acceleration `ax`.
            if stemsInG.contains(stem) {
                return NameMatch(quantity: .axis(group: 1, axis: a), rank: 0, unit: hint ?? "g", source: stem)
            }
            if let group = weakStems[stem] {
                return NameMatch(quantity: .axis(group: group, axis: a), rank: 2, unit: hint, source: stem)
            }
            // A bare axis whose unit names the sensor: phyphox's `X (m/s^2)`.
            if stem.isEmpty, let hint, let group = SensorUnits.group(ofUnit: hint) {
                return NameMatch(quantity: .axis(group: group, axis: a), rank: 2, unit: hint, source: hint)
            }
        }
        // The same with the axis first: MetaBase's `x-axis (deg/s)`.
        if let a = ["xaxis", "yaxis", "zaxis"].firstIndex(of: k), let hint, let group = SensorUnits.group(ofUnit: hint)
        {
            return NameMatch(quantity: .axis(group: group, axis: a), rank: 2, unit: hint, source: hint)
        }
        return wordMatch(name, hint: hint)
    }

    /// Whether a unit hint is a UTC offset (`-07:00`, `+0100`, `UTC+2`, `Z`), the zone of a local
    /// wall clock's text, not a unit.
    static func isUTCOffset(_ hint: String) -> Bool {
        var t = Substring(hint.trimmingSpaces.uppercased())
        for zone in ["UTC", "GMT", "Z"] where t.hasPrefix(zone) {
            t = t.dropFirst(zone.count)
            if t.isEmpty { return true }
        }
        guard let sign = t.first, sign == "+" || sign == "-" || sign == "−" else { return false }
        let digits = t.dropFirst().filter { $0 != ":" }
        return (1...4).contains(digits.count) && digits.allSatisfy(\.isASCII) && digits.allSatisfy(\.isNumber)
            && t.dropFirst().filter { $0 == ":" }.count <= 1
    }

    /// The time a name gives, if it names one.
    static func timeMatch(_ k: String, trimmed: String, hint: String?) -> NameMatch? {
        // `rostopic echo -p` writes the recording time as `%time`, in ns.
        if trimmed.hasPrefix("%time") { return NameMatch(quantity: .time, rank: 3, unit: hint ?? "ns") }
        if let known = timeNames[k] { return NameMatch(quantity: .time, rank: known.rank, unit: hint ?? known.unit) }
        if k.hasSuffix("headerstamp") { return NameMatch(quantity: .time, rank: 1, unit: hint ?? "ns") }
        for suffix in secondSuffixes where k.hasSuffix("stamp" + suffix) {
            return NameMatch(quantity: .time, rank: 1, unit: hint ?? "s")
        }
        if k == "stamp" { return NameMatch(quantity: .time, rank: 1, unit: hint) }
        if k.hasPrefix("time") && hint != nil && SensorUnits.timeScale(hint!) != nil {
            return NameMatch(quantity: .time, rank: 2, unit: hint)
        }
        return nil
    }

    /// A sensor's own clock: a word naming one sensor, then `timestamp` or `time`, then at most a
    /// time unit (`Acc Timestamp`, `gyro_timestamp`, `mag_time_ns`, `AccelTimestamp (ms)`).
    static func sensorTimeMatch(_ k: String, hint: String?) -> NameMatch? {
        for (g, words) in sensorWords.enumerated() {
            for word in words where k.hasPrefix(word) {
                let rest = k.dropFirst(word.count)
                guard let base = ["timestamp", "time"].first(where: { rest.hasPrefix($0) }) else { continue }
                let suffix = String(rest.dropFirst(base.count))
                guard suffix.isEmpty || SensorUnits.timeScale(suffix) != nil else { continue }
                let stated = hint.flatMap { SensorUnits.timeScale($0) != nil ? $0 : nil }
                return NameMatch(
                    quantity: .sensorTime(group: g), rank: 1, unit: stated ?? (suffix.isEmpty ? nil : suffix))
            }
        }
        return nil
    }

    /// The words of a name without the calibration state some loggers end names with (Shimmer's
    /// `_CAL`, `_RAW`), and whether that state makes it a second choice.
    static func coreWords(_ name: String) -> (words: [String], secondary: Bool) {
        var w = words(name)
        var secondary = false
        while w.count > 1, let last = w.last, ["cal", "calibrated", "raw", "uncal", "uncalibrated"].contains(last) {
            secondary = secondary || last.hasPrefix("raw") || last.hasPrefix("uncal")
            w.removeLast()
        }
        return (w, secondary)
    }

    /// A time read word by word (`Shimmer_8C3B_Timestamp_Unix_CAL`, AndroSensor's `Time since start
    /// in ms`): a word `time` or `timestamp`, no sensor's word and nothing ruled out; a last choice
    /// (rank 3), in the unit of its hint or of a last word that names one (`ms`).
    static func wordTimeMatch(_ name: String, hint: String?) -> NameMatch? {
        let w = coreWords(name).words
        guard w.count >= 2, w.contains("time") || w.contains("timestamp"),
            !w.contains(where: excludedWords.contains), !w.contains(where: environmentWords.contains),
            !sensorWords.contains(where: { !$0.isDisjoint(with: w) }),
            hint.map({ SensorUnits.timeScale($0) != nil }) ?? true
        else { return nil }
        let stated = w.last.flatMap { SensorUnits.timeScale($0) != nil ? $0 : nil }
        return NameMatch(quantity: .time, rank: 3, unit: hint ?? stated)
    }

    /// A sensor axis read word by word: the last word (before a unit word) is the axis, and the
    /// words before it name one sensor and nothing ruled out.
    static func wordMatch(_ name: String, hint: String?) -> NameMatch? {
        let core = coreWords(name)
        var w = core.words
        var unit = hint
        if let axis = w.dropLast().lastIndex(where: { ["x", "y", "z"].contains($0) }), axis >= 1,
            let u = unitWords[w[(axis + 1)...].joined()]
        {
            unit = unit ?? u
            w.removeSubrange((axis + 1)...)
        }
        guard w.count >= 2, let axis = ["x", "y", "z"].firstIndex(of: w.last!) else { return nil }
        let quantity = Array(w.dropLast())
        guard !rulesOut(quantity) else { return nil }
        guard let group = sensorGroup(quantity) else { return nil }
        let secondary = core.secondary || !quantity.filter(secondaryWords.contains).isEmpty
        return NameMatch(
            quantity: .axis(group: group, axis: axis), rank: secondary ? 3 : 2, unit: unit,
            source: quantity.joined(separator: " ") + (hint.map { " (\($0))" } ?? ""))
    }

    /// The one sensor group (0 gyroscope, 1 accelerometer, 2 magnetometer) `words` name, or nil
    /// when they name none or several.
    static func sensorGroup(_ words: [String]) -> Int? {
        let joined = Set(words + zip(words, words.dropFirst()).map { $0 + $1 })
        var groups = Set<Int>()
        for (g, names) in sensorWords.enumerated() where !joined.isDisjoint(with: names) { groups.insert(g) }
        if joined.contains("rotationrate") || joined.contains("turnrate") { groups.insert(0) }
        return groups.count == 1 ? groups.first : nil
    }

    /// Unit words an array's name may end with before its index: those after an axis, and PX4's
    /// `rad` (rad/s) and `ga` (gauss).
    static let arrayUnitWords = unitWords.merging(["rad": "rad/s", "ga": "gauss"]) { stated, _ in stated }

    /// A sensor's axis as an array element, `NAME[0]`…`NAME[2]`, as ulog2csv writes PX4's topics:
    /// the words of NAME name one sensor, then maybe a unit (`gyro_rad[0]` in rad/s,
    /// `accelerometer_m_s2[1]` in m/s², `magnetometer_ga[2]` in gauss); a common name (rank 1).
    static func indexedMatch(_ name: String) -> NameMatch? {
        let t = name.trimmingSpaces
        guard t.hasSuffix("]"), let open = t.lastIndex(of: "["),
            let axis = Int(t[t.index(after: open)..<t.index(before: t.endIndex)]), (0...2).contains(axis)
        else { return nil }
        let base = String(t[..<open])
        var w = words(base)
        var unit: String?
        if let k = (1..<max(1, w.count)).first(where: { arrayUnitWords[w[$0...].joined()] != nil }) {
            unit = arrayUnitWords[w[k...].joined()]
            w.removeSubrange(k...)
        }
        guard !rulesOut(w), let group = sensorGroup(w) else { return nil }
        return NameMatch(quantity: .axis(group: group, axis: axis), rank: 1, unit: unit, source: base.lowercased())
    }

    /// The arrays of PX4's sensor topics (``indexedMatch(_:)``): `sensor_combined`'s gyroscope and
    /// accelerometer, `vehicle_magnetometer`'s field.
    static let px4Arrays: Set<String> = ["gyro_rad", "accelerometer_m_s2", "magnetometer_ga"]

    /// The column of the first of the layout's sensors that is one of PX4's arrays
    /// (``px4Arrays``), if any.
    func px4Column(_ names: [String]) -> Int? {
        Self.groups.prefix(3).lazy.compactMap { self.columns[$0.slots[0]] }.first { c in
            c < names.count
                && Self.px4Arrays.contains(String(names[c].trimmingSpaces.lowercased().prefix { $0 != "[" }))
        }
    }

    /// The layout a header names: native names, and common names for time and the sensors' x/y/z
    /// columns (`Gyroscope X (deg/s)`, `w_RS_S_x [rad s^-1]`, `accel_x`, `gx`, `p,q,r`,
    /// `field.angular_velocity.x`, `UnCompGyroX`, `secs`+`nsecs`…), with units from hints in the
    /// names. Of several names for one quantity the surest is used (see ``NameMatch/rank``).
    /// Throws when two equally sure names claim one quantity, or a sensor's surest names are
    /// incomplete. `taken` columns (chosen with `--columns`) and `given` quantities are left alone.
    public static func fromHeader(_ names: [String], file: String) throws -> ColumnLayout {
        try fromHeader(names, file: file, taken: [], given: [])
    }

    static func fromHeader(
        _ names: [String], file: String, taken: Set<Int>, given: Set<String>
    ) throws -> ColumnLayout {
        var layout = ColumnLayout()
        let here = SourceLocation(file: file, line: 1, column: 0)
        /// Two columns naming one quantity; with the `--columns` key, the two choices by column
        /// number (the other columns are still found by their names).
        func ambiguous(_ a: Int, _ b: Int, _ what: String, key: String? = nil) -> TraceError {
            let choose =
                key.map { k in
                    "--columns \(k)=\(a + 1) or --columns \(k)=\(b + 1) (the other columns are still read by their names)"
                } ?? "--columns"
            return TraceError(
                .duplicateColumn, here,
                "columns '\(names[a].escapedForMessage)' and '\(names[b].escapedForMessage)' both name \(what); choose one with \(choose)"
            )
        }
        var matches = [(column: Int, match: NameMatch)]()
        let numbered = numberedAxisNames(names)
        for (c, name) in names.enumerated() where !taken.contains(c) {
            if let m = match(numbered[c] ?? name) { matches.append((c, m)) }
            // Ground truth and the moving flag have native names only.
            if let slot = nativeNames[name.lowercased()], slot.rawValue >= Slot.truthW.rawValue, slot != .time {
                if let other = layout.columns[slot] { throw ambiguous(other, c, slot.label) }
                layout.columns[slot] = c
            }
        }
        // The time: the surest name; two equally sure are ambiguous.
        if !given.contains("t") {
            let times = matches.filter { $0.match.quantity == .time }
            if let best = times.map(\.match.rank).min() {
                var chosen = times.filter { $0.match.rank == best }
                // A ROS message's own header stamp over those of messages nested in it
                // (`header.stamp.secs` over `imu.header.stamp.secs`, which drivers often leave 0).
                if chosen.count > 1 {
                    let depth = { (c: Int) in names[c].split(separator: ".").count }
                    let outer = chosen.map { depth($0.column) }.min()!
                    let outermost = chosen.filter { depth($0.column) == outer }
                    if outermost.count == 1, names[outermost[0].column].contains(".") { chosen = outermost }
                }
                if chosen.count > 1 { throw ambiguous(chosen[0].column, chosen[1].column, "the time", key: "t") }
                let c = chosen[0].column
                layout.columns[.time] = c
                if let unit = chosen[0].match.unit { try layout.units.set("t", unit, strictly: false) }
                // SampleTimeFine's unit depends on the device: the steps decide (UnitEvidence).
                if key(names[c]) == "sampletimefine" && unitHint(names[c]) == nil { layout.units.explicit.remove("t") }
                // Seconds and nanoseconds in two columns.
                let k = key(names[c])
                if let suffix = secondSuffixes.first(where: { k.hasSuffix($0) }) {
                    let prefix = String(k.dropLast(suffix.count))
                    if let ns = matches.first(where: { $0.match.quantity == .nanoseconds(prefix: prefix) }) {
                        layout.columns[.timeNanoseconds] = ns.column
                    }
                }
            }
        }
        // Each sensor: the surest complete source (three axes sharing a name but the axis).
        for (g, group) in groups.prefix(3).enumerated() where !given.contains(group.key) {
            var sources = [String: (rank: Int, columns: [Int?], unit: String?)]()
            var order = [String]()
            for (c, m) in matches {
                guard case .axis(let mg, let axis) = m.quantity, mg == g else { continue }
                let id = "\(m.rank)|\(m.source.lowercased())"
                if sources[id] == nil {
                    sources[id] = (m.rank, [nil, nil, nil], nil)
                    order.append(id)
                }
                if let other = sources[id]!.columns[axis] {
                    let what = "the \(group.label) \(["x", "y", "z"][axis])"
                    throw ambiguous(other, c, what, key: axis == 0 ? group.key : nil)
                }
                sources[id]!.columns[axis] = c
                if axis == 0 { sources[id]!.unit = m.unit }
            }
            let complete = order.filter { id in sources[id]!.columns.allSatisfy { $0 != nil } }
            guard let best = complete.map({ sources[$0]!.rank }).min() else {
                // A native or common name without its other axes is a mistake in the header; a
                // name read word by word that finds no partners is another quantity.
                if let partial = order.first(where: { sources[$0]!.rank <= 1 }) {
                    for (axis, c) in sources[partial]!.columns.enumerated() {
                        if let c { layout.columns[group.slots[axis]] = c }
                    }
                }
                continue
            }
            let chosen = complete.filter { sources[$0]!.rank == best }
            if chosen.count > 1 {
                throw ambiguous(
                    sources[chosen[0]]!.columns[0]!, sources[chosen[1]]!.columns[0]!, "the \(group.label) x",
                    key: group.key)
            }
            let source = sources[chosen[0]]!
            for (axis, c) in source.columns.enumerated() { layout.columns[group.slots[axis]] = c! }
            if let unit = source.unit { try layout.units.set(group.key, unit, strictly: false) }
        }
        // PX4's `timestamp` is µs since boot.
        if !given.contains("t"), let c = layout.columns[.time], layout.px4Column(names) != nil,
            key(names[c]) == "timestamp", unitHint(names[c]) == nil
        {
            try layout.units.set("t", "us", strictly: false)
        }
        // A sensor's own clock (per-sensor time columns), for the sensors the layout has or
        // `--columns` gives (`given`); not when the time is given (`--columns t=…` times every
        // sensor by one clock).
        for (g, slot) in clockSlots.enumerated()
        where !given.contains("t") && (layout.has(groups[g].slots[0]) || given.contains(groups[g].key)) {
            let clocks = matches.filter { $0.match.quantity == .sensorTime(group: g) }
            if clocks.count > 1 { throw ambiguous(clocks[0].column, clocks[1].column, "the \(groups[g].label)'s time") }
            if let clock = clocks.first { layout.columns[slot] = clock.column }
        }
        // Core Motion's device motion without its raw accelerometer: the specific force is
        // −(gravity + user acceleration), in g unless the name says otherwise.
        if !given.contains("acc"), let gravity = layout.userAccelerationGravity(names) {
            for (axis, c) in gravity.enumerated() { layout.columns[Slot(rawValue: Slot.gravityX.rawValue + axis)!] = c }
            let unit = unitHint(names[layout.columns[.accelerometerX]!]) ?? unitHint(names[gravity[0]]) ?? "g"
            try layout.units.set("acc", "-" + unit, strictly: false)
        }
        try layout.checkComplete(names: names, file: file)
        return layout
    }

    /// The time and each sensor the layout has, by the name of its column (a sensor's x), for
    /// messages.
    func describe(_ names: [String]) -> String {
        var parts = [String]()
        if let c = columns[.time] {
            parts.append("time '\(names[c].escapedForMessage)'")
        }
        for g in Self.groups.prefix(3) where has(g.slots[0]) {
            parts.append("\(g.label) '\(names[columns[g.slots[0]]!].escapedForMessage)'…")
        }
        return parts.joined(separator: ", ")
    }
}

extension SensorUnits {
    /// The sensor group (0 gyroscope, 1 accelerometer, 2 magnetometer) whose unit `unit` is, when
    /// it is one only a sensor of that kind is written in (`m/s^2`, `deg/s`, `µT`); nil otherwise
    /// (`a.u.`, a time unit).
    static func group(ofUnit unit: String) -> Int? {
        for (g, key) in ["gyr", "acc", "mag"].enumerated() {
            var probe = SensorUnits()
            if (try? probe.set(key, unit, strictly: true)) != nil, !probe.magnetometerArbitrary,
                Self.normalise(unit) != "g" || key == "acc"
            {
                return g
            }
        }
        return nil
    }
}
