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
    }

    /// Reads an estimate file (`-` for standard input).
    public static func read(path: String, frame: EarthFrame = .enu) throws -> Estimates {
        let rows = try DelimitedRows(ByteLineReader(path: path))
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
        rows.select(slots)
        var values = [Double](repeating: .nan, count: 6)
        var out = Estimates(t: [], attitudes: [], mode: magColumn == nil ? nil : .sixD, faults: ValueFaults())
        var renormalised = 0
        while try values.withUnsafeMutableBufferPointer({ try rows.next(into: $0.baseAddress!, slots: 6) }) {
            let location = SourceLocation(file: rows.name, line: rows.lineNumber, column: rows.fieldOffsets[1] + 1)
            guard values[0].isFinite else {
                throw TraceError(
                    .nonFiniteValue,
                    SourceLocation(file: rows.name, line: rows.lineNumber, column: rows.fieldOffsets[0] + 1),
                    "time is \(values[0]); every estimate row needs a finite time")
            }
            out.t.append(values[0])
            let q = Quaternion(w: values[1], x: values[2], y: values[3], z: values[4])
            let valid = try out.faults.screenTruth(
                q, location: location, renormalised: &renormalised, as: .invalidEstimate)
            out.attitudes.append(valid.map { frame.attitudeToENU($0.normalized) })
            if values[5] == 0 { out.mode = .nineD }
        }
        guard !out.t.isEmpty else {
            throw TraceError(
                .empty, SourceLocation(file: rows.name, line: rows.lineNumber + 1, column: 0),
                "no data rows after the header")
        }
        return out
    }

    /// The estimates aligned to a trace's samples: by row when the counts agree and the times
    /// match, otherwise by nearest timestamp within half the median sample interval (the times of
    /// both must then increase).
    public static func align(_ estimate: Estimates, to trace: Trace) -> [Quaternion?] {
        let samples = trace.samples
        if estimate.t.count == samples.count {
            let sameTimes = zip(estimate.t, samples).allSatisfy { abs($0 - $1.t) <= 1e-6 * max(1, abs($1.t)) }
            if sameTimes { return estimate.attitudes }
        }
        var out = [Quaternion?](repeating: nil, count: samples.count)
        guard !estimate.t.isEmpty, samples.count >= 2 else { return out }
        var intervals = [Double]()
        for i in 1..<min(samples.count, 1000) { intervals.append(samples[i].t - samples[i - 1].t) }
        let tolerance = (UnitCheck.median(intervals.filter { $0 > 0 }) ?? 0.01) / 2
        var j = 0
        for (i, s) in samples.enumerated() {
            while j + 1 < estimate.t.count && abs(estimate.t[j + 1] - s.t) <= abs(estimate.t[j] - s.t) { j += 1 }
            if abs(estimate.t[j] - s.t) <= tolerance { out[i] = estimate.attitudes[j] }
        }
        return out
    }
}
