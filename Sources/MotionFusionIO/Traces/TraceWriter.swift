/// Writes traces in the native CSV format, streaming. Numbers use Swift's shortest round-trip
/// spelling, so a written trace reads back bit for bit; a missing sensor value is `nan`.
public final class TraceWriter {
    /// Which column groups a trace file has.
    public struct Columns: Sendable {
        /// Gyroscope, accelerometer, magnetometer, ground truth and moving columns.
        public var gyroscope = true, accelerometer = true, magnetometer = true, truth = false, moving = false

        /// All sensors, no truth.
        public init() {}

        /// Every column group the trace has values for.
        public init(_ trace: Trace) {
            gyroscope = trace.has(.gyroscope)
            accelerometer = trace.has(.accelerometer)
            magnetometer = trace.has(.magnetometer)
            truth = trace.hasGroundTruth
            moving = trace.samples.contains { $0.moving != nil }
        }

        /// Every column (what the simulator writes).
        public static let all: Columns = {
            var c = Columns()
            c.truth = true
            c.moving = true
            return c
        }()

        /// The header line.
        public var header: String {
            var cols = ["t"]
            if gyroscope { cols += ["gyr_x", "gyr_y", "gyr_z"] }
            if accelerometer { cols += ["acc_x", "acc_y", "acc_z"] }
            if magnetometer { cols += ["mag_x", "mag_y", "mag_z"] }
            if truth { cols += ["gt_qw", "gt_qx", "gt_qy", "gt_qz"] }
            if moving { cols.append("moving") }
            return cols.joined(separator: ",")
        }

        /// One sample's row (without the line ending).
        public func row(_ s: SensorSample) -> String {
            var out = "\(s.t)"
            func vec(_ v: Vector3?) {
                if let v { out += ",\(v.x),\(v.y),\(v.z)" } else { out += ",nan,nan,nan" }
            }
            if gyroscope { vec(s.gyroscope) }
            if accelerometer { vec(s.accelerometer) }
            if magnetometer { vec(s.magnetometer) }
            if truth {
                if let q = s.truth { out += ",\(q.w),\(q.x),\(q.y),\(q.z)" } else { out += ",nan,nan,nan,nan" }
            }
            if moving { out += s.moving.map { $0 ? ",1" : ",0" } ?? ",nan" }
            return out
        }
    }

    /// Typical bytes per row with every column, for size estimates.
    public static let typicalRowBytes = 330

    let output: OutputFile
    let columns: Columns
    var buffer = CSVOutputBuffer()
    /// Whether each row is written out at once (a live consumer on a pipe or a terminal) rather
    /// than in blocks. Default false.
    public var flushEachRow = false

    /// Starts a trace file with `columns`.
    public init(output: OutputFile, columns: Columns) {
        self.output = output
        self.columns = columns
        buffer.append(columns.header + "\n")
    }

    deinit { buffer.deallocate() }

    /// Appends one sample.
    public func write(_ s: SensorSample) throws {
        buffer.append(columns.row(s) + "\n")
        if buffer.isFull || flushEachRow { try buffer.flush(to: output) }
    }

    /// Flushes and makes the file visible.
    public func finish() throws {
        try buffer.flush(to: output)
        try output.commit()
    }

    /// The whole trace as native CSV text (LF line endings).
    public static func csv(_ trace: Trace) -> String {
        let columns = Columns(trace)
        var out = columns.header + "\n"
        for s in trace.samples { out += columns.row(s) + "\n" }
        return out
    }

    /// Writes the trace to `path` atomically (never onto `protecting`).
    public static func write(_ trace: Trace, to path: String, protecting inputs: InputFiles = InputFiles()) throws {
        let file = try OutputTarget.resolve(path, protecting: inputs).open()
        let writer = TraceWriter(output: file, columns: Columns(trace))
        do {
            for s in trace.samples { try writer.write(s) }
            try writer.finish()
        } catch {
            file.abandon()
            throw error
        }
    }
}
