import MotionFusionLinearAlgebra
import MotionFusionTestSupport
import XCTest

/// Selected inversion on the band factor, the bordered (arrowhead) solve and its marginal, each
/// against dense LAPACK results.
final class BandedInverseTests: XCTestCase {
    /// A random SPD band matrix (dense), diagonally dominant.
    func randomBand(_ n: Int, _ kd: Int, _ rng: inout SeededRandom) -> Matrix {
        var dense = Matrix(rows: n, columns: n)
        for j in 0..<n {
            for i in j..<min(n, j + kd + 1) where i != j {
                let v = rng.gaussian()
                dense[i, j] = v
                dense[j, i] = v
            }
        }
        for i in 0..<n { dense[i, i] = 2.0 * Double(kd) + 1 + Double.random(in: 0..<1, using: &rng) }
        return dense
    }

    func denseInverse(_ a: Matrix) throws -> Matrix {
        try LinearAlgebra.solveSPD(a, Matrix.identity(a.rows))
    }

    func testSelectedInverseMatchesDenseInverseInsideTheBand() throws {
        var rng = SeededRandom(seed: 21)
        for (n, kd) in [(1, 0), (5, 1), (40, 7), (64, 15)] {
            let dense = randomBand(n, kd, &rng)
            var band = BandedSPDMatrix(dense, bandwidth: kd)
            try band.factor()
            let z = band.selectedInverse()
            let inverse = try denseInverse(dense)
            var worst = 0.0
            for j in 0..<n {
                for i in j..<min(n, j + kd + 1) { worst = max(worst, abs(z[i, j] - inverse[i, j])) }
            }
            XCTAssertLessThan(worst, 1e-12, "n \(n) kd \(kd)")
        }
    }

    func testSelectedInverseOfAnIllConditionedChain() throws {
        // A random walk prior pinned at one end: the variances grow linearly along the chain.
        let n = 200
        var band = BandedSPDMatrix(order: n, bandwidth: 1)
        let q = 1e-4
        band[0, 0] = 1 / 1e-6
        for i in 0..<(n - 1) {
            band.add(1 / q, i, i)
            band.add(1 / q, i + 1, i + 1)
            band.add(-1 / q, i + 1, i)
        }
        try band.factor()
        let z = band.selectedInverse()
        for i in [0, 10, 199] { XCTAssertEqual(z[i, i], 1e-6 + Double(i) * q, accuracy: 1e-12) }
    }

    func testBorderedSolveMatchesDense() throws {
        var rng = SeededRandom(seed: 22)
        for p in [0, 1, 3] {
            let n = 48
            let kd = 9
            var system = BorderedBandedSystem(order: n, bandwidth: kd, borderWidth: p)
            system.band = BandedSPDMatrix(randomBand(n, kd, &rng), bandwidth: kd)
            for k in system.border.indices { system.border[k] = 0.3 * rng.gaussian() }
            for i in 0..<p {
                for j in 0...i {
                    let v = i == j ? 20 + Double.random(in: 0..<1, using: &rng) : 0.5 * rng.gaussian()
                    system.corner[i, j] = v
                    system.corner[j, i] = v
                }
            }
            for k in system.rhs.indices { system.rhs[k] = rng.gaussian() }
            let dense = system.dense
            let expected = try LinearAlgebra.solveSPD(dense, Matrix(column: system.rhs)).storage
            let calls = LinearAlgebra.bandedCallCount
            let x = try system.solve()
            XCTAssertGreaterThan(LinearAlgebra.bandedCallCount, calls, "went through LAPACK's band routines")
            for k in x.indices { XCTAssertEqual(x[k], expected[k], accuracy: 1e-10) }
            let inverse = try denseInverse(dense)
            let selected = try system.selectedInverse()
            for j in 0..<n {
                for i in j..<min(n, j + kd + 1) {
                    XCTAssertEqual(selected.element(i, j), inverse[i, j], accuracy: 1e-12)
                }
            }
            for a in 0..<p {
                for c in 0..<p { XCTAssertEqual(selected.corner[a, c], inverse[n + a, n + c], accuracy: 1e-12) }
            }
        }
    }

    func testMarginalIsTheSchurComplement() throws {
        var rng = SeededRandom(seed: 23)
        let n = 40
        let kd = 7
        let p = 2
        let keep = 5
        var system = BorderedBandedSystem(order: n, bandwidth: kd, borderWidth: p)
        system.band = BandedSPDMatrix(randomBand(n, kd, &rng), bandwidth: kd)
        for k in system.border.indices { system.border[k] = 0.3 * rng.gaussian() }
        system.corner = Matrix([[30, 1], [1, 25]])
        for k in system.rhs.indices { system.rhs[k] = rng.gaussian() }
        let dense = system.dense
        // Dense reference: eliminate the first n − keep unknowns.
        let e = n - keep
        let kept = Array(e..<(n + p))
        let eliminated = Array(0..<e)
        func block(_ rows: [Int], _ cols: [Int]) -> Matrix {
            var m = Matrix(rows: rows.count, columns: cols.count)
            for (i, r) in rows.enumerated() { for (j, c) in cols.enumerated() { m[i, j] = dense[r, c] } }
            return m
        }
        let hee = block(eliminated, eliminated)
        let hke = block(kept, eliminated)
        let solved = try LinearAlgebra.solveSPD(hee, hke.transposed)
        var expected = block(kept, kept)
        for i in 0..<kept.count {
            for j in 0..<kept.count {
                var s = 0.0
                for k in 0..<e { s += hke[i, k] * solved[k, j] }
                expected[i, j] -= s
            }
        }
        let re = try LinearAlgebra.solveSPD(hee, Matrix(column: eliminated.map { system.rhs[$0] })).storage
        let expectedEta = kept.enumerated().map { (i, r) in
            system.rhs[r] - (0..<e).reduce(0.0) { $0 + hke[i, $1] * re[$1] }
        }
        let (info, eta) = try system.marginal(keepingLast: keep)
        XCTAssertLessThan(info.maxAbsDifference(expected), 1e-10)
        for i in eta.indices { XCTAssertEqual(eta[i], expectedEta[i], accuracy: 1e-10) }
    }
}
