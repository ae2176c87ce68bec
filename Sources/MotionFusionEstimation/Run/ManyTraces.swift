import Dispatch
import Glibc
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension RunConfiguration {
    /// Threads a many-trace run uses when not told: one per processor available to the process.
    public static var defaultWorkers: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// ``run(_:attitudeOnly:_:)`` on each of `traces`, up to `workers` traces at a time (0, the
    /// default: ``defaultWorkers``), each trace on one thread from its first sample to its last.
    ///
    /// Nothing is shared between the traces, so each one's estimates are bit-identical to running it
    /// alone. `body` gets the trace's index first, then what ``run(_:attitudeOnly:_:)`` gives; it is
    /// called from several threads at once for different traces (in sample order within a trace),
    /// so it may only touch what belongs to that trace. Longer traces start first. Returns when
    /// every trace has run.
    ///
    /// The traces are ``SensorArrays`` (not any ``SampleArray``) so that the loop is specialised
    /// here for them: a generic call from another module would read every sample through the
    /// protocol.
    public func run(
        eachOf traces: [SensorArrays], workers: Int = 0, attitudeOnly: Bool = false,
        _ body: (_ trace: Int, _ sample: Int, MotionEstimate?, Quaternion) -> Void
    ) {
        Self.concurrently(traces.map(\.count), workers: workers) { i in
            run(traces[i], attitudeOnly: attitudeOnly) { k, e, q in body(i, k, e, q) }
        }
    }

    /// ``attitudes(_:)`` of each of `traces`, up to `workers` traces at a time (0, the default:
    /// ``defaultWorkers``), each bit-identical to the trace run alone.
    public func attitudes(ofEach traces: [SensorArrays], workers: Int = 0) -> [[Quaternion]] {
        [[Quaternion]](unsafeUninitializedCapacity: traces.count) { out, initialised in
            let base = out.baseAddress
            Self.concurrently(traces.map(\.count), workers: workers) { i in
                let attitudes = self.attitudes(of: traces[i])
                // Each slot is written by the one thread that ran its trace.
                (base! + i).initialize(to: attitudes)
            }
            initialised = traces.count
        }
    }

    /// Calls `body` once with each index of `sizes`, on up to `workers` threads (0: every
    /// processor), the calling thread among them; each thread takes the index of the largest size
    /// not yet taken, so a long trace does not start last. The threads come from the system's
    /// pool, which runs no more of them at once than there are processors.
    static func concurrently(_ sizes: [Int], workers: Int, _ body: (Int) -> Void) {
        let threads = min(workers > 0 ? workers : defaultWorkers, sizes.count)
        guard threads > 1 else {
            for i in sizes.indices { body(i) }
            return
        }
        let order = sizes.indices.sorted { sizes[$0] > sizes[$1] }
        let lock = Lock()
        var next = 0
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            while true {
                let taken: Int? = lock.withLock {
                    guard next < order.count else { return nil }
                    next += 1
                    return order[next - 1]
                }
                guard let i = taken else { return }
                body(i)
            }
        }
    }
}
