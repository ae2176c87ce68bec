import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A self-contained HTML report of a reconstruction: inline SVG charts, no scripts, no network.
///
/// Feed it every sample in order with ``add(_:)``; it keeps a decimated copy for plotting (the
/// stride doubles whenever the point budget fills, so a long trace is thinned, never truncated;
/// errors and flags keep each bucket's worst value so spikes survive).
public struct HTMLReport {
    /// One plotted point.
    struct Point {
        var t: Double
        var roll: Double, pitch: Double, yaw: Double, heading: Double
        var truthRoll: Double, truthPitch: Double, truthYaw: Double, truthHeading: Double
        var error: Double
        var sigma: Double, sigmaHeading: Double
        var bias: Vector3
        var accRejected: Bool, magRejected: Bool, rest: Bool
        /// Robust weights of the accelerometer and magnetometer (NaN when not given); a thinned
        /// bucket keeps its smallest, so down-weighting stays visible.
        var accWeight: Double, magWeight: Double
    }

    /// Title shown at the top.
    public var title: String
    /// Most points kept before the stride doubles. Default 3000.
    public var pointBudget = 3000
    var points: [Point] = []
    var stride = 1
    var pending: Point?
    var pendingCount = 0
    /// Samples added.
    public private(set) var samples = 0

    /// Creates an empty report.
    public init(title: String) { self.title = title }

    /// Adds one estimate, with the ground truth of its sample when known, and the robust weights
    /// (0…1) the reconstruction gave its accelerometer and magnetometer, when it has them.
    public mutating func add(
        _ s: MotionEstimate, truth: Quaternion?, accelerometerWeight: Double? = nil, magnetometerWeight: Double? = nil
    ) {
        samples += 1
        let e = EulerAngles(s.attitude)
        var p = Point(
            t: s.t, roll: e.roll.degrees, pitch: e.pitch.degrees, yaw: e.yaw.degrees,
            heading: s.attitude.headingDegrees(),
            truthRoll: .nan, truthPitch: .nan, truthYaw: .nan, truthHeading: .nan, error: .nan,
            sigma: s.diagnostics.attitudeUncertainty.degrees, sigmaHeading: s.diagnostics.headingUncertainty.degrees,
            bias: s.gyroscopeBias * (180 / .pi),
            accRejected: s.diagnostics.accelerometerRejected, magRejected: s.diagnostics.magnetometerRejected,
            rest: s.diagnostics.atRest, accWeight: accelerometerWeight ?? .nan, magWeight: magnetometerWeight ?? .nan)
        if let q = truth, q.isFinite {
            let te = EulerAngles(q)
            p.truthRoll = te.roll.degrees
            p.truthPitch = te.pitch.degrees
            p.truthYaw = te.yaw.degrees
            p.truthHeading = q.headingDegrees()
            p.error = s.attitude.angle(to: q).degrees
        }
        if var keep = pending {
            // Worst value and any flag of the bucket survive the thinning.
            if p.error.isFinite && !(keep.error >= p.error) { keep.error = p.error }
            keep.accRejected = keep.accRejected || p.accRejected
            keep.magRejected = keep.magRejected || p.magRejected
            keep.accWeight = Self.smaller(keep.accWeight, p.accWeight)
            keep.magWeight = Self.smaller(keep.magWeight, p.magWeight)
            pending = keep
        } else {
            pending = p
        }
        pendingCount += 1
        if pendingCount >= stride {
            points.append(pending!)
            pending = nil
            pendingCount = 0
            if points.count >= pointBudget {
                var thinned = [Point]()
                thinned.reserveCapacity(points.count / 2 + 1)
                var i = 0
                while i < points.count {
                    var a = points[i]
                    if i + 1 < points.count {
                        let b = points[i + 1]
                        if b.error.isFinite && !(a.error >= b.error) { a.error = b.error }
                        a.accRejected = a.accRejected || b.accRejected
                        a.magRejected = a.magRejected || b.magRejected
                        a.accWeight = Self.smaller(a.accWeight, b.accWeight)
                        a.magWeight = Self.smaller(a.magWeight, b.magWeight)
                    }
                    thinned.append(a)
                    i += 2
                }
                points = thinned
                stride *= 2
            }
        }
    }

    /// The smaller of two weights, ignoring NaN (unknown).
    static func smaller(_ a: Double, _ b: Double) -> Double {
        if a.isNaN { return b }
        if b.isNaN { return a }
        return min(a, b)
    }

    /// The HTML document. `metrics` adds the score table; `notes` are shown as a list.
    public func html(metrics: AttitudeErrorMetric.Result?, mode: FusionMode, notes: [String] = []) -> String {
        var all = points
        if let p = pending { all.append(p) }
        let hasTruth = all.contains { $0.error.isFinite }
        var body = "<h1>\(escape(title))</h1>\n"
        body += "<p class=\"meta\">\(samples) samples, \(mode.rawValue.uppercased()), plotted every \(stride) sample(s)"
        if let first = all.first, let last = all.last {
            body += String(printf: ", %.1f s to %.1f s", first.t, last.t)
        }
        body += ". Generated by MotionFusion \(motionFusionVersion).</p>\n"
        body += "<h2>Accuracy</h2>\n"
        if let m = metrics {
            body += """
                <table><tr><th>metric (BROAD)</th><th>RMSE</th></tr>
                <tr><td>total</td><td>\(f(m.totalRMSE))°</td></tr>
                <tr><td>heading</td><td>\(f(m.headingRMSE))°</td></tr>
                <tr><td>inclination</td><td>\(f(m.inclinationRMSE))°</td></tr>
                <tr><td>samples scored</td><td>\(m.samplesUsed)</td></tr>
                \(mode == .sixD ? "<tr><td>heading offset removed</td><td>\(f(m.headingOffset))°</td></tr>" : "")
                </table>

                """
        } else {
            body += "<p>No ground truth in this trace: nothing to score.</p>\n"
        }
        for n in notes { body += "<p class=\"note\">\(escape(n))</p>\n" }
        let t = all.map(\.t)
        func series(
            _ name: String, _ color: String, _ v: [Double], dashed: Bool = false, wrap: ClosedRange<Double>? = nil
        ) -> Series {
            Series(name: name, color: color, values: v, dashed: dashed, wrap: wrap)
        }
        body += "<h2>Attitude</h2>\n"
        for (label, est, truth, wrap) in [
            ("roll (°)", all.map(\.roll), all.map(\.truthRoll), -180.0...180.0),
            ("pitch (°)", all.map(\.pitch), all.map(\.truthPitch), nil),
            ("yaw (°)", all.map(\.yaw), all.map(\.truthYaw), -180.0...180.0),
            ("heading (° from north)", all.map(\.heading), all.map(\.truthHeading), 0.0...360.0),
        ] {
            var s = [series("estimate", "#1f77b4", est, wrap: wrap)]
            if hasTruth { s.append(series("ground truth", "#d62728", truth, dashed: true, wrap: wrap)) }
            body += chart(label, t, s)
        }
        if hasTruth {
            body += "<h2>Error</h2>\n"
            body += chart(
                "total attitude error (°), worst per plotted bucket", t, [series("error", "#d62728", all.map(\.error))])
        }
        body += "<h2>Uncertainty</h2>\n"
        body += chart(
            "one-sigma uncertainty (°)", t,
            [
                series("attitude", "#9467bd", all.map(\.sigma)),
                series("heading", "#8c564b", all.map(\.sigmaHeading), dashed: true),
            ],
            band: hasTruth ? all.map { ($0.error, $0.sigma) } : nil)
        body += "<h2>Gyroscope bias</h2>\n"
        body += chart(
            "bias estimate (°/s)", t,
            [
                series("x", "#1f77b4", all.map(\.bias.x)), series("y", "#2ca02c", all.map(\.bias.y)),
                series("z", "#ff7f0e", all.map(\.bias.z)),
            ])
        if all.contains(where: { $0.accWeight.isFinite || $0.magWeight.isFinite }) {
            body += "<h2>Robust weights</h2>\n"
            body +=
                "<p class=\"note\">Weight of each sensor in the reconstruction, 1 = fully trusted; dips show where linear acceleration or magnetic disturbances were discounted (smallest weight per plotted bucket).</p>\n"
            body += chart(
                "robust weight (0–1)", t,
                [
                    series("accelerometer", "#ff7f0e", all.map(\.accWeight)),
                    series("magnetometer", "#9467bd", all.map(\.magWeight), dashed: true),
                ], range: 0...1)
        }
        body += "<h2>Disturbances</h2>\n"
        body += flags(
            t,
            [
                ("accelerometer rejected", "#ff7f0e", all.map(\.accRejected)),
                ("magnetometer rejected", "#9467bd", all.map(\.magRejected)), ("at rest", "#2ca02c", all.map(\.rest)),
            ])
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <style>
            body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 980px; margin: 2em auto; color: #222; padding: 0 1em; }
            h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
            .meta, .note { color: #555; } table { border-collapse: collapse; } td, th { padding: 4px 14px; border: 1px solid #ccc; text-align: left; }
            svg { display: block; margin: 0.4em 0 1em; } .legend { font-size: 12px; }
            </style></head><body>
            \(body)</body></html>

            """
    }

    struct Series {
        var name: String
        var color: String
        var values: [Double]
        var dashed: Bool
        /// The interval an angle wraps in (e.g. −180…180, 0…360): the line leaves at one edge and
        /// comes back at the other instead of crossing the chart. Nil for plain values.
        var wrap: ClosedRange<Double>? = nil
    }

    func f(_ v: Double) -> String { String(printf: "%.3f", v) }

    func escape(_ s: String) -> String {
        s.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(
            ">", with: "&gt;")
    }

    static let width = 940.0, height = 220.0, left = 60.0, right = 10.0, top = 24.0, bottom = 30.0

    func ticks(_ lo: Double, _ hi: Double, count: Int = 5) -> [Double] {
        let span = hi - lo
        guard span > 0, span.isFinite else { return [lo] }
        let raw = span / Double(count)
        let magnitude = Glibc.pow(10, Glibc.floor(Glibc.log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
        var v = (lo / step).rounded(.up) * step
        var out = [Double]()
        while v <= hi + step * 1e-9 {
            out.append(v)
            v += step
        }
        return out
    }

    func chart(
        _ label: String, _ t: [Double], _ series: [Series], band: [(Double, Double)]? = nil,
        range: ClosedRange<Double>? = nil
    ) -> String {
        let w = Self.width, h = Self.height
        let x0 = Self.left, x1 = w - Self.right, y0 = h - Self.bottom, y1 = Self.top
        guard let tMin = t.first, let tMax = t.last, tMax > tMin else { return "<p>(not enough samples to plot)</p>\n" }
        let finite = series.flatMap(\.values).filter(\.isFinite)
        guard var lo = finite.min(), var hi = finite.max() else { return "<p>(no values to plot)</p>\n" }
        if let range {
            lo = min(lo, range.lowerBound)
            hi = max(hi, range.upperBound)
        }
        // A wrapping angle that reaches near both edges is shown over its whole interval.
        if let wrap = series.first?.wrap, hi - lo > (wrap.upperBound - wrap.lowerBound) / 2 {
            lo = min(lo, wrap.lowerBound)
            hi = max(hi, wrap.upperBound)
        }
        if hi - lo < 1e-9 {
            lo -= 1
            hi += 1
        }
        let pad = (hi - lo) * 0.05
        lo -= pad
        hi += pad
        func px(_ v: Double) -> Double { x0 + (v - tMin) / (tMax - tMin) * (x1 - x0) }
        func py(_ v: Double) -> Double { y0 - (v - lo) / (hi - lo) * (y0 - y1) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" viewBox=\"0 0 \(Int(w)) \(Int(h))\" role=\"img\" aria-label=\"\(escape(label))\">\n"
        svg +=
            "<rect x=\"\(x0)\" y=\"\(y1)\" width=\"\(x1 - x0)\" height=\"\(y0 - y1)\" fill=\"#fafafa\" stroke=\"#999\"/>\n"
        for v in ticks(lo, hi) {
            let y = py(v)
            svg += "<line x1=\"\(x0)\" y1=\"\(f(y))\" x2=\"\(x1)\" y2=\"\(f(y))\" stroke=\"#e3e3e3\"/>"
            svg += "<text x=\"\(x0 - 6)\" y=\"\(f(y + 4))\" font-size=\"11\" text-anchor=\"end\">\(fmtTick(v))</text>\n"
        }
        for v in ticks(tMin, tMax, count: 8) {
            let x = px(v)
            svg += "<line x1=\"\(f(x))\" y1=\"\(y0)\" x2=\"\(f(x))\" y2=\"\(y0 + 4)\" stroke=\"#999\"/>"
            svg += "<text x=\"\(f(x))\" y=\"\(y0 + 16)\" font-size=\"11\" text-anchor=\"middle\">\(fmtTick(v))</text>\n"
        }
        svg += "<text x=\"\(x1)\" y=\"\(y0 + 28)\" font-size=\"11\" text-anchor=\"end\">time (s)</text>\n"
        svg += "<text x=\"\(x0)\" y=\"14\" font-size=\"13\" font-weight=\"bold\">\(escape(label))</text>\n"
        if let band {
            // Shade where the error exceeds the one-sigma uncertainty.
            for (i, (err, sigma)) in band.enumerated()
            where err.isFinite && sigma.isFinite && err > sigma && i + 1 < t.count {
                svg +=
                    "<rect x=\"\(f(px(t[i])))\" y=\"\(y1)\" width=\"\(f(max(0.5, px(t[i + 1]) - px(t[i]))))\" height=\"\(y0 - y1)\" fill=\"#fde0dd\"/>"
            }
            svg += "\n"
        }
        var legendX = x0 + max(260, Double(label.count) * 7.5 + 30)
        for s in series {
            var path = ""
            var penDown = false
            for (i, v) in s.values.enumerated() {
                guard v.isFinite else {
                    penDown = false
                    continue
                }
                if penDown, let wrap = s.wrap, i > 0, s.values[i - 1].isFinite {
                    // The shorter way round crosses the wrap point: go to the edge, come back at the
                    // other edge.
                    let period = wrap.upperBound - wrap.lowerBound
                    let previous = s.values[i - 1]
                    var delta = v - previous
                    if delta > period / 2 { delta -= period } else if delta < -period / 2 { delta += period }
                    let unwrapped = previous + delta
                    if unwrapped > wrap.upperBound || unwrapped < wrap.lowerBound {
                        let edge = unwrapped > wrap.upperBound ? wrap.upperBound : wrap.lowerBound
                        let other = unwrapped > wrap.upperBound ? wrap.lowerBound : wrap.upperBound
                        let u = delta != 0 ? (edge - previous) / delta : 0
                        let tc = t[i - 1] + (t[i] - t[i - 1]) * u
                        path += "L" + f(px(tc)) + " " + f(py(edge)) + " "
                        path += "M" + f(px(tc)) + " " + f(py(other)) + " "
                    }
                }
                path += (penDown ? "L" : "M") + f(px(t[i])) + " " + f(py(v)) + " "
                penDown = true
            }
            svg +=
                "<path d=\"\(path)\" fill=\"none\" stroke=\"\(s.color)\" stroke-width=\"1.2\"\(s.dashed ? " stroke-dasharray=\"4 3\"" : "")/>\n"
            svg +=
                "<line x1=\"\(legendX)\" y1=\"10\" x2=\"\(legendX + 18)\" y2=\"10\" stroke=\"\(s.color)\" stroke-width=\"2\"\(s.dashed ? " stroke-dasharray=\"4 3\"" : "")/>"
            svg += "<text class=\"legend\" x=\"\(legendX + 22)\" y=\"14\" font-size=\"12\">\(escape(s.name))</text>\n"
            legendX += 30 + Double(s.name.count) * 7
        }
        if band != nil {
            svg +=
                "<rect x=\"\(legendX)\" y=\"5\" width=\"14\" height=\"10\" fill=\"#fde0dd\"/><text class=\"legend\" x=\"\(legendX + 18)\" y=\"14\" font-size=\"12\">error above one sigma</text>\n"
        }
        return svg + "</svg>\n"
    }

    func flags(_ t: [Double], _ rows: [(String, String, [Bool])]) -> String {
        let w = Self.width
        let rowHeight = 22.0
        let h = Self.top + rowHeight * Double(rows.count) + 30
        let x0 = 170.0, x1 = w - Self.right
        guard let tMin = t.first, let tMax = t.last, tMax > tMin else { return "" }
        func px(_ v: Double) -> Double { x0 + (v - tMin) / (tMax - tMin) * (x1 - x0) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\" viewBox=\"0 0 \(Int(w)) \(Int(h))\" role=\"img\" aria-label=\"disturbance flags\">\n"
        for (r, (name, color, values)) in rows.enumerated() {
            let y = Self.top + rowHeight * Double(r)
            svg +=
                "<text x=\"\(x0 - 8)\" y=\"\(f(y + 14))\" font-size=\"12\" text-anchor=\"end\">\(escape(name))</text>"
            svg +=
                "<rect x=\"\(x0)\" y=\"\(f(y + 2))\" width=\"\(x1 - x0)\" height=\"\(rowHeight - 6)\" fill=\"#f4f4f4\"/>"
            var i = 0
            while i < values.count {
                guard values[i] else {
                    i += 1
                    continue
                }
                let start = i
                while i < values.count && values[i] { i += 1 }
                let end = min(i, t.count - 1)
                svg +=
                    "<rect x=\"\(f(px(t[start])))\" y=\"\(f(y + 2))\" width=\"\(f(max(0.8, px(t[end]) - px(t[start]))))\" height=\"\(rowHeight - 6)\" fill=\"\(color)\"/>"
            }
            svg += "\n"
        }
        let yAxis = Self.top + rowHeight * Double(rows.count) + 4
        for v in ticks(tMin, tMax, count: 8) {
            svg +=
                "<text x=\"\(f(px(v)))\" y=\"\(f(yAxis + 12))\" font-size=\"11\" text-anchor=\"middle\">\(fmtTick(v))</text>"
        }
        return svg + "\n</svg>\n"
    }

    func fmtTick(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        if r == r.rounded() { return String(Int(r)) }
        return String(printf: "%g", r)
    }
}
