import Glibc

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reading a calibration JSON file (see ``SensorCalibration`` for its layout), with errors at the
/// line and column of the key at fault.
extension SensorCalibration {
    /// A malformed calibration file.
    public struct FileError: Error, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// Reads a calibration JSON file. `soft_iron` may be three rows or nine numbers, row-major.
    public init(contentsOf path: String) throws {
        self.init()
        let data: Data
        do {
            data = Data(try FileBytes.read(path))
        } catch {
            throw FileError(description: "\(error)")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(Array(data))
        } catch {
            let (offset, why) = Self.syntaxError(error, in: data)
            let key = Self.lastKey(before: offset, in: data).map { " in \"\($0)\"" } ?? ""
            throw FileError(
                description: "\(path):\(Self.lineColumn(offset, in: data)): not valid JSON\(key): \(why)")
        }
        if let (key, offset) = Self.repeatedKey(in: data) {
            throw FileError(
                description:
                    "\(path):\(Self.lineColumn(offset, in: data)): \"\(key)\" appears twice in the same object; only one can hold"
            )
        }
        guard let top = parsed.objectValue else {
            throw FileError(description: "\(path):1:1: not a JSON object (a calibration is {\"magnetometer\": …})")
        }
        func vector(_ any: JSONValue?, _ what: String) throws -> Vector3 {
            guard let a = any?.arrayValue, a.count == 3, let x = a[0].doubleValue, let y = a[1].doubleValue,
                let z = a[2].doubleValue,
                x.isFinite, y.isFinite, z.isFinite
            else {
                let at = Self.lineColumn(Self.offset(ofKey: what, in: data), in: data)
                throw FileError(description: "\(path):\(at): \(what) must be three finite numbers")
            }
            return Vector3(x, y, z)
        }
        if let m = top["magnetometer"]?.objectValue {
            let hard = try vector(m["hard_iron"], "magnetometer.hard_iron")
            var rows = [Vector3]()
            if let nested = m["soft_iron"]?.arrayValue, nested.count == 3, nested.allSatisfy({ $0.arrayValue != nil }) {
                rows = try nested.map { try vector($0, "magnetometer.soft_iron row") }
            } else if let flat = m["soft_iron"]?.arrayValue, flat.count == 9 {
                rows = try (0..<3).map {
                    try vector(.array(Array(flat[(3 * $0)..<(3 * $0 + 3)])), "magnetometer.soft_iron")
                }
            } else if m["soft_iron"] == nil {
                rows = [.unitX, .unitY, .unitZ]
            } else {
                let at = Self.lineColumn(Self.offset(ofKey: "magnetometer.soft_iron", in: data), in: data)
                throw FileError(
                    description: "\(path):\(at): magnetometer.soft_iron must be 3×3 (three rows or nine numbers)")
            }
            let soft = Matrix3(rows[0], rows[1], rows[2])
            magnetometer = MagnetometerCalibration(
                hardIron: hard, softIron: soft, fieldStrength: m["field_strength_ut"]?.doubleValue ?? .nan,
                residual: m["residual_ut"]?.doubleValue ?? .nan, coverage: m["coverage"]?.doubleValue ?? .nan,
                samplesUsed: m["samples"]?.intValue ?? 0, samplesOffered: m["samples"]?.intValue ?? 0)
        }
        if let g = top["gyroscope"]?.objectValue {
            gyroscopeBias = try vector(g["bias"], "gyroscope.bias")
            gyroscopeRestSamples = g["rest_samples"]?.intValue ?? 0
        }
        if let a = top["accelerometer"]?.objectValue {
            accelerometer = AccelerometerSixPositionCalibration(
                bias: try vector(a["bias"], "accelerometer.bias"), scale: try vector(a["scale"], "accelerometer.scale"),
                residual: a["residual_m_s2"]?.doubleValue ?? .nan, poses: a["poses"]?.intValue ?? 0)
        }
        try validate(path, data)
    }

    /// Where JSON parsing failed (a byte offset) and why, from the parser's error: "around
    /// character N", a number too large for a double, or the end of the file.
    static func syntaxError(_ error: Error, in data: Data) -> (offset: Int, why: String) {
        let text = "\(error)"
        let why = text.hasSuffix(".") ? String(text.dropLast()) : text
        if let range = text.firstRange(of: "character "),
            let n = Int(text[range.upperBound...].prefix { $0.isNumber })
        {
            return (n, "\(why) (NaN, infinities and bare words are not JSON)")
        }
        if text.hasPrefix("Number "), let token = text.dropFirst(7).split(separator: " ").first,
            let r = data.firstRange(of: Data(token.utf8))
        {
            return (r.lowerBound - data.startIndex, why)
        }
        if text.contains("end of file") { return (data.count, why + " (the file is cut short)") }
        return (0, why)
    }

    /// The byte offset of the last component of a dotted key (`gyroscope.bias`) after its parents,
    /// or 0 when absent.
    static func offset(ofKey key: String, in data: Data) -> Int {
        var from = data.startIndex
        for part in key.split(separator: " ")[0].split(separator: ".") {
            guard let r = data[from...].firstRange(of: Data("\"\(part)\"".utf8)) else { break }
            from = r.lowerBound
        }
        return from - data.startIndex
    }

    /// The last object key (`"name":`) that starts before a byte offset: the value being read there.
    static func lastKey(before offset: Int, in data: Data) -> String? {
        let text = String(decoding: data.prefix(offset), as: UTF8.self)
        var key: String?
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "\"") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "\"") else { break }
            let name = after[..<close]
            rest = after[after.index(after: close)...]
            if rest.drop(while: \.isWhitespace).first == ":" { key = String(name) }
        }
        return key
    }

    /// The first key repeated within one object of valid JSON `data`, and the byte offset of its
    /// second appearance (JSON parsers keep one of them in silence).
    static func repeatedKey(in data: Data) -> (key: String, offset: Int)? {
        let bytes = [UInt8](data)
        var keys: [Set<String>?] = []  // per open container: the keys of an object, nil for an array
        var expectingKey = false
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"):
                keys.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                keys.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !keys.isEmpty { keys.removeLast() }
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = keys.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let start = i
                var end = i + 1
                while end < bytes.count && bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                if expectingKey, let current = keys.last, var set = current {
                    let key = String(decoding: bytes[(start + 1)..<min(end, bytes.count)], as: UTF8.self)
                    if set.contains(key) { return (key, start) }
                    set.insert(key)
                    keys[keys.count - 1] = set
                    expectingKey = false
                }
                i = end
            default: break
            }
            i += 1
        }
        return nil
    }

    /// "line:column", both from 1, of a byte offset.
    static func lineColumn(_ offset: Int, in data: Data) -> String {
        var line = 1
        var column = 1
        for byte in data.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return "\(line):\(column)"
    }

    /// Refuses a file that calibrates nothing, or values no sensor could need: corrections beyond
    /// the ranges the readers accept (``ValueFaults``), a singular soft-iron matrix, scales that
    /// are not positive or are off by more than a factor of ten.
    /// Refuses what no sensor could need, at the key's line and column in the file's `data`.
    func validate(_ path: String, _ data: Data) throws {
        func fail(_ key: String, _ what: String) -> FileError {
            FileError(
                description: "\(path):\(Self.lineColumn(Self.offset(ofKey: key, in: data), in: data)): \(key) \(what)")
        }
        guard magnetometer != nil || gyroscopeBias != nil || accelerometer != nil else {
            throw FileError(
                description:
                    "\(path):1:1: calibrates nothing: expected a \"magnetometer\", \"gyroscope\" or \"accelerometer\" object"
            )
        }
        if let m = magnetometer {
            guard m.hardIron.norm <= ValueFaults.magnetometerLimit else {
                throw fail("magnetometer.hard_iron", "is beyond any magnetometer's range")
            }
            let det = m.softIron.determinant
            guard det.isFinite, abs(det) > 1e-6, abs(det) < 1e6 else {
                throw fail("magnetometer.soft_iron", "is singular or implausible (determinant \(det))")
            }
            guard det > 0 else {
                throw fail(
                    "magnetometer.soft_iron",
                    "mirrors the field (determinant \(det)): a fit never does; check the signs of its axes")
            }
        }
        if let b = gyroscopeBias, b.norm > ValueFaults.gyroscopeLimit {
            throw fail("gyroscope.bias", "is beyond any gyroscope's range (\(b.norm) rad/s)")
        }
        if let a = accelerometer {
            guard a.bias.norm <= ValueFaults.accelerometerLimit else {
                throw fail("accelerometer.bias", "is beyond any accelerometer's range")
            }
            for s in [a.scale.x, a.scale.y, a.scale.z] where !(s > 0.1 && s < 10) {
                throw fail("accelerometer.scale", "must be positive and within a factor of ten of 1; got \(s)")
            }
        }
    }
}
