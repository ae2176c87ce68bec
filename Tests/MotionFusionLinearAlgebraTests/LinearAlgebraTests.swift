import MotionFusionLinearAlgebra
import MotionFusionTestSupport
import XCTest

final class LinearAlgebraTests: XCTestCase {
    func randomMatrix(_ r: Int, _ c: Int, _ rng: inout SeededRandom) -> Matrix {
        var m = Matrix(rows: r, columns: c)
        for i in m.storage.indices { m.storage[i] = rng.gaussian() }
        return m
    }

    /// Plain triple-loop product: the reference the library's results are checked against.
    func product(_ a: Matrix, _ b: Matrix) -> Matrix {
        var c = Matrix(rows: a.rows, columns: b.columns)
        for i in 0..<a.rows { for j in 0..<b.columns { for k in 0..<a.columns { c[i, j] += a[i, k] * b[k, j] } } }
        return c
    }

    func randomSPD(_ n: Int, _ rng: inout SeededRandom) -> Matrix {
        let a = randomMatrix(n, n + 3, &rng)
        return product(a, a.transposed) + Matrix.identity(n) * 0.1
    }

    func testMatrixVectorProductOnBothSidesOfTheCrossover() {
        let a = Matrix([[1, 2], [3, 4], [5, 6]])
        XCTAssertEqual(LinearAlgebra.multiply(a, vector: [1, -1]), [-1, -1, -1])
        var rng = SeededRandom(seed: 11)
        for n in [1, 3, 4, 7, 40] {
            let m = randomMatrix(n, n + 1, &rng)
            let x = (0...n).map { _ in rng.gaussian() }
            let y = LinearAlgebra.multiply(m, vector: x)
            let expected = product(m, Matrix(column: x)).storage
            for i in 0..<n { XCTAssertEqual(y[i], expected[i], accuracy: 1e-12, "n = \(n)") }
        }
    }

    func testCholeskyOfKnownMatrix() throws {
        // A = L Lᵀ with L = [[2,0,0],[6,1,0],[-8,5,3]].
        let a = Matrix([[4, 12, -16], [12, 37, -43], [-16, -43, 98]])
        let expected = Matrix([[2, 0, 0], [6, 1, 0], [-8, 5, 3]])
        let l = try LinearAlgebra.cholesky(a)
        XCTAssertLessThan(l.maxAbsDifference(expected), 1e-12)
        let x = try LinearAlgebra.solveSPD(a, Matrix(column: [1, 2, 3]))
        XCTAssertLessThan(product(a, x).maxAbsDifference(Matrix(column: [1, 2, 3])), 1e-10)
    }

    func testCholeskySolveOnBothSidesOfTheCrossover() throws {
        // The hand-written kernel serves up to handFactorMaxDimension, LAPACK above: both must agree
        // with the definition A x = b.
        var rng = SeededRandom(seed: 15)
        let limit = LinearAlgebra.handFactorMaxDimension
        for n in [2, limit, limit + 1, 30] {
            let a = randomSPD(n, &rng)
            let b = randomMatrix(n, 2, &rng)
            let x = try LinearAlgebra.solveSPD(a, b)
            XCTAssertLessThan(product(a, x).maxAbsDifference(b), 1e-9, "n = \(n)")
            let l = try LinearAlgebra.cholesky(a)
            XCTAssertLessThan(product(l, l.transposed).maxAbsDifference(a), 1e-10, "n = \(n)")
        }
    }

    func testCholeskyRejectsNonSPD() {
        let a = Matrix([[1, 2], [2, 1]])  // eigenvalues 3 and −1
        XCTAssertThrowsError(try LinearAlgebra.cholesky(a)) { error in
            XCTAssertEqual(error as? LinearAlgebraError, .notPositiveDefinite(order: 2))
        }
        // The same through LAPACK (above the hand-kernel size).
        let n = LinearAlgebra.handFactorMaxDimension + 2
        var big = Matrix.identity(n)
        big[1, 0] = 2
        big[0, 1] = 2
        XCTAssertThrowsError(try LinearAlgebra.cholesky(big)) { error in
            XCTAssertEqual(error as? LinearAlgebraError, .notPositiveDefinite(order: 2))
        }
        XCTAssertThrowsError(try LinearAlgebra.cholesky(Matrix([[Double.nan]]))) { error in
            XCTAssertEqual(error as? LinearAlgebraError, .nonFinite(routine: "potrf"))
        }
    }

    func testSymmetricEigenOfKnownMatrix() throws {
        // [[2,1],[1,2]] has eigenvalues 1 and 3 with vectors (1,−1)/√2 and (1,1)/√2.
        let (values, vectors) = try LinearAlgebra.symmetricEigen(Matrix([[2, 1], [1, 2]]))
        XCTAssertEqual(values[0], 1, accuracy: 1e-14)
        XCTAssertEqual(values[1], 3, accuracy: 1e-14)
        let h = 0.5.squareRoot()
        XCTAssertEqual(abs(vectors[0, 1]), h, accuracy: 1e-14)
        XCTAssertEqual(vectors[0, 1], vectors[1, 1], accuracy: 1e-14)
        XCTAssertEqual(vectors[0, 0], -vectors[1, 0], accuracy: 1e-14)
        // Random SPD: A V = V Λ.
        var rng = SeededRandom(seed: 12)
        let a = randomSPD(9, &rng)
        let (w, v) = try LinearAlgebra.symmetricEigen(a)
        var lambda = Matrix(rows: 9, columns: 9)
        for i in 0..<9 { lambda[i, i] = w[i] }
        XCTAssertLessThan(product(a, v).maxAbsDifference(product(v, lambda)), 1e-10)
        XCTAssertEqual(w, w.sorted())
    }

    func testLeastSquaresFitsLine() throws {
        // y = 2 + 3x exactly, plus a symmetric perturbation that cancels.
        let xs: [Double] = [0, 1, 2, 3]
        var a = Matrix(rows: 4, columns: 2)
        for (i, x) in xs.enumerated() {
            a[i, 0] = 1
            a[i, 1] = x
        }
        let y = Matrix(column: xs.map { 2 + 3 * $0 })
        let sol = try LinearAlgebra.leastSquares(a, y)
        XCTAssertEqual(sol[0, 0], 2, accuracy: 1e-12)
        XCTAssertEqual(sol[1, 0], 3, accuracy: 1e-12)
        var rankDeficient = a
        for i in 0..<4 { rankDeficient[i, 1] = 0 }
        XCTAssertThrowsError(try LinearAlgebra.leastSquares(rankDeficient, y))
    }

    func testBandedSolveEqualsDenseSolve() throws {
        var rng = SeededRandom(seed: 14)
        let n = 60
        let kd = 5
        // A banded SPD matrix: diagonally dominant with random band.
        var dense = Matrix(rows: n, columns: n)
        for j in 0..<n {
            for i in j..<min(n, j + kd + 1) where i != j {
                let v = rng.gaussian()
                dense[i, j] = v
                dense[j, i] = v
            }
        }
        for i in 0..<n { dense[i, i] = 2.0 * Double(kd) + 1 }
        let band = BandedSPDMatrix(dense, bandwidth: kd)
        XCTAssertEqual(band.dense, dense)
        let b = randomMatrix(n, 2, &rng)
        let xBand = try band.solve(b)
        let xDense = try LinearAlgebra.solveSPD(dense, b)
        XCTAssertLessThan(xBand.maxAbsDifference(xDense), 1e-12)
        var factored = band
        try factored.factor()
        XCTAssertLessThan(try factored.solveFactored(b).maxAbsDifference(xDense), 1e-12)
    }

    func testBandedRejectsNonSPD() {
        var band = BandedSPDMatrix(order: 3, bandwidth: 1)
        band[0, 0] = 1
        band[1, 0] = 2
        band[1, 1] = 1
        band[2, 2] = 1
        XCTAssertThrowsError(try band.solve(vector: [1, 1, 1])) { error in
            XCTAssertEqual(error as? LinearAlgebraError, .notPositiveDefinite(order: 2))
        }
        var f = band
        XCTAssertThrowsError(try f.factor())
    }
}
