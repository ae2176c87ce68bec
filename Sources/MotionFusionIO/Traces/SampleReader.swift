/// A source of samples read one at a time, whatever the format: a streaming file or standard
/// input, or a recording loaded by an importer. Every command and binding reads through it.
public protocol SampleReader: AnyObject {
    /// What is known about the input before reading it.
    var description: TraceDescription { get }
    /// The next sample, or nil at the end. Throws ``TraceError`` on bad structure; value faults
    /// are repaired and tallied in ``faults``.
    func next() throws -> SensorSample?
    /// Value faults seen so far.
    var faults: ValueFaults { get }
    /// Warnings so far (unit guesses, ignored columns, repairs), not counting ``faults``.
    var warnings: [TraceWarning] { get }
    /// The fraction of the input read so far, 0…1, when the input's size is known (a file, not a
    /// stream).
    var progress: Double? { get }
}

extension SampleReader {
    /// Every warning so far, the value-fault summary included.
    public var allWarnings: [TraceWarning] { warnings + faults.warnings }

    /// Reads the rest of the input into a trace (importers and tests; commands stream).
    public func readTrace() throws -> Trace {
        var samples = [SensorSample]()
        while let s = try next() { samples.append(s) }
        return Trace(samples: samples, format: description.format, source: description.source, warnings: allWarnings)
    }
}

/// What a reader knows about its input before reading the samples.
public struct TraceDescription: Sendable {
    /// The format name (`native`, `delimited`, `euroc`, …).
    public var format: String
    /// The file, folder or `stdin`.
    public var source: String
    /// The sensors the input has columns (or files) for.
    public var sensors: Set<SensorKind>
    /// Whether the input carries ground truth.
    public var hasTruth: Bool
    /// Whether the magnetometer is in arbitrary units.
    public var magnetometerArbitrary = false
    /// The units of a delimited file, with those the header or `--units` stated and those the
    /// readings proved (nil for a recording format's importer, whose units are fixed).
    public var units: SensorUnits?

    /// Creates a description.
    public init(format: String, source: String, sensors: Set<SensorKind>, hasTruth: Bool) {
        self.format = format
        self.source = source
        self.sensors = sensors
        self.hasTruth = hasTruth
    }
}
