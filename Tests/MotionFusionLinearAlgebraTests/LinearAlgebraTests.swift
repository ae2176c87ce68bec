import MotionFusionLinearAlgebra
import MotionFusionTestSupport
import XCTest

final class LinearAlgebraTests: XCTestCase {
    func randomMatrix(_ r: Int, _ c: Int, _ rng: inout SeededRandom) -> Matrix {
        var m = Matrix(rows: r, columns: c)
        for i in m.storage.indices { m.storage[i] = rng.gaussian() }
        return m
    }

    func randomSPD(_ n: Int, _ rng: inout SeededRandom) -> Matrix {
        let a = randomMatrix(n, n + 3, &rng)
        return LinearAlgebra.symmetricRankK(a) + Matrix.identity(n) * 0.1
    }

    func testGemmAgainstKnownProductAndBothBackends() {
        let a = Matrix([[1, 2, 3], [4, 5, 6]])
        let b = Matrix([[7, 8], [9, 10], [11, 12]])
        let expected = Matrix([[58, 64], [139, 154]])
        for backend in [LinearAlgebraBackend.blas, .handWritten, .automatic] {
            XCTAssertEqual(LinearAlgebra.multiply(a, b, backend: backend), expected)
            XCTAssertEqual(
                LinearAlgebra.multiply(b, a, transposeA: true, transposeB: true, backend: backend),
                expected.transposed)
        }
        var rng = SeededRandom(seed: 11)
        for n in [1, 3, 7, 12, 13, 40] {
            let x = randomMatrix(n, n + 1, &rng)
            let y = randomMatrix(n + 1, n, &rng)
            let d = LinearAlgebra.multiply(x, y, backend: .blas).maxAbsDifference(
                LinearAlgebra.multiply(x, y, backend: .handWritten))
            XCTAssertLessThan(d, 1e-12, "n = \(n)")
        }
    }

    func testGemvAndSyrk() {
        let a = Matrix([[1, 2], [3, 4], [5, 6]])
        for backend in [LinearAlgebraBackend.blas, .handWritten] {
            XCTAssertEqual(LinearAlgebra.multiply(a, vector: [1, -1], backend: backend), [-1, -1, -1])
            let s = LinearAlgebra.symmetricRankK(a, backend: backend)
            XCTAssertEqual(s, Matrix([[5, 11, 17], [11, 25, 39], [17, 39, 61]]))
        }
    }

    func testCholeskyOfKnownMatrix() throws {
        // A = L Lᵀ with L = [[2,0,0],[6,1,0],[-8,5,3]].
        let a = Matrix([[4, 12, -16], [12, 37, -43], [-16, -43, 98]])
        let expected = Matrix([[2, 0, 0], [6, 1, 0], [-8, 5, 3]])
        for backend in [LinearAlgebraBackend.blas, .handWritten] {
            let l = try LinearAlgebra.cholesky(a, backend: backend)
            XCTAssertLessThan(l.maxAbsDifference(expected), 1e-12)
            let x = try LinearAlgebra.solveSPD(a, Matrix(column: [1, 2, 3]), backend: backend)
            XCTAssertLessThan((a * x).maxAbsDifference(Matrix(column: [1, 2, 3])), 1e-10)
        }
    }

    func testCholeskyRejectsNonSPD() {
        let a = Matrix([[1, 2], [2, 1]])  // eigenvalues 3 and −1
        for backend in [LinearAlgebraBackend.blas, .handWritten] {
            XCTAssertThrowsError(try LinearAlgebra.cholesky(a, backend: backend)) { error in
                XCTAssertEqual(error as? LinearAlgebraError, .notPositiveDefinite(order: 2))
            }
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
        XCTAssertLessThan((a * v).maxAbsDifference(v * lambda), 1e-10)
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

    func testSVDReconstructs() throws {
        var rng = SeededRandom(seed: 13)
        let a = randomMatrix(7, 4, &rng)
        let (u, s, vt) = try LinearAlgebra.svd(a)
        var sigma = Matrix(rows: 4, columns: 4)
        for i in 0..<4 { sigma[i, i] = s[i] }
        XCTAssertLessThan((u * sigma * vt).maxAbsDifference(a), 1e-12)
        XCTAssertEqual(s, s.sorted(by: >))
        let (_, diag, _) = try LinearAlgebra.svd(Matrix([[3, 0], [0, -4]]))
        XCTAssertEqual(diag[0], 4, accuracy: 1e-14)
        XCTAssertEqual(diag[1], 3, accuracy: 1e-14)
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
