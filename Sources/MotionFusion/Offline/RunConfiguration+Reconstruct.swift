extension RunConfiguration {
    /// Reconstructs the samples `next` yields, offline, with this configuration: its EKF parameters
    /// (mode, expected field, `--param` tuning), its calibration applied to every sample, and its
    /// output rate (resampled rows carry NaN robust weights). Memory is bounded by the estimator's
    /// windows, whatever the length. The configuration's filter must be the EKF.
    ///
    /// - Parameters:
    ///   - method: the offline method. Default ``ReconstructionMethod/default`` (batch).
    ///   - batch: the batch estimator's tuning (its `filter` is replaced by the configuration's
    ///     EKF). Default its defaults.
    ///   - progress: called with the fraction done when `expectedSampleCount` is known.
    @discardableResult
    public func reconstruct(
        method: ReconstructionMethod = .default, batch: BatchAttitudeEstimator.Parameters = .init(),
        expectedSampleCount: Int? = nil,
        progress: ((Double) -> Void)? = nil, next: () throws -> SensorSample?,
        _ body: (ReconstructedSample) throws -> Void
    ) throws -> OfflineReconstruction.Result {
        guard let filter = self.filter.reconstructionFilter else {
            throw ParameterError(
                description: "offline reconstruction runs the EKF (filter ekf), not \(self.filter.kind.rawValue)")
        }
        var p = OfflineReconstruction.Parameters()
        p.method = method
        p.batch = batch
        p.filter = filter
        let calibration = self.calibration
        var resampler = self.resampler
        return try OfflineReconstruction(parameters: p).reconstruct(
            next: {
                guard let s = try next() else { return nil }
                return calibration?.apply(s) ?? s
            }, expectedSampleCount: expectedSampleCount, progress: progress
        ) { r in
            if resampler != nil {
                try resampler!.push(r.estimate, r.input) { e, input in
                    try body(
                        ReconstructedSample(
                            estimate: e, input: input, accelerometerWeight: .nan, magnetometerWeight: .nan))
                }
            } else {
                try body(r)
            }
        }
    }
}
