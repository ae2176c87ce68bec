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

    /// The one-pass reader path: a plain number followed by a separator (or the end of the line)
    /// gives the general parser's value and stops at the separator; anything it declines (nil) the
    /// reader hands to the general parser. Lengths around the eight-byte runs are all covered.
    func testPlainPathAgreesWithTheGeneralParser() {
        var rng = SeededRandom(seed: 22)
        var taken = 0
        for i in 0..<200_000 {
            let digits = Int.random(in: 1...21, using: &rng)
            var s = Bool.random(using: &rng) ? "-" : ""
            let point = Int.random(in: 0...digits, using: &rng)
            for k in 0..<digits {
                if k == point && (k > 0 || i % 5 == 0) { s += "." }
                s += String(Int.random(in: 0...9, using: &rng))
            }
            if i % 4 == 0 { s += (i % 8 == 0 ? "E" : "e") + String(Int.random(in: -30...30, using: &rng)) }
            let separator = [UInt8(ascii: ","), UInt8(ascii: ";"), 0][i % 3]
            let tail: [UInt8] = i % 2 == 0 ? [] : [separator == 0 ? UInt8(ascii: " ") : separator] + Array("1.5,2".utf8)
            let bytes = Array(s.utf8) + tail
            let expected = DecimalParser.parse(s)
            bytes.withUnsafeBufferPointer { b in
                guard let (v, stop) = DecimalParser.parsePlain(b.baseAddress!, 0, b.count, separator: separator) else {
                    return
                }
                taken += 1
                XCTAssertEqual(stop, s.utf8.count, s)
                XCTAssertEqual(DecimalParser.Result.value(v), expected, s)
                if case .value(let e) = expected { XCTAssertEqual(v.bitPattern, e.bitPattern, s) }
            }
        }
        XCTAssertGreaterThan(taken, 100_000, "the plain path takes most plain numbers")
        // What it must decline: not a number at all, or a number that runs into other text.
        for text in ["", "-", ".", "abc", "1.5x", "1,5", "nan", " 1", "1e", "1e+", "0x10"] {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { b in
                if let (v, stop) = DecimalParser.parsePlain(b.baseAddress ?? UnsafePointer(bitPattern: 8)!, 0, b.count)
                {
                    // "1,5" is the number 1 followed by a separator.
                    XCTAssertEqual(text, "1,5")
                    XCTAssertEqual(v, 1)
                    XCTAssertEqual(stop, 1)
                }
            }
        }
    }

    /// A plain number stops at the first byte that is not a digit, whatever that byte is (the
    /// eight-digit word test adds 6 to each byte, and bytes from 0xFA up carry), for runs of 1 to
    /// 17 digits with the point at the start, after the first digit, or absent; and a number that
    /// ends exactly at the end of the buffer is read whole.
    func testDigitRunsStopAtEveryKindOfByte() {
        var checked = 0
        for stop in 0...255 where !(0x30...0x39).contains(stop) {
            for length in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17] {
                for pointAt in [0, 1, length] where pointAt <= length {
                    var digits = (0..<length).map { UInt8(ascii: "1") + UInt8(($0 * 7 + stop) % 9) }
                    if pointAt < length { digits.insert(UInt8(ascii: "."), at: pointAt) }
                    let text = String(decoding: digits, as: UTF8.self)
                    // The stopping byte, then digits and bytes that would continue a careless run.
                    let bytes = digits + [UInt8(stop), 0x35, 0xFF, 0x36, 0x37, 0x38, 0x39, 0x30, 0x31]
                    let separator = UInt8(stop)
                    bytes.withUnsafeBufferPointer { b in
                        let result = DecimalParser.parsePlain(b.baseAddress!, 0, b.count, separator: separator)
                        if stop == 0x2E || stop == 0x45 || stop == 0x65 || stop == 0x20 || stop == 0x09 || stop == 0 {
                            return  // a point, an exponent or a blank continue or end the number differently
                        }
                        guard let (v, end) = result else {
                            // Beyond 2⁵³ the plain path hands over to the general parser.
                            XCTAssertGreaterThan(length, 15, "\(text) then byte \(stop): declined")
                            return
                        }
                        XCTAssertEqual(end, digits.count, "\(text) then byte \(stop)")
                        XCTAssertEqual(DecimalParser.Result.value(v), DecimalParser.parse(text), "\(text) then \(stop)")
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 5_000)
        // Ending at the buffer's end: no byte after the number is ever read.
        for length in 1...24 {
            let text = "0." + String((0..<length).map { Character(String(($0 * 3 + 1) % 10)) })
            let bytes = Array(text.utf8)
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
            defer { buffer.deallocate() }
            buffer.initialize(from: bytes, count: bytes.count)
            if let (v, end) = DecimalParser.parsePlain(buffer, 0, bytes.count) {
                XCTAssertEqual(end, bytes.count, text)
                XCTAssertEqual(DecimalParser.Result.value(v), DecimalParser.parse(text), text)
            } else {
                XCTAssertGreaterThan(length, 16, "declined only beyond 18 digits: \(text)")
            }
        }
    }

    /// Moving the decimal point while reading rounds once: the value is the correctly rounded
    /// number times 10^offset, by both paths, for integers longer than a double's 53 bits too.
    func testExponentOffsetRoundsOnce() {
        var rng = SeededRandom(seed: 23)
        for i in 0..<50_000 {
            let offset = [-9, -6, -3, 3][i % 4]
            var s = String(UInt64.random(in: 0...UInt64.max / 2, using: &rng) >> UInt64.random(in: 0...60, using: &rng))
            if i % 5 == 0 { s += ".\(Int.random(in: 0...999, using: &rng))" }
            if i % 7 == 0 { s += "e\(Int.random(in: -20...20, using: &rng))" }
            let expected = strtod(s.contains("e") ? s : s + "e\(offset)", nil)
            let reference: Double
            if let e = s.firstIndex(of: "e") {
                let shifted = Int(s[s.index(after: e)...])! + offset
                reference = strtod(String(s[..<e]) + "e\(shifted)", nil)
            } else {
                reference = expected
            }
            var bytes = Array(s.utf8)
            let general = bytes.withUnsafeBufferPointer {
                DecimalParser.parse($0.baseAddress!, 0, $0.count, exponentOffset: offset)
            }
            XCTAssertEqual(general, .value(reference), "\(s) × 10^\(offset)")
            bytes.append(UInt8(ascii: ","))
            bytes.withUnsafeBufferPointer { b in
                if let (v, _) = DecimalParser.parsePlain(b.baseAddress!, 0, b.count, exponentOffset: offset) {
                    XCTAssertEqual(v.bitPattern, reference.bitPattern, "\(s) × 10^\(offset)")
                }
            }
        }
    }
    /// The reader's one-pass path against glibc's correctly rounded `strtod`, bit for bit, on two
    /// million numbers shaped like sensor logs and around every boundary of the path: whole parts
    /// of zero to six digits (the first three are read a byte at a time, a fourth hands over to the
    /// eight-byte runs), fractions of zero to fourteen digits, exponents on both sides of ±22,
    /// significands on both sides of 2⁵³ and of 18 digits, ending at a separator or at the end of
    /// the buffer. A number the path declines must be one the general parser reads correctly.
    func testPlainPathIsCorrectlyRoundedOnMillions() {
        var rng = SeededRandom(seed: 24)
        var text = [UInt8]()
        text.reserveCapacity(64)
        var taken = 0
        var declined = 0
        func check(_ text: [UInt8], separator: UInt8, atEnd: Bool) {
            var bytes = text
            if !atEnd { bytes += [separator, UInt8(ascii: "7"), UInt8(ascii: ".")] }
            var terminated = text
            terminated.append(0)
            let expected = terminated.withUnsafeBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) { strtod($0, nil) }
            }
            bytes.withUnsafeBufferPointer { b in
                if let (v, stop) = DecimalParser.parsePlain(b.baseAddress!, 0, b.count, separator: separator) {
                    taken += 1
                    if v.bitPattern != expected.bitPattern || stop != text.count {
                        XCTFail(
                            "\(String(decoding: text, as: UTF8.self)): \(v) stopping at \(stop), expected \(expected)")
                    }
                } else {
                    declined += 1
                    let general = DecimalParser.parse(b.baseAddress!, 0, text.count)
                    guard case .value(let g) = general, g.bitPattern == expected.bitPattern else {
                        XCTFail(
                            "\(String(decoding: text, as: UTF8.self)): general parser gave \(general), expected \(expected)"
                        )
                        return
                    }
                }
            }
        }
        let edges = [
            "9007199254740992", "9007199254740993", "9007199254740991", "900719925474099.3", "0.9007199254740993",
            "1e22", "1e23", "1e-22", "1e-23", "9.999999999999999e22", "123456789012345678", "1234567890123456789",
            "0.000000000000000000001", "4.9406564584124654e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
            "0", "-0", "0.0", "-0.000", "000000000000000000000001", "1.", ".1", "-.5", "5e0", "5E-0", "1e+22",
            "0.1", "0.2", "0.3", "2.5", "-40.757723", "9.7541231", "3.9136012e-19", "0.0035", "999.9999999999999",
        ]
        for edge in edges {
            check(Array(edge.utf8), separator: UInt8(ascii: ","), atEnd: false)
            check(Array(edge.utf8), separator: UInt8(ascii: ","), atEnd: true)
        }
        for i in 0..<2_000_000 {
            text.removeAll(keepingCapacity: true)
            let r = rng.next()
            if r & 1 == 0 { text.append(UInt8(ascii: "-")) }
            let whole = Int((r >> 1) % 7)
            let fraction = Int((r >> 4) % 15)
            for k in 0..<whole {
                text.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (r >> UInt64(8 + 4 * k)) % 10))
            }
            if fraction > 0 || whole == 0 {
                text.append(UInt8(ascii: "."))
                let digits = rng.next()
                for k in 0..<max(fraction, 1) {
                    text.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: (digits >> UInt64(4 * k)) % 10))
                }
            }
            if (r >> 40) % 4 == 0 {
                text += Array("e\(Int((r >> 42) % 51) - 25)".utf8)
            }
            let separator = [UInt8(ascii: ","), UInt8(ascii: ";"), 0x09][i % 3]
            check(text, separator: separator, atEnd: (r >> 50) % 5 == 0)
        }
        XCTAssertGreaterThan(taken, 1_500_000, "the plain path takes most numbers (declined \(declined))")
    }
}
