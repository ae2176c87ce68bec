/// Reads a multi-file recording (a folder or a `.zip` of per-sensor files) as its files are read:
/// one reader per file, merged onto one timeline by ``TimelineMerger`` an instant at a time, so
/// memory stays constant whatever the files' lengths. Value faults are those of every file;
/// a damaged file (an archive entry whose CRC-32 fails at its end) stops the reading with an error.
final class MergedSampleReader: SampleReader {
    private let parts: [SampleReader]
    private let merging: TimelineMerger.Merging
    private let ownWarnings: [TraceWarning]
    private let partWarnings: Bool
    private let strict: Bool
    /// What is known about the recording.
    let description: TraceDescription

    /// Merges `parts` (each in time order), for a recording of `format` at `source`, with the
    /// importer's `warnings`; `partWarnings` adds the files' own warnings (unit notes, ignored
    /// columns).
    init(
        _ parts: [SampleReader], format: String, source: String, warnings: [TraceWarning], strict: Bool,
        magnetometerArbitrary: Bool = false, partWarnings: Bool = false
    ) {
        self.parts = parts
        merging = TimelineMerger.Merging(
            parts.map { part in { try part.next() } }, tolerance: TimelineMerger().tolerance)
        ownWarnings = warnings
        self.partWarnings = partWarnings
        self.strict = strict
        var d = TraceDescription(
            format: format, source: source, sensors: parts.reduce(into: []) { $0.formUnion($1.description.sensors) },
            hasTruth: false)
        d.magnetometerArbitrary = magnetometerArbitrary
        description = d
    }

    /// The value faults of every file so far.
    var faults: ValueFaults {
        parts.reduce(into: ValueFaults(strict: strict)) { $0.absorb($1.faults) }
    }

    /// The importer's warnings, and the files' own when asked for.
    var warnings: [TraceWarning] { ownWarnings + (partWarnings ? parts.flatMap(\.warnings) : []) }

    /// The mean fraction read over the files.
    var progress: Double? {
        let known = parts.compactMap(\.progress)
        return known.isEmpty ? nil : known.reduce(0, +) / Double(known.count)
    }

    func next() throws -> SensorSample? { try merging.next() }
}
