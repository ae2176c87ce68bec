import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// docs/Filters.md and the `///` comments of the parameter structs state each default once more than
/// the code does; these tests hold them to the code.
final class FilterDocumentationTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The first number of a documented default, with `°` or `°/s` read as degrees and `ms` as
    /// milliseconds; `nan` as NaN.
    static func documentedValue(_ text: String) -> Double? {
        let scanner = Scanner(string: text.trimmingCharacters(in: .whitespaces))
        if scanner.scanString("nan") != nil || scanner.scanString("NaN") != nil { return .nan }
        guard let v = scanner.scanDouble() else { return nil }
        let rest = text[scanner.currentIndex...].trimmingCharacters(in: .whitespaces)
        if rest.hasPrefix("°") { return v * .pi / 180 }
        if rest.hasPrefix("ms") { return v / 1000 }
        return v
    }

    static func agree(_ a: Double, _ b: Double) -> Bool {
        if a.isNaN || b.isNaN { return a.isNaN && b.isNaN }
        return abs(a - b) <= 5e-4 * max(abs(a), abs(b)) + 1e-12
    }

    /// A documented row: the default and the range as written.
    struct Row {
        var value: Double
        var range: String
    }

    /// Rows `| \`name\` | default | range | …` of the table under each `## \`kind\`` heading, and of
    /// the shared-parts table (name, filters, default, range).
    func documentedTables() throws -> [FilterKind: [String: Row]] {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/Filters.md"), encoding: .utf8)
        var tables = [FilterKind: [String: Row]]()
        for kind in FilterKind.allCases { tables[kind] = [:] }
        var section: [FilterKind] = []
        var shared = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                shared = line.contains("Shared parts")
                section = FilterKind.allCases.filter { line.contains("`\($0.rawValue)`") }
                continue
            }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard line.hasPrefix("| `"), cells.count >= 4, shared || !section.isEmpty else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            if shared {
                let kinds = cells[1].split(separator: ",").compactMap {
                    FilterKind(rawValue: $0.trimmingCharacters(in: .whitespaces))
                }
                XCTAssertFalse(kinds.isEmpty, "filters of \(name)")
                let value = try XCTUnwrap(Self.documentedValue(cells[2]), "default of \(name)")
                for kind in kinds { tables[kind]![name] = Row(value: value, range: cells[3]) }
            } else {
                let value = try XCTUnwrap(Self.documentedValue(cells[1]), "default of \(name)")
                for kind in section { tables[kind]![name] = Row(value: value, range: cells[2]) }
            }
        }
        return tables
    }

    /// A documented range, `[a, b]` or `(a, b]` (bounds may be `π`, `π/2`, `−π/2`), with
    /// ` or nan` when NaN (learn it) is accepted too; `0 or 1` for a switch (nil).
    static func documentedRange(_ text: String) -> (range: ParameterRange, nan: Bool)? {
        guard text != "0 or 1" else { return nil }
        let nan = text.hasSuffix(" or nan")
        let interval = nan ? String(text.dropLast(" or nan".count)) : text
        guard let open = interval.first, open == "[" || open == "(", interval.last == "]" else { return nil }
        let bounds = interval.dropFirst().dropLast().split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "−", with: "-")
        }
        func number(_ s: String) -> Double? {
            let sign = s.hasPrefix("-") ? -1.0 : 1.0
            let body = s.hasPrefix("-") ? String(s.dropFirst()) : s
            switch body {
            case "π": return sign * .pi
            case "π/2": return sign * .pi / 2
            default: return Double(body).map { sign * $0 }
            }
        }
        guard bounds.count == 2, let lower = number(bounds[0]), let upper = number(bounds[1]) else { return nil }
        return (open == "[" ? ParameterRange(lower...upper) : .above(lower, upTo: upper), nan)
    }

    /// Every parameter of every filter is in docs/Filters.md with its default and range, and
    /// nothing else is.
    func testFiltersDocumentEveryParameterWithItsDefault() throws {
        let tables = try documentedTables()
        for kind in FilterKind.allCases {
            let setup = FilterSetup(kind)
            let code = setup.parameterValues
            let documented = tables[kind]!
            XCTAssertEqual(Set(code.map(\.name)), Set(documented.keys), "\(kind.rawValue): names")
            for (name, value) in code {
                guard let doc = documented[name] else { continue }
                XCTAssert(
                    Self.agree(doc.value, value), "\(kind.rawValue) \(name): documented \(doc.value), code \(value)")
                let range = setup.ranges[name]
                guard let (documentedRange, nan) = Self.documentedRange(doc.range) else {
                    XCTAssertEqual(doc.range, "0 or 1", "\(kind.rawValue) \(name): a range or '0 or 1'")
                    XCTAssertNil(range, "\(kind.rawValue) \(name) is documented as a switch")
                    continue
                }
                guard let range else {
                    XCTFail("\(kind.rawValue) \(name): documented \(doc.range), no range in the code")
                    continue
                }
                XCTAssert(
                    Self.agree(documentedRange.lower, range.lower) && Self.agree(documentedRange.upper, range.upper)
                        && documentedRange.includesLower == range.includesLower,
                    "\(kind.rawValue) \(name): documented \(doc.range), code \(range)")
                XCTAssertEqual(nan, value.isNaN, "\(kind.rawValue) \(name): 'or nan' exactly when nan is the default")
            }
        }
    }

    /// Every numeric parameter declares a range holding its default, and no range names a parameter
    /// that does not exist.
    func testEveryParameterDeclaresARangeHoldingItsDefault() {
        for kind in FilterKind.allCases {
            let setup = FilterSetup(kind)
            let ranges = setup.ranges
            var numeric = Set<String>()
            for (name, value) in setup.parameterValues where !isSwitch(kind, name) {
                guard let range = ranges[name] else {
                    XCTFail("\(kind.rawValue) \(name): no range")
                    continue
                }
                numeric.insert(name)
                XCTAssert(
                    range.contains(value) || value.isNaN, "\(kind.rawValue) \(name): default \(value) outside \(range)")
            }
            XCTAssertEqual(Set(ranges.keys), numeric, "\(kind.rawValue): ranges of exactly the numeric parameters")
        }
    }

    /// Whether a parameter is a switch (1 or 0 only).
    func isSwitch(_ kind: FilterKind, _ name: String) -> Bool {
        var setup = FilterSetup(kind)
        do {
            try setup.setParameter(name, 0.5)
            return false
        } catch {
            return "\(error)".contains("is a switch")
        }
    }

    /// Every bound is enforced: each range's ends (and its default) are accepted; just outside
    /// either end, infinities and NaN (except where NaN means "learn it") are usage errors naming
    /// the parameter, the value and the range.
    func testParameterRangesAreEnforced() throws {
        var checked = 0
        for kind in FilterKind.allCases {
            for (name, range) in FilterSetup(kind).ranges.sorted(by: { $0.key < $1.key }) {
                let learnt = FilterSetup(kind).parameterValues.first { $0.name == name }!.value.isNaN
                let inside =
                    [range.includesLower ? range.lower : range.lower + (range.upper - range.lower) * 1e-6, range.upper]
                    + (learnt ? [.nan] : [])
                for value in inside {
                    var setup = FilterSetup(kind)
                    XCTAssertNoThrow(try setup.setParameter(name, value), "\(kind.rawValue) \(name)=\(value)")
                    let set = setup.parameterValues.first { $0.name == name }!.value
                    XCTAssert(Self.agree(set, value), "\(kind.rawValue) \(name): \(set)")
                }
                let outside =
                    [
                        range.includesLower ? range.lower.nextDown : range.lower, range.upper.nextUp, .infinity,
                        -.infinity,
                    ]
                    + (learnt ? [] : [.nan])
                for value in outside {
                    var setup = FilterSetup(kind)
                    XCTAssertThrowsError(try setup.setParameter(name, value), "\(kind.rawValue) \(name)=\(value)") {
                        let message = "\($0)"
                        XCTAssert(
                            message.contains("'\(name)'") && message.contains(range.exactDescription)
                                && message.contains("\(value)"),
                            message)
                    }
                    checked += 1
                }
            }
        }
        XCTAssertGreaterThan(checked, 250)
        // NaN stays "learn it" once a value has been set.
        var setup = FilterSetup(.ekf)
        try setup.setParameters("expectedFieldNorm=48")
        XCTAssertNoThrow(try setup.setParameters("expectedFieldNorm=nan"))
    }

    /// Each `public var` of a parameter struct's source lines (until its `public init()`), with
    /// what its `///` comment says after its last "Default " (nil without one).
    static func statedDefaults(_ lines: ArraySlice<String>) -> [(name: String, stated: String?)] {
        var out = [(name: String, stated: String?)]()
        var comment = ""
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("///") {
                comment += " " + trimmed.dropFirst(3)
                continue
            }
            defer { comment = "" }
            if trimmed.hasPrefix("public init()") { break }
            guard trimmed.hasPrefix("public var ") else { continue }
            let name = String(trimmed.dropFirst("public var ".count).prefix { $0.isLetter || $0.isNumber })
            out.append(
                (name, comment.range(of: "Default ", options: .backwards).map { String(comment[$0.upperBound...]) }))
        }
        return out
    }

    /// The "Default …" of each `///` comment above a parameter agrees with the value it documents.
    func testDefaultsInCommentsAgreeWithTheCode() throws {
        // Source file, the filter whose parameters hold it, and the name prefix there.
        let files: [(String, FilterKind, String)] = [
            ("KalmanFilter", .ekf, ""), ("ComplementaryFilter", .complementary, ""), ("MahonyFilter", .mahony, ""),
            ("MadgwickFilter", .madgwick, ""), ("RestDetector", .ekf, "rest."),
            ("GyroscopeIntegrator", .ekf, "integration."), ("NoiseEstimator", .ekf, "noise."),
        ]
        var checked = 0
        for (file, kind, prefix) in files {
            let values = Dictionary(uniqueKeysWithValues: FilterSetup(kind).parameterValues.map { ($0.name, $0.value) })
            let url = Self.repository.appendingPathComponent("Sources/MotionFusionEstimation/Filters/\(file).swift")
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            guard let start = lines.firstIndex(where: { $0.contains("struct Parameters") }) else {
                XCTFail("\(file): no Parameters")
                continue
            }
            for (name, stated) in Self.statedDefaults(lines[start...]) {
                guard let stated, let value = values[prefix + name] else { continue }  // modes, nested structs
                if stated.hasPrefix("true") || stated.hasPrefix("false") {
                    XCTAssertEqual(value, stated.hasPrefix("true") ? 1 : 0, "\(file).\(name)")
                } else {
                    let doc = try XCTUnwrap(Self.documentedValue(stated), "\(file).\(name): '\(stated)'")
                    XCTAssert(Self.agree(doc, value), "\(file).\(name): comment says \(stated), code \(value)")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 50)
    }

    /// Switches are set with 1 or 0, and parameters whose value is 0 or 1 are numbers, not switches.
    func testSwitchesAndIntegralValues() throws {
        var setup = FilterSetup(.ekf)
        let names = setup.parameterValues.map(\.name)
        XCTAssert(names.contains("rateScaleUncertainty"), "a default of 0 is still a number")
        XCTAssert(names.contains("unfilteredTiltAtRest"))
        try setup.setParameters("unfilteredTiltAtRest=0,rateScaleUncertainty=0.002,accelerationTolerance=1.5")
        guard case .ekf(let p) = setup else { return XCTFail("ekf") }
        XCTAssertFalse(p.unfilteredTiltAtRest)
        XCTAssertEqual(p.rateScaleUncertainty, 0.002)
        XCTAssertEqual(p.accelerationTolerance, 1.5)
        XCTAssertThrowsError(try setup.setParameters("unfilteredTiltAtRest=0.5")) { error in
            XCTAssert("\(error)".contains("switch"), "\(error)")
        }
    }
}
