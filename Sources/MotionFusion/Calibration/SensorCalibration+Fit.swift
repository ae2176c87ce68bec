extension SensorCalibration {
    /// Fits each sensor of `sensors` that the trace allows; what it cannot determine becomes a
    /// warning (see ``refusals`` for the requested sensors that were refused).
    public static func fit(
        _ trace: Trace, sensors: Set<SensorKind> = Set(SensorKind.allCases), magnetometerArbitrary: Bool = false
    ) -> SensorCalibration {
        var c = SensorCalibration()
        if sensors.contains(.magnetometer) {
            let mags = trace.samples.compactMap(\.magnetometer)
            if mags.isEmpty {
                c.refuse(.magnetometer, "no magnetometer readings: magnetometer not calibrated")
            } else {
                do {
                    c.magnetometer = try MagnetometerCalibration.fit(mags, arbitraryUnits: magnetometerArbitrary)
                } catch {
                    c.refuse(.magnetometer, "magnetometer not calibrated: \(error)")
                }
            }
        }
        let poses = StaticPoses.find(trace.samples)
        if sensors.contains(.gyroscope) {
            let gyroPoses = poses.filter { $0.gyroscope != nil }
            if gyroPoses.isEmpty {
                c.refuse(
                    .gyroscope,
                    "no rest period of 1 s or more: gyroscope bias not estimated (hold the device still for a few seconds)"
                )
            } else {
                let n = gyroPoses.map(\.samples).reduce(0, +)
                c.gyroscopeBias =
                    gyroPoses.map { $0.gyroscope! * Double($0.samples) }.reduce(Vector3.zero, +) / Double(n)
                c.gyroscopeRestSamples = n
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

    mutating func refuse(_ sensor: SensorKind, _ message: String) {
        refusals.insert(sensor)
        warnings.append(message)
    }
}
