import Foundation
import Glibc
import MotionFusion
import MotionFusionTestSupport
import XCTest

@testable import MotionFusionCommandLine

/// Delimited recordings as other projects write them: lines before the header (Excel's `sep=`,
/// comments, an Xsens DOT export's metadata), comment and summary lines among the rows, a
/// trailing separator on the header only; and rows from a live pipe turned into estimates one by
/// one. Each file must give the same samples as the same table written plainly.
final class ForeignDelimitedTests: XCTestCase {
    static let header =
        "PacketCounter,SampleTimeFine,Quat_W,Quat_X,Quat_Y,Quat_Z,Gyr_X,Gyr_Y,Gyr_Z,Acc_X,Acc_Y,Acc_Z,Mag_X,Mag_Y,Mag_Z"

    /// An Xsens-DOT-like table at 60 Hz: counter, time in µs, quaternion, gyroscope, accelerometer,
    /// magnetometer, each row differing.
    static func rows(_ count: Int = 120) -> [String] {
        (0..<count).map { k in
            let t = Double(k) / 60
            let values = [
                1, 0, 0, 0, 0.02 * sin(t), 0.01, -0.03 * cos(t), 0.1 * sin(t), 0.2, 9.79, 20 + t, 5, -40,
            ]
            return "\(k),\(Int(t * 1e6))," + values.map { "\($0)" }.joined(separator: ",")
        }
    }

    static let plain = ([header] + rows()).joined(separator: "\n") + "\n"

    static let dotPreamble = [
        "DOT Firmware version: 2.4.0", "DOT Device ID: D4:22:CD:00:12:34", "Sample rate: 60Hz",
        "Filter profile: General", "Synchronization: disabled", "Payload mode: Custom mode 4",
        "Recording started: 2024-03-01 10:00:00",
    ]

    func load(_ text: String, _ options: DelimitedReadOptions = .init()) throws -> Trace {
        try TraceFormat.load(path: TestData.writeTemporary(text), options: options)
    }

    func assertSameSamples(_ a: Trace, _ b: Trace, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.samples.count, b.samples.count, file: file, line: line)
        XCTAssertEqual(a.samples, b.samples, file: file, line: line)
    }

    func notes(_ trace: Trace) -> [String] { trace.warnings.filter(\.isNote).map(\.description) }

    // MARK: Before the header

    func testXsensDotPreambleIsSkippedAndNoted() throws {
        let plain = try load(Self.plain)
        XCTAssertEqual(plain.samples.count, 120)
        XCTAssertEqual(plain.samples[1].t, 1.0 / 60, accuracy: 1e-6, "SampleTimeFine is in µs")
        let dot = try load((Self.dotPreamble + [Self.header] + Self.rows()).joined(separator: "\n") + "\n")
        assertSameSamples(plain, dot)
        XCTAssert(notes(dot).contains { $0.contains(":8: note: skipped 7 lines before the header") }, "\(notes(dot))")
        XCTAssert(notes(plain).isEmpty)
        // The command line runs it as it is and says what it skipped.
        let path = TestData.writeTemporary((Self.dotPreamble + [Self.header] + Self.rows()).joined(separator: "\n"))
        let r = CommandRunner.run(["replay", path, "--output", TestData.temporaryDirectory() + "/e.csv"])
        XCTAssertEqual(r.status, 0, r.err)
        XCTAssert(r.err.contains("note: skipped 7 lines before the header"), r.err)
    }

    func testSepLineNamesTheDelimiter() throws {
        let plain = try load(Self.plain)
        let semicolons = Self.plain.replacingOccurrences(of: ",", with: ";")
        let hinted = try load("sep=;\n" + semicolons)
        assertSameSamples(plain, hinted)
        // Excel with a decimal comma: `sep=;` and numbers written 0,5.
        let decimalComma = semicolons.replacingOccurrences(of: ".", with: ",")
        assertSameSamples(
            plain, try load("\u{FEFF}sep=;\r\n" + decimalComma.replacingOccurrences(of: "\n", with: "\r\n")))
    }

    func testCommentLinesBeforeTheHeaderAndAmongTheRowsAreSkippedAndCounted() throws {
        let plain = try load(Self.plain)
        var rows = Self.rows()
        rows.insert("# pause: sensor reconnected", at: 50)
        rows.insert("// marker 2", at: 80)
        let text =
            (["# exported by logger 1.2", "% MATLAB, 2024", "// comment, with, commas", "", Self.header] + rows)
            .joined(separator: "\n") + "\n"
        let commented = try load(text)
        assertSameSamples(plain, commented)
        XCTAssert(notes(commented).contains { $0.contains(":5: note: skipped 4 lines before the header") })
        XCTAssert(notes(commented).contains { $0.contains("skipped 2 comment line(s)") }, "\(notes(commented))")
        XCTAssertFalse(commented.warnings.contains { $0.message.contains("not data") })
        // EuRoC's header starts with '#' and stays the header, after a comment too.
        let euroc =
            "# saved by a spreadsheet\n#timestamp [ns],w_RS_S_x [rad s^-1],w_RS_S_y [rad s^-1],w_RS_S_z [rad s^-1],a_RS_S_x [m s^-2],a_RS_S_y [m s^-2],a_RS_S_z [m s^-2]\n"
            + "1403636579758555392,0.01,0.02,0.03,9.0,0.1,-3.0\n1403636579763555584,0.01,0.02,0.03,9.0,0.1,-3.0\n"
        let e = try load(euroc)
        XCTAssertEqual(e.samples.count, 2)
        XCTAssertEqual(e.samples[0].gyroscope, Vector3(0.01, 0.02, 0.03))
    }

    /// Lines shaped like the header (as many fields) are no preamble that detection can tell:
    /// the file fails as before, and `--skip-lines` says where the header is.
    func testSkipLinesChoosesTheHeaderWhenDetectionCannot() throws {
        let fields = Self.header.split(separator: ",").count
        let lookalike = (0..<fields).map { "note \($0)" }.joined(separator: ",")
        let path = TestData.writeTemporary(([lookalike, lookalike, Self.header] + Self.rows()).joined(separator: "\n"))
        let out = TestData.temporaryDirectory() + "/e.csv"
        XCTAssertEqual(CommandRunner.run(["replay", path, "--output", out]).status, 1)
        let skipped = CommandRunner.run(["replay", path, "--skip-lines", "2", "--output", out])
        XCTAssertEqual(skipped.status, 0, skipped.err)
        XCTAssert(skipped.err.contains("skipped 2 lines before the header (--skip-lines)"), skipped.err)
        let plainOut = TestData.temporaryDirectory() + "/p.csv"
        XCTAssertEqual(
            CommandRunner.run(["replay", TestData.writeTemporary(Self.plain), "--output", plainOut]).status, 0)
        XCTAssertEqual(
            try String(contentsOfFile: out, encoding: .utf8), try String(contentsOfFile: plainOut, encoding: .utf8))
        var options = DelimitedReadOptions()
        options.skipLines = 2
        assertSameSamples(
            try load(Self.plain),
            try load(([lookalike, lookalike, Self.header] + Self.rows()).joined(separator: "\n"), options))
        XCTAssert(CommandRunner.run(["help", "replay"]).out.contains("--skip-lines N"))
    }

    /// A names row over a units row, without `--header-rows 2`, is not taken for a preamble (the
    /// names stay the header): the units row is a second header row, said in a note, whose units
    /// apply.
    func testUnitsRowIsASecondHeaderRowNotAPreamble() throws {
        let text =
            "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\ns,deg/s,deg/s,deg/s,g,g,g\n0,0,0,0,0,0,1\n0.01,90,0,0,0,0,1\n"
        var strict = DelimitedReadOptions()
        strict.strict = true
        let trace = try load(text, strict)
        XCTAssertEqual(trace.samples.count, 2)
        XCTAssertEqual(trace.samples[0].accelerometer!.z, standardGravity, accuracy: 1e-12)
        XCTAssertEqual(trace.samples[1].gyroscope!.x, .pi / 2, accuracy: 1e-12)
        XCTAssert(
            notes(trace).contains { $0.contains(":1: note: read lines 1 and 2 as the header") }, "\(notes(trace))")
        XCTAssertFalse(notes(trace).contains { $0.contains("skipped") })
        // --header-rows 1 reads the line as data again: a row that is not data, refused by --strict.
        strict.headerRows = 1
        XCTAssertThrowsError(try load(text, strict)) { e in
            XCTAssertEqual((e as? TraceError)?.location.line, 2, "\(e)")
        }
    }

    // MARK: Among the rows

    func testSummaryAndJunkRowsAreDroppedAsValueFaults() throws {
        let plain = try load(Self.plain)
        var rows = Self.rows()
        rows.insert("--- logger paused ---", at: 30)
        rows.insert("n/a,n/a,n/a", at: 60)
        let text = ([Self.header] + rows + ["Step: 0.005 = 1/200"]).joined(separator: "\n") + "\n"
        let junk = try load(text)
        assertSameSamples(plain, junk)
        let warning = junk.warnings.first { $0.message.contains("row that is not data 3 times") }
        XCTAssertNotNil(warning, "\(junk.warnings)")
        XCTAssertEqual(warning?.location.description, "\(junk.source):32")
        XCTAssert(warning?.message.contains("--- logger paused ---") == true)
        // --strict refuses any of them, where it is.
        var strict = DelimitedReadOptions()
        strict.strict = true
        XCTAssertThrowsError(try load(text, strict)) { e in
            XCTAssertEqual((e as? TraceError)?.location.line, 32, "\(e)")
        }
        // A file of mostly junk still fails, naming file:line:column of the row that tips it.
        let mostlyJunk =
            ([Self.header] + Self.rows(20) + Array(repeating: "error,error,error", count: 30)).joined(separator: "\n")
        XCTAssertThrowsError(try load(mostlyJunk)) { e in
            let error = e as! TraceError
            XCTAssertEqual(error.location.line, 1 + 20 + 11)
            XCTAssertGreaterThan(error.location.column, 0)
            XCTAssert(error.description.contains("rows that are not data"), error.description)
        }
        // A row of numbers with a damaged field stays a structural error.
        var damaged = Self.rows()
        damaged[40] = damaged[40].replacingOccurrences(of: ",0.01,", with: ",0.0x1,")
        XCTAssertThrowsError(try load(([Self.header] + damaged).joined(separator: "\n"))) { e in
            XCTAssertEqual((e as? TraceError)?.kind, .malformedNumber)
        }
    }

    /// A quoted field holding a line break (RFC 4180) is one field: a header name written over two
    /// lines, a free-text note over two lines in a row. Rows read are those of the plain table, and
    /// an error after or within such a row is named at its own line and column of the file.
    func testQuotedLineBreakStaysInItsField() throws {
        let plain = try load(Self.plain)
        let header = "\"Note\r\n(free text)\"," + Self.header
        var rows = Self.rows().map { "," + $0 }
        rows[30] = "\"sensor moved\nby hand, then \"\"fixed\"\"\"," + Self.rows()[30]
        let text = ([header] + rows).joined(separator: "\n") + "\n"
        let quoted = try load(text)
        assertSameSamples(plain, quoted)
        XCTAssertEqual(quoted.samples.count, 120)
        let rowsReader = try DelimitedRows(ByteLineReader(bytes: Array(text.utf8), name: "q.csv"))
        XCTAssertEqual(rowsReader.names.first, "Note (free text)")
        XCTAssertEqual(rowsReader.columnCount, 16)
        // A damaged number on the second line of the row with the note: that line (header on lines
        // 1-2, row k on line k + 3), the column within it.
        var damaged = rows
        damaged[30] = damaged[30].replacingOccurrences(of: ",0.01,", with: ",0.0x1,")
        let secondLine = String(damaged[30].split(separator: "\n")[1])
        // The column of the bad byte, the 'x' of '0.0x1'.
        let bad = secondLine.range(of: "0.0x1")!.lowerBound
        let column = secondLine.utf8.distance(from: secondLine.startIndex, to: bad) + 4
        let path = TestData.writeTemporary(([header] + damaged).joined(separator: "\n") + "\n")
        let r = CommandRunner.run(["info", path])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("\(path):34:\(column): '0.0x1' in column 'Gyr_Y'"), r.err)
        // After it, rows are where they are in the file: row 50 on line 54.
        damaged = rows
        damaged[50] = damaged[50].replacingOccurrences(of: ",0.01,", with: ",0.0x1,")
        XCTAssertThrowsError(try load(([header] + damaged).joined(separator: "\n") + "\n")) { e in
            XCTAssertEqual((e as? TraceError)?.location.line, 54, "\(e)")
        }
        // A quote that never closes is no quoted field: the row is the one line, dropped as not data.
        var unclosed = Self.rows()
        unclosed.insert("\"logger paused", at: 30)
        let junk = try load(([Self.header] + unclosed).joined(separator: "\n") + "\n")
        assertSameSamples(plain, junk)
        let warning = junk.warnings.first { $0.message.contains("row that is not data") }
        XCTAssertEqual(warning?.location.description, "\(junk.source):32", "\(junk.warnings)")
    }

    /// Stray quotes swallow no rows: a quote that would open a field over several lines is a stray
    /// one when the next line starts as a data row (ditto marks, an unbalanced quote in a note four
    /// rows before another) or when the quote that would close it runs on into a name (a comment's
    /// quote before a quoted header). Every row is read, as from the file without the notes; and a
    /// quoted line break in the last row, with no line break after it, stays in its field.
    func testStrayQuotesSwallowNoRows() throws {
        let plain = try load(Self.plain)
        let header = Self.header + ",Note"
        var ditto = Self.rows().map { $0 + "," }
        for k in 10..<20 { ditto[k] += "\"" }
        ditto[40] += "he said \"hi"
        ditto[44] += "bye\" ok"
        let noted = try load(([header] + ditto).joined(separator: "\n") + "\n")
        assertSameSamples(plain, noted)
        let quotedHeader = Self.header.split(separator: ",").map { "\"\($0)\"" }.joined(separator: ",")
        let commented = try load(
            (["# recorded with \"Bob's logger", quotedHeader] + Self.rows()).joined(separator: "\n") + "\n")
        assertSameSamples(plain, commented)
        var last = Self.rows().map { $0 + "," }
        last[last.count - 1] += "\"last\nrow\""
        let unterminated = try load(([header] + last).joined(separator: "\n"))
        assertSameSamples(plain, unterminated)
        XCTAssertFalse(unterminated.warnings.contains { $0.message.contains("not data") }, "\(unterminated.warnings)")
        // `--skip-lines` counts the file's lines: a quoted comment over two lines is two of them.
        var options = DelimitedReadOptions()
        options.skipLines = 2
        let skipped = try load(
            (["\"comment over", "two lines\"", Self.header] + Self.rows()).joined(separator: "\n") + "\n", options)
        assertSameSamples(plain, skipped)
    }

    /// A quoted note over two lines whose second line starts with a number or a time and a comma
    /// (`"lap 1\n2, slower"`, `"stop\n10:30, paused"`, `"heading N\nE, then south"`), or whose
    /// closing quote has a space after it, stays in its field: it once made the second line a
    /// row, an error ("'slower\"' … is not a number") or a row that is not data, which `--strict`
    /// refused. The rows' shape decides (the record has the header's fields; the note's first
    /// line and the line going on it are not each a row), and the file's own separator only: in a
    /// `;` file with decimal commas, `"Strecke\n2,5 km"` is a note. A note in a middle column
    /// goes on the same way. Stray quotes are still stray (testStrayQuotesSwallowNoRows).
    func testQuotedLineBreakBeforeANumberAndACommaStaysInItsField() throws {
        let plain = try load(Self.plain)
        let header = Self.header + ",Note"
        for note in [
            "\"lap 1\n2, slower\"", "\"stop\n10:30, paused\"", "\"heading N\nE, then south\"", "\"a\nb\" ",
            "\"lap 1\n2, slower\nthen 3, faster\"",
        ] {
            var rows = Self.rows().map { $0 + "," }
            rows[30] += note
            let text = ([header] + rows).joined(separator: "\n") + "\n"
            let noted = try load(text)
            assertSameSamples(plain, noted)
            XCTAssertFalse(noted.warnings.contains { $0.message.contains("not data") }, "\(noted.warnings)")
            let path = TestData.writeTemporary(text)
            let strict = CommandRunner.run(["info", path, "--strict"])
            XCTAssertEqual(strict.status, 0, "\(note): \(strict.err)")
            // A damaged number after the note is named at its own line of the file.
            var damaged = rows
            damaged[40] = damaged[40].replacingOccurrences(of: ",0.01,", with: ",0.0x1,")
            XCTAssertThrowsError(try load(([header] + damaged).joined(separator: "\n") + "\n")) {
                let lines = note.filter { $0 == "\n" }.count
                XCTAssertEqual(($0 as? TraceError)?.location.line, 42 + lines, "\(note): \($0)")
            }
        }
        // A note in a middle column.
        let middle =
            ["Note," + Self.header]
            + Self.rows().enumerated().map { $0 == 30 ? "\"lap 1\n2, slower\"," + $1 : "," + $1 }
        assertSameSamples(plain, try load(middle.joined(separator: "\n") + "\n"))
        // Semicolons and decimal commas.
        let semicolons = { (rows: [String]) in
            rows.map { $0.replacingOccurrences(of: ",", with: ";").replacingOccurrences(of: ".", with: ",") }
        }
        var german = semicolons(Self.rows()).map { $0 + ";" }
        german[30] += "\"Strecke\n2,5 km\""
        let semicolonFile = ([semicolons([header])[0]] + german).joined(separator: "\n") + "\n"
        let decimal = try load(semicolonFile)
        XCTAssertEqual(decimal.samples.count, 120)
        XCTAssertEqual(decimal.samples.map(\.t), plain.samples.map(\.t))
        XCTAssertFalse(decimal.warnings.contains { $0.message.contains("not data") }, "\(decimal.warnings)")
        // A stray quote in a ';' file still swallows no rows: the next line starts as a data row.
        var stray = semicolons(Self.rows()).map { $0 + ";" }
        stray[30] += "\"ditto"
        let strayTrace = try load(([semicolons([header])[0]] + stray).joined(separator: "\n") + "\n")
        XCTAssertEqual(strayTrace.samples.count, 120)
    }

    /// A row of numbers separated by another delimiter than the file's (`;` or tabs in a comma
    /// file) is a value fault of its own, at its file:line:column: dropped and reported as a row
    /// with another delimiter, not as a row that is not data.
    func testRowWithAnotherDelimiterIsAValueFault() throws {
        var rows = Self.rows()
        rows[40] = rows[40].replacingOccurrences(of: ",", with: ";")
        rows[70] = rows[70].replacingOccurrences(of: ",", with: "\t")
        let text = ([Self.header] + rows).joined(separator: "\n") + "\n"
        var kept = Self.rows()
        kept.remove(at: 70)
        kept.remove(at: 40)
        let expected = try load(([Self.header] + kept).joined(separator: "\n") + "\n")
        let trace = try load(text)
        assertSameSamples(expected, trace)
        let warning = trace.warnings.first { $0.message.hasPrefix("row with another delimiter 2 times") }
        XCTAssertNotNil(warning, "\(trace.warnings)")
        XCTAssertEqual(warning?.location.description, "\(trace.source):42:3")
        XCTAssert(warning?.message.contains("(fields separated by ';', the file's by ',')") == true, "\(warning!)")
        XCTAssertFalse(trace.warnings.contains { $0.message.contains("not data") }, "\(trace.warnings)")
        // --strict refuses it where it is, with a non-zero exit.
        let path = TestData.writeTemporary(text)
        let r = CommandRunner.run(["info", path, "--strict"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssert(r.err.contains("\(path):42:3: a row with another delimiter"), r.err)
    }

    /// After skipped lines, a bad header is named at its own line, and skipping past the end says so.
    func testHeaderErrorsAfterSkippedLinesAreAtTheirLine() {
        let text = (Self.dotPreamble + ["0.0,1,2", "1.0,2,3"]).joined(separator: "\n") + "\n"
        let path = TestData.writeTemporary(text)
        let bad = CommandRunner.run(["info", path, "--skip-lines", "7"])
        XCTAssertEqual(bad.status, 1)
        XCTAssert(bad.err.contains("\(path):8:1: the header line is numbers"), bad.err)
        let past = CommandRunner.run(["info", path, "--skip-lines", "50"])
        XCTAssertEqual(past.status, 1)
        XCTAssert(past.err.contains("no header line after skipping 50 lines"), past.err)
    }

    /// A status row right under the header is dropped like any other, and does not decide the
    /// separator (it once made the file read as space-separated: "no time column found").
    func testJunkRowRightUnderTheHeader() throws {
        let plain = try load(Self.plain)
        for status in ["status: ok", "Recording started"] {
            let text = ([Self.header, status] + Self.rows()).joined(separator: "\n") + "\n"
            let junk = try load(text)
            assertSameSamples(plain, junk)
            XCTAssert(junk.warnings.contains { $0.message.contains("row that is not data") }, "\(junk.warnings)")
        }
    }

    // MARK: Trailing separators

    func testTrailingSeparatorOnTheHeaderOnly() throws {
        let rows = Self.rows().map { $0.split(separator: ",").dropFirst().joined(separator: ";") }
        let plain =
            "t;qw;qx;qy;qz;gyr_x;gyr_y;gyr_z;acc_x;acc_y;acc_z;mag_x;mag_y;mag_z\n" + rows.joined(separator: "\n")
        var microseconds = DelimitedReadOptions()
        microseconds.units = "t=us"
        let reference = try load(plain, microseconds)
        XCTAssertEqual(reference.samples.count, 120)
        // Named header with a trailing ';', detected.
        let named =
            "t;qw;qx;qy;qz;gyr_x;gyr_y;gyr_z;acc_x;acc_y;acc_z;mag_x;mag_y;mag_z;\n" + rows.joined(separator: "\n")
        assertSameSamples(reference, try load(named, microseconds))
        // Rows with the trailing ';' instead.
        let rowsTrailing =
            "t;qw;qx;qy;qz;gyr_x;gyr_y;gyr_z;acc_x;acc_y;acc_z;mag_x;mag_y;mag_z\n"
            + rows.map { $0 + ";" }.joined(separator: "\n")
        assertSameSamples(reference, try load(rowsTrailing, microseconds))
        // `;W;X;Y;Z;…;`: an unnamed time column and a trailing ';', with --columns, the separator
        // detected or given.
        let unnamed = ";W;X;Y;Z;GX;GY;GZ;AX;AY;AZ;MX;MY;MZ;\n" + rows.joined(separator: "\n")
        var columns = microseconds
        columns.columns = "t=1,gyr=6,acc=9,mag=12"
        assertSameSamples(reference, try load(unnamed, columns))
        columns.separator = .byte(UInt8(ascii: ";"))
        assertSameSamples(reference, try load(unnamed, columns))
        let path = TestData.writeTemporary(unnamed)
        let r = CommandRunner.run([
            "replay", path, "--delimiter", "semicolon", "--columns", "t=1,gyr=6,acc=9,mag=12", "--units", "t=us",
            "--output", TestData.temporaryDirectory() + "/e.csv",
        ])
        XCTAssertEqual(r.status, 0, r.err)
    }

    // MARK: Live pipes

    /// Rows fed one at a time through a pipe into the replay path of the command line: whenever
    /// the reader asks for more input, every row fed so far already has its estimate written to
    /// the output pipe. The feeding happens in the reader's own `beforeRead`, so nothing waits on
    /// another thread and the test cannot hang: a read always finds a row, or the end.
    func testLiveStreamWritesEachEstimateBeforeReadingTheNextRow() throws {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&input), 0)
        XCTAssertEqual(pipe(&output), 0)
        defer { for fd in [input[0], output[0], output[1]] { close(fd) } }
        // The output is drained without blocking, and a full output pipe is an error, not a wait.
        for fd in [output[0], output[1]] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let lines =
            ["t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z"]
            + (0..<40).map { "\(Double($0) * 0.01),0.01,0.02,-0.01,0.1,0.2,9.8" }
        var fed = 0
        var written = ""
        var checks = [(rows: Int, estimates: Int)]()
        let reader = ByteLineReader(descriptor: input[0], name: "pipe", chunkSize: 4096)
        reader.beforeRead = {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(output[0], &chunk, chunk.count)
                guard n > 0 else { break }
                written += String(decoding: chunk[0..<n], as: UTF8.self)
            }
            let estimates = written.split(separator: "\n").dropFirst().count
            checks.append((max(0, fed - 1), estimates))
            if fed < lines.count {
                let line = Array((lines[fed] + "\n").utf8)
                XCTAssertEqual(write(input[1], line, line.count), line.count)
                fed += 1
            } else if input[1] >= 0 {
                close(input[1])
                input[1] = -1
            }
        }
        var settings = TraceRunSettings()
        settings.run.configuration = RunConfiguration(.ekf, mode: .sixD)
        let console = ConsoleOutput(out: { _ in }, err: { _ in })
        let outcome = try TraceRunCommand.runOne(
            TraceFormat.open(stream: reader, options: .init()), settings,
            OutputTarget.resolve("/proc/self/fd/\(output[1])", protecting: InputFiles()), report: nil,
            liveInput: true, score: false, uncertainty: { _ in true }, console, ReplayCommand.replay)
        XCTAssertEqual(outcome.samples, 40)
        XCTAssertEqual(checks.count, lines.count + 1)
        for c in checks {
            XCTAssertEqual(c.estimates, c.rows, "estimates out when the reader waits for row \(c.rows + 1)")
        }
    }
}
