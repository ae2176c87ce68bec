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
}
