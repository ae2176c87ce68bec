#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Settings of a ``FilterRunner``.
public struct FilterRunnerSettings: Sendable, Codable {
    /// Longest step, s, that is integrated; a longer gap re-initialises. Default 1 s.
    public var maximumGap = 1.0
    /// Longest time a gyroscope value is held for samples without one (sensors at different
    /// rates), s. Beyond it the filter propagates blind and widens its uncertainty. Default 0.1.
    public var maximumGyroscopeHold = 0.1
    /// Longest time an accelerometer value is held for samples without one, s, turned by the
    /// gyroscope's rate as the device turns: a slower accelerometer, or one logged on rows of its
    /// own between the gyroscope's, then corrects the tilt over every step as one on every row
    /// does (each correction weighs its own step, so readings on one row in ten corrected a tenth
    /// as strongly, and a reading logged just after a magnetometer row weighed only the gap
    /// between them). Default 0.1.
    public var maximumAccelerometerHold = 0.1
    /// Default settings.
    public init() {}
}

/// A ``FilterRunner``'s own evolving values (its filter's state apart): what resuming a run needs
/// besides the filter's ``AttitudeFilter/state``.
public struct FilterRunnerMemory: Sendable, Codable, Equatable {
    /// Time of the last accepted sample, s.
    public var lastTime = Double.nan
    /// Last finite gyroscope value, rad/s.
    public var lastGyroscope: Vector3?
    /// Time of the last finite gyroscope value, s.
    public var lastGyroscopeTime = -Double.infinity
    /// Last finite accelerometer value, m/s².
    public var lastAccelerometer: Vector3?
    /// Time of the last finite accelerometer value, s, and that value turned as the device turned
    /// since once held (absent in states saved before they were kept: nothing is held then).
    public var lastAccelerometerTime: Double?
    public var heldAccelerometer: Vector3?
    /// The sensors read at the latest time (absent in states saved before they were kept).
    public var sensorsAtTime: SensorsAtTime?
    /// The gyroscope's saturation found so far (absent in states saved before it was kept).
    public var clipping: GyroscopeClipping?
    /// The magnetometer's saturation found so far (absent in states saved before it was kept).
    public var magnetometerClipping: MagnetometerClipping?
    /// A runner that has seen nothing.
    public init() {}
}

/// Feeds timestamped samples to a filter the way a live device delivers them, and turns its state
/// into ``MotionEstimate`` values.
///
/// It computes each step from the timestamps, holds the last gyroscope and accelerometer values
/// when a sample lacks one (sensors at different rates, or on rows of their own), and protects the filter from bad input: non-finite vectors become "no value", a timestamp
/// that does not increase integrates nothing, a gap longer than ``Settings/maximumGap``
/// re-initialises the attitude from the next accelerometer (and magnetometer) sample, and a
/// magnetometer reading with an axis at the end of its range (``MagnetometerClipping``) is no
/// value. Every input sample produces exactly one output.
public struct FilterRunner<Filter: AttitudeFilter> {
    /// Runner settings.
    public typealias Settings = FilterRunnerSettings
    /// The runner's own evolving values.
    public typealias Memory = FilterRunnerMemory

    /// The filter.
    public var filter: Filter
    /// Settings.
    public var settings: Settings
    /// Time of the last accepted sample, s.
    public var lastTime = Double.nan
    /// Last finite gyroscope value, rad/s.
    public var lastGyroscope: Vector3?
    /// Time of the last finite gyroscope value, s.
    public var lastGyroscopeTime = -Double.infinity
    /// Last finite accelerometer value, m/s².
    public var lastAccelerometer: Vector3?
    /// Time of the last finite accelerometer value, s.
    public var lastAccelerometerTime = -Double.infinity
    /// The last finite accelerometer value turned as the device turned since, once a sample
    /// without one has held it (nil while the last sample had one).
    public var heldAccelerometer: Vector3?
    /// The sensors read at the latest time: a row of another sensor with that time (sensors on rows
    /// of their own) is no time fault.
    public var sensorsAtTime = SensorsAtTime()
    /// The gyroscope's saturation, as found so far.
    public var clipping = GyroscopeClipping()
    /// Whether the last sample's gyroscope reading was clipped.
    public private(set) var clipped = false
    /// The magnetometer's saturation, as found so far.
    public var magnetometerClipping = MagnetometerClipping()
    /// Whether the last sample's magnetometer reading was clipped (and not given to the filter).
    public private(set) var magnetometerClipped = false

    /// What a saved run holds: the runner's memory and the filter's state.
    struct Saved<State: Codable>: Codable {
        var runner: Memory
        var filter: State
    }

    /// The runner's own evolving values; set it (with the filter's state) to resume a run.
    public var memory: Memory {
        get {
            var m = Memory()
            m.lastTime = lastTime
            m.lastGyroscope = lastGyroscope
            m.lastGyroscopeTime = lastGyroscopeTime
            m.lastAccelerometer = lastAccelerometer
            m.lastAccelerometerTime = lastAccelerometerTime
            m.heldAccelerometer = heldAccelerometer
            m.sensorsAtTime = sensorsAtTime
            m.clipping = clipping
            m.magnetometerClipping = magnetometerClipping
            return m
        }
        set {
            lastTime = newValue.lastTime
            lastGyroscope = newValue.lastGyroscope
            lastGyroscopeTime = newValue.lastGyroscopeTime
            lastAccelerometer = newValue.lastAccelerometer
            lastAccelerometerTime = newValue.lastAccelerometerTime ?? -.infinity
            heldAccelerometer = newValue.heldAccelerometer
            sensorsAtTime = newValue.sensorsAtTime ?? SensorsAtTime()
            clipping = newValue.clipping ?? GyroscopeClipping()
            magnetometerClipping = newValue.magnetometerClipping ?? MagnetometerClipping()
        }
    }

    /// The run as JSON, exact to the bit (``SavedStateCoding``): the runner's memory and the
    /// filter's state, so that ``restoreState(_:)`` resumes it sample for sample as if it had
    /// never stopped (held gyroscope values, steps and gaps included).
    public func savedState() throws -> Data {
        try SavedStateCoding.encoder().encode(Saved(runner: memory, filter: filter.state))
    }

    /// Resumes a run saved by ``savedState()`` of a runner around the same kind of filter, with the
    /// same mode and parameters (state kept for another setup may not apply).
    public mutating func restoreState(_ data: Data) throws {
        let saved = try SavedStateCoding.decoder().decode(Saved<Filter.State>.self, from: data)
        filter.state = saved.filter
        memory = saved.runner
    }

    /// Creates a runner around a filter.
    public init(_ filter: Filter, settings: Settings = Settings()) {
        self.filter = filter
        self.settings = settings
    }

    static func finite(_ v: Vector3?) -> Vector3? {
        guard let v, v.isFinite else { return nil }
        return v
    }

    /// Processes one sample and returns the estimate after it.
    @discardableResult
    public mutating func update(_ sample: SensorSample) -> MotionEstimate { estimate(after: sample) }

    /// ``update(_:)``'s body, shared with the EKF runner's own `update(_:)` (below).
    @inline(__always)
    mutating func estimate(after sample: SensorSample) -> MotionEstimate {
        let (timeFault, mag) = step(sample)
        var d = filter.diagnostics
        d.timeFault = timeFault
        d.gyroscopeClipped = clipped
        d.magnetometerClipped = magnetometerClipped
        return MotionEstimate(
            t: sample.t, attitude: filter.attitude, gyroscopeBias: filter.gyroscopeBias, diagnostics: d,
            gyroscope: lastGyroscope, accelerometer: lastAccelerometer, magnetometer: mag)
    }

    /// Processes one sample without building the estimate (the lean path of the batch calls).
    /// Returns whether the timestamp was faulty, and the finite magnetometer value.
    @inline(__always) @discardableResult
    public mutating func step(_ sample: SensorSample) -> (timeFault: Bool, magnetometer: Vector3?) {
        step(sample, diagnostics: true)
    }

    /// Processes one sample, keeping what only the diagnostics and the estimates use (the gyroscope
    /// clipping, the last accelerometer value) when `diagnostics`: the attitude-only loops, whose
    /// runner is dropped after the run, leave it out.
    ///
    /// A steady sample (finite times a positive step apart, not beyond the gap, and a finite
    /// gyroscope reading) goes straight to the filter; any other takes ``irregularStep(_:diagnostics:)``,
    /// which handles every case and gives a steady sample the same result.
    @inline(__always) @discardableResult
    mutating func step(_ sample: SensorSample, diagnostics: Bool) -> (timeFault: Bool, magnetometer: Vector3?) {
        let t = sample.t
        let dt = t - lastTime
        guard dt > 0, dt <= settings.maximumGap, dt.isFinite, let g = sample.gyroscope, g.isFinite else {
            // The sensors passed alone, not the sample: the caller need not copy it whole.
            return irregularStep(
                SensorSample(
                    t: t, gyroscope: sample.gyroscope, accelerometer: sample.accelerometer,
                    magnetometer: sample.magnetometer), diagnostics: diagnostics)
        }
        let acc = accelerometer(sample.accelerometer, at: t, rate: g, dt: dt)
        let mag = unclipped(Self.finite(sample.magnetometer), rate: g, dt: dt)
        lastTime = t
        lastGyroscope = g
        lastGyroscopeTime = t
        sensorsAtTime.time = t
        sensorsAtTime.sensors = SensorsAtTime.of(
            gyroscope: true, accelerometer: sample.accelerometer?.isFinite == true,
            magnetometer: sample.magnetometer?.isFinite == true)
        if diagnostics { clipped = clipping.observe(g) != .zero }
        filter.update(gyroscope: g, accelerometer: acc, magnetometer: mag, dt: dt)
        return (false, mag)
    }

    /// Any sample: steps from the timestamps with their faults, held gyroscope values, gaps.
    @inline(never)
    mutating func irregularStep(_ sample: SensorSample, diagnostics: Bool) -> (timeFault: Bool, magnetometer: Vector3?)
    {
        var gyro = Self.finite(sample.gyroscope)
        let mag = Self.finite(sample.magnetometer)
        let read = SensorsAtTime.of(
            gyroscope: gyro != nil, accelerometer: sample.accelerometer?.isFinite == true, magnetometer: mag != nil)
        var dt = 0.0
        var timeFault = false
        if sample.t.isFinite {
            if lastTime.isFinite {
                let step = sample.t - lastTime
                if step > 0 && step <= settings.maximumGap {
                    dt = step
                } else if step > settings.maximumGap {
                    timeFault = true
                    filter.reinitialise()
                } else if step == 0 && sensorsAtTime.time == sample.t && !sensorsAtTime.repeats(sample.t, read) {
                    // Another sensor's reading with the same time (sensors on rows of their own):
                    // no step, and no fault. (After a row stepping back, the time is judged
                    // against that row's: a repeat of the later time is a fault.)
                } else {
                    timeFault = true
                }
            }
            if sample.t != sensorsAtTime.time { _ = sensorsAtTime.repeats(sample.t, read) }
            if !lastTime.isFinite || sample.t > lastTime || sample.t < lastTime - settings.maximumGap {
                lastTime = sample.t
            }
        } else {
            timeFault = true
        }
        if gyro == nil {
            // Hold the last rate for a slower gyroscope, but not across a gyroscope outage or a
            // clock stepping back (a NaN time is neither).
            let age = sample.t - lastGyroscopeTime
            if age >= 0 && age <= settings.maximumGyroscopeHold {
                gyro = lastGyroscope
            }
        } else {
            lastGyroscope = gyro
            if sample.t.isFinite { lastGyroscopeTime = sample.t }
        }
        if diagnostics {
            clipped = false
            if let g = Self.finite(sample.gyroscope) {
                clipped = clipping.observe(g) != .zero
            }
        }
        let acc = accelerometer(sample.accelerometer, at: sample.t, rate: gyro, dt: dt)
        let unclippedMag = unclipped(mag, rate: gyro, dt: dt)
        filter.update(gyroscope: gyro, accelerometer: acc, magnetometer: unclippedMag, dt: dt)
        return (timeFault, unclippedMag)
    }

    /// The finite accelerometer reading `a` of a sample at time `t`, kept as the last one; without
    /// one, the last one while it is at most ``Settings/maximumAccelerometerHold`` old (a slower
    /// accelerometer, or one on rows of its own), but not across an outage or a clock stepping
    /// back, turned back by the `rate` (rad/s) over the `dt` seconds since the sample before: the
    /// specific force of a still device is fixed in the earth frame, so in the sensor frame it
    /// turns against the device.
    @inline(__always)
    mutating func accelerometer(_ a: Vector3?, at t: Double, rate: Vector3?, dt: Double) -> Vector3? {
        if let a, a.isFinite {
            lastAccelerometer = a
            heldAccelerometer = nil
            if t.isFinite { lastAccelerometerTime = t }
            return a
        }
        return holdAccelerometer(at: t, rate: rate, dt: dt)
    }

    /// The last accelerometer reading held for a sample at time `t` without one (see
    /// ``accelerometer(_:at:rate:dt:)``), out of the steady samples' path.
    @inline(never)
    mutating func holdAccelerometer(at t: Double, rate: Vector3?, dt: Double) -> Vector3? {
        let age = t - lastAccelerometerTime
        guard age >= 0, age <= settings.maximumAccelerometerHold, let held = heldAccelerometer ?? lastAccelerometer
        else { return nil }
        guard let rate, dt > 0 else { return held }
        let turned = Quaternion(rotationVector: rate * dt).inverseRotate(held)
        heldAccelerometer = turned
        return turned
    }

    /// The finite magnetometer reading `m`, or nil when an axis of it is clipped (judged with the
    /// rate over the `dt` seconds before it). A 6D filter, which uses no reading, gets it as it is.
    @inline(__always)
    mutating func unclipped(_ m: Vector3?, rate: Vector3?, dt: Double) -> Vector3? {
        guard let m, filter.mode == .nineD else {
            magnetometerClipped = false
            return m
        }
        magnetometerClipped = magnetometerClipping.observe(m, rate: rate, bias: filter.gyroscopeBias, dt: dt)
        return magnetometerClipped ? nil : m
    }
}

extension FilterRunner where Filter == KalmanFilter {
    /// ``update(_:)`` of the EKF's runner, compiled for it here: called from another module (the
    /// offline smoother's passes), the generic method ran unspecialised and reached the filter
    /// through its protocol's witnesses, copying its parameters for each look at its mode.
    @discardableResult
    public mutating func update(_ sample: SensorSample) -> MotionEstimate { estimate(after: sample) }
}
