/// The options an error proposes for a file whose header names nothing MotionFusion recognises (or
/// that has no header): a concrete `--columns` line built from its names and first rows.
extension ColumnLayout {
    /// A guess at the options that read a table: `--header-rows 0` for a file without a header,
    /// `--columns` naming the time and each sensor's x column (by name where the name can be
    /// written in `--columns`, else by number), and `--sample-rate HZ` when no column looks like a
    /// clock. `names` are the header's (empty without one); `rows` the first data rows' fields.
    /// Nil when no three columns could be a sensor.
    ///
    /// The time is a column the names call a clock, else the first column of numbers that rises
    /// from row to row. The sensors are runs of three columns whose names differ only in the axis
    /// (`Drehrate X`, `Drehrate Y`, `Drehrate Z`), else consecutive columns of numbers in threes;
    /// each is told by its magnitudes where they are plain — gravity (≈9.8, ≈1 or ≈1000) makes an
    /// accelerometer, Earth's field (in µT, nT or T) a magnetometer — and the others are taken in
    /// the order gyroscope, accelerometer, magnetometer.
    public static func proposal(names: [String], rows: [[String]]) -> String? {
        let count = max(names.count, rows.first?.count ?? 0)
        guard count >= 3 else { return nil }
        let values: [[Double?]] = (0..<count).map { c in
            rows.map { c < $0.count ? Double($0[c].trimmingSpaces) : nil }
        }
        let numeric = (0..<count).map { c in !rows.isEmpty && values[c].allSatisfy { $0 != nil } }
        // The time.
        let clocks = Set(
            names.indices.filter { c in
                switch match(names[c])?.quantity {
                case .time, .sensorTime: return true
                default: return false
                }
            })
        var time: Int? = clocks.min()
        if time == nil, let first = (0..<count).first(where: { numeric[$0] }), rows.count >= 2 {
            let v = values[first].compactMap { $0 }
            if zip(v, v.dropFirst()).allSatisfy({ $0 < $1 }) { time = first }
        }
        // Else a first column of date-times (a Garmin watch's `2019-10-16T12:09:01.702+02:00;…`
        // without a header), which a time column reads as such.
        let firstNumeric = (0..<count).first { numeric[$0] } ?? 0
        if time == nil, let c = (0..<count).first(where: { !numeric[$0] }), c < firstNumeric, rows.count >= 2,
            rows.allSatisfy({ c < $0.count && DateTimeText.seconds($0[c]) != nil })
        {
            time = c
        }
        // What no sensor's column can be: a clock, a counter, a name ruled out (a position, a
        // quaternion), a unit no sensor is written in, or a bare axis (out of x, y, z order
        // when it is one of a triple not found below).
        let sensorUnit = names.map { name in ColumnLayout.unitHint(name).map { Self.sensorGroup(ofHint: $0) } }
        let possible = (0..<count).map { c -> Bool in
            guard numeric[c] || rows.isEmpty, !clocks.contains(c), c != time else { return false }
            guard c < names.count else { return true }
            if looksLikeCounter(names, c) || rulesOut(words(names[c])) { return false }
            if let unit = sensorUnit[c], unit == nil { return false }
            return true
        }
        // Unit vectors (a rotation matrix's rows) are no sensor's readings.
        func unitVectors(_ t: Int) -> Bool {
            let norms = rows.indices.compactMap { r -> Double? in
                guard let x = values[t][r], let y = values[t + 1][r], let z = values[t + 2][r] else { return nil }
                return (x * x + y * y + z * z).squareRoot()
            }
            return !norms.isEmpty && norms.allSatisfy { abs($0 - 1) < 1e-3 }
        }
        // Candidate triples.
        var triples = [Int]()
        var c = 0
        while c + 2 < names.count {
            // A quaternion's x, y, z after its w.
            let afterW = c > 0 && key(names[c - 1]).hasSuffix("w") && key(names[c]).hasSuffix("x")
            if axisTriple(names[c], names[c + 1], names[c + 2]) && (c..<c + 3).allSatisfy({ possible[$0] })
                && !afterW && !unitVectors(c)
            {
                triples.append(c)
                c += 3
            } else {
                c += 1
            }
        }
        if triples.isEmpty {
            var run = [Int]()
            for c in 0..<count {
                let usable = possible[c] && (c >= names.count || !["x", "y", "z"].contains(key(names[c])))
                if usable && (run.last.map { $0 + 1 == c } ?? true) {
                    run.append(c)
                } else {
                    run = usable ? [c] : []
                }
                if run.count == 3 {
                    if !unitVectors(run[0]) { triples.append(run[0]) }
                    run = []
                }
            }
        }
        guard !triples.isEmpty else { return nil }
        // What each triple holds.
        func norm(_ t: Int) -> Double? {
            let norms = rows.indices.compactMap { r -> Double? in
                guard let x = values[t][r], let y = values[t + 1][r], let z = values[t + 2][r] else { return nil }
                return (x * x + y * y + z * z).squareRoot()
            }
            return UnitCheck.median(norms)
        }
        var kinds = [Int: String]()
        // A unit a sensor is written in decides.
        for t in triples {
            if t < names.count, let group = sensorUnit[t] ?? nil {
                let key = ["gyr", "acc", "mag"][group]
                if !kinds.values.contains(key) { kinds[t] = key }
            }
        }
        let gravity: [ClosedRange<Double>] = [7...13, 0.8...1.2, 800...1200]
        let earthField: [ClosedRange<Double>] = [15...100, 1e4...1e5, 1e-5...1e-4]
        if !kinds.values.contains("acc"),
            let acc = triples.first(where: { t in
                kinds[t] == nil && (norm(t).map { n in gravity.contains { $0.contains(n) } } ?? false)
            })
        {
            kinds[acc] = "acc"
        }
        if !kinds.values.contains("mag"),
            let mag = triples.first(where: { t in
                kinds[t] == nil && (norm(t).map { n in earthField.contains { $0.contains(n) } } ?? false)
            })
        {
            kinds[mag] = "mag"
        }
        for t in triples where kinds[t] == nil {
            guard let next = ["gyr", "acc", "mag"].first(where: { !kinds.values.contains($0) }) else { break }
            kinds[t] = next
        }
        // Each column by name when `--columns` can carry it, else by number.
        func column(_ c: Int) -> String {
            let name = c < names.count ? names[c] : ""
            let usable =
                !name.isEmpty && !name.contains(",") && !name.contains("=") && !name.contains("'")
                && names.filter { $0 == name }.count == 1 && Int(name) == nil
            return usable ? name : "\(c + 1)"
        }
        var parts = [String]()
        if let time { parts.append("t=\(column(time))") }
        for key in ["gyr", "acc", "mag"] {
            if let t = triples.first(where: { kinds[$0] == key }) { parts.append("\(key)=\(column(t))") }
        }
        let list = parts.joined(separator: ",")
        let quoted = list.contains(where: { " ()[]&;|<>*?$\"\\#~!`{}".contains($0) }) ? "'\(list)'" : list
        var call = names.isEmpty ? "--header-rows 0 " : ""
        call += "--columns \(quoted)"
        if time == nil { call += " --sample-rate HZ" }
        return call
    }

    /// The sensor group a unit hint names (arbitrary units are a magnetometer's), or nil for a
    /// unit no sensor here is written in (`m`, `%`, `V`).
    static func sensorGroup(ofHint hint: String) -> Int? {
        if ["a.u.", "au", "arbitrary"].contains(SensorUnits.normalise(hint)) { return 2 }
        return SensorUnits.group(ofUnit: hint)
    }

    /// Whether three names differ only in an axis written last: `x`/`y`/`z` or `1`/`2`/`3`.
    static func axisTriple(_ a: String, _ b: String, _ c: String) -> Bool {
        let names = [a, b, c].map { $0.lowercased() }
        for axes in [["x", "y", "z"], ["1", "2", "3"]] {
            // The axis is the last letter or digit before any unit hint.
            let stripped = names.map { name -> (String, String)? in
                var text = Substring(name)
                if let cut = text.firstIndex(where: { $0 == "(" || $0 == "[" }) { text = text[..<cut] }
                guard let i = text.lastIndex(where: { $0.isLetter || $0.isNumber }) else { return nil }
                return (String(text[..<i]) + String(text[text.index(after: i)...]), String(text[i]))
            }
            guard stripped.allSatisfy({ $0 != nil }) else { return false }
            let s = stripped.map { $0! }
            if s.map(\.1) == axes && Set(s.map(\.0)).count == 1 { return true }
        }
        return false
    }

    /// Whether column `c` is named as a packet or sample counter rather than a sensor value.
    static func looksLikeCounter(_ names: [String], _ c: Int) -> Bool {
        guard c < names.count else { return false }
        let k = key(names[c])
        return ["counter", "count", "packet", "index", "seq", "sequence", "number", "id", "frame"].contains {
            k.hasSuffix($0) || k.hasPrefix($0)
        }
    }
}
