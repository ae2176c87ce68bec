import Glibc
import MotionFusion
import MotionFusionTestSupport
import XCTest

final class DecimalParserTests: XCTestCase {
    func parsed(_ s: String) -> Double? {
        if case .value(let v) = DecimalParser.parse(s) { return v }
        return nil
    }

    func strtodReference(_ s: String) -> Double { strtod(s, nil) }

    func testKnownValues() {
        XCTAssertEqual(parsed("0"), 0)
        XCTAssertEqual(parsed("-0.0010646508"), -0.0010646508)
        XCTAssertEqual(parsed("9.919315"), 9.919315)
        XCTAssertEqual(parsed("1.958608333E-2"), 1.958608333E-2)
        XCTAssertEqual(parsed("+5e3"), 5000)
        XCTAssertEqual(parsed(" 42 "), 42)
        XCTAssertEqual(parsed("\"1.5\""), 1.5)
        XCTAssertEqual(parsed(".5"), 0.5)
        XCTAssertEqual(parsed("5."), 5)
        XCTAssert(parsed("nan")!.isNaN)
        XCTAssert(parsed("NaN")!.isNaN)
        XCTAssertEqual(parsed("-inf"), -.infinity)
        XCTAssertEqual(parsed("Infinity"), .infinity)
        XCTAssertEqual(parsed("1e400"), .infinity)
        XCTAssertEqual(parsed("1e-400"), 0)
        XCTAssertEqual(DecimalParser.parse(""), .empty)
        XCTAssertEqual(DecimalParser.parse("   "), .empty)
        XCTAssertEqual(DecimalParser.parse("1.2.3"), .malformed(offset: 3))
        XCTAssertEqual(DecimalParser.parse("abc"), .malformed(offset: 0))
        XCTAssertEqual(DecimalParser.parse("1e"), .malformed(offset: 2))
        XCTAssertEqual(DecimalParser.parse("-"), .malformed(offset: 1))
        XCTAssertEqual(DecimalParser.parse("12x"), .malformed(offset: 2))
    }

    /// Bit-identical to glibc's correctly rounded strtod on random decimals of every shape,
    /// including long significands and extreme exponents that leave the fast path.
    func testBitIdenticalToCorrectConversion() {
        var rng = SeededRandom(seed: 21)
        for i in 0..<200_000 {
            let digits = Int.random(in: 1...25, using: &rng)
            var s = Bool.random(using: &rng) ? "-" : ""
            let point = Int.random(in: 0...digits, using: &rng)
            for k in 0..<digits {
                if k == point && k > 0 { s += "." }
                s += String(Int.random(in: 0...9, using: &rng))
            }
            if i % 3 == 0 { s += "e" + String(Int.random(in: -330...310, using: &rng)) }
            guard let v = parsed(s) else {
                XCTFail("failed to parse \(s)")
                continue
            }
            let ref = strtodReference(s)
            XCTAssertEqual(v.bitPattern, ref.bitPattern, "\(s): got \(v), expected \(ref)")
        }
        // Shortest round-trip spellings of random doubles come back exactly.
        for _ in 0..<100_000 {
            let d = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)
            XCTAssertEqual(parsed("\(d)")?.bitPattern, d.bitPattern, "\(d)")
        }
    }
}
