/// The opening stretch of a run, held while a copy of the filter decides the magnetometer
/// calibration it starts with (``RunConfiguration/magnetometerLookAhead``).
struct MagnetometerLookAhead<Filter: AttitudeFilter> {
    /// The copy of the run that looks ahead.
    var scout: FilterRunner<Filter>
    /// Longest stretch, s (``RunConfiguration/magnetometerLookAhead``).
    let lookAhead: Double
    /// Most samples held (about 6 MB): the whole stretch up to 333 Hz, 40 s at 1000 Hz.
    static var mostSamples: Int { 40_000 }
    /// Length of the blocks of the stretch whose readings must each bear the calibration out, s.
    static var block: Double { 2 }
    /// Largest departure of a block's field angle to the vertical from the stretch's, rad (5°).
    static var angleTolerance: Double { 5.0.radians }
    /// Largest departure of the specific force's strength from g for it to show the vertical,
    /// m/s².
    static var gravityTolerance: Double { 1 }
    /// The samples held, as given.
    var held = [SensorSample]()
    /// Time of the first sample with a finite time.
    var start: Double?

    /// A look-ahead for `runner`'s filter, nil when it calibrates no magnetometer.
    init?(_ runner: FilterRunner<Filter>, lookAhead: Double) {
        guard let c = runner.filter.magnetometerSelfCalibration, c.parameters.enabled else { return nil }
        scout = runner
        self.lookAhead = lookAhead
    }

    /// The calibration to start with, with the rest of the scout's calibration state (its kept
    /// readings and turns, so that it goes on exactly as the scout would have): the one in use at
    /// the end of the stretch, if it is trusted (medium level or better) and the readings held
    /// (`prepare`d as the run does) bear it out from the start, as the earth's field does, in
    /// every ``block`` of the stretch:
    /// - the departure of the calibrated strength from the fitted strength is within the low
    ///   level's residual (``MagnetometerSelfCalibration/Parameters/lowResidual``) for the median
    ///   reading, and within twice that for nine readings in ten;
    /// - the angle between the calibrated field and the specific force (where its strength is
    ///   within ``gravityTolerance`` of g, so mostly gravity) departs from the stretch's (the
    ///   median of the blocks' medians) by at most ``angleTolerance`` for the median reading and
    ///   twice that for nine in ten: a fit can take a magnet's few readings at rest into its
    ///   ellipsoid and keep their strength, but not the earth field's angle to the vertical.
    ///
    /// A disturbance of less than a tenth of a block does not count; a change of the device's own
    /// iron within the stretch (a magnet attached or taken off, an iron that drifts) does.
    /// Otherwise the filter adopts its calibrations when it comes to them.
    func decided(_ prepare: (SensorSample) -> SensorSample) -> MagnetometerSelfCalibration? {
        guard let c = scout.filter.magnetometerSelfCalibration, c.accuracy >= .medium, c.strength > 0 else {
            return nil
        }
        var departures = [Double]()
        var angles = [Double]()
        // Each block's readings' angles, for the test against the stretch's angle.
        var blocks = [[Double]]()
        var blockStart = start ?? 0
        var borneOut = true
        var any = false
        var force: Vector3?
        let residual = c.parameters.lowResidual
        func closeBlock() {
            if let median = Quickselect.median(departures), let most = Quickselect.quantile(departures, 0.9),
                !(median <= residual && most <= 2 * residual)
            {
                borneOut = false
            }
            if !angles.isEmpty { blocks.append(angles) }
            departures.removeAll(keepingCapacity: true)
            angles.removeAll()
        }
        for s in held {
            if s.t.isFinite, s.t - blockStart >= Self.block {
                closeBlock()
                blockStart = s.t
            }
            let sample = prepare(s)
            if let a = sample.accelerometer, a.isFinite { force = a }
            guard let m = sample.magnetometer, m.isFinite else { continue }
            let calibrated = c.apply(m)
            departures.append(abs(calibrated.norm / c.strength - 1))
            if let a = force, abs(a.norm - standardGravity) < Self.gravityTolerance, calibrated.norm > 0 {
                angles.append(Double.atan2(calibrated.cross(a).norm, calibrated.dot(a)))
            }
            any = true
        }
        closeBlock()
        if borneOut, let typical = Quickselect.median(blocks.compactMap { Quickselect.median($0) }) {
            for angles in blocks {
                let off = angles.map { abs($0 - typical) }
                guard let median = Quickselect.median(off), let most = Quickselect.quantile(off, 0.9),
                    median <= Self.angleTolerance, most <= 2 * Self.angleTolerance
                else {
                    borneOut = false
                    break
                }
            }
        }
        return any && borneOut ? c : nil
    }

    /// Holds `input` and runs it (`prepared`) through the scout; true when the stretch is over.
    mutating func observe(_ input: SensorSample, prepared: SensorSample) -> Bool {
        held.append(input)
        scout.step(prepared, diagnostics: false)
        if start == nil, input.t.isFinite { start = input.t }
        if let c = scout.filter.magnetometerSelfCalibration, c.accuracy >= .medium { return true }
        if let start, input.t.isFinite, input.t - start >= lookAhead { return true }
        return held.count >= Self.mostSamples
    }
}
