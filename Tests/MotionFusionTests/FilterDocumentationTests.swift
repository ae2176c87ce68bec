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

    /// Rows `| \`name\` | default | …` of the table under each `## \`kind\`` heading, and of the
    /// shared-parts table (name, filters, default).
    func documentedTables() throws -> [FilterKind: [String: Double]] {
        let text = try String(contentsOf: Self.repository.appendingPathComponent("docs/Filters.md"), encoding: .utf8)
        var tables = [FilterKind: [String: Double]]()
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
            guard line.hasPrefix("| `"), cells.count >= 3, shared || !section.isEmpty else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            if shared {
                let kinds = cells[1].split(separator: ",").compactMap {
                    FilterKind(rawValue: $0.trimmingCharacters(in: .whitespaces))
                }
                XCTAssertFalse(kinds.isEmpty, "filters of \(name)")
                let value = try XCTUnwrap(Self.documentedValue(cells[2]), "default of \(name)")
                for kind in kinds { tables[kind]![name] = value }
            } else {
                let value = try XCTUnwrap(Self.documentedValue(cells[1]), "default of \(name)")
                for kind in section { tables[kind]![name] = value }
            }
        }
        return tables
    }

    /// Every parameter of every filter is in docs/Filters.md with its default, and nothing else is.
    func testFiltersDocumentEveryParameterWithItsDefault() throws {
        let tables = try documentedTables()
        for kind in FilterKind.allCases {
            let code = FilterSetup(kind).parameterValues
            let documented = tables[kind]!
            XCTAssertEqual(Set(code.map(\.name)), Set(documented.keys), "\(kind.rawValue): names")
            for (name, value) in code {
                guard let doc = documented[name] else { continue }
                XCTAssert(Self.agree(doc, value), "\(kind.rawValue) \(name): documented \(doc), code \(value)")
            }
        }
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
            let url = Self.repository.appendingPathComponent("Sources/MotionFusionCore/Filters/\(file).swift")
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
            guard let start = lines.firstIndex(where: { $0.contains("struct Parameters") }) else {
                XCTFail("\(file): no Parameters")
                continue
            }
            var comment = ""
            for line in lines[start...] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("///") {
                    comment += " " + trimmed.dropFirst(3)
                    continue
                }
                defer { comment = "" }
                if trimmed.hasPrefix("public init()") { break }
                guard trimmed.hasPrefix("public var "),
                    let range = comment.range(of: "Default ", options: .backwards)
                else { continue }
                let name = String(trimmed.dropFirst("public var ".count).prefix { $0.isLetter || $0.isNumber })
                let stated = String(comment[range.upperBound...])
                guard let value = values[prefix + name] else { continue }  // modes, nested structs
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
