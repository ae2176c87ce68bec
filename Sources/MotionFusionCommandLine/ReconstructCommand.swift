import MotionFusion

/// `motionfusion reconstruct`: the best attitude a whole recording allows, offline.
enum ReconstructCommand {
    static let command = TraceRunCommand.command(
        name: "reconstruct", summary: "Best offline attitude of a whole recording, using past and future samples",
        filters: false,
        extra: [
            Option("report", value: "FILE.html", "also write a self-contained HTML report with charts") { s, v in
                s.report = v
            }
        ], uncertainty: { _ in true }, job: reconstruct)

    /// Reconstructs the trace (memory bounded by the estimator's window, whatever the length),
    /// resampled when an output rate is set.
    static func reconstruct(_ reader: SampleReader, _ run: RunConfiguration, _ sink: EstimateSink) throws -> Int {
        guard case .ekf(let filter) = run.filter else { throw CommandLineError.usage("reconstruct runs the EKF") }
        var p = AttitudeSmoother.Parameters()
        p.filter = filter
        var samples = 0
        var resampler = run.outputRate.map { Resampler(rate: $0, maximumGap: run.runner.maximumGap) }
        let calibration = run.calibration
        try AttitudeSmoother(parameters: p).reconstruct(next: {
            guard let s = try reader.next() else { return nil }
            samples += 1
            return calibration?.apply(s) ?? s
        }) { s in
            if resampler != nil {
                try resampler!.push(s.estimate, s.input, emit: sink.add)
            } else {
                try sink.add(s.estimate, s.input)
            }
        }
        return samples
    }
}
