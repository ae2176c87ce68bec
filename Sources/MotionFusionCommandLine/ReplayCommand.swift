import MotionFusion

/// `motionfusion replay`: a filter over a recorded trace, one output row per input row.
enum ReplayCommand {
    static let command = TraceRunCommand.command(
        name: "replay", summary: "Run a filter over a recorded trace and write the attitude per sample", filters: true,
        extra: [], uncertainty: { $0.filter.hasUncertainty }, job: replay)

    /// Runs the configured filter over the trace, resampled when an output rate is set.
    static func replay(
        _ reader: SampleReader, _ run: RunConfiguration, _ settings: TraceRunSettings, _ sink: EstimateSink,
        _ console: ConsoleOutput
    ) throws -> Int {
        var samples = 0
        try run.run(
            next: {
                let s = try reader.next()
                // A pattern, not `s != nil`: that compares two optional samples by value (the
                // derived ==, with four copies of the sample a row).
                if case .some = s { samples += 1 }
                return s
            }, eachSample: { e, input in sink.magnetometerUse.add(e, input) }
        ) { e, input in try sink.add(e, input) }
        return samples
    }
}
