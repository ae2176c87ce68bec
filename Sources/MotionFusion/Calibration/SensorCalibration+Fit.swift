extension SensorCalibration {
    /// Fits everything the trace allows; parts it does not allow become warnings.
    public static func fit(_ trace: Trace) -> SensorCalibration {
        var c = SensorCalibration()
        let mags = trace.samples.compactMap(\.magnetometer)
        if mags.isEmpty {
            c.warnings.append("no magnetometer readings: magnetometer not calibrated")
        } else {
            do {
                c.magnetometer = try MagnetometerCalibration.fit(mags)
            } catch {
                c.warnings.append("\(error); magnetometer not calibrated")
            }
        }
        let poses = StaticPoses.find(trace.samples)
        let gyroPoses = poses.filter { $0.gyroscope != nil }
        if gyroPoses.isEmpty {
            c.warnings.append("no rest period of 1 s or more: gyroscope bias not estimated")
        } else {
            let n = gyroPoses.map(\.samples).reduce(0, +)
            c.gyroscopeBias = gyroPoses.map { $0.gyroscope! * Double($0.samples) }.reduce(Vector3.zero, +) / Double(n)
            c.gyroscopeRestSamples = n
        }
        do {
            c.accelerometer = try AccelerometerSixPositionCalibration.fit(poses: poses.map(\.accelerometer))
        } catch {
            c.warnings.append("\(error); accelerometer not calibrated")
        }
        return c
    }
}
