/// The time a sensor's reading stands for: the time since that sensor's previous reading.
///
/// The filters weigh each correction by the time it covers. A sensor read on every sample covers
/// the sample's step; a magnetometer slower than the gyroscope, or logged on samples of its own
/// between the gyroscope's, covers the time since its previous reading, so its corrections weigh
/// what they would on every sample. Weighed by each sample's step instead, a magnetometer on one
/// sample in ten corrected a tenth as strongly, and one logged 3 ms after the gyroscope's sample
/// three tenths.
public struct ReadingInterval: Sendable, Codable, Equatable {
    /// Time since the last reading, s.
    public var since = 0.0

    /// Nothing read yet.
    public init() {}

    /// Advances to a sample `dt` seconds after the one before: with a `reading`, the time it covers
    /// (since the previous reading, or the step itself for a sensor on every sample), at most
    /// `limit` seconds, and the count starts afresh; nil without one.
    @inline(__always)
    public mutating func advance(_ dt: Double, reading: Bool, limit: Double = .infinity) -> Double? {
        let covered = since + max(0, dt)
        guard reading else {
            since = covered
            return nil
        }
        since = 0
        return min(covered, limit)
    }
}
