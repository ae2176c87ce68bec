/// The opening stretch of a run, held while a copy of the filter decides the magnetometer
/// calibration it starts with (``RunConfiguration/magnetometerLookAhead``).
struct MagnetometerLookAhead<Filter: AttitudeFilter> {
    /// The copy of the run that looks ahead.
    var scout: FilterRunner<Filter>
    /// Longest stretch, s (``RunConfiguration/magnetometerLookAhead``).
    let lookAhead: Double
    /// Most samples held (about 3 MB): 200 s at 100 Hz, 70 s at 285 Hz.
    static var mostSamples: Int { 20_000 }
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

    /// The calibration to start with: the one in use at the end of the stretch, if it is trusted
    /// (medium level or better) and the readings held (`prepare`d as the run does) bear it out:
    /// the median departure of their calibrated strength from the fitted strength within the low
    /// level's residual (``MagnetometerSelfCalibration/Parameters/lowResidual``), so a passing
    /// disturbance does not count but a change of the device's own iron within the stretch (a
    /// magnet attached) does. Otherwise the filter adopts its calibrations when it comes to them.
    func decided(_ prepare: (SensorSample) -> SensorSample) -> MagnetometerSelfCalibration? {
        guard let c = scout.filter.magnetometerSelfCalibration, c.accuracy >= .medium, c.strength > 0 else {
            return nil
        }
        var departures = [Double]()
        departures.reserveCapacity(held.count)
        for s in held {
            guard let m = prepare(s).magnetometer, m.isFinite else { continue }
            departures.append(abs(c.apply(m).norm / c.strength - 1))
        }
        guard let median = Quickselect.median(departures) else { return nil }
        return median <= c.parameters.lowResidual ? c : nil
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
