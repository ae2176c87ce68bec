extension SensorCalibration {
    /// Fits each sensor of `sensors` that the trace allows; what it cannot determine becomes a
    /// warning (see ``refusals`` for the requested sensors that were refused).
    public static func fit(
        _ trace: Trace, sensors: Set<SensorKind> = Set(SensorKind.allCases), magnetometerArbitrary: Bool = false
    ) -> SensorCalibration {
        var c = SensorCalibration()
        // Rests from the rows with motion sensors (a merged timeline's magnetometer rows would break them).
        let poses = StaticPoses.find(trace.samples.filter { $0.gyroscope != nil || $0.accelerometer != nil })
        let gyroPoses = poses.filter { $0.gyroscope != nil }
        let restSamples = gyroPoses.map(\.samples).reduce(0, +)
        let restBias =
            restSamples > 0
            ? gyroPoses.map { $0.gyroscope! * Double($0.samples) }.reduce(Vector3.zero, +) / Double(restSamples) : nil
        if sensors.contains(.magnetometer) {
            let mags = trace.samples.compactMap(\.magnetometer)
            if mags.isEmpty {
                c.refuse(.magnetometer, "no magnetometer readings: magnetometer not calibrated")
            } else {
                do {
                    c.magnetometer = try MagnetometerCalibration.fit(mags, arbitraryUnits: magnetometerArbitrary)
                } catch {
                    if let turned = turnedCalibration(trace, bias: restBias ?? .zero, readings: mags), turned.complete {
                        c.magnetometer = turned.calibration
                        c.warnings.append(
                            "the magnetometer's readings cannot determine a fit (\(error)); the gyroscope's turns between them do, making the field strength \(String(printf: "%.1f", turned.improvement))× steadier: hard iron and soft iron from the turns"
                                + (restBias == nil
                                    ? " (no rest of 1 s or more measured the gyroscope bias, so the turns are the raw rates'; a few seconds still in the recording make them truer)"
                                    : "")
                        )
                    } else {
                        c.refuse(.magnetometer, "magnetometer not calibrated: \(error)")
                    }
                }
            }
        }
        if sensors.contains(.gyroscope) {
            if let b = restBias {
                c.gyroscopeBias = b
                c.gyroscopeRestSamples = restSamples
            } else {
                c.refuse(
                    .gyroscope,
                    "no rest period of 1 s or more: gyroscope bias not estimated (hold the device still for a few seconds)"
                )
            }
        }
        if sensors.contains(.accelerometer) {
            do {
                c.accelerometer = try AccelerometerSixPositionCalibration.fit(poses: poses.map(\.accelerometer))
            } catch {
                c.refuse(.accelerometer, "\(error); accelerometer not calibrated")
            }
        }
        return c
    }

    /// The gyroscope-aided calibration of the whole trace (``GyroscopeAidedCalibration/Recording``)
    /// with the default on-line calibration settings and `reconstruct`'s evidence, the rate less
    /// `bias`, when it holds for all `readings`. Only a complete one (turns about every axis) is
    /// written: turns about one axis cannot tell the hard iron along it.
    static func turnedCalibration(_ trace: Trace, bias: Vector3, readings: [Vector3]) -> (
        calibration: MagnetometerCalibration, improvement: Double, complete: Bool
    )? {
        var turns = GyroscopeAidedCalibration.Recording(batch: BatchAttitudeEstimator.Parameters())
        for s in trace.samples { turns.add(t: s.t, magnetometer: s.magnetometer, rate: s.gyroscope.map { $0 - bias }) }
        return turns.calibration(holdingFor: readings)
    }

    mutating func refuse(_ sensor: SensorKind, _ message: String) {
        refusals.insert(sensor)
        warnings.append(message)
    }
}
