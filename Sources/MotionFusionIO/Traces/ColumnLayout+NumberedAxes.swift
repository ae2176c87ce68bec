extension ColumnLayout {
    /// A sensor's axes numbered instead of lettered, as matrix variables are written: MATLAB's
    /// `writetable` (`acc_1,acc_2,acc_3`), R (`acc.1`), one-based arrays (`acc[1]`, `acc(1)`) and
    /// bare digits (`gyro1`), each perhaps followed by a unit (`Accelerometer_1 (m/s^2)`,
    /// `acc_1(g)`). The name before the number must name one sensor and no axis (`gyro_z_1` is
    /// one axis of a first IMU), and the header must number that name 1, 2, 3 (one-based) or
    /// 0, 1, 2 (zero-based) and nothing else, so two sensors numbered 1 and 2 (`acc1,acc2` of two
    /// boards) are not taken for axes. Left alone as well: a sensor whose axes the header also
    /// names by letter (`acc_x` beside `acc_1`), a name also written bare (`gyro,gyro.1,gyro.2`:
    /// pandas' and R's renaming of repeated names, where `.1` is the second column), and
    /// zero-based names another rule already reads (PX4's `gyro_rad[0]`). Returns, per numbered
    /// column, its name with the number turned into the axis letter (`acc_x (m/s^2)`), for the
    /// name rules to read.
    static func numberedAxisNames(_ names: [String]) -> [Int: String] {
        var numbered = [String: [(column: Int, index: Int, stem: String, unit: String)]]()
        for (c, name) in names.enumerated() {
            guard let n = numberedAxis(name) else { continue }
            numbered[n.key, default: []].append((c, n.index, n.stem, n.unit))
        }
        guard !numbered.isEmpty else { return [:] }
        let bare = Set(names.map { $0.trimmingSpaces.lowercased() })
        // The sensor groups whose axes some other column names by letter.
        let candidates = Set(numbered.values.joined().map(\.column))
        var lettered = Set<Int>()
        for (c, name) in names.enumerated() where !candidates.contains(c) {
            if case .axis(let group, _)? = match(name)?.quantity { lettered.insert(group) }
        }
        var out = [Int: String]()
        for columns in numbered.values {
            let stem = columns[0].stem
            guard !bare.contains(stem.lowercased()),
                let group = sensorGroup(words(stem).map { $0.lowercased() }), !lettered.contains(group)
            else { continue }
            let base: Int
            switch columns.map(\.index).sorted() {
            case [1, 2, 3]: base = 1
            // PX4's `gyro_rad[0]`…`[2]` are read by their own rule.
            case [0, 1, 2] where columns.allSatisfy({ match(names[$0.column]) == nil }): base = 0
            default: continue
            }
            for c in columns { out[c.column] = c.stem + "_" + ["x", "y", "z"][c.index - base] + c.unit }
        }
        return out
    }

    /// The parts of a name that ends with an axis number: the sensor's name, the digit, a unit
    /// after it (with the space before it, if any), and a key shared by the names of one numbered
    /// sensor (the name in lower case and the way the digit is attached).
    /// The x, y and z columns of a file that holds one sensor, numbered under any name (Android's
    /// `values[0]`…`values[2]`, `value_1`…`value_3`, `axis_1`…`axis_3`): the one name numbered
    /// exactly 1, 2, 3 or 0, 1, 2, in axis order; nil when no name or more than one is.
    static func numberedColumns(_ names: [String]) -> [Int]? {
        var numbered = [String: [(column: Int, index: Int)]]()
        for (c, name) in names.enumerated() {
            guard let n = numberedAxis(name, anyStem: true) else { continue }
            numbered[n.key, default: []].append((c, n.index))
        }
        let axes = numbered.values.filter { [[0, 1, 2], [1, 2, 3]].contains($0.map(\.index).sorted()) }
        guard axes.count == 1 else { return nil }
        return axes[0].sorted { $0.index < $1.index }.map(\.column)
    }

    /// The same parts for any name before the number, with `anyStem`.
    static func numberedAxis(_ name: String, anyStem: Bool = false) -> (
        key: String, stem: String, index: Int, unit: String
    )? {
        var core = Substring(name.trimmingSpaces)
        var unit = ""
        // A unit in brackets: `acc_1 (g)`, `gyro.2 [deg/s]`, `acc_1(g)`, `acc[1][g]`; a single
        // digit in brackets is the index instead (`acc[1]`).
        if let last = core.last, last == ")" || last == "]",
            let open = core.lastIndex(where: { $0 == "(" || $0 == "[" }), open > core.startIndex
        {
            let inside = core[core.index(after: open)..<core.index(before: core.endIndex)]
            if !(inside.count == 1 && inside.first!.isNumber) {
                var start = open
                while start > core.startIndex && core[core.index(before: start)] == " " {
                    start = core.index(before: start)
                }
                unit = String(core[start...])
                core = core[..<start]
            }
        }
        var attach = ""
        // An index in brackets: `acc[1]`, `acc(1)`.
        if let last = core.last, last == "]" || last == ")", core.count >= 4 {
            let open = core.index(core.endIndex, offsetBy: -3)
            guard core[open] == (last == "]" ? "[" : "("), let d = core[core.index(after: open)].wholeNumberValue
            else { return nil }
            attach = String(core[open]) + String(last)
            return parts(core[..<open], d, attach, unit, anyStem: anyStem)
        }
        guard let d = core.last?.wholeNumberValue, core.count >= 2 else { return nil }
        var stem = core.dropLast()
        if let s = stem.last, "_.- ".contains(s) {
            attach = String(s)
            stem = stem.dropLast()
        }
        return parts(stem, d, attach, unit, anyStem: anyStem)
    }

    /// The parts when `stem` ends with a letter, names no axis, and (unless `anyStem`) names one
    /// sensor.
    private static func parts(_ stem: Substring, _ index: Int, _ attach: String, _ unit: String, anyStem: Bool)
        -> (key: String, stem: String, index: Int, unit: String)?
    {
        guard let last = stem.last, last.isLetter else { return nil }
        let w = words(String(stem)).map { $0.lowercased() }
        guard let end = w.last, !["x", "y", "z"].contains(end), anyStem || (!rulesOut(w) && sensorGroup(w) != nil)
        else { return nil }
        return (stem.lowercased() + "#" + attach, String(stem), index, unit)
    }
}
