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
        let sources = streams.map { stream -> () -> SensorSample? in
            var i = 0
            return {
                guard i < stream.times.count else { return nil }
                var sample = SensorSample(t: stream.times[i])
                sample.set(stream.sensor, stream.values[i])
                i += 1
                return sample
            }
        }
        let merging = Merging(sources, tolerance: tolerance)
        var result = [SensorSample]()
        result.reserveCapacity(streams.map(\.times.count).max() ?? 0)
        // The sources never throw.
        while let sample = try? merging.next() { result.append(sample) }
        return result
    }

    /// The merge itself, one instant at a time over sources read as they go (files, archive
    /// entries), so memory stays constant: each source's next sample is held, the earliest time
    /// among them becomes the instant, and every source whose next sample lies within the
    /// tolerance of it gives its values and moves on. Sources are expected in time order; a
    /// sample earlier than its source's previous one comes out at its own time (a backward time,
    /// reported by the runner as in a single file).
    final class Merging {
        private let sources: [() throws -> SensorSample?]
        private var heads: [SensorSample?] = []
        private var started = false
        private let tolerance: Double

        init(_ sources: [() throws -> SensorSample?], tolerance: Double) {
            self.sources = sources
            self.tolerance = tolerance
        }

        /// The next merged sample, or nil when every source has ended.
        func next() throws -> SensorSample? {
            if !started {
                heads = try sources.map { try $0() }
                started = true
            }
            // The earliest head (a head whose time is not a number is taken when nothing else is).
            var first: Int?
            for (i, head) in heads.enumerated() {
                guard let head else { continue }
                if let f = first, let current = heads[f], !(head.t < current.t) { continue }
                first = i
            }
            guard let first, let tMin = heads[first]?.t else { return nil }
            var sample = SensorSample(t: tMin)
            for i in heads.indices {
                // At most one sample per source per merged instant, so none is ever dropped.
                guard let head = heads[i], i == first || head.t - tMin <= tolerance else { continue }
                if let v = head.gyroscope { sample.gyroscope = v }
                if let v = head.accelerometer { sample.accelerometer = v }
                if let v = head.magnetometer { sample.magnetometer = v }
                if let v = head.truth { sample.truth = v }
                if let v = head.moving { sample.moving = v }
                heads[i] = try sources[i]()
            }
            return sample
        }
    }
}

extension SensorSample {
    /// Sets one sensor's value.
    mutating func set(_ sensor: SensorKind, _ value: Vector3?) {
        switch sensor {
        case .gyroscope: gyroscope = value
        case .accelerometer: accelerometer = value
        case .magnetometer: magnetometer = value
        }
    }

    /// One sensor's value.
    func value(_ sensor: SensorKind) -> Vector3? {
        switch sensor {
        case .gyroscope: gyroscope
        case .accelerometer: accelerometer
        case .magnetometer: magnetometer
        }
    }
}
