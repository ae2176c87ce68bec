import Glibc
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionIO

/// The output formatter's numbers: fixed decimals rounded half up, digits produced eight at a time
/// in one word, and times that read back exactly.
final class NumberFormattingTests: XCTestCase {
    /// What the buffer holds, as text.
    func text(_ build: (inout CSVOutputBuffer) -> Void) -> String {
        var b = CSVOutputBuffer()
        defer { b.deallocate() }
        build(&b)
        return String(decoding: UnsafeBufferPointer(start: b.storage, count: b.count), as: UTF8.self)
    }

    /// The reference: the same rounding (|v|·10^d + ½, truncated), digits by `String`.
    func reference(_ v: Double, _ decimals: Int) -> String {
        let n = UInt64(abs(v) * CSVOutputBuffer.powerOfTen(decimals) + 0.5)
        var digits = String(n)
        if digits.count <= decimals { digits = String(repeating: "0", count: decimals + 1 - digits.count) + digits }
        let sign = v < 0 && n != 0 ? "-" : ""
        guard decimals > 0 else { return sign + digits }
        let cut = digits.index(digits.endIndex, offsetBy: -decimals)
        return sign + digits[..<cut] + "." + digits[cut...]
    }

    func testKnownValues() {
        XCTAssertEqual(text { $0.append(0.999_999_999_9, decimals: 9) }, "1.000000000")
        XCTAssertEqual(text { $0.append(-0.000_000_000_1, decimals: 9) }, "0.000000000")
        XCTAssertEqual(text { $0.append(-12.345_675, decimals: 5) }, "-12.34568")
        XCTAssertEqual(text { $0.append(359.999_999, decimals: 5) }, "360.00000")
        XCTAssertEqual(text { $0.append(0, decimals: 0) }, "0")
        XCTAssertEqual(text { $0.append(7.5, decimals: 0) }, "8")
        XCTAssertEqual(text { $0.append(1_403_636_579.763_555_5, decimals: 6) }, "1403636579.763556")
        XCTAssertEqual(text { $0.append(123_456_789_012_345.0, decimals: 1) }, "123456789012345.0")
        XCTAssertEqual(text { $0.append(0.000_001_23, decimals: 15) }, "0.000001230000000")
        XCTAssertEqual(text { $0.append(.nan, decimals: 4) }, "nan")
        XCTAssertEqual(text { $0.append(-.infinity, decimals: 4) }, "-inf")
        XCTAssertEqual(text { $0.append(1e300, decimals: 4) }, "1e+300")
    }

    /// Whole numbers keep every digit and gain no leading zero on both sides of every power of
    /// ten, where the digit count changes.
    func testIntegersAtEveryPowerOfTen() {
        var values: [UInt64] = [0, 1, 9, UInt64.max]
        var power: UInt64 = 10
        for _ in 1...19 {
            values += [power - 1, power, power + 1]
            if power <= UInt64.max / 10 { power *= 10 }
        }
        var random = SeededRandom(seed: 12)
        for _ in 0..<20_000 { values.append(random.next() >> UInt64.random(in: 0...63, using: &random)) }
        for n in values {
            XCTAssertEqual(text { $0.appendInteger(n) }, String(n))
            XCTAssertEqual(CSVOutputBuffer.digitCount(n), String(n).count, "\(n)")
        }
    }

    func testRandomValuesAtEveryDecimalCount() {
        var random = SeededRandom(seed: 11)
        for _ in 0..<20_000 {
            let decimals = Int.random(in: 0...15, using: &random)
            let magnitude = Double.random(in: -12...7, using: &random)
            var v = pow(10, magnitude) * (Bool.random(using: &random) ? 1 : -1)
            if v.magnitude * CSVOutputBuffer.powerOfTen(decimals) >= 9e18 { v /= 1e6 }
            let written = text { $0.append(v, decimals: decimals) }
            XCTAssertEqual(written, reference(v, decimals), "\(v) with \(decimals) decimals")
        }
    }

    /// Every decimal count from 0 to 16, with whole parts of one digit (written as one byte) and
    /// more, and fractions whose leading digits (past eight decimals: one byte, or a word cut to
    /// length) end in zeros or nines, where a carry or a dropped digit would show.
    func testEveryDecimalCountWithOneDigitAndLongerWholeParts() {
        var random = SeededRandom(seed: 14)
        for decimals in 0...16 {
            let unit = CSVOutputBuffer.powerOfTen(decimals)
            for k in 0..<4_000 {
                let whole = [0, 1, 9, 10, 99, 359, 12_345][k % 7]
                guard Double(whole + 1) * unit < 9e18 else { continue }
                var fraction = Double(random.next() % UInt64(unit)) / unit
                if k % 5 == 0 { fraction = 1 - 1 / unit }
                if k % 11 == 0 { fraction = 1 / unit }
                if k % 13 == 0 { fraction = Double.random(in: 0..<1, using: &random) }
                let v = (Double(whole) + fraction) * (k % 2 == 0 ? 1 : -1)
                XCTAssertEqual(
                    text { $0.append(v, decimals: decimals) }, reference(v, decimals), "\(v) with \(decimals) decimals")
            }
        }
    }

    func testTimesReadBackExactlyAndTheColumnOnlyWidens() {
        var random = SeededRandom(seed: 12)
        var times: [Double] = [0, -0.0, -1.5, -0.000_25, 0.0035, 1e-7, 86_400.000_001, 1e300]
        for _ in 0..<5_000 { times.append(Double.random(in: 0..<100_000, using: &random)) }
        // Nanosecond clocks since the epoch, converted to seconds (EuRoC, Sensor Logger).
        for k in 0..<1_000 { times.append(Double(1_403_636_579_763_555_584 + Int64(k) * 5_000_000) * 1e-9) }
        var b = CSVOutputBuffer()
        defer { b.deallocate() }
        var decimals = b.timeDecimals
        for t in times {
            let start = b.count
            b.appendTime(t)
            let field = String(
                decoding: UnsafeBufferPointer(start: b.storage + start, count: b.count - start), as: UTF8.self)
            guard case .value(let back) = DecimalParser.parse(field) else { return XCTFail("\(field) does not parse") }
            XCTAssertEqual(back.bitPattern, t.bitPattern, "\(t) written as \(field)")
            XCTAssertGreaterThanOrEqual(b.timeDecimals, decimals)
            decimals = b.timeDecimals
        }
        XCTAssertLessThanOrEqual(decimals, 15)
    }

    /// Angles stay in their documented ranges after rounding: a heading in [0, 360) never reads
    /// 360.00000, a roll or yaw in (−180, 180] never −180.00000.
    func testRoundedAnglesStayInTheirRanges() {
        func written(_ v: Double) -> String { text { $0.append(v, decimals: EstimateWriter.angleDecimals) } }
        XCTAssertEqual(written(EstimateWriter.heading(359.999_996)), "0.00000")
        XCTAssertEqual(written(EstimateWriter.heading(359.999_994)), "359.99999")
        XCTAssertEqual(written(EstimateWriter.heading(0)), "0.00000")
        XCTAssertEqual(written(EstimateWriter.signedAngle(-179.999_999_6)), "180.00000")
        XCTAssertEqual(written(EstimateWriter.signedAngle(-179.999_994)), "-179.99999")
        XCTAssertEqual(written(EstimateWriter.signedAngle(180)), "180.00000")
        var random = SeededRandom(seed: 13)
        for _ in 0..<20_000 {
            let h = written(EstimateWriter.heading(Double.random(in: 359.9999..<360, using: &random)))
            XCTAssert(h < "360" || h.count < 9, h)
            let a = Double(
                written(EstimateWriter.signedAngle(Double.random(in: -180.0001 ... -179.9999, using: &random))))!
            XCTAssert(a > -180 && a <= 180, "\(a)")
        }
    }
}
