/// A filter whose steady step also runs on ``Lanes``: several traces at once, each lane bit-identical
/// to the scalar ``AttitudeFilter/update(gyroscope:accelerometer:magnetometer:dt:)``.
///
/// A step is steady when the filter is initialised (and heading-referenced where it uses the
/// magnetometer), every sensor it uses is present, finite and non-zero, and the step is a plain
/// one: positive, within the runner's longest gap and the integrator's gap ratio. Every other
/// sample (start, missing values, clock faults, lost samples) goes through the scalar
/// ``FilterRunner`` of its lane, so the lanes need to reproduce only the common case.
protocol LaneFilter: AttitudeFilter {
    /// Whether the next steady step may run on lanes.
    var laneReady: Bool { get }
    /// The state besides the attitude that the steady step changes (Mahony's integral), else zero.
    var laneIntegral: Vector3 { get }
    /// The gyroscope integrator.
    var laneIntegrator: GyroscopeIntegrator { get set }
    /// The integrator's parameters.
    var laneIntegration: GyroscopeIntegrator.Parameters { get }
    /// Sets the attitude and the integral after steady steps on lanes.
    mutating func resume(attitude: Quaternion, integral: Vector3)
    /// The steady step of `update` on lanes, with unit accelerometer and magnetometer directions
    /// (the magnetometer is ignored unless `fusingMagnetometer`: the filter runs 9D).
    static func laneStep(
        _ q: inout LaneQuaternion, _ integral: inout LaneVector, rate: LaneVector, accelerometer: LaneVector,
        magnetometer: LaneVector, fusingMagnetometer: Bool, dt: Lanes, parameters: Parameters)
}

extension RunConfiguration {
    /// The attitude after every sample of each trace, as ``attitudes(_:)`` gives for each one.
    ///
    /// The Mahony and Madgwick filters run ``Lanes`` traces side by side (four), bit-identical to
    /// running each trace alone; a last group of one or two traces, the other filters, and runs
    /// with a calibration run one trace at a time. Traces may differ in length, rate and timing.
    public func attitudes(ofEach traces: [SensorArrays]) -> [[Quaternion]] {
        var steps = LaneSteps()
        return attitudes(ofEach: traces, steps: &steps)
    }

    /// ``attitudes(ofEach:)``, counting the samples that ran on lanes and alone.
    func attitudes(ofEach traces: [SensorArrays], steps: inout LaneSteps) -> [[Quaternion]] {
        guard calibration == nil else {
            return traces.map { try! filter.withFilter(AttitudeLoop(samples: $0, configuration: self)) }
        }
        let (attitudes, counted) = try! filter.withFilter(LaneLoop(traces: traces, configuration: self))
        steps = counted
        return attitudes
    }
}

/// How the samples of a lane run were processed.
struct LaneSteps {
    /// Samples stepped on lanes.
    var lanes = 0
    /// Samples stepped by a lane's scalar runner, and all samples of filters without lanes and of a
    /// last group too small for lanes.
    var alone = 0
}

/// The loop of ``RunConfiguration/attitudes(ofEach:)``.
struct LaneLoop: FilterVisitor {
    let traces: [SensorArrays]
    let configuration: RunConfiguration

    func visit<Filter: AttitudeFilter>(_ filter: Filter) -> ([[Quaternion]], LaneSteps) {
        guard let laneFilter = filter as? any LaneFilter else {
            let out = traces.map { AttitudeLoop(samples: $0, configuration: configuration).visit(filter) }
            return (out, LaneSteps(lanes: 0, alone: traces.reduce(0) { $0 + $1.count }))
        }
        return run(laneFilter)
    }

    /// The fewest traces worth a group of lanes. Measured on BROAD trial 21 (Mahony and Madgwick,
    /// 6D and 9D): one trace in lanes ran at 1.9–2.7× the time of the trace alone, two at 1.0–1.4×,
    /// three at 0.8–1.2×.
    static var fewestLanes: Int { 3 }

    func run<Filter: LaneFilter>(_ filter: Filter) -> ([[Quaternion]], LaneSteps) {
        var out = [[Quaternion]]()
        out.reserveCapacity(traces.count)
        var steps = LaneSteps()
        var first = 0
        while first < traces.count {
            let group = Array(traces[first..<min(first + Lanes.scalarCount, traces.count)])
            first += group.count
            if group.count < Self.fewestLanes {
                // A lane step costs about as much with one trace in it as with four.
                out += group.map { AttitudeLoop(samples: $0, configuration: configuration).visit(filter) }
                steps.alone += group.reduce(0) { $0 + $1.count }
                continue
            }
            var lanes = LaneGroup(filter, group, configuration.runner)
            // The lanes write straight into the results' storage.
            out += Self.arrays(counts: group.map(\.count)) { lanes.run(into: $0) }
            steps.lanes += lanes.steps.lanes
            steps.alone += lanes.steps.alone
        }
        return (out, steps)
    }

    /// Arrays of the given lengths, filled by `fill` through pointers to their uninitialised storage
    /// (it must initialise every element).
    static func arrays(
        counts: [Int], fill: ([UnsafeMutablePointer<Quaternion>]) -> Void
    ) -> [[Quaternion]] {
        var result = [[Quaternion]]()
        func nest(_ i: Int, _ storage: [UnsafeMutablePointer<Quaternion>]) {
            guard i < counts.count else {
                fill(storage)
                return
            }
            // Room for one element even when empty, so the storage has an address.
            let array = [Quaternion](unsafeUninitializedCapacity: max(counts[i], 1)) { buffer, initialised in
                nest(i + 1, storage + [buffer.baseAddress!])
                initialised = counts[i]
            }
            // The innermost array is finished first.
            result.insert(array, at: 0)
        }
        nest(0, [])
        return result
    }
}

/// Up to ``Lanes`` traces run side by side. The lanes hold the state of steady steps; a lane's scalar
/// runner is brought up to date from them only when that lane needs a scalar step.
struct LaneGroup<Filter: LaneFilter> {
    let traces: [SensorArrays]
    let settings: FilterRunnerSettings
    let integration: GyroscopeIntegrator.Parameters
    let usesMagnetometer: Bool
    let parameters: Filter.Parameters
    var runners: [FilterRunner<Filter>]
    var attitude = LaneQuaternion(w: Lanes(repeating: 1), x: Lanes(), y: Lanes(), z: Lanes())
    var integral = LaneVector.zero
    var typicalStep = Lanes(repeating: .nan)
    var lastTime = Lanes(repeating: .nan)
    var lastGyroscope = LaneVector.zero
    var lastAccelerometer = LaneVector.zero
    /// Lanes whose next steady step may run on lanes.
    var ready = SIMDMask<Lanes.MaskStorage>(repeating: false)
    /// Lanes whose runner is behind the lanes (steady steps since its last scalar step).
    var stale = SIMDMask<Lanes.MaskStorage>(repeating: false)
    /// Samples processed each way.
    var steps = LaneSteps()

    init(_ filter: Filter, _ traces: [SensorArrays], _ settings: FilterRunnerSettings) {
        self.traces = traces
        self.settings = settings
        integration = filter.laneIntegration
        usesMagnetometer = filter.mode == .nineD
        parameters = filter.parameters
        runners = traces.map { _ in FilterRunner(filter, settings: settings) }
    }

    /// Lanes where a vector is present and has a finite, non-zero norm (what ``Vector3/normalized``
    /// requires).
    @inline(__always)
    static func usable(_ v: LaneVector) -> SIMDMask<Lanes.MaskStorage> {
        let n2 = v.squaredNorm
        return v.isFinite .& (n2 .> 0) .& (n2 .< .infinity)
    }

    /// Runs every trace to its end, each lane's attitudes into `outputs[i]` (room for the trace).
    mutating func run(into outputs: [UnsafeMutablePointer<Quaternion>]) {
        let lanes = traces.count
        let width = Lanes.scalarCount
        let length = traces.map(\.count).max() ?? 0
        // Per lane a row pointer for the time and for each sensor, advanced by its stride after
        // each sample (1 for times, 3 for rows of a sensor). A missing sensor, and every row of a
        // lane past its end, reads NaN with stride 0, so the loop reads every lane without a test.
        let missing = UnsafeMutablePointer<Double>.allocate(capacity: 3)
        missing.initialize(repeating: .nan, count: 3)
        let rows = UnsafeMutablePointer<UnsafePointer<Double>>.allocate(capacity: 4 * width)
        rows.initialize(repeating: UnsafePointer(missing), count: 4 * width)
        let strides = UnsafeMutablePointer<Int>.allocate(capacity: 4 * width)
        strides.initialize(repeating: 0, count: 4 * width)
        defer {
            missing.deallocate()
            rows.deallocate()
            strides.deallocate()
        }
        for (i, trace) in traces.enumerated() {
            rows[i] = trace.t
            strides[i] = 1
            for (s, p) in [trace.gyroscope, trace.accelerometer, trace.magnetometer].enumerated() {
                guard let p else { continue }
                rows[(1 + s) * width + i] = p
                strides[(1 + s) * width + i] = 3
            }
        }
        // Where lanes end, shortest first.
        let ends = (0..<lanes).sorted { traces[$0].count < traces[$1].count }
        var nextEnd = 0
        @inline(__always) func load(_ s: Int, _ j: Int) -> Lanes {
            var v = Lanes()
            for i in 0..<width { v[i] = rows[s * width + i][j] }
            return v
        }
        for k in 0..<length {
            while nextEnd < lanes && traces[ends[nextEnd]].count == k {
                for s in 0..<4 {
                    rows[s * width + ends[nextEnd]] = UnsafePointer(missing)
                    strides[s * width + ends[nextEnd]] = 0
                }
                nextEnd += 1
            }
            let t = load(0, 0)
            let g = LaneVector(load(1, 0), load(1, 1), load(1, 2))
            let a = LaneVector(load(2, 0), load(2, 1), load(2, 2))
            let m = LaneVector(load(3, 0), load(3, 1), load(3, 2))
            for j in 0..<(4 * width) { rows[j] += strides[j] }
            let dt = t - lastTime
            // A finite time (the runner refuses others, whatever its longest gap).
            var steady = ready .& ((t - t) .== 0) .& (dt .> 0) .& (dt .<= settings.maximumGap)
            steady .&= dt .<= integration.gapRatio * typicalStep
            steady .&= g.isFinite .& Self.usable(a)
            if usesMagnetometer { steady .&= Self.usable(m) }
            var steadyLanes = 0
            for i in 0..<width where steady[i] { steadyLanes += 1 }
            if steadyLanes > 0 { step(steady, all: steadyLanes == width, t: t, dt: dt, g: g, a: a, m: m) }
            steps.lanes += steadyLanes
            if steadyLanes < lanes - nextEnd {
                for i in 0..<lanes where !steady[i] && k < traces[i].count {
                    steps.alone += 1
                    scalarStep(lane: i, at: k)
                }
            }
            let q = attitude
            for i in 0..<lanes where k < traces[i].count {
                (outputs[i] + k).initialize(to: Quaternion(w: q.w[i], x: q.x[i], y: q.y[i], z: q.z[i]))
            }
        }
    }

    /// The steady step in the `steady` lanes; the others keep their state.
    @inline(__always)
    mutating func step(
        _ steady: SIMDMask<Lanes.MaskStorage>, all: Bool, t: Lanes, dt: Lanes, g: LaneVector, a: LaneVector,
        m: LaneVector
    ) {
        if all {
            // The common case: every lane steps, nothing to keep.
            (attitude, integral, typicalStep) = stepped(dt: dt, g: g, a: a, m: m)
            (lastGyroscope, lastAccelerometer, lastTime) = (g, a, t)
            stale = SIMDMask(repeating: true)
            return
        }
        // Lanes that are not steady get harmless finite inputs: their results are discarded, and
        // NaN would only send them through the scalar fallbacks of the lane arithmetic.
        let idle = .!steady
        let (q, integral, step) = stepped(
            dt: dt.replacing(with: 1e-3, where: idle),
            g: LaneVector(
                g.x.replacing(with: 0, where: idle), g.y.replacing(with: 0, where: idle),
                g.z.replacing(with: 0, where: idle)),
            a: LaneVector(
                a.x.replacing(with: 0, where: idle), a.y.replacing(with: 0, where: idle),
                a.z.replacing(with: 1, where: idle)),
            m: LaneVector(
                m.x.replacing(with: 0, where: idle), m.y.replacing(with: 1, where: idle),
                m.z.replacing(with: 0, where: idle)))
        attitude.w.replace(with: q.w, where: steady)
        attitude.x.replace(with: q.x, where: steady)
        attitude.y.replace(with: q.y, where: steady)
        attitude.z.replace(with: q.z, where: steady)
        Self.replace(&self.integral, with: integral, where: steady)
        Self.replace(&lastGyroscope, with: g, where: steady)
        Self.replace(&lastAccelerometer, with: a, where: steady)
        typicalStep.replace(with: step, where: steady)
        lastTime.replace(with: t, where: steady)
        stale .|= steady
    }

    /// The filter's steady step and the integrator's typical step after it, in every lane.
    @inline(__always)
    func stepped(dt: Lanes, g: LaneVector, a: LaneVector, m: LaneVector) -> (LaneQuaternion, LaneVector, Lanes) {
        var q = attitude
        var integral = integral
        Filter.laneStep(
            &q, &integral, rate: g, accelerometer: a.normalizedUnchecked,
            magnetometer: usesMagnetometer ? m.normalizedUnchecked : m, fusingMagnetometer: usesMagnetometer, dt: dt,
            parameters: parameters)
        // The integrator's typical step follows a plain step (``GyroscopeIntegrator/meanRate``).
        let step = typicalStep + (dt - typicalStep) * firstOrderSmoothing(dt, time: integration.stepAveragingTime)
        return (q, integral, step)
    }

    @inline(__always)
    static func replace(_ v: inout LaneVector, with new: LaneVector, where mask: SIMDMask<Lanes.MaskStorage>) {
        v.x.replace(with: new.x, where: mask)
        v.y.replace(with: new.y, where: mask)
        v.z.replace(with: new.z, where: mask)
    }

    /// Sample `k` of lane `i` through its scalar runner, brought up to date first.
    mutating func scalarStep(lane i: Int, at k: Int) {
        if stale[i] {
            // What the runner and the filter hold after a steady step (``FilterRunner/step(_:)``).
            let g = lastGyroscope[lane: i]
            runners[i].lastTime = lastTime[i]
            runners[i].lastGyroscope = g
            runners[i].lastGyroscopeTime = lastTime[i]
            runners[i].lastAccelerometer = lastAccelerometer[lane: i]
            runners[i].filter.resume(attitude: attitude[lane: i], integral: integral[lane: i])
            runners[i].filter.laneIntegrator.typicalStep = typicalStep[i]
            runners[i].filter.laneIntegrator.previousRate = g
            runners[i].filter.laneIntegrator.longSteps = 0
            stale[i] = false
        }
        runners[i].step(traces[i].sample(at: k))
        let filter = runners[i].filter
        attitude[lane: i] = filter.attitude
        integral[lane: i] = filter.laneIntegral
        typicalStep[i] = filter.laneIntegrator.typicalStep
        lastTime[i] = runners[i].lastTime
        ready[i] = filter.laneReady && typicalStep[i].isFinite
    }
}
