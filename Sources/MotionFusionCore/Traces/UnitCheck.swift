/// Guesses whether each sensor's values are in the units the format claims, from magnitudes, and
/// reports a warning with the fix when they are not. Never changes the data.
public enum UnitCheck {
    /// Median (upper middle element) of a list by quickselect: linear time, one copy.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        var a = values
        let k = a.count / 2
        var lo = 0
        var hi = a.count - 1
        while lo < hi {
            let pivot = a[(lo + hi) / 2]
            var i = lo
            var j = hi
            while i <= j {
                while a[i] < pivot { i += 1 }
                while a[j] > pivot { j -= 1 }
                if i <= j {
                    a.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j {
                hi = j
            } else if k >= i {
                lo = i
            } else {
                break
            }
        }
        return a[k]
    }

    /// Norm statistics of one sensor over the samples where the device is at rest (gyroscope below
    /// 0.05 rad/s) when a gyroscope exists, else over all samples.
    public static func restNorms(_ trace: Trace) -> (
        accelerometer: Double?, gyroscope: Double?, magnetometer: Double?, restSamples: Int
    ) {
        var acc = [Double]()
        var gyr = [Double]()
        var mag = [Double]()
        let hasGyro = trace.has(.gyroscope)
        var lastGyroNorm = Double.infinity
        var rest = 0
        for s in trace.samples {
            if let g = s.gyroscope { lastGyroNorm = g.norm }
            let atRest = !hasGyro || lastGyroNorm < 0.05
            if !atRest { continue }
            rest += 1
            if let a = s.accelerometer { acc.append(a.norm) }
            if let g = s.gyroscope { gyr.append(g.norm) }
            if let m = s.magnetometer { mag.append(m.norm) }
        }
        return (median(acc), median(gyr), median(mag), rest)
    }

    /// Warnings about implausible units, each with the suggested fix.
    public static func check(_ trace: Trace) -> [TraceWarning] {
        var warnings = [TraceWarning]()
        let here = SourceLocation(file: trace.source, line: 0, column: 0)
        let norms = restNorms(trace)
        var allAcc = [Double]()
        var maxGyro = 0.0
        var allMag = [Double]()
        for s in trace.samples {
            if let a = s.accelerometer { allAcc.append(a.norm) }
            if let g = s.gyroscope { maxGyro = max(maxGyro, g.norm) }
            if let m = s.magnetometer { allMag.append(m.norm) }
        }
        if let a = norms.accelerometer ?? median(allAcc) {
            if a > 0.5 && a < 1.5 {
                warnings.append(
                    TraceWarning(
                        here,
                        "accelerometer norm at rest is \(fmt(a)), which looks like g, not m/s²; multiply acc_x..acc_z by 9.80665"
                    ))
            } else if a > 500 && a < 1500 {
                warnings.append(
                    TraceWarning(
                        here,
                        "accelerometer norm at rest is \(fmt(a)), which looks like milli-g; multiply by 0.00980665"))
            } else if a < 0.5 {
                warnings.append(
                    TraceWarning(
                        here,
                        "accelerometer norm at rest is \(fmt(a)) m/s², far below gravity; the trace may exclude gravity (add it back) or use other units"
                    ))
            } else if a < 7 || a > 13 {
                warnings.append(
                    TraceWarning(here, "accelerometer norm at rest is \(fmt(a)) m/s²; expected about 9.81"))
            }
        }
        if maxGyro > 40 {
            warnings.append(
                TraceWarning(
                    here,
                    "gyroscope peaks at \(fmt(maxGyro)) 'rad/s' (\(fmt(maxGyro * 57.3))°/s), which looks like deg/s; multiply gyr_x..gyr_z by 0.0174533"
                ))
        }
        if let m = median(allMag) {
            if m > 0.1 && m < 1 {
                warnings.append(
                    TraceWarning(
                        here, "magnetometer norm is \(fmt(m)) 'µT', which looks like gauss; multiply by 100"))
            } else if m > 5000 {
                warnings.append(
                    TraceWarning(here, "magnetometer norm is \(fmt(m)) 'µT', which looks like nT; multiply by 0.001"))
            } else if m < 10 || m > 200 {
                warnings.append(
                    TraceWarning(
                        here,
                        "magnetometer norm is \(fmt(m)) µT; Earth's field is 22–67 µT (arbitrary units or strong distortion?)"
                    ))
            }
        }
        return warnings
    }

    static func fmt(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return "\(r)"
    }
}
