import Glibc
import MotionFusionMath
import XCTest

/// `Double.atan2` against the C library's `atan2`: the same special values, and within two units in
/// the last place everywhere else (every quadrant and octant, magnitudes from subnormal to huge, and
/// ratios at the edges of the table's eighths).
final class ArcTangentTests: XCTestCase {
    /// Distance in units in the last place between two results of the same sign.
    func ulps(_ a: Double, _ b: Double) -> Int64 {
        guard a.sign == b.sign else { return a == b ? 0 : .max }
        return abs(Int64(bitPattern: a.bitPattern) - Int64(bitPattern: b.bitPattern))
    }

    func assertClose(_ y: Double, _ x: Double, line: UInt = #line) {
        let mine = Double.atan2(y, x)
        let reference = Glibc.atan2(y, x)
        XCTAssertLessThanOrEqual(
            ulps(mine, reference), 2, "atan2(\(y), \(x)): \(mine) against \(reference)", line: line)
    }

    func testSpecialValuesAreTheLibrarys() {
        let values: [Double] = [
            0, -0.0, 1, -1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        for y in values {
            for x in values {
                let mine = Double.atan2(y, x)
                let reference = Glibc.atan2(y, x)
                if reference.isNaN {
                    XCTAssertTrue(mine.isNaN, "atan2(\(y), \(x))")
                } else {
                    XCTAssertLessThanOrEqual(
                        ulps(mine, reference), 2, "atan2(\(y), \(x)): \(mine) against \(reference)")
                }
            }
        }
        XCTAssertEqual(Double.atan2(0, 1).sign, .plus)
        XCTAssertEqual(Double.atan2(-0.0, 1).sign, .minus)
        XCTAssertEqual(Double.atan2(0, -1), .pi)
        XCTAssertEqual(Double.atan2(-0.0, -1), -.pi)
        XCTAssertEqual(Double.atan2(1, 1), .pi / 4)
    }

    func testRandomArgumentsInEveryQuadrant() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        for _ in 0..<200_000 {
            let y = (next() * 2 - 1) * Double.pow10(Int(next() * 8) - 4)
            let x = (next() * 2 - 1) * Double.pow10(Int(next() * 8) - 4)
            assertClose(y, x)
        }
        // Extreme magnitudes: the ratio underflows, overflows or is subnormal.
        for _ in 0..<20_000 {
            let y = (next() * 2 - 1) * Double.pow10(Int(next() * 600) - 300)
            let x = (next() * 2 - 1) * Double.pow10(Int(next() * 600) - 300)
            assertClose(y, x)
        }
    }

    func testRatiosAtTheEdgesOfTheEighths() {
        // Just above 1/16, where the first eighth's constant less nearly as much loses a binade.
        assertClose(0.06650468280977205, 1.0636897976262163)
        assertClose(0.04026311732107261, 0.6439370699471147)
        for step in 0...64 { assertClose(0.0625 + Double(step) * 1e-5, 1) }
        for k in 0...16 {
            let edge = Double(k) / 16
            for step in -4...4 {
                let t = edge + Double(step) * edge.ulp
                guard t >= 0, t <= 1 else { continue }
                for (y, x) in [(t, 1.0), (1.0, t), (-t, -1.0), (1.0, -t), (t * 3, 3.0)] { assertClose(y, x) }
            }
        }
    }
}

extension Double {
    /// 10^n.
    fileprivate static func pow10(_ n: Int) -> Double { Glibc.pow(10, Double(n)) }
}
