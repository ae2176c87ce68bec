import Glibc
import MotionFusion

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Screens samples that come as arrays or one at a time (the Python API's inputs) the way a trace
/// reader screens a file's values: a sensor value beyond any real sensor's range, an infinite or
/// partly missing axis (``ValueFaults``) is "no value" for that sample, repeated, backward and
/// non-finite times are reported, and the first samples go through the library's unit check
/// (``UnitCheck``). It never changes a value that passes.
struct SampleScreen {
    /// The unit check's window: samples and seconds, as the trace readers check a file (5 000
    /// samples or 10 s) or a live stream (200 samples or 2 s).
    static let fileWindow = (samples: 5_000, seconds: 10.0)
    static let liveWindow = (samples: 200, seconds: 2.0)

    /// What a fault's location names: "row" (arrays) or "sample" (updates one at a time).
    let unit: String
    let window: (samples: Int, seconds: Double)
    var faults = ValueFaults()
    /// Fault kinds already reported (a stream reports each kind once, when it first occurs).
    var reported = Set<ValueFaults.Kind>()
    var lastTime = Double.nan
    /// The sensors read at `lastTime` (a repeated time of another sensor's sample is no duplicate).
    var sensorsAtTime = SensorsAtTime()
    /// Samples screened so far.
    var count = 0
    /// Samples with a finite time, gyroscope, accelerometer and magnetometer value (after screening).
    var finite = (t: 0, gyroscope: 0, accelerometer: 0, magnetometer: 0)
    /// The first samples, kept for the unit check until it has run.
    var first: [SensorSample] = []
    var unitsChecked = false
    var unitWarnings: [String] = []
    /// Whether there are warnings that ``takeWarnings()`` has not returned yet.
    var pending = false

    init(unit: String, window: (samples: Int, seconds: Double)) {
        self.unit = unit
        self.window = window
    }

    /// The sample at time `t` with the three vectors, each nil when it is no value or a fault.
    @inline(__always)
    mutating func screen(
        _ t: Double, _ g: (Double, Double, Double), _ a: (Double, Double, Double), _ m: (Double, Double, Double)
    ) -> SensorSample {
        let row = count
        count += 1
        func here(_: Int) -> SourceLocation { SourceLocation(file: "\(unit) \(row)", line: 0, column: 0) }
        if !t.isFinite {
            record(.invalidTime, row, "time is \(t)")
        } else {
            finite.t += 1
            func some(_ v: (Double, Double, Double)) -> Bool { !v.0.isNaN || !v.1.isNaN || !v.2.isNaN }
            if sensorsAtTime.repeats(
                t, SensorsAtTime.of(gyroscope: some(g), accelerometer: some(a), magnetometer: some(m)))
            {
                record(.duplicateTime, row, "time \(t) s repeats the previous \(unit)'s, with the same sensor")
            } else if t < lastTime {
                record(.backwardTime, row, "time \(t) s is earlier than the previous \(unit)'s \(lastTime) s")
            }
            lastTime = t
        }
        // `screen` throws only for strict logs; this one is not.
        let gyroscope = try! faults.screen(
            g.0, g.1, g.2, limit: ValueFaults.gyroscopeLimit, sensor: "gyroscope", hint: "deg/s given as rad/s?",
            location: here)
        let accelerometer = try! faults.screen(
            a.0, a.1, a.2, limit: ValueFaults.accelerometerLimit, sensor: "accelerometer",
            hint: "milli-g given as m/s²?", location: here)
        let magnetometer = try! faults.screen(
            m.0, m.1, m.2, limit: ValueFaults.magnetometerLimit, sensor: "magnetometer", hint: "nT given as µT?",
            location: here)
        if gyroscope != nil { finite.gyroscope += 1 }
        if accelerometer != nil { finite.accelerometer += 1 }
        if magnetometer != nil { finite.magnetometer += 1 }
        let sample = SensorSample(t: t, gyroscope: gyroscope, accelerometer: accelerometer, magnetometer: magnetometer)
        if !unitsChecked {
            first.append(sample)
            if first.count >= window.samples || t - first[0].t > window.seconds { checkUnits() }
        }
        // Kinds are only ever added, and each is reported once: a new kind is a new warning.
        if faults.tallies.count != reported.count { pending = true }
        return sample
    }

    mutating func record(_ kind: ValueFaults.Kind, _ row: Int, _ detail: String) {
        try! faults.record(kind, at: SourceLocation(file: "\(unit) \(row)", line: 0, column: 0), detail)
    }

    /// Runs the unit check on the samples kept so far (at the end of arrays shorter than the window).
    mutating func checkUnits() {
        guard !unitsChecked else { return }
        unitsChecked = true
        unitWarnings = UnitCheck.check(first, source: "").map(\.message)
        // Times 0, 1, 2, … are sample indices rather than seconds (a step of 1 s is within the
        // filters' reach, so the unit check has no word for it).
        let times = first.map(\.t)
        if times.count >= 3 && zip(times, times.dropFirst()).allSatisfy({ $1 - $0 == 1 && $0 == $0.rounded() }) {
            unitWarnings.append(
                "the times are whole numbers 1 apart (\(times[0]), \(times[1]), \(times[2]), …), which look like sample indices, not seconds: each step integrates the gyroscope over 1 s; pass times in seconds (index / rate)"
            )
        }
        if !unitWarnings.isEmpty { pending = true }
        first = []
    }

    /// The warnings not returned before, one per line: unit guesses (their message, naming the
    /// command line's fix), then each new kind of fault, `"<unit> <index>: <what, how often, first>"`.
    mutating func takeWarnings() -> [String] {
        var lines = unitWarnings
        unitWarnings = []
        for w in faults.warnings {
            guard let kind = ValueFaults.Kind.allCases.first(where: { w.message.hasPrefix($0.rawValue + " ") }),
                !reported.contains(kind)
            else { continue }
            reported.insert(kind)
            let message = w.message.replacing(" (--strict makes this an error)", with: "")
            lines.append("\(w.location): \(message)")
        }
        pending = false
        return lines
    }
}

/// Row `i` of three doubles at `p` (NaN when `p` is nil).
@inline(__always)
func triple(_ p: UnsafePointer<Double>?, _ i: Int) -> (Double, Double, Double) {
    guard let p else { return (.nan, .nan, .nan) }
    return (p[3 * i], p[3 * i + 1], p[3 * i + 2])
}

@_cdecl("mf_check_arrays")
public func mf_check_arrays(
    _ n: Int, _ t: UnsafePointer<Double>?, _ gyr: UnsafePointer<Double>?, _ acc: UnsafePointer<Double>?,
    _ mag: UnsafePointer<Double>?, _ faulty: UnsafeMutablePointer<UInt8>?,
    _ report: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard n >= 0 else { throw CallError.usage("negative sample count") }
        guard n == 0 || t != nil else { throw CallError.usage("t is missing") }
        var screen = SampleScreen(unit: "row", window: SampleScreen.fileWindow)
        for i in 0..<n {
            let g = triple(gyr, i)
            let a = triple(acc, i)
            let m = triple(mag, i)
            let s = screen.screen(t![i], g, a, m)
            if let faulty {
                // A fault: a value given (not all NaN) that the screen turned into no value.
                func fault(_ v: (Double, Double, Double), _ kept: Vector3?) -> Bool {
                    kept == nil && !(v.0.isNaN && v.1.isNaN && v.2.isNaN)
                }
                faulty[i] =
                    (fault(g, s.gyroscope) ? 1 : 0) | (fault(a, s.accelerometer) ? 2 : 0)
                    | (fault(m, s.magnetometer) ? 4 : 0)
            }
        }
        screen.checkUnits()
        let warnings = screen.takeWarnings()
        let json: JSONValue = [
            "warnings": .array(warnings.map { .string($0) }),
            "finite": [
                "t": .integer(screen.finite.t), "gyr": .integer(screen.finite.gyroscope),
                "acc": .integer(screen.finite.accelerometer), "mag": .integer(screen.finite.magnetometer),
            ],
        ]
        report?.pointee = cString(json.text)
    }
}
