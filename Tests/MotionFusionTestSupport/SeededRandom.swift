import MotionFusion
import XCTest

/// A small, fast, seeded generator (SplitMix64) so every random test is reproducible.
public struct SeededRandom: RandomNumberGenerator {
    private var generator: SplitMix64

    /// Creates a generator from a seed (the seed is the state).
    public init(seed: UInt64) { generator = SplitMix64(state: seed) }

    /// Next 64 random bits.
    public mutating func next() -> UInt64 { generator.next() }

    /// A standard normal sample (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &self)
        let u2 = Double.random(in: 0..<1, using: &self)
        return (-2 * u1.log).squareRoot() * (2 * Double.pi * u2).cos
    }

    /// A rotation drawn uniformly from SO(3) (normalised 4-D Gaussian).
    public mutating func rotation() -> Quaternion {
        Quaternion(w: gaussian(), x: gaussian(), y: gaussian(), z: gaussian()).normalized
    }

    /// A unit vector drawn uniformly from the sphere.
    public mutating func unitVector() -> Vector3 {
        Vector3(gaussian(), gaussian(), gaussian()).normalized ?? .unitX
    }
}

/// Asserts that two quaternions are the same rotation (q and −q equal) to within `tolerance`
/// radians, reporting expected, observed and tolerance.
public func assertSameRotation(
    _ observed: Quaternion, _ expected: Quaternion, tolerance: Double, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    let angle = observed.angle(to: expected)
    XCTAssert(
        angle <= tolerance,
        "rotation differs by \(angle) rad (tolerance \(tolerance)): expected \(expected), observed \(observed). \(message)",
        file: file, line: line)
}

/// Asserts that two vectors agree component-wise to within `tolerance`.
public func assertClose(
    _ observed: Vector3, _ expected: Vector3, tolerance: Double, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    let d = (observed - expected).norm
    XCTAssert(
        d <= tolerance,
        "vectors differ by \(d) (tolerance \(tolerance)): expected \(expected), observed \(observed). \(message)",
        file: file, line: line)
}

/// Asserts that two angles in degrees agree modulo 360 to within `tolerance` degrees.
public func assertAngleDegrees(
    _ observed: Double, _ expected: Double, tolerance: Double, _ message: String = "",
    file: StaticString = #filePath, line: UInt = #line
) {
    var d = (observed - expected).truncatingRemainder(dividingBy: 360)
    if d > 180 { d -= 360 } else if d < -180 { d += 360 }
    XCTAssert(
        abs(d) <= tolerance,
        "angle \(observed)° differs from expected \(expected)° by \(d)° (tolerance \(tolerance)°). \(message)",
        file: file, line: line)
}
