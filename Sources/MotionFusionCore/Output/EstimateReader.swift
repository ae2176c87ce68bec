/// Reads estimate files written by `replay` (or any CSV with `t,qw,qx,qy,qz` columns).
public enum EstimateReader {
    /// Timestamps and attitudes (nil where a row's quaternion is missing), converted to ENU from
    /// the frame they were written in.
    public static func read(path: String, frame: EarthFrame = .enu) throws -> (t: [Double], attitudes: [Quaternion?]) {
        let table = try CSVTable(path: path)
        func col(_ name: String) throws -> Int { try table.column("'\(name)'") { $0.lowercased() == name } }
        let tc = try col("t")
        let (w, x, y, z) = try (col("qw"), col("qx"), col("qy"), col("qz"))
        let times = try table.times(column: tc, scale: 1)
        var out = [Quaternion?]()
        out.reserveCapacity(table.rowCount)
        for r in 0..<table.rowCount {
            let q = Quaternion(
                w: table.columns[w][r], x: table.columns[x][r], y: table.columns[y][r], z: table.columns[z][r])
            if q.isFinite && q.squaredNorm > 0 {
                out.append(frame.attitudeToENU(q.normalized))
            } else if q.w.isNaN && q.x.isNaN && q.y.isNaN && q.z.isNaN {
                out.append(nil)
            } else {
                throw TraceError(
                    .nonFiniteValue, table.location(row: r, column: w),
                    "quaternion is partly missing, infinite or zero; expected four finite numbers")
            }
        }
        return (times, out)
    }

    /// The estimates aligned to a trace's samples: by row when the counts agree and the times
    /// match, otherwise by nearest timestamp within half the median sample interval.
    public static func align(_ estimate: (t: [Double], attitudes: [Quaternion?]), to trace: Trace) -> [Quaternion?] {
        let samples = trace.samples
        if estimate.t.count == samples.count {
            let sameTimes = zip(estimate.t, samples).allSatisfy { abs($0 - $1.t) < 1e-5 }
            if sameTimes { return estimate.attitudes }
        }
        var out = [Quaternion?](repeating: nil, count: samples.count)
        guard !estimate.t.isEmpty else { return out }
        var intervals = [Double]()
        for i in 1..<min(samples.count, 1000) { intervals.append(samples[i].t - samples[i - 1].t) }
        let tolerance = (intervals.sorted().dropFirst(intervals.count / 2).first ?? 0.01) / 2
        var j = 0
        for (i, s) in samples.enumerated() {
            while j + 1 < estimate.t.count && abs(estimate.t[j + 1] - s.t) <= abs(estimate.t[j] - s.t) { j += 1 }
            if abs(estimate.t[j] - s.t) <= tolerance { out[i] = estimate.attitudes[j] }
        }
        return out
    }
}
