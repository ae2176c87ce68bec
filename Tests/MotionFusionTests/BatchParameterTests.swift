import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// The batch estimator's parameters by name: docs/Offline.md's table and the `///` comments against
/// the code, the ranges enforced, and `reconstruct --param batch.…` reaching the estimator.
final class BatchParameterTests: XCTestCase {
    typealias Parameters = BatchAttitudeEstimator.Parameters

    /// A documented row: the default, the range and the unit as written.
    struct Row {
        var value: String
        var range: String
        var unit: String
    }

    /// Rows `| \`batch.name\` | default | range | unit | meaning |` of docs/Offline.md, by name
    /// without the prefix.
    func documentedTable() throws -> [String: Row] {
        let url = FilterDocumentationTests.repository.appendingPathComponent("docs/Offline.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows = [String: Row]()
        for line in text.split(separator: "\n") where line.hasPrefix("| `\(Parameters.namePrefix)") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(cells.count, 5, "\(line)")
            guard cells.count >= 4 else { continue }
            let name = String(cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")))
                .dropFirst(Parameters.namePrefix.count)
            XCTAssertNil(rows[String(name)], "\(name) documented twice")
            rows[String(name)] = Row(value: cells[1], range: cells[2], unit: cells[3])
        }
        return rows
    }

    /// Every parameter settable by name is in the table with its default, range and unit, and
    /// nothing else is.
    func testOfflineDocumentsEveryBatchParameter() throws {
        let documented = try documentedTable()
        let p = Parameters()
        let numbers = p.parameterValues
        let choices = p.choiceValues
        XCTAssertEqual(
            Set(documented.keys), Set(numbers.map(\.name) + choices.map(\.name)), "names in docs/Offline.md")
        XCTAssertGreaterThanOrEqual(numbers.count + choices.count, 40)
        for (name, value) in numbers {
            guard let doc = documented[name] else { continue }
            XCTAssertEqual(doc.unit, Parameters.units[name], "\(name): unit")
            let stated = try XCTUnwrap(FilterDocumentationTests.documentedValue(doc.value), "\(name) default")
            XCTAssert(FilterDocumentationTests.agree(stated, value), "\(name): documented \(doc.value), code \(value)")
            let range = Parameters.ranges[name]
            guard let (documentedRange, nan) = FilterDocumentationTests.documentedRange(doc.range) else {
                XCTAssertEqual(doc.range, "0 or 1", "\(name): a range or '0 or 1'")
                XCTAssertNil(range, "\(name) is documented as a switch")
                XCTAssertEqual(doc.unit, "switch", name)
                continue
            }
            guard let range else {
                XCTFail("\(name): documented \(doc.range), no range in the code")
                continue
            }
            XCTAssert(
                FilterDocumentationTests.agree(documentedRange.lower, range.lower)
                    && FilterDocumentationTests.agree(documentedRange.upper, range.upper)
                    && documentedRange.includesLower == range.includesLower,
                "\(name): documented \(doc.range), code \(range)")
            XCTAssertEqual(nan, value.isNaN, "\(name): 'or nan' exactly when nan is the default")
        }
        for (name, value, values) in choices {
            guard let doc = documented[name] else { continue }
            XCTAssertEqual(doc.unit, "choice", name)
            XCTAssertEqual(doc.value, value, "\(name): default")
            let listed = doc.range.replacingOccurrences(of: " or ", with: ", ").components(separatedBy: ", ")
            XCTAssertEqual(listed, values, "\(name): values")
        }
    }

    /// Every number and count declares a range holding its default; switches and choices none; no
    /// range or unit names a parameter that does not exist.
    func testEveryBatchParameterDeclaresARangeHoldingItsDefault() throws {
        let p = Parameters()
        var numeric = Set<String>()
        for (name, value) in p.parameterValues where Parameters.units[name] != "switch" {
            let range = try XCTUnwrap(Parameters.ranges[name], "\(name): no range")
            numeric.insert(name)
            XCTAssert(range.contains(value) || value.isNaN, "\(name): default \(value) outside \(range)")
        }
        XCTAssertEqual(Set(Parameters.ranges.keys), numeric)
        XCTAssertEqual(
            Set(Parameters.units.keys), Set(p.parameterValues.map(\.name) + p.choiceValues.map(\.name)))
    }

    /// Each range's ends (and NaN for the delay) are accepted; just outside either end, infinities
    /// and NaN are refused naming the parameter, the value and the range. Switches, counts, choices
    /// and unknown names are refused with what they take.
    func testBatchRangesAreEnforced() throws {
        var checked = 0
        for (name, range) in Parameters.ranges.sorted(by: { $0.key < $1.key }) {
            let estimated = Parameters().parameterValues.first { $0.name == name }!.value.isNaN
            let lowest = range.includesLower ? range.lower : range.lower + (range.upper - range.lower) * 1e-6
            for value in [lowest, range.upper] + (estimated ? [.nan] : []) {
                var p = Parameters()
                XCTAssertNoThrow(try p.setParameter(Parameters.namePrefix + name, value), "\(name)=\(value)")
                let set = p.parameterValues.first { $0.name == name }!.value
                XCTAssert(FilterDocumentationTests.agree(set, value), "\(name): \(set)")
            }
            let outside: [Double] =
                [range.includesLower ? range.lower.nextDown : range.lower, range.upper.nextUp, .infinity, -.infinity]
                + (estimated ? [] : [.nan])
            for value in outside {
                var p = Parameters()
                XCTAssertThrowsError(try p.setParameter(name, value), "\(name)=\(value)") {
                    let message = "\($0)"
                    XCTAssert(
                        message.contains("'\(Parameters.namePrefix)\(name)'")
                            && message.contains(range.exactDescription) && message.contains("\(value)"),
                        message)
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 120)
        var p = Parameters()
        for (spec, says) in [
            ("batch.estimateHardIron=0.5", "switch"), ("batch.maximumIterations=2.5", "count"),
            ("batch.initialiser=best", "smoother, filter"), ("batch.robustLoss=1", "quadratic, huber, cauchy"),
            ("batch.knotInterval=fast", "takes a number"), ("batch.knots=0.1", "batch.knotInterval"),
            ("batch.knotInterval=0.1,batch.knotInterval=0.2", "given twice"),
        ] {
            XCTAssertThrowsError(try p.takeParameters(from: spec), spec) {
                XCTAssert("\($0)".contains(says), "\(spec): \($0)")
            }
        }
        // The batch items are taken, the others returned as written for the filter.
        p = Parameters()
        let rest = try p.takeParameters(
            from:
                "gyroscopeNoise=0.003,batch.knotInterval=0.05,batch.estimateHardIron=1,rest.minimumDuration=1,batch.robustLoss=huber,batch.maximumIterations=3,batch.magnetometerDelay=0.01"
        )
        XCTAssertEqual(rest, "gyroscopeNoise=0.003,rest.minimumDuration=1")
        XCTAssertEqual(p.knotInterval, 0.05)
        XCTAssertTrue(p.estimateHardIron)
        XCTAssertEqual(p.robustLoss, .huber)
        XCTAssertEqual(p.maximumIterations, 3)
        XCTAssertEqual(p.magnetometerDelay, 0.01)
        try p.setParameter("magnetometerDelay", "nan")
        XCTAssertNil(p.magnetometerDelay, "nan: estimate it")
    }

    /// The "Default …" of each `///` comment above a batch parameter agrees with the code.
    func testDefaultsInCommentsAgreeWithTheCode() throws {
        let url = FilterDocumentationTests.repository.appendingPathComponent(
            "Sources/MotionFusion/Offline/BatchAttitudeEstimator+Parameters.swift")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
        let p = Parameters()
        let values = Dictionary(uniqueKeysWithValues: p.parameterValues.map { ($0.name, $0.value) })
        let choices = Dictionary(uniqueKeysWithValues: p.choiceValues.map { ($0.name, $0.value) })
        var checked = Set<String>()
        for (name, stated) in FilterDocumentationTests.statedDefaults(lines[...]) where name != "filter" {
            let stated = try XCTUnwrap(stated, "\(name): no Default")
            if let choice = choices[name] {
                XCTAssert(stated.lowercased().contains(choice), "\(name): comment says \(stated), code \(choice)")
            } else if stated.hasPrefix("true") || stated.hasPrefix("false") {
                XCTAssertEqual(values[name], stated.hasPrefix("true") ? 1 : 0, name)
            } else if stated.hasPrefix("nil") {
                XCTAssert(values[name]?.isNaN == true, name)
            } else {
                let doc = try XCTUnwrap(
                    FilterDocumentationTests.documentedValue(stated.replacingOccurrences(of: " ", with: "")),
                    "\(name): '\(stated)'")
                let value = try XCTUnwrap(values[name], name)
                XCTAssert(FilterDocumentationTests.agree(doc, value), "\(name): comment says \(stated), code \(value)")
            }
            checked.insert(name)
        }
        XCTAssertEqual(checked, Set(values.keys).union(choices.keys), "every parameter's comment states its default")
    }

    /// `reconstruct --param batch.…` reaches the batch estimator (the output changes, with the
    /// EKF's names in the same list); a value out of range, an unknown name and a batch name with
    /// the smoother are usage errors (exit 2); `replay` refuses batch names.
    func testReconstructParamReachesTheBatchEstimator() throws {
        let dir = TestData.temporaryDirectory()
        let trace = TestData.projectData + "/sim_mixed_100hz.csv"
        func reconstruct(_ extra: [String], _ output: String) -> CommandResult {
            CommandRunner.run(["reconstruct", trace, "--output", dir + "/" + output] + extra)
        }
        func contents(_ output: String) throws -> String {
            try String(contentsOfFile: dir + "/" + output, encoding: .utf8)
        }
        let plain = reconstruct([], "plain.csv")
        XCTAssertEqual(plain.status, 0, plain.err)
        let same = reconstruct(["--param", "batch.knotInterval=0.1,batch.robustLoss=cauchy"], "same.csv")
        XCTAssertEqual(same.status, 0, same.err)
        XCTAssertEqual(try contents("same.csv"), try contents("plain.csv"), "the defaults, set by name")
        for (i, param) in [
            "batch.knotInterval=0.2", "batch.magnetometerNoise=0.02", "batch.maximumIterations=1",
            "gyroscopeNoise=0.003,batch.gravityNoise=0",
        ].enumerated() {
            let r = reconstruct(["--param", param], "tuned\(i).csv")
            XCTAssertEqual(r.status, 0, "\(param): \(r.err)")
            XCTAssertNotEqual(try contents("tuned\(i).csv"), try contents("plain.csv"), "\(param) changes the result")
        }
        for (param, says) in [
            ("batch.knotInterval=20", "'batch.knotInterval' must be within (0, 10]; got 20"),
            ("batch.gyroscopeNoise=0", "(0, 1]"), ("batch.windowDuration=nan", "(0, 86400]"),
            ("batch.noSuchThing=1", "has no parameter 'batch.noSuchThing'"),
        ] {
            let r = reconstruct(["--param", param], "bad.csv")
            XCTAssertEqual(r.status, 2, param)
            XCTAssert(r.err.contains(says), "\(param): \(r.err)")
        }
        let smoother = reconstruct(["--method", "smoother", "--param", "batch.knotInterval=0.2"], "s.csv")
        XCTAssertEqual(smoother.status, 2)
        XCTAssert(smoother.err.contains("batch method"), smoother.err)
        let replay = CommandRunner.run(["replay", trace, "--param", "batch.knotInterval=0.2", "--output", "-"])
        XCTAssertEqual(replay.status, 2)
        XCTAssert(replay.err.contains("'batch.knotInterval'"), replay.err)
    }
}
