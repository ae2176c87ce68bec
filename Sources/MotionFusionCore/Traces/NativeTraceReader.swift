import Foundation

/// Streaming reader of MotionFusion's native trace CSV (the BROAD layout; see
/// `docs/TraceFormat.md`). Memory is constant: it holds one read buffer, never the whole file.
///
/// ```swift
/// let reader = try NativeTraceReader(path: "walk.csv")
/// while let sample = try reader.next() { ... }
/// ```
public final class NativeTraceReader {
    /// Slots a header column can feed.
    enum Slot: Int {
        case gx = 0, gy, gz, ax, ay, az, mx, my, mz, qw, qx, qy, qz, moving, t
    }
    static let slotCount = 15
    static let names: [String: Slot] = [
        "t": .t, "gyr_x": .gx, "gyr_y": .gy, "gyr_z": .gz, "acc_x": .ax, "acc_y": .ay, "acc_z": .az,
        "mag_x": .mx, "mag_y": .my, "mag_z": .mz, "gt_qw": .qw, "gt_qx": .qx, "gt_qy": .qy, "gt_qz": .qz,
        "moving": .moving,
    ]

    /// The file path.
    public let path: String
    /// Header column names in file order.
    public let columns: [String]
    /// Whether the header has gyroscope, accelerometer, magnetometer, ground truth and moving columns.
    public let hasGyroscope: Bool, hasAccelerometer: Bool, hasMagnetometer: Bool, hasTruth: Bool, hasMoving: Bool
    /// Warnings so far (unknown columns, repaired values), at most ``maxWarnings`` kept verbatim.
    public private(set) var warnings: [TraceWarning] = []
    /// Number of warnings that were counted but not kept.
    public private(set) var suppressedWarnings = 0
    /// Most warnings kept verbatim.
    public static let maxWarnings = 50
    /// Bytes read so far.
    public var bytesRead: Int { lines.bytesRead }
    /// Data rows returned so far.
    public private(set) var rowCount = 0

    private let lines: ByteLineReader
    private let slotOfField: [Int]  // -1 = ignored column
    private let fieldStarts: [Int]
    // Fixed scratch storage, allocated once: no array bounds or uniqueness checks per field.
    // Allocated at the end of `init`, after every check that can throw, so a rejected file leaks
    // nothing (found by fuzzing).
    private let values: UnsafeMutablePointer<Double>
    private let fieldOffsets: UnsafeMutablePointer<Int>
    private let slots: UnsafeMutablePointer<Int>
    private let fieldCount: Int
    private var lastTime = -Double.infinity

    /// Opens `path` and reads the header.
    public init(path: String) throws {
        self.path = path
        lines = try ByteLineReader(path: path)
        guard
            let header = try lines.nextLine({ p, n in
                String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
            })
        else {
            throw TraceError(
                .empty, SourceLocation(file: path, line: 1, column: 0),
                "file is empty; expected a header line such as 't,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z'")
        }
        var text = header
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let rawColumns = text.split(separator: ",", omittingEmptySubsequences: false)
        let cols = rawColumns.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")).lowercased() }
        columns = cols
        var slots = [Int]()
        var starts = [Int]()
        var offset = 0
        var seen = [Slot: Int]()
        var unknown = [String]()
        for (i, name) in cols.enumerated() {
            starts.append(offset)
            offset += rawColumns[i].utf8.count + 1  // split once: a long header must not cost n²
            if let slot = Self.names[name] {
                if seen[slot] != nil {
                    throw TraceError(
                        .missingColumn, SourceLocation(file: path, line: 1, column: starts[i] + 1),
                        "column '\(name)' appears twice")
                }
                seen[slot] = i
                slots.append(slot.rawValue)
            } else {
                slots.append(-1)
                unknown.append(name)
            }
        }
        slotOfField = slots
        fieldStarts = starts
        fieldCount = slots.count
        func group(_ s: [Slot], _ label: String) throws -> Bool {
            let present = s.filter { seen[$0] != nil }
            if present.isEmpty { return false }
            if present.count != s.count {
                let missing = s.filter { seen[$0] == nil }.map { slot in Self.names.first { $0.value == slot }!.key }
                throw TraceError(
                    .missingColumn, SourceLocation(file: path, line: 1, column: 0),
                    "\(label) columns incomplete: missing \(missing.sorted().joined(separator: ", "))")
            }
            return true
        }
        guard seen[.t] != nil else {
            throw TraceError(
                .missingColumn, SourceLocation(file: path, line: 1, column: 0),
                "missing required time column 't' (seconds); header has: \(cols.joined(separator: ","))")
        }
        hasGyroscope = try group([.gx, .gy, .gz], "gyroscope")
        hasAccelerometer = try group([.ax, .ay, .az], "accelerometer")
        hasMagnetometer = try group([.mx, .my, .mz], "magnetometer")
        hasTruth = try group([.qw, .qx, .qy, .qz], "ground-truth quaternion")
        hasMoving = seen[.moving] != nil
        guard hasGyroscope || hasAccelerometer || hasMagnetometer else {
            throw TraceError(
                .missingColumn, SourceLocation(file: path, line: 1, column: 0),
                "no sensor columns: expected gyr_x,gyr_y,gyr_z and/or acc_x,acc_y,acc_z and/or mag_x,mag_y,mag_z")
        }
        values = UnsafeMutablePointer<Double>.allocate(capacity: Self.slotCount)
        values.initialize(repeating: .nan, count: Self.slotCount)
        fieldOffsets = UnsafeMutablePointer<Int>.allocate(capacity: Self.slotCount)
        fieldOffsets.initialize(repeating: 0, count: Self.slotCount)
        self.slots = UnsafeMutablePointer<Int>.allocate(capacity: max(1, slotOfField.count))
        for (i, v) in slotOfField.enumerated() { self.slots[i] = v }
        if !unknown.isEmpty {
            warn(
                SourceLocation(file: path, line: 1, column: 0),
                "ignoring unknown column(s): \(unknown.joined(separator: ", "))")
        }
    }

    deinit {
        values.deallocate()
        fieldOffsets.deallocate()
        slots.deallocate()
    }

    private func warn(_ location: SourceLocation, _ message: String) {
        if warnings.count < Self.maxWarnings {
            warnings.append(TraceWarning(location, message))
        } else {
            suppressedWarnings += 1
        }
    }

    /// The next sample, or `nil` at the end of the file. Throws ``TraceError`` on a bad row.
    public func next() throws -> SensorSample? {
        while true {
            let result: Int? = try lines.nextLine { p, n in try parseRow(p, n) }
            guard let status = result else {
                if rowCount == 0 {
                    throw TraceError(
                        .empty, SourceLocation(file: path, line: lines.lineNumber + 1, column: 0),
                        "no data rows after the header")
                }
                return nil
            }
            if status == 0 { continue }  // blank line
            rowCount += 1
            return try makeSample()
        }
    }

    /// Calls `body` for every remaining sample.
    public func forEach(_ body: (SensorSample) throws -> Void) throws {
        while let s = try next() { try body(s) }
    }

    /// Parses one line into `values`. Returns 0 for a blank line, 1 for a row.
    @inline(__always)
    private func parseRow(_ p: UnsafePointer<UInt8>, _ n: Int) throws -> Int {
        if n == 0 { return 0 }
        let fieldCount = self.fieldCount
        let values = self.values
        let slots = self.slots
        var field = 0
        var i = 0
        for k in 0..<Self.slotCount { values[k] = .nan }
        while true {
            guard field < fieldCount else {
                throw TraceError(
                    .wrongColumnCount, SourceLocation(file: path, line: lines.lineNumber, column: i + 1),
                    "too many fields: the header has \(fieldCount) columns")
            }
            let slot = slots[field]
            var j: Int
            if slot >= 0, let (v, stop) = DecimalParser.parsePlain(p, i, n) {
                values[slot] = v
                fieldOffsets[slot] = i
                j = stop
            } else {
                j = i
                while j < n && p[j] != 0x2C { j += 1 }
                if slot >= 0 {
                    switch DecimalParser.parse(p, i, j) {
                    case .value(let v): values[slot] = v
                    case .empty: values[slot] = .nan
                    case .malformed(let off):
                        let text = String(decoding: UnsafeBufferPointer(start: p + i, count: j - i), as: UTF8.self)
                        throw TraceError(
                            .malformedNumber,
                            SourceLocation(file: path, line: lines.lineNumber, column: i + off + 1),
                            "'\(text)' in column '\(columns[field])' is not a number; expected a decimal such as -0.0123 or 9.81e0 (or nan for missing)"
                        )
                    }
                    fieldOffsets[slot] = i
                }
            }
            field += 1
            if j >= n { break }
            i = j + 1
        }
        if n == 1 && p[0] == 0x0D { return 0 }
        guard field == fieldCount else {
            throw TraceError(
                .wrongColumnCount, SourceLocation(file: path, line: lines.lineNumber, column: n + 1),
                "row has \(field) fields; the header has \(fieldCount) columns")
        }
        return 1
    }

    private func location(_ slot: Slot) -> SourceLocation {
        SourceLocation(file: path, line: lines.lineNumber, column: fieldOffsets[slot.rawValue] + 1)
    }

    private func triplet(_ a: Slot, _ label: String) throws -> Vector3? {
        let base = a.rawValue
        let x = values[base]
        let y = values[base + 1]
        let z = values[base + 2]
        if x.isNaN && y.isNaN && z.isNaN { return nil }
        for k in 0..<3 where !values[base + k].isFinite {
            let slot = Slot(rawValue: base + k)!
            throw TraceError(
                .nonFiniteValue, location(slot),
                "\(label) value is \(values[base + k]); a sensor's three axes must all be finite, or all nan to mark the sample missing"
            )
        }
        return Vector3(x, y, z)
    }

    private func makeSample() throws -> SensorSample {
        let t = values[Slot.t.rawValue]
        guard t.isFinite else {
            throw TraceError(.nonFiniteValue, location(.t), "time is \(t); expected a finite time in seconds")
        }
        guard t > lastTime else {
            let what = t == lastTime ? "duplicates" : "is earlier than"
            throw TraceError(
                .nonMonotonicTime, location(.t),
                "time \(t) s \(what) the previous row's \(lastTime) s; timestamps must strictly increase")
        }
        lastTime = t
        var sample = SensorSample(t: t)
        if hasGyroscope { sample.gyroscope = try triplet(.gx, "gyroscope") }
        if hasAccelerometer { sample.accelerometer = try triplet(.ax, "accelerometer") }
        if hasMagnetometer { sample.magnetometer = try triplet(.mx, "magnetometer") }
        if hasTruth {
            let q = Quaternion(
                w: values[Slot.qw.rawValue], x: values[Slot.qx.rawValue], y: values[Slot.qy.rawValue],
                z: values[Slot.qz.rawValue])
            if q.isFinite {
                let norm = q.norm
                if abs(norm - 1) > 1e-3 {
                    guard norm > 0.5 && norm < 2 else {
                        throw TraceError(
                            .nonFiniteValue, location(.qw),
                            "ground-truth quaternion has norm \(norm); expected a unit quaternion")
                    }
                    warn(location(.qw), "ground-truth quaternion norm \(norm) renormalised to 1")
                }
                // Keep the file's exact values unless they are visibly off unit norm.
                sample.truth = abs(norm - 1) > 1e-6 ? q.normalized : q
            } else if !(q.w.isNaN && q.x.isNaN && q.y.isNaN && q.z.isNaN) {
                throw TraceError(
                    .nonFiniteValue, location(.qw),
                    "ground-truth quaternion is partly missing or infinite; expected four finite numbers or four nan")
            }
        }
        if hasMoving {
            let m = values[Slot.moving.rawValue]
            if m == 0 || m == 1 {
                sample.moving = m == 1
            } else if !m.isNaN {
                throw TraceError(.malformedNumber, location(.moving), "moving is \(m); expected 0 or 1")
            }
        }
        return sample
    }
}
