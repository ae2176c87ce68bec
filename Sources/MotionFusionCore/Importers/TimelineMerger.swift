/// Merges per-sensor streams sampled at different rates or on different clocks onto one timeline,
/// without dropping a sample: every distinct timestamp becomes one ``SensorSample`` carrying the
/// sensors that have a value at that instant (timestamps within `tolerance` seconds coincide).
public struct TimelineMerger {
    /// One sensor's timestamps (s) and values (SI units).
    public struct Stream {
        /// Which sensor.
        public var sensor: SensorKind
        /// Times, s (in order; see ``TimelineMerger/merge(_:)``).
        public var times: [Double]
        /// One value per time; `nil` marks a missing value.
        public var values: [Vector3?]

        /// Creates a stream.
        public init(sensor: SensorKind, times: [Double], values: [Vector3?]) {
            precondition(times.count == values.count, "one value per timestamp")
            self.sensor = sensor
            self.times = times
            self.values = values
        }
    }

    /// Timestamps closer than this (s) are treated as the same instant. Default 1 µs.
    public var tolerance = 1e-6

    /// Creates a merger.
    public init() {}

    /// The merged samples, in time order. A stream whose timestamps go backwards is first put in
    /// time order (stably: equal times keep their order); no value is dropped.
    public func merge(_ input: [Stream]) -> [SensorSample] {
        let streams = input.map { s -> Stream in
            guard zip(s.times, s.times.dropFirst()).contains(where: { $0 > $1 }) else { return s }
            let order = s.times.indices.sorted { (s.times[$0], $0) < (s.times[$1], $1) }
            return Stream(sensor: s.sensor, times: order.map { s.times[$0] }, values: order.map { s.values[$0] })
        }
        var index = [Int](repeating: 0, count: streams.count)
        var result = [SensorSample]()
        result.reserveCapacity(streams.map(\.times.count).max() ?? 0)
        while true {
            var tMin = Double.infinity
            for (s, stream) in streams.enumerated() where index[s] < stream.times.count {
                tMin = min(tMin, stream.times[index[s]])
            }
            if tMin == .infinity { break }
            var sample = SensorSample(t: tMin)
            for (s, stream) in streams.enumerated() where index[s] < stream.times.count {
                // At most one value per stream per merged instant, so none is ever dropped.
                if stream.times[index[s]] - tMin <= tolerance {
                    let v = stream.values[index[s]]
                    switch stream.sensor {
                    case .gyroscope: sample.gyroscope = v
                    case .accelerometer: sample.accelerometer = v
                    case .magnetometer: sample.magnetometer = v
                    }
                    index[s] += 1
                }
            }
            result.append(sample)
        }
        return result
    }
}
