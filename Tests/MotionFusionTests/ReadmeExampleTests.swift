import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// The README's examples, read from README.md when the test runs (never a copy) and run as a user
/// would: the command lines, the Python example and the Swift library example. Each runs in a
/// child process in a fresh folder holding a link to the project's `data/`, so the paths the
/// README uses resolve and what the examples write stays out of the checkout; the test process's
/// own working directory is never changed.
final class ReadmeExampleTests: XCTestCase {
    /// A fenced code block of README.md: its language (empty for none), text and first line.
    struct Block {
        var language: String
        var text: String
        var line: Int
    }

    static func blocks() throws -> [Block] {
        let readme = try String(contentsOfFile: TestData.packageRoot + "/README.md", encoding: .utf8)
        var blocks = [Block]()
        var open: Block?
        for (number, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("```") {
                if let block = open {
                    blocks.append(block)
                    open = nil
                } else {
                    open = Block(language: String(line.dropFirst(3)), text: "", line: number + 2)
                }
            } else if open != nil {
                open!.text += line + "\n"
            }
        }
        return blocks
    }

    /// The simple commands of a shell text, as words: separated by line breaks, `;` and `&&`,
    /// with single and double quotes and backslash line continuations.
    static func commands(_ text: String) -> [[String]] {
        var commands = [[String]]()
        var words = [String]()
        var word = ""
        var inWord = false
        var quote: Character?
        func endWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        func endCommand() {
            endWord()
            if !words.isEmpty { commands.append(words) }
            words = []
        }
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            let next = i + 1 < chars.count ? chars[i + 1] : nil
            if let q = quote {
                if c == q {
                    quote = nil
                } else if q == "\"" && c == "\\" && next != nil {
                    i += 1
                    word.append(chars[i])
                } else {
                    word.append(c)
                }
            } else if c == "'" || c == "\"" {
                quote = c
                inWord = true
            } else if c == "\\" && next == "\n" {
                i += 1
            } else if c == "\n" || c == ";" || (c == "&" && next == "&") {
                endCommand()
                if c == "&" { i += 1 }
            } else if c == " " || c == "\t" {
                endWord()
            } else if c == "#" && !inWord {
                while i + 1 < chars.count && chars[i + 1] != "\n" { i += 1 }
            } else {
                word.append(c)
                inWord = true
            }
            i += 1
        }
        endCommand()
        return commands
    }

    /// A fresh folder with `data` linking to the project's data folder.
    func workspace() throws -> String {
        let dir = TestData.temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir + "/data", withDestinationPath: TestData.projectData)
        return dir
    }

    /// The folder of the build under test: the executable, `libMotionFusionC.so` and `Modules`.
    func buildFolder() throws -> String { PathText.folder(try TestData.executable()) }

    /// An executable found on `PATH`, or nil.
    func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// What the test does with one README command: run it, or say which prerequisite it stands for
    /// that this test run already has.
    enum Action {
        case motionfusion([String])
        case python([String])
        case prerequisite(String)
    }

    static func action(_ words: [String]) -> Action? {
        switch (words.first ?? "", words.dropFirst().first ?? "") {
        case ("apt-get", _): return .prerequisite("the C libraries: this build links against them")
        case ("swift", "build"): return .prerequisite("the build: this test runs in it")
        case ("swift", "test"): return .prerequisite("the test suite: this test is part of it")
        case ("python3", "-m"): return .prerequisite("a virtual environment: python3 runs the package in place")
        case (".venv/bin/pip", "install"): return .prerequisite("the package: PYTHONPATH names python/")
        case (".build/release/motionfusion", _): return .motionfusion(Array(words.dropFirst()))
        case (".venv/bin/python", _): return .python(Array(words.dropFirst()))
        default: return nil
        }
    }

    /// Every command in the README's shell blocks, with the line of its block.
    func readmeCommands() throws -> [(words: [String], line: Int, action: Action?)] {
        try Self.blocks().filter { ["", "sh", "bash", "shell"].contains($0.language) }.flatMap { block in
            Self.commands(block.text).map { ($0, block.line, Self.action($0)) }
        }
    }

    /// Each shell command of the README is either run or a prerequisite this run already has; a
    /// command the test does not know fails it, so a new example is never silently left out.
    func testCommandLinesRun() throws {
        let commands = try readmeCommands()
        var ran = 0
        for (words, line, action) in commands {
            let what = "README.md:\(line): \(words.joined(separator: " "))"
            switch action {
            case nil:
                XCTFail("\(what): a command ReadmeExampleTests does not know how to run")
            case .prerequisite, .python:
                continue
            case .motionfusion(let args):
                let dir = try workspace()
                let r = try CommandRunner.process(args, in: dir)
                XCTAssertEqual(r.status, 0, "\(what): \(r.err)")
                // `replay` and `reconstruct` write a row per sample of the trace they name first.
                if ["replay", "reconstruct"].contains(args.first), let i = args.firstIndex(of: "--output"),
                    i + 1 < args.count, args[i + 1] != "-"
                {
                    let written = try String(contentsOfFile: PathText.join(dir, args[i + 1]), encoding: .utf8)
                    let samples = try TraceFormat.load(path: PathText.join(dir, args[1])).samples.count
                    XCTAssertEqual(written.split(separator: "\n").count, samples + 1, "\(what): a row per sample")
                }
                if args.contains("--score") { XCTAssert(r.err.contains("total"), "\(what): the score: \(r.err)") }
                ran += 1
            }
        }
        XCTAssertGreaterThan(ran, 0, "the quick start's command line")
    }

    /// The Python example, with python3 and numpy from this machine, the package from `python/` and
    /// the C library of this build (what `pip install ./python` would bundle).
    func testPythonExampleRuns() throws {
        let library = try buildFolder() + "/libMotionFusionC.so"
        guard FileManager.default.fileExists(atPath: library) else {
            throw XCTSkip("skipped: \(library) is not built")
        }
        guard let python = onPath("python3"),
            (try ChildProcess.run(python, ["-c", "import numpy"], output: .discard, error: .discard)).status == 0
        else { throw XCTSkip("skipped: python3 with numpy is not installed") }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = TestData.packageRoot + "/python"
        environment["MOTIONFUSION_LIBRARY"] = library
        // The package's C extension is compiled by pip; python/tests/test_readme.py runs the example
        // against the installed wheel where it is not built in the source tree.
        let extensionBuilt = try ChildProcess.run(
            python, ["-c", "import motionfusion._step"], environment: environment, output: .discard, error: .discard)
        guard extensionBuilt.status == 0 else {
            throw XCTSkip("skipped: motionfusion._step is not built in python/ (pip install -e ./python builds it)")
        }
        var ran = 0
        for case (let words, let line, .python(let args)?) in try readmeCommands() {
            let r = try ChildProcess.run(python, args, in: try workspace(), environment: environment)
            XCTAssertEqual(r.status, 0, "README.md:\(line): \(r.errText)")
            XCTAssertFalse(r.outText.isEmpty, "README.md:\(line): \(words.joined(separator: " ")) printed nothing")
            ran += 1
        }
        XCTAssertGreaterThan(ran, 0, "the Python example")
    }

    /// Each Swift block, compiled by swiftc as a program against this build's modules and C library,
    /// runs to its end (an error thrown at top level or a failed check ends it with a signal).
    func testLibraryExampleRuns() throws {
        let build = try buildFolder()
        guard FileManager.default.fileExists(atPath: build + "/libMotionFusionC.so") else {
            throw XCTSkip("skipped: \(build)/libMotionFusionC.so is not built")
        }
        guard let swiftc = onPath("swiftc") else { throw XCTSkip("skipped: swiftc is not on PATH") }
        let programs = try Self.blocks().filter { $0.language == "swift" }
        XCTAssertFalse(programs.isEmpty, "the library example")
        for block in programs {
            let dir = try workspace()
            try block.text.write(toFile: dir + "/main.swift", atomically: true, encoding: .utf8)
            let compiled = try ChildProcess.run(
                swiftc,
                [
                    "main.swift", "-o", "example", "-I", build + "/Modules", "-I",
                    TestData.packageRoot + "/Sources/CLAPACK", "-I", TestData.packageRoot + "/Sources/CZlib", "-L",
                    build,
                    "-lMotionFusionC", "-Xlinker", "-rpath", "-Xlinker", build,
                ], in: dir)
            XCTAssertEqual(compiled.status, 0, "README.md:\(block.line): \(compiled.errText)")
            guard compiled.status == 0 else { continue }
            let run = try ChildProcess.run(dir + "/example", [], in: dir)
            XCTAssertEqual(run.status, 0, "README.md:\(block.line): \(run.errText)")
        }
    }
}
