import Foundation
import MotionFusion
import MotionFusionTestSupport
import XCTest

/// Fault injection on every filter and on the smoother: for each fault, no crash, no NaN or
/// infinity in any output, one output per input, and recovery to within 2° of the undisturbed
/// estimate (tilt only in 6D, where heading after a re-initialisation is arbitrary) within the
/// stated time after the fault ends.
final class FaultInjectionTests: XCTestCase {
    struct Fault {
        var name: String
        /// Applies the fault to samples (times in s); returns the time the fault ends.
        var apply: (inout [SensorSample]) -> Double
    }

    static let start = 20.0

    static func indices(_ s: [SensorSample], from a: Double, to b: Double) -> [Int] {
        s.indices.filter { s[$0].t >= a && s[$0].t < b }
    }

    static var faults: [Fault] {
        var list = [Fault]()
        let sensors: [(String, WritableKeyPath<SensorSample, Vector3?>)] = [
            ("gyroscope", \.gyroscope), ("accelerometer", \.accelerometer), ("magnetometer", \.magnetometer),
        ]
        for (name, key) in sensors {
            for (label, value) in [
                ("NaN", Vector3(.nan, 0, 0)), ("infinity", Vector3(0, .infinity, 0)), ("zero vector", Vector3.zero),
            ] {
                list.append(
                    Fault(name: "\(label) burst in \(name)") { s in
                        for k in indices(s, from: start, to: start + 1) { s[k][keyPath: key] = value }
                        return start + 1
                    })
            }
        }
        list.append(
            Fault(name: "gyroscope saturation at 0.3 rad/s for 3 s") { s in
                for k in indices(s, from: start, to: start + 3) {
                    if let g = s[k].gyroscope {
                        s[k].gyroscope = Vector3(
                            max(-0.3, min(0.3, g.x)), max(-0.3, min(0.3, g.y)), max(-0.3, min(0.3, g.z)))
                    }
                }
                return start + 3
            })
        list.append(
            Fault(name: "accelerometer clipping at 8 m/s² for 3 s") { s in
                for k in indices(s, from: start, to: start + 3) {
                    if let a = s[k].accelerometer {
                        s[k].accelerometer = Vector3(max(-8, min(8, a.x)), max(-8, min(8, a.y)), max(-8, min(8, a.z)))
                    }
                }
                return start + 3
            })
        for gap in [0.01, 1.0, 10.0] {
            list.append(
                Fault(name: "dropout of \(gap) s") { s in
                    s.removeAll { $0.t > start && $0.t < start + gap + 0.005 }
                    return start + gap
                })
        }
        list.append(
            Fault(name: "clock jumps back by 5 s") { s in
                for k in indices(s, from: start, to: start + 0.02) { s[k].t -= 5 }
                return start + 0.02
            })
        list.append(
            Fault(name: "clock jumps forward by 2 hours") { s in
                for k in s.indices where s[k].t >= start { s[k].t += 7200 }
                return start
            })
        list.append(
            Fault(name: "duplicate timestamps") { s in
                for k in indices(s, from: start, to: start + 1) where k % 2 == 0 && k + 1 < s.count {
                    s[k + 1].t = s[k].t
                }
                return start + 1
            })
        list.append(
            Fault(name: "sample rate halves mid-trace") { s in
                var keep = [SensorSample]()
                for (k, x) in s.enumerated() where x.t < start || k % 2 == 0 { keep.append(x) }
                s = keep
                return start
            })
        list.append(
            Fault(name: "magnetic disturbance step of 30 µT for 10 s") { s in
                for k in indices(s, from: start, to: start + 10) {
                    if let m = s[k].magnetometer, let q = s[k].truth {
                        s[k].magnetometer = m + q.inverseRotate(Vector3(30, 0, 0))
                    }
                }
                return start + 10
            })
        list.append(
            Fault(name: "free fall for 0.5 s") { s in
                for k in indices(s, from: start, to: start + 0.5) { s[k].accelerometer = Vector3(0.01, -0.02, 0.03) }
                return start + 0.5
            })
        return list
    }

    /// Stated recovery times, s (docs/Reliability.md): the EKF widens its covariance when the
    /// sensors disagree, the classic filters converge at their fixed gains.
    static func recoveryTime(_ kind: FilterKind) -> Double {
        switch kind {
        case .ekf: return 30
        case .complementary, .mahony, .madgwick: return 60
        case .ecompass, .tilt: return 1
        }
    }

    func clean() -> Trace {
        FilterTests.simulated(.slowRotation, duration: 120, rate: 100)
    }

    /// The time-`t` attitude of a list of outputs (nearest sample).
    func attitude(at t: Double, _ times: [Double], _ q: [Quaternion]) -> Quaternion {
        let i = times.indices.min { abs(times[$0] - t) < abs(times[$1] - t) }!
        return q[i]
    }

    func check(
        _ name: String, mode: FusionMode, recovery: Double, end: Double, faulty: [SensorSample], clean: [SensorSample],
        estimate: ([SensorSample]) -> [Quaternion], timeShift: Double = 0
    ) {
        let qf = estimate(faulty)
        XCTAssertEqual(qf.count, faulty.count, "\(name): one output per input")
        XCTAssert(qf.allSatisfy { $0.isFinite && abs($0.norm - 1) < 1e-9 }, "\(name): finite unit outputs")
        let qc = estimate(clean)
        let t = end + recovery
        let a = attitude(at: t + timeShift, faulty.map(\.t), qf)
        let b = attitude(at: t, clean.map(\.t), qc)
        let error: Double
        if mode == .nineD {
            error = a.angle(to: b).degrees
        } else {
            error = a.inverseRotate(.unitZ).dot(b.inverseRotate(.unitZ)).acosClamped.degrees
        }
        XCTAssertLessThan(error, 2, "\(name): \(error)° from the undisturbed estimate \(recovery) s after the fault")
    }

    func testEveryFilterSurvivesEveryFault() {
        let trace = clean()
        for fault in Self.faults {
            var faulty = trace.samples
            let end = fault.apply(&faulty)
            let shift = fault.name.contains("2 hours") ? 7200.0 : 0
            for kind in FilterKind.allCases {
                for mode in kind.modes {
                    // The filter's recovery, sample by sample in both runs: a fault in the opening
                    // stretch can keep the magnetometer look-ahead from starting the faulty run
                    // calibrated (checked on its own below).
                    var run = RunConfiguration(kind, mode: mode)
                    run.magnetometerLookAhead = 0
                    check(
                        "\(kind.rawValue) \(mode.rawValue), \(fault.name)", mode: mode,
                        recovery: Self.recoveryTime(kind), end: end, faulty: faulty,
                        clean: trace.samples, estimate: { run.attitudes($0) }, timeShift: shift)
                    let ahead = RunConfiguration(kind, mode: mode).attitudes(faulty)
                    XCTAssertEqual(ahead.count, faulty.count, "\(kind.rawValue) \(mode.rawValue), \(fault.name)")
                    XCTAssert(
                        ahead.allSatisfy { $0.isFinite && abs($0.norm - 1) < 1e-9 },
                        "\(kind.rawValue) \(mode.rawValue), \(fault.name): finite unit outputs with the look-ahead")
                }
            }
        }
    }

    func testSmootherSurvivesEveryFault() {
        let trace = clean()
        for fault in Self.faults {
            var faulty = trace.samples
            let end = fault.apply(&faulty)
            let shift = fault.name.contains("2 hours") ? 7200.0 : 0
            for mode in [FusionMode.nineD, .sixD] {
                var p = AttitudeSmoother.Parameters()
                p.filter.mode = mode
                check(
                    "smoother \(mode.rawValue), \(fault.name)", mode: mode, recovery: 30, end: end,
                    faulty: faulty,
                    clean: trace.samples, estimate: { AttitudeSmoother(parameters: p).reconstruct($0).map(\.attitude) },
                    timeShift: shift)
            }
        }
    }
}

/// The command-line contract under signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT end a run with exit
/// status 128 + the signal number and leave no temporary or half-written file.
final class InterruptTests: XCTestCase {
    func testSignalsLeaveNoPartialOutput() throws {
        let binary = try TestData.executable()
        let header = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z\n"
        for (signal, expected) in [(SIGINT, Int32(130)), (SIGTERM, 143), (SIGHUP, 129), (SIGQUIT, 131)] {
            let dir = TestData.temporaryDirectory()
            let out = dir + "/out.csv"
            // Standard input stays open, so the run is still writing when the signal arrives.
            let child = try ChildProcess(
                binary, ["replay", "-", "--output", out], input: .open, output: .discard, error: .discard)
            var rows = header
            for k in 0..<2000 { rows += "\(Double(k) * 0.01),0,0,0.1,0,0,9.81\n" }
            XCTAssertTrue(child.write(Data(rows.utf8)), "the run reads its input")
            // Signal once the temporary output exists. The deadline only keeps a run that never
            // writes from hanging the test; how soon the file appears is not under test.
            let started = child.read(timeout: 300) { _ in
                !((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).isEmpty
            }
            XCTAssertTrue(started, "the run started writing")
            child.send(signal)
            // Input stays open until the run has ended, so only the signal can have ended it.
            child.read(timeout: 300) { !$0.process.isRunning }
            child.finish()
            XCTAssertEqual(child.process.terminationStatus, expected, "signal \(signal)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], "no temporary or partial file")
        }
    }
}

/// Regression tests for the fuzzing findings. Whether rejected inputs leak memory is measured by
/// the benchmarks (`Benchmarks/run.sh --only memory`), never here.
final class FuzzFindingTests: XCTestCase {
    /// Found by fuzzing the native reader: the header's column offsets were computed by splitting
    /// the header again for every column, so a header of n commas cost n² (a 1 MB header would
    /// have hung the reader for hours). The file of 100 000 columns is read by the command in its
    /// own process, so a reader that hangs again fails the test when the process is killed at its
    /// deadline instead of hanging it; how long the read takes is not measured.
    func testLongHeaderIsReadInLinearTime() throws {
        let header = "t,acc_x,acc_y,acc_z," + Array(repeating: "x", count: 100_000).joined(separator: ",")
        let row = "0,0,0,9.81," + Array(repeating: "1", count: 100_000).joined(separator: ",")
        let path = TestData.writeTemporary(header + "\n" + row + "\n")
        let info = try CommandRunner.process(["info", path, "--json"])
        XCTAssertEqual(info.status, 0, info.err)
        let json = try JSONSerialization.jsonObject(with: Data(info.out.utf8)) as? [String: Any]
        XCTAssertEqual(json?["samples"] as? Int, 1, info.out)
    }

    /// Found by fuzzing `.zip` archives: an entry of one compressed byte claimed 654 MB, and the
    /// reader allocated what the directory claimed (out of memory). A claim beyond DEFLATE's largest
    /// expansion is now refused, from the directory, before the entry is read.
    func testZipEntryClaimingMoreThanItsDataCanHoldIsRefused() throws {
        let hex = [
            "504b030414000000f8ff7e927e5de29a50a12b0000004600000011000000416363656c65726f6d657465722e63737653",
            "0ac9cc4d55d028d654d2518a50d0c8d52f8e3402b12391d8517036b7810e085aea597019e81918c23900504b01023b03",
            "14000000080089927e5de29a50a10100000000000027110000000000000000000000800100000000416363656c65726f",
            "6d657465722e637376504b050600000000010001003f0000005a0000000000",
        ].joined()
        var bytes = [UInt8]()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        let path = TestData.temporaryDirectory() + "/bomb.zip"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try TraceFormat.load(path: path)) { error in
            XCTAssert("\(error)".contains("claims"), "\(error)")
        }
    }

    /// Found by fuzzing the phyphox importer: a file rejected while its bytes were being parsed
    /// leaked the whole read buffer (out of memory after 4.6 million inputs). Also the native
    /// reader (scratch buffers of a rejected header) and calibration files. Each is refused, every
    /// time; the memory of many refusals is measured by `Benchmarks/run.sh --only memory`.
    func testRejectedInputsAreRefused() throws {
        let dir = TestData.temporaryDirectory()
        // The fuzzer's input, reduced: a one-column header that names no time column.
        let header = String(repeating: "\u{0}", count: 64) + "TimT" + String(repeating: "\u{0}", count: 64)
        try (header + "\n1e19\n3e19").write(toFile: dir + "/Accelerometer.csv", atomically: true, encoding: .utf8)
        try "t,foo\n0,1\n".write(toFile: dir + "/native.csv", atomically: true, encoding: .utf8)
        try String(repeating: "x", count: 4000).write(toFile: dir + "/cal.json", atomically: true, encoding: .utf8)
        for _ in 0..<3 {
            XCTAssertThrowsError(try TraceFormat.load(path: dir + "/Accelerometer.csv", format: .phyphox))
            XCTAssertThrowsError(try TraceFormat.load(path: dir + "/native.csv"))
            XCTAssertThrowsError(try SensorCalibration(contentsOf: dir + "/cal.json"))
        }
    }
}
