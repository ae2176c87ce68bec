/// The one per-sample loop of every run of a ``RunConfiguration``: each sample of `source`,
/// calibrated, through a ``FilterRunner`` of the configured filter, to `sink`, after the opening
/// stretch that decides the magnetometer calibration the filter starts with
/// (``MagnetometerLookAhead``). Specialised for each
/// filter type (``FilterSetup/withFilter(_:)``) and for each source and sink, so that nothing is
/// called through a closure or a protocol per sample unless the caller's own code is one.
struct RunLoop<Source: SampleSource, Sink: EstimateSink>: FilterVisitor {
    let source: Source
    let sink: Sink
    let configuration: RunConfiguration

    /// Runs to the end of `source` and returns the sink, with everything it was given.
    func visit<Filter: AttitudeFilter>(_ filter: Filter) throws -> Sink {
        var runner = FilterRunner(filter, settings: configuration.runner)
        var sink = sink
        // The calibration is decided once, not per sample, so that an uncalibrated run copies no
        // sample.
        if let calibration = configuration.calibration {
            try Self.drive(&runner, source, &sink, lookAhead: configuration.magnetometerLookAhead) {
                calibration.apply($0)
            }
        } else {
            try Self.drive(&runner, source, &sink, lookAhead: configuration.magnetometerLookAhead) { $0 }
        }
        return sink
    }

    /// The loop itself, with `prepare` applied to each sample before the runner.
    @inline(__always)
    static func drive<Filter: AttitudeFilter>(
        _ runner: inout FilterRunner<Filter>, _ source: Source, _ sink: inout Sink, lookAhead: Double,
        _ prepare: (SensorSample) -> SensorSample
    ) throws {
        let attitudeOnly = sink.attitudeOnly
        @inline(__always)
        func run(_ input: SensorSample) throws {
            if attitudeOnly {
                runner.step(prepare(input), diagnostics: false)
                try sink.take(nil, runner.filter.attitude, input: input)
            } else {
                let e = runner.update(prepare(input))
                try sink.take(e, e.attitude, input: input)
            }
        }
        guard lookAhead > 0, let opening = MagnetometerLookAhead(runner, lookAhead: lookAhead) else {
            // The steady loop, written out: as a call of `run` the compiler kept it out of line
            // (a copy of each sample and about 100 instructions a sample more).
            if attitudeOnly {
                try source.forEach { input in
                    runner.step(prepare(input), diagnostics: false)
                    try sink.take(nil, runner.filter.attitude, input: input)
                }
            } else {
                try source.forEach { input in
                    let e = runner.update(prepare(input))
                    try sink.take(e, e.attitude, input: input)
                }
            }
            return
        }
        // The held samples, run with the calibration decided over them.
        func release(_ opening: MagnetometerLookAhead<Filter>) throws {
            if let c = opening.decided(prepare) { runner.filter.startCalibrated(c) }
            for s in opening.held { try run(s) }
        }
        var ahead: MagnetometerLookAhead<Filter>? = opening
        try source.forEach { input in
            guard ahead != nil else { return try run(input) }
            guard ahead!.observe(input, prepared: prepare(input)) else { return }
            let held = ahead!
            ahead = nil
            try release(held)
        }
        if let rest = ahead { try release(rest) }
    }
}

/// Where ``RunLoop`` takes its samples from, in order.
protocol SampleSource {
    /// Calls `body` with each sample in turn.
    func forEach(_ body: (SensorSample) throws -> Void) throws
}

/// What ``RunLoop`` does with each sample's result.
protocol EstimateSink {
    /// Whether only the attitude is wanted: the rest of the estimate is not built.
    var attitudeOnly: Bool { get }
    /// Takes one sample's estimate (nil when ``attitudeOnly``), its attitude, and the sample as
    /// given (before calibration).
    mutating func take(_ estimate: MotionEstimate?, _ attitude: Quaternion, input: SensorSample) throws
}

/// The samples a closure yields until it returns nil.
struct YieldedSamples: SampleSource {
    let yield: () throws -> SensorSample?
    @inline(__always)
    func forEach(_ body: (SensorSample) throws -> Void) throws {
        while let sample = try yield() { try body(sample) }
    }
}

/// The samples of an array, first to last.
struct IndexedSamples<Samples: SampleArray>: SampleSource {
    let samples: Samples
    @inline(__always)
    func forEach(_ body: (SensorSample) throws -> Void) throws {
        for i in 0..<samples.count { try body(samples.sample(at: i)) }
    }
}

/// Each estimate to `body` with its input, through the configuration's resampler when it has one;
/// `eachSample` sees every input's own estimate first.
struct EstimatesToClosure: EstimateSink {
    var resampler: Resampler?
    let eachSample: ((MotionEstimate, SensorSample) -> Void)?
    let body: (MotionEstimate, SensorSample) throws -> Void
    var attitudeOnly: Bool { false }

    mutating func take(_ estimate: MotionEstimate?, _ attitude: Quaternion, input: SensorSample) throws {
        let e = estimate!
        eachSample?(e, input)
        if resampler == nil {
            try body(e, input)
        } else {
            try resampler!.push(e, input, emit: body)
        }
    }
}

/// Each sample's index, estimate (unless only the attitude is wanted) and attitude to `body`.
struct IndexedEstimatesToClosure: EstimateSink {
    let attitudeOnly: Bool
    let body: (Int, MotionEstimate?, Quaternion) throws -> Void
    var index = 0

    mutating func take(_ estimate: MotionEstimate?, _ attitude: Quaternion, input: SensorSample) throws {
        try body(index, estimate, attitude)
        index += 1
    }
}

/// Each attitude into consecutive, uninitialised storage (room for every sample).
struct AttitudesToStorage: EstimateSink {
    let storage: UnsafeMutablePointer<Quaternion>
    var count = 0
    var attitudeOnly: Bool { true }

    mutating func take(_ estimate: MotionEstimate?, _ attitude: Quaternion, input: SensorSample) {
        (storage + count).initialize(to: attitude)
        count += 1
    }
}

extension RunConfiguration {
    /// The attitude after each of `samples`, through ``RunLoop``.
    func attitudes<Samples: SampleArray>(of samples: Samples) -> [Quaternion] {
        guard samples.count > 0 else { return [] }
        return [Quaternion](unsafeUninitializedCapacity: samples.count) { out, initialised in
            let loop = RunLoop(
                source: IndexedSamples(samples: samples), sink: AttitudesToStorage(storage: out.baseAddress!),
                configuration: self)
            // Neither the source nor the sink throws.
            initialised = try! filter.withFilter(loop).count
        }
    }
}
