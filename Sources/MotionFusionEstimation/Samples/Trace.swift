import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A recorded or simulated trace held in memory: samples on one timeline plus what is known about
/// where they came from.
public struct Trace: Sendable {
    /// Samples in time order (as recorded: repeated or backward timestamps are kept and flagged).
    public var samples: [SensorSample]
    /// The format the trace was read from (`native`, `euroc`, `xio-fusion`, …).
    public var format: String
    /// The file or folder it was read from.
    public var source: String
    /// Warnings raised while reading (unit guesses, ignored columns, repairs).
    public var warnings: [TraceWarning]

    /// Creates a trace.
    public init(samples: [SensorSample], format: String = "native", source: String = "", warnings: [TraceWarning] = [])
    {
        self.samples = samples
        self.format = format
        self.source = source
        self.warnings = warnings
    }

    /// Whether any sample has a value of `sensor`.
    public func has(_ sensor: SensorKind) -> Bool {
        switch sensor {
        case .gyroscope: return samples.contains { $0.gyroscope != nil }
        case .accelerometer: return samples.contains { $0.accelerometer != nil }
        case .magnetometer: return samples.contains { $0.magnetometer != nil }
        }
    }

    /// Whether any sample carries a ground-truth attitude.
    public var hasGroundTruth: Bool { samples.contains { $0.truth != nil } }

    /// Duration in seconds from the first to the last sample.
    public var duration: Double {
        guard let a = samples.first, let b = samples.last else { return 0 }
        return b.t - a.t
    }
}
