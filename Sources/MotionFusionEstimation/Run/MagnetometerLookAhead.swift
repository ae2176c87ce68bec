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
    /// (`prepare`d as the run does) bear it out from the start. In every ``block`` of the
    /// stretch the median departure of the calibrated strength from the fitted strength is within
    /// the low level's residual (``MagnetometerSelfCalibration/Parameters/lowResidual``): a
    /// disturbance shorter than half a block does not count, but a change of the device's own iron
    /// within the stretch (a magnet attached or taken off, an iron that drifts) does. Otherwise
    /// the filter adopts its calibrations when it comes to them.
    func decided(_ prepare: (SensorSample) -> SensorSample) -> MagnetometerSelfCalibration? {
        guard let c = scout.filter.magnetometerSelfCalibration, c.accuracy >= .medium, c.strength > 0 else {
            return nil
        }
        var departures = [Double]()
        var blockStart = start ?? 0
        var borneOut = true
        var any = false
        func closeBlock() {
            if let median = Quickselect.median(departures), !(median <= c.parameters.lowResidual) { borneOut = false }
            departures.removeAll(keepingCapacity: true)
        }
        for s in held {
            if s.t.isFinite, s.t - blockStart >= Self.block {
                closeBlock()
                blockStart = s.t
            }
            guard let m = prepare(s).magnetometer, m.isFinite else { continue }
            departures.append(abs(c.apply(m).norm / c.strength - 1))
            any = true
        }
        closeBlock()
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
