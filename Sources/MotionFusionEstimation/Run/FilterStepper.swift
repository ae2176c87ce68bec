#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A ``FilterRunner`` around the filter a ``FilterSetup`` names, one sample at a time, behind one
/// type that is not generic: what a caller in another module (the C ABI's per-sample filter)
/// steps without knowing the filter's type.
///
/// Its operations are closures made here for the concrete filter, so each runs the runner compiled
/// for that filter. A generic runner reached from another module through a protocol runs
/// unspecialised, reaching its filter through the protocol's witnesses (for the EKF a sixth more
/// instructions a sample), and each read of its attitude copied the whole filter.
public final class FilterStepper {
    /// Sensors fused.
    public let mode: FusionMode
    private let stepSample: (SensorSample) -> Void
    private let read: () -> (attitude: Quaternion, gyroscopeBias: Vector3, lastTime: Double)
    private let readDiagnostics: () -> FilterDiagnostics
    private let save: () throws -> Data
    private let restore: (Data) throws -> Void

    /// A runner around a fresh filter of `setup`, with `settings`.
    public init(_ setup: FilterSetup, settings: FilterRunnerSettings = FilterRunnerSettings()) {
        /// The runner, shared by the closures.
        final class Box<Filter: AttitudeFilter> {
            var runner: FilterRunner<Filter>
            init(_ runner: FilterRunner<Filter>) { self.runner = runner }
        }
        typealias Operations = (
            mode: FusionMode, step: (SensorSample) -> Void,
            read: () -> (attitude: Quaternion, gyroscopeBias: Vector3, lastTime: Double),
            diagnostics: () -> FilterDiagnostics, save: () throws -> Data, restore: (Data) throws -> Void
        )
        struct Make: FilterVisitor {
            let settings: FilterRunnerSettings
            func visit<F: AttitudeFilter>(_ filter: F) -> Operations {
                let box = Box(FilterRunner(filter, settings: settings))
                return (
                    filter.mode, { box.runner.step($0) },
                    { (box.runner.filter.attitude, box.runner.filter.gyroscopeBias, box.runner.lastTime) },
                    { box.runner.filter.diagnostics }, { try box.runner.savedState() },
                    { try box.runner.restoreState($0) }
                )
            }
        }
        // Creating a filter throws nothing.
        let o = try! setup.withFilter(Make(settings: settings))
        (mode, stepSample, read, readDiagnostics, save, restore) = o
    }

    /// Processes one sample.
    @inline(__always)
    public func step(_ sample: SensorSample) { stepSample(sample) }

    /// The attitude after the last sample.
    public var attitude: Quaternion { read().attitude }
    /// The gyroscope bias estimate, rad/s.
    public var gyroscopeBias: Vector3 { read().gyroscopeBias }
    /// Time of the last accepted sample, s (NaN before the first).
    public var lastTime: Double { read().lastTime }
    /// The filter's diagnostics after the last sample.
    public var diagnostics: FilterDiagnostics { readDiagnostics() }
    /// The run as ``FilterRunner/savedState()`` writes it.
    public func savedState() throws -> Data { try save() }
    /// Resumes a run ``FilterRunner/savedState()`` wrote for the same setup.
    public func restoreState(_ data: Data) throws { try restore(data) }
}
