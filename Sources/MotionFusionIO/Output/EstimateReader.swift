/// Reads estimate files written by `replay` and `reconstruct` (or any delimited file with
/// `t,qw,qx,qy,qz` columns), for scoring.
public enum EstimateReader {
    /// The attitudes of an estimate file.
    public struct Estimates: Sendable {
        /// Time of each row, s.
        public var t: [Double]
        /// Attitude of each row, converted to ENU from the frame it was written in; nil where the
        /// quaternion is missing or invalid.
        public var attitudes: [Quaternion?]
        /// The fusion mode the file shows: 9D when some row used the magnetometer
        /// (`mag_rejected` = 0), 6D when none did, nil without a `mag_rejected` column.
        public var mode: FusionMode?
        /// Value faults (invalid quaternions: partly missing, infinite, zero or far from unit
        /// norm, treated as missing).
        public var faults: ValueFaults
        /// The earth frame the attitudes were read in: the one asked for, else the one the file
        /// shows (``writtenFrame``), else ENU.
        public var frame: EarthFrame = .enu
        /// The earth frame the file shows it was written in: the one in which the quaternions give
        /// the `heading` column (written in every frame as degrees clockwise from north). Nil
        /// without a `heading` column, or when its rows decide no single frame.
        public var writtenFrame: EarthFrame?
        /// The declination the file shows it was written with, degrees east: `heading` minus
        /// `magnetic_heading` (0 for an estimate referenced to magnetic north). Nil without both
        /// columns, or when they do not differ by one constant.
        public var writtenDeclination: Double?
    }

    /// Headings within this of each other, degrees, are the same: the columns are written with
    /// five decimals.
    static let headingTolerance = 0.01

    /// Reads an estimate file (`-` for standard input), in `frame`, or by default in the frame the
    /// file shows (``Estimates/writtenFrame``), else ENU.
    public static func read(path: String, frame: EarthFrame? = nil) throws -> Estimates {
        let rows: DelimitedRows
        do {
            rows = try DelimitedRows(ByteLineReader(path: path))
        } catch var e as TraceError where e.kind == .empty {
            // The reader's own example is a trace's header.
            e.message = "file is empty; expected an estimate file's header line such as 't,qw,qx,qy,qz'"
            throw e
        }
        let names = rows.names.map { $0.lowercased() }
        func column(_ name: String) throws -> Int {
            guard let c = names.firstIndex(of: name) else {
                throw TraceError(
                    .missingColumn, SourceLocation(file: rows.name, line: 1, column: 0),
                    "missing column '\(name)'; an estimate file has t,qw,qx,qy,qz columns; the header has: \(rows.names.map { $0.escapedForMessage }.joined(separator: ","))"
                )
            }
            return c
        }
        let columns = try ["t", "qw", "qx", "qy", "qz"].map(column)
        var slots = [Int](repeating: -1, count: rows.columnCount)
        for (slot, c) in columns.enumerated() { slots[c] = slot }
        let magColumn = names.firstIndex(of: "mag_rejected")
        if let m = magColumn { slots[m] = 5 }
        let headingColumn = names.firstIndex(of: "heading")
        let magneticHeadingColumn = names.firstIndex(of: "magnetic_heading")
        if let h = headingColumn { slots[h] = 6 }
        if let h = magneticHeadingColumn { slots[h] = 7 }
        rows.select(slots)
        var values = [Double](repeating: .nan, count: 8)
        var out = Estimates(t: [], attitudes: [], mode: magColumn == nil ? nil : .sixD, faults: ValueFaults())
        // The quaternions as written, with the row's heading columns, to tell the frame and the
        // declination once every row is in.
        var written = [(q: Quaternion?, heading: Double, magneticHeading: Double)]()
        var renormalised = 0
        while try values.withUnsafeMutableBufferPointer({ try rows.next(into: $0.baseAddress!, slots: 8) }) {
            let location = rows.lines.location(atByte: rows.fieldOffsets[1])
            guard values[0].isFinite else {
                throw TraceError(
                    .nonFiniteValue,
                    rows.lines.location(atByte: rows.fieldOffsets[0]),
                    "time is \(values[0]); every estimate row needs a finite time")
            }
            out.t.append(values[0])
            let q = Quaternion(w: values[1], x: values[2], y: values[3], z: values[4])
            let valid = try out.faults.screenTruth(
                q, location: location, renormalised: &renormalised, as: .invalidEstimate)
            written.append((valid?.normalized, values[6], values[7]))
            if values[5] == 0 { out.mode = .nineD }
        }
        guard !out.t.isEmpty else {
            throw TraceError(
                .empty, SourceLocation(file: rows.name, line: rows.lineNumber + 1, column: 0),
                "no data rows after the header")
        }
        if headingColumn != nil { out.writtenFrame = writtenFrame(written.lazy.map { ($0.q, $0.heading) }) }
        if headingColumn != nil && magneticHeadingColumn != nil {
            out.writtenDeclination = constantDifference(written.lazy.map { ($0.heading, $0.magneticHeading) })
        }
        out.frame = frame ?? out.writtenFrame ?? .enu
        let f = out.frame
        out.attitudes = written.map { $0.q.map { f.attitudeToENU($0) } }
        return out
    }

    /// Degrees `a − b` in (−180, 180].
    static func difference(_ a: Double, _ b: Double) -> Double {
        let d = (a - b).wrappedTo360
        return d > 180 ? d - 360 : d
    }

    /// The frame in which the quaternions give the written headings: the one frame that agrees
    /// on at least 99 % of the rows with both (an attitude whose heading is undefined, +x
    /// vertical, may disagree), or nil.
    static func writtenFrame<Rows: Collection>(_ rows: Rows) -> EarthFrame?
    where Rows.Element == (Quaternion?, Double) {
        var checked = 0
        var agreeing = [Int](repeating: 0, count: EarthFrame.allCases.count)
        for (q, heading) in rows {
            guard let q, heading.isFinite else { continue }
            checked += 1
            for (i, f) in EarthFrame.allCases.enumerated()
            where abs(difference(q.headingDegrees(in: f), heading)) <= headingTolerance {
                agreeing[i] += 1
            }
        }
        let frames = EarthFrame.allCases.indices.filter { checked > 0 && agreeing[$0] * 100 >= checked * 99 }
        return frames.count == 1 ? EarthFrame.allCases[frames[0]] : nil
    }

    /// The one difference `a − b`, degrees, of every row with both values, or nil when the rows
    /// hold none or differ by more than the columns' rounding.
    static func constantDifference<Rows: Collection>(_ rows: Rows) -> Double? where Rows.Element == (Double, Double) {
        var first: Double?
        for (a, b) in rows where a.isFinite && b.isFinite {
            let d = difference(a, b)
            guard let f = first else {
                first = d
                continue
            }
            guard abs(difference(d, f)) <= 2 * headingTolerance else { return nil }
        }
        return first
    }

    /// The estimates aligned to a trace's samples: by row when the counts agree and the times
    /// match, otherwise by nearest timestamp within half the median sample interval (the times of
    /// both must then increase).
    public static func align(_ estimate: Estimates, to trace: Trace) -> [Quaternion?] {
        alignment(estimate, to: trace).attitudes
    }

    /// How an estimate file lines up with a trace's samples (``align(_:to:)``).
    public struct Alignment: Sendable {
        /// The estimate of each trace sample, nil where none is within the tolerance.
        public var attitudes: [Quaternion?]
        /// Estimate rows that fall on a trace sample (within the tolerance).
        public var matchedRows: Int
        /// Half the trace's median sample interval, s: how far apart matched times may be.
        public var tolerance: Double
    }

    /// The estimates aligned to a trace's samples (``align(_:to:)``), with how many estimate rows
    /// found a sample.
    public static func alignment(_ estimate: Estimates, to trace: Trace) -> Alignment {
        let samples = trace.samples
        var intervals = [Double]()
        for i in 1..<max(1, min(samples.count, 1000)) { intervals.append(samples[i].t - samples[i - 1].t) }
        let tolerance = (UnitCheck.median(intervals.filter { $0 > 0 }) ?? 0.01) / 2
        if estimate.t.count == samples.count {
            let sameTimes = zip(estimate.t, samples).allSatisfy { abs($0 - $1.t) <= 1e-6 * max(1, abs($1.t)) }
            if sameTimes {
                return Alignment(attitudes: estimate.attitudes, matchedRows: samples.count, tolerance: tolerance)
            }
        }
        var out = [Quaternion?](repeating: nil, count: samples.count)
        guard !estimate.t.isEmpty, samples.count >= 2 else {
            return Alignment(attitudes: out, matchedRows: 0, tolerance: tolerance)
        }
        var j = 0
        var matched = 0
        var lastMatched = -1
        for (i, s) in samples.enumerated() {
            while j + 1 < estimate.t.count && abs(estimate.t[j + 1] - s.t) <= abs(estimate.t[j] - s.t) { j += 1 }
            if abs(estimate.t[j] - s.t) <= tolerance {
                out[i] = estimate.attitudes[j]
                if j != lastMatched {
                    matched += 1
                    lastMatched = j
                }
            }
        }
        return Alignment(attitudes: out, matchedRows: matched, tolerance: tolerance)
    }
}
