import Foundation
import MotionFusion
import XCTest

/// The library's stand-ins for what it took from Foundation (`String(format:)`, `padding`,
/// `JSONSerialization`) give what Foundation gave, so outputs and messages stay byte-identical.
final class FoundationFreeTests: XCTestCase {
    func testPrintfEqualsStringFormat() {
        let values: [Double] = [
            0, -0.0, 1, -1, 0.5, 2.5, 0.0005, 0.0015, 999.9995, 1e-7, 3.14159265, -3.14159265, 123456.789, 1e20,
            1e300, .leastNonzeroMagnitude, .nan, .infinity, -.infinity,
        ]
        let floatFormats = [
            "%.3f", "%8.3f", "%9.3f", "%13.3f", "%+.3f", "%g", "%.2g", "%.3g", "%.6g", "%e", "%.0f", "%.1f", "%.2f",
            "%.4f", "%.5f", "%10.3f", "%12.3f", "%7.2f", "%.1f× steadier, %.0f %% of samples",
        ]
        for format in floatFormats {
            for v in values {
                XCTAssertEqual(String(printf: format, v, v), String(format: format, v, v), "\(format) \(v)")
            }
        }
        for format in ["%d", "%8d", "%7d", "%4d", "%04d", "%02d", "%ld"] {
            for i in [0, 5, -3, 42, 2026, 123_456_789] {
                XCTAssertEqual(String(printf: format, i), String(format: format, i), "\(format) \(i)")
            }
        }
        for text in ["", "–", "abc", "gyroscope", "µT ²"] {
            for format in ["%@", "%8@", "%9@", "%13@", "%-8@", "[%@%@]"] {
                XCTAssertEqual(String(printf: format, text, text), String(format: format, text, text), format)
            }
            for width in [0, 3, 16] {
                XCTAssertEqual(
                    text.paddedWithSpaces(toLength: width), text.padding(toLength: width, withPad: " ", startingAt: 0))
            }
        }
        XCTAssertEqual(
            String(printf: "%04d-%02d-%02d %10.3f  %@ over %d samples", 2026, 1, 2, 1.5, "x", 7),
            String(format: "%04d-%02d-%02d %10.3f  %@ over %d samples", 2026, 1, 2, 1.5, "x", 7))
    }

    func testJSONParsingEqualsJSONSerialization() throws {
        let documents = [
            "{\"a\": [0.001, -2, 1e-5, 3.0, 12345678901234567890], \"b\": {\"c\": true, \"d\": null}, \"e\": \"x\\u00e9\\n\\ud83d\\ude00\"}",
            "[1, 2, ]", "{\"a\": 1,}", " { } ", "[[], [[]]]",
        ]
        for text in documents {
            let value = try JSONValue.parse(Array(text.utf8))
            let other = try JSONSerialization.jsonObject(with: Data(text.utf8))
            // Through the writer both ways: it writes whole doubles as integers.
            XCTAssertEqual(
                try JSONValue.parse(Array(value.text.utf8)), try JSONValue.parse(Array(JSONValue(other).text.utf8)),
                text)
        }
        let malformed = [
            "{\"a\": [0.001, NaN, 0]}", "{\"a\": [0.001, 1e999, 0]}", "{\"a\": [0.001,", "{\"a\" 1}", "{\"a\": [1 2]}",
            "{\"a\": \"x\u{1}\"}", "", "{\"a\": 01}", "{\"a\": -}", "{\"a\": 1} x", "{a: 1}", "{\"a\": \"\\q\"}",
            "{\"a\": \"abc", "{\"a\": 1.}",
        ]
        for text in malformed {
            XCTAssertThrowsError(try JSONValue.parse(Array(text.utf8)), text) { error in
                XCTAssertEqual("\(error)", Self.foundationError(text), text)
            }
        }
    }

    static func foundationError(_ text: String) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: Data(text.utf8))
            return "parsed"
        } catch {
            return ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? "\(error)"
        }
    }
}

extension JSONValue {
    /// A value `JSONSerialization` read, as a ``JSONValue`` (numbers as doubles, booleans as such).
    fileprivate init(_ any: Any) {
        switch any {
        case let n as NSNumber where type(of: n) == type(of: NSNumber(value: true)): self = .bool(n.boolValue)
        case let n as NSNumber: self = .number(n.doubleValue)
        case let s as String: self = .string(s)
        case let a as [Any]: self = .array(a.map { JSONValue($0) })
        case let o as [String: Any]: self = .object(o.mapValues { JSONValue($0) })
        default: self = .null
        }
    }
}
