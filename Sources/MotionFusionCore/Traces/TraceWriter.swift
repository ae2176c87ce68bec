import Foundation

/// Writes traces in the native CSV format. Numbers use Swift's shortest round-trip spelling, so a
/// written trace reads back bit for bit.
public enum TraceWriter {
    /// The native header for a trace with the given content.
    public static func header(
        gyroscope: Bool = true, accelerometer: Bool = true, magnetometer: Bool = true, truth: Bool = false,
        moving: Bool = false
    ) -> String {
        var cols = ["t"]
        if gyroscope { cols += ["gyr_x", "gyr_y", "gyr_z"] }
        if accelerometer { cols += ["acc_x", "acc_y", "acc_z"] }
        if magnetometer { cols += ["mag_x", "mag_y", "mag_z"] }
        if truth { cols += ["gt_qw", "gt_qx", "gt_qy", "gt_qz"] }
        if moving { cols.append("moving") }
        return cols.joined(separator: ",")
    }

    /// The whole trace as native CSV text (LF line endings).
    public static func csv(_ trace: Trace) -> String {
        let g = trace.has(.gyroscope)
        let a = trace.has(.accelerometer)
        let m = trace.has(.magnetometer)
        let truth = trace.hasGroundTruth
        let moving = trace.samples.contains { $0.moving != nil }
        var out = header(gyroscope: g, accelerometer: a, magnetometer: m, truth: truth, moving: moving) + "\n"
        out.reserveCapacity(trace.samples.count * 160)
        func vec(_ v: Vector3?) {
            if let v {
                out += ",\(v.x),\(v.y),\(v.z)"
            } else {
                out += ",nan,nan,nan"
            }
        }
        for s in trace.samples {
            out += "\(s.t)"
            if g { vec(s.gyroscope) }
            if a { vec(s.accelerometer) }
            if m { vec(s.magnetometer) }
            if truth {
                if let q = s.truth {
                    out += ",\(q.w),\(q.x),\(q.y),\(q.z)"
                } else {
                    out += ",nan,nan,nan,nan"
                }
            }
            if moving { out += s.moving.map { $0 ? ",1" : ",0" } ?? ",nan" }
            out += "\n"
        }
        return out
    }

    /// Writes the trace to `path` atomically (a temporary file renamed into place).
    public static func write(_ trace: Trace, to path: String) throws {
        try AtomicFile.write(Data(csv(trace).utf8), to: path)
    }
}

/// Writes files so that a reader never sees a half-written file: the data goes to a temporary file
/// in the same folder, which is then renamed over the target.
public enum AtomicFile {
    /// Writes `data` to `path` atomically.
    public static func write(_ data: Data, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try data.write(to: url, options: .atomic)
    }
}
