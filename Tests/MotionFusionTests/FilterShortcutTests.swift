import MotionFusionTestSupport
import XCTest

@testable import MotionFusionEstimation

/// The per-sample shortcuts taken for speed give exactly what the plain computation gives.
final class FilterShortcutTests: XCTestCase {
    /// The first cell with the largest dot product, searched over all 64 cells.
    static func fullSearch(_ u: Vector3) -> Int {
        var best = 0
        var bestDot = -2.0
        for (i, c) in MagnetometerSelfCalibration.cells.enumerated() {
            let d = c.dot(u)
            if d > bestDot {
                bestDot = d
                best = i
            }
        }
        return best
    }

    func testNearestMagnetometerCellIsWhatTheFullSearchFinds() {
        var random = SeededRandom(seed: 28)
        var directions = (0..<20_000).map { _ in random.unitVector() }
        // The poles, the cells themselves, and points halfway between neighbouring cells (ties).
        directions += [.unitZ, -.unitZ, .unitX, -.unitY]
        let cells = MagnetometerSelfCalibration.cells
        directions += cells
        for i in 1..<cells.count {
            if let mid = (cells[i] + cells[i - 1]).normalized { directions.append(mid) }
        }
        // Directions on the edges of the cube's squares, where the square is decided by rounding.
        let n = MagnetometerSelfCalibration.cubeDivisions
        for face in 0..<6 {
            for i in 0...n {
                let edge = -1 + 2 * Double(i) / Double(n)
                for _ in 0..<20 {
                    let t = Double.random(in: -1...1, using: &random)
                    directions.append(MagnetometerSelfCalibration.cubeDirection(face: face, edge, t))
                    directions.append(MagnetometerSelfCalibration.cubeDirection(face: face, t, edge))
                }
            }
        }
        for u in directions {
            XCTAssertEqual(MagnetometerSelfCalibration.nearestCell(u), Self.fullSearch(u), "direction \(u)")
        }
    }

    /// Samples with every irregularity the runner handles, between steady ones: a gap beyond the
    /// runner's (re-initialising), a shorter one, a repeated and a backward timestamp, a timestamp
    /// that is not a number, gyroscope, accelerometer and magnetometer values missing or not
    /// finite, a gyroscope at half the rate, and one sitting at the end of its range.
    static func irregularSamples() -> [SensorSample] {
        var state: UInt64 = 1
        func noise() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        var samples = [SensorSample]()
        var t = 0.0
        for i in 0..<3000 {
            t += 0.01 * (1 + 0.01 * noise())
            if i == 500 { t += 1.5 }
            if i == 700 { t += 0.05 }
            if i == 900 { t -= 0.02 }
            var s = SensorSample(
                t: t, gyroscope: Vector3(0.3 + noise(), -0.2 + noise(), 0.5 + noise()),
                accelerometer: Vector3(noise(), noise(), 9.81 + noise()),
                magnetometer: Vector3(20 + noise(), noise(), -40 + noise()))
            if i % 97 == 3 { s.gyroscope = nil }
            if i % 89 == 4 { s.gyroscope = Vector3(.nan, 0, 0) }
            if i % 83 == 5 { s.accelerometer = Vector3(0, .infinity, 0) }
            if i % 79 == 6 { s.magnetometer = nil }
            if i % 211 == 7 { s.t = .nan }
            if i % 307 == 8 { samples.append(s) }
            if (1200..<1300).contains(i) && i % 2 == 1 { s.gyroscope = nil }
            if (1500..<1520).contains(i) { s.gyroscope = Vector3(4.5, 0.1 * noise(), 0) }
            samples.append(s)
        }
        return samples
    }

    /// The runner's path for steady samples gives what its general path gives, sample for sample
    /// and to the bit (attitudes, returned values, the runner's memory and clipping), and the lean
    /// path of the attitude-only loops the same attitudes.
    func testRunnerSteadyPathIsTheGeneralPath() {
        let samples = Self.irregularSamples()
        func bits(_ q: Quaternion) -> [UInt64] { [q.w, q.x, q.y, q.z].map(\.bitPattern) }
        func check<Filter: AttitudeFilter>(_ filter: Filter) {
            var steady = FilterRunner(filter)
            var general = FilterRunner(filter)
            var lean = FilterRunner(filter)
            for (i, s) in samples.enumerated() {
                let a = steady.step(s)
                let b = general.irregularStep(s, diagnostics: true)
                lean.step(s, diagnostics: false)
                let label = "\(Filter.self), sample \(i)"
                XCTAssertEqual(a.timeFault, b.timeFault, label)
                XCTAssertEqual(a.magnetometer, b.magnetometer, label)
                XCTAssertEqual(bits(steady.filter.attitude), bits(general.filter.attitude), label)
                XCTAssertEqual(bits(lean.filter.attitude), bits(general.filter.attitude), label)
                XCTAssertEqual(steady.memory, general.memory, label)
                XCTAssertEqual(steady.clipped, general.clipped, label)
            }
        }
        check(KalmanFilter())
        check(ComplementaryFilter())
        check(MahonyFilter())
        check(MadgwickFilter())
        check(ECompass())
        check(AccelerometerTilt())
    }

    /// `Vector3.isFinite` (one multiply-add chain) is every component's `isFinite`.
    func testVectorIsFiniteIsEveryComponentFinite() {
        let values: [Double] = [
            0, -0.0, 1, -2.5, .leastNonzeroMagnitude, -.leastNormalMagnitude, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .infinity, -.infinity, .nan,
        ]
        for x in values {
            for y in values {
                for z in values {
                    XCTAssertEqual(
                        Vector3(x, y, z).isFinite, x.isFinite && y.isFinite && z.isFinite, "(\(x), \(y), \(z))")
                }
            }
        }
    }

    /// The magnetometer calibration's normal equations are the plain sums to the bit.
    func testNormalEquationsAreThePlainSums() {
        let points = (0..<50).map { i in
            Vector3(30 * Double(i % 7).sin + 3, 25 * Double(i).cos - 2, 40 * Double(i % 11).sin * 0.7 + 1)
        }
        for n in [4, 9] {
            let row: (Vector3) -> [Double] = { m in
                n == 4
                    ? [2 * m.x, 2 * m.y, 2 * m.z, 1]
                    : [
                        m.x * m.x, m.y * m.y, m.z * m.z, 2 * m.x * m.y, 2 * m.x * m.z, 2 * m.y * m.z, 2 * m.x, 2 * m.y,
                        2 * m.z,
                    ]
            }
            var a = [Double](repeating: 0, count: n * n)
            var b = [Double](repeating: 0, count: n)
            for m in points {
                let r = row(m)
                for i in 0..<n {
                    // The sphere's right-hand side is |m|², the ellipsoid's 1 (its row summed as is).
                    b[i] += n == 4 ? r[i] * m.squaredNorm : r[i]
                    for j in 0..<n { a[i * n + j] += r[i] * r[j] }
                }
            }
            let fast = MagnetometerSelfCalibration.normalEquations(points, size: n) { m, out in
                for (i, v) in row(m).enumerated() { out[i] = v }
                return n == 4 ? m.squaredNorm : 1
            }
            XCTAssertEqual(fast.a.map(\.bitPattern), a.map(\.bitPattern), "size \(n)")
            XCTAssertEqual(fast.b.map(\.bitPattern), b.map(\.bitPattern), "size \(n)")
        }
    }
}
