/// What `motionfusion info` reports about a trace: rates, jitter, gaps, norms at rest, unit guesses,
/// a gyroscope zero offset.
public struct TraceSummary: Sendable {
    /// Per-sensor timing statistics.
    public struct SensorTiming: Sendable {
        /// Number of samples with a value of this sensor.
        public var count: Int
        /// Mean rate, Hz (the steps over the time they span; steps back left out).
        public var rateHz: Double
        /// Median interval, s.
        public var medianInterval: Double
        /// Standard deviation of the interval, s (timestamp jitter), over the intervals that are
        /// not ``gaps``: one lost second does not make a steady clock look irregular.
        public var intervalStdDev: Double
        /// Intervals longer than 3 × the median: gaps.
        public var gaps: Int
        /// Longest interval, s.
        public var longestInterval: Double
    }

    /// Format name.
    public var format: String
    /// Samples on the merged timeline.
    public var samples: Int
    /// Duration, s.
    public var duration: Double
    /// Time of the first sample, s, on the recording's own clock (nil without samples).
    public var startTime: Double?
    /// Timing per sensor present.
    public var timing: [SensorKind: SensorTiming]
    /// Median norms over samples at rest (gyroscope below 0.05 rad/s): m/s², rad/s, µT.
    public var restNorms: (accelerometer: Double?, gyroscope: Double?, magnetometer: Double?)
    /// Samples judged at rest.
    public var restSamples: Int
    /// The gyroscope's zero offset (rad/s per axis) when it is too large for a bias, from the still
    /// stretches of the whole trace (``UnitCheck/gyroscopeOffset(_:)``), and the samples it rests on.
    public var gyroscopeOffset: (offset: Vector3, samples: Int)?
    /// Whether ground truth is present, and on how many samples.
    public var groundTruthSamples: Int
    /// Warnings from reading and the unit check.
    public var warnings: [TraceWarning]

    /// Whether ground truth is present.
    public var hasGroundTruth: Bool { groundTruthSamples > 0 }

    /// Summarises a trace.
    public init(_ trace: Trace) {
        format = trace.format
        samples = trace.samples.count
        // The time the samples cover step by step: a clock that went back (a 32-bit counter's
        // wrap, a reset) is reported as a time fault and made no negative duration.
        var covered = 0.0
        for i in trace.samples.indices.dropFirst() {
            let step = trace.samples[i].t - trace.samples[i - 1].t
            if step > 0 { covered += step }
        }
        duration = covered
        startTime = trace.samples.first?.t
        var timing = [SensorKind: SensorTiming]()
        for sensor in SensorKind.allCases {
            var times = [Double]()
            for s in trace.samples {
                let has: Bool
                switch sensor {
                case .gyroscope: has = s.gyroscope != nil
                case .accelerometer: has = s.accelerometer != nil
                case .magnetometer: has = s.magnetometer != nil
                }
                if has { times.append(s.t) }
            }
            guard times.count >= 2 else {
                if times.count == 1 {
                    timing[sensor] = SensorTiming(
                        count: 1, rateHz: 0, medianInterval: 0, intervalStdDev: 0, gaps: 0, longestInterval: 0)
                }
                continue
            }
            var d = [Double]()
            d.reserveCapacity(times.count - 1)
            // No step back: it is a time fault, reported as such, not an interval.
            for i in 1..<times.count where times[i] >= times[i - 1] { d.append(times[i] - times[i - 1]) }
            let spanned = d.reduce(0, +)
            guard spanned > 0 else {
                timing[sensor] = SensorTiming(
                    count: times.count, rateHz: 0, medianInterval: 0, intervalStdDev: 0, gaps: 0, longestInterval: 0)
                continue
            }
            let sorted = d.sorted()
            let med = sorted[sorted.count / 2]
            let steps = d.filter { $0 <= 3 * med }
            let mean = steps.reduce(0, +) / Double(steps.count)
            let sd = (steps.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(steps.count)).squareRoot()
            timing[sensor] = SensorTiming(
                count: times.count, rateHz: Double(d.count) / spanned,
                medianInterval: med, intervalStdDev: sd, gaps: d.count - steps.count,
                longestInterval: sorted.last!)
        }
        self.timing = timing
        let norms = UnitCheck.restNorms(trace.samples)
        restNorms = (norms.accelerometer, norms.gyroscope, norms.magnetometer)
        restSamples = norms.restSamples
        gyroscopeOffset = UnitCheck.gyroscopeOffset(trace.samples)
        groundTruthSamples = trace.samples.reduce(0) { $0 + ($1.truth != nil ? 1 : 0) }
        warnings = trace.warnings
    }
}
