import Foundation
import Glibc

/// Writes estimates as CSV, one row per input sample. The first columns are always
/// `t,qw,qx,qy,qz,roll,pitch,yaw,heading` (angles in degrees, quaternion earth-from-sensor in the
/// chosen frame); diagnostic columns follow (see `docs/TraceFormat.md`).
public struct EstimateWriter {
    /// Output options.
    public struct Options: Sendable {
        /// Earth frame of the quaternion and Euler angles. Default ENU.
        public var frame = EarthFrame.enu
        /// Declination, degrees east; when set, `heading` is true heading and the attitude is
        /// referenced to true north. Default nil (magnetic north).
        public var declinationDegrees: Double?
        /// Whether to add the per-sample uncertainty columns. Default true.
        public var uncertainty = true
        /// Default options.
        public init() {}
    }

    /// The column names, in order.
    public static func header(_ options: Options) -> [String] {
        var h = ["t", "qw", "qx", "qy", "qz", "roll", "pitch", "yaw", "heading", "magnetic_heading"]
        h += ["used", "acc_rejected", "mag_rejected", "rest", "time_fault", "bias_x", "bias_y", "bias_z"]
        if options.uncertainty { h += ["sigma_attitude_deg", "sigma_heading_deg"] }
        return h
    }

    var options: Options
    var buffer = CSVOutputBuffer()
    let fd: Int32
    let temporaryPath: String?
    let finalPath: String?
    /// Rows written.
    public private(set) var rows = 0
    let northRotation: Quaternion

    /// Opens `path` for writing ("-" is standard output). A file is written to a temporary name
    /// beside it and renamed into place by ``finish()``, so an error never leaves half a file.
    public init(path: String, options: Options = Options()) throws {
        self.options = options
        // Magnetic north lies D east of true north, so true north has bearing −D in the magnetic
        // frame; re-referencing turns the earth frame by −D about up: q_true = Rz(−D) ⊗ q_magnetic.
        northRotation = Quaternion(axis: .unitZ, angle: -(options.declinationDegrees ?? 0).radians)
        if path == "-" {
            fd = 1
            temporaryPath = nil
            finalPath = nil
        } else {
            let dir = (path as NSString).deletingLastPathComponent
            let tmp = (dir.isEmpty ? "." : dir) + "/." + (path as NSString).lastPathComponent + ".tmp-\(getpid())"
            fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else {
                throw OutputError(message: "\(path): cannot create output: \(String(cString: strerror(errno)))")
            }
            temporaryPath = tmp
            finalPath = path
            PendingOutputs.register(tmp)
        }
        buffer.append(Self.header(options).joined(separator: ",") + "\n")
    }

    /// Appends one estimate.
    public mutating func write(_ e: MotionEstimate, used: Bool) throws {
        let qENU = options.declinationDegrees == nil ? e.attitude : (northRotation * e.attitude).normalized
        let q = options.frame.attitude(fromENU: qENU).canonical
        let euler = EulerAngles(q)
        let magneticEuler =
            options.frame == .enu && options.declinationDegrees == nil ? euler : EulerAngles(e.attitude.canonical)
        let magnetic = (-magneticEuler.yaw).degrees.wrappedTo360
        let heading = options.declinationDegrees == nil ? magnetic : qENU.headingDegrees()
        buffer.append(e.t, decimals: 6)
        for v in [q.w, q.x, q.y, q.z] {
            buffer.append(byte: 0x2C)
            buffer.append(v, decimals: 9)
        }
        for v in [euler.roll.degrees, euler.pitch.degrees, euler.yaw.degrees, heading, magnetic] {
            buffer.append(byte: 0x2C)
            buffer.append(v, decimals: 5)
        }
        let d = e.diagnostics
        for flag in [used, d.accelerometerRejected, d.magnetometerRejected, d.atRest, d.timeFault] {
            buffer.append(byte: 0x2C)
            buffer.append(byte: flag ? 0x31 : 0x30)
        }
        for v in [e.gyroscopeBias.x, e.gyroscopeBias.y, e.gyroscopeBias.z] {
            buffer.append(byte: 0x2C)
            buffer.append(v, decimals: 8)
        }
        if options.uncertainty {
            buffer.append(byte: 0x2C)
            buffer.append(d.attitudeUncertainty.degrees, decimals: 4)
            buffer.append(byte: 0x2C)
            buffer.append(d.headingUncertainty.degrees, decimals: 4)
        }
        buffer.append(byte: 0x0A)
        rows += 1
        if buffer.bytes.count > 1 << 20 { try buffer.flush(to: fd) }
    }

    /// Flushes, closes and renames the file into place.
    public mutating func finish() throws {
        try buffer.flush(to: fd)
        if let tmp = temporaryPath, let path = finalPath {
            close(fd)
            defer { PendingOutputs.unregister(tmp) }
            guard rename(tmp, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(tmp)
                throw OutputError(message: "\(path): cannot write output: \(reason)")
            }
        }
    }

    /// Removes the temporary file after a failure.
    public func abandon() {
        if let tmp = temporaryPath {
            close(fd)
            unlink(tmp)
            PendingOutputs.unregister(tmp)
        }
    }
}

/// Temporary output files still being written, so an interrupt (SIGINT, SIGTERM) can remove them
/// and never leave a half-written file behind. The paths live in fixed C storage that the signal
/// handler reads without allocating.
public enum PendingOutputs {
    static let capacity = 64
    static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        p.initialize(repeating: nil, count: capacity)
        return p
    }()
    static let lock = NSLock()

    static func register(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        for i in 0..<capacity where slots[i] == nil {
            slots[i] = strdup(path)
            return
        }
    }

    static func unregister(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        for i in 0..<capacity {
            if let p = slots[i], String(cString: p) == path {
                slots[i] = nil
                free(p)
            }
        }
    }

    /// Installs SIGINT and SIGTERM handlers that unlink pending outputs and exit with 128 + signal.
    public static func installSignalHandlers() {
        _ = slots
        for sig in [SIGINT, SIGTERM] {
            signal(sig) { received in
                for i in 0..<PendingOutputs.capacity {
                    if let p = PendingOutputs.slots[i] { unlink(p) }
                }
                _exit(128 + received)
            }
        }
    }
}
