import Foundation
import Glibc
import MotionFusion
import MotionFusionCommandLine

/// The readers under fuzzing, and the command line itself.
public enum FuzzTarget: String, CaseIterable {
    case native, delimited, euroc, xiofusion, ximu3, phyphox, sensorlogger, sensorfiles, zip, estimate, calibration,
        commandline
}

/// A private scratch folder per process (inputs are files, as users give them).
let scratch: String = {
    // tmpfs: inputs never touch a disk.
    let root = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()
    let p = root + "motionfusion-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
    return p
}()

func write(_ bytes: UnsafeBufferPointer<UInt8>, _ name: String) -> String {
    let path = scratch + "/" + name
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if fd >= 0 {
        if let base = bytes.baseAddress, bytes.count > 0 { _ = Glibc.write(fd, base, bytes.count) }
        close(fd)
    }
    return path
}

/// Splits the input at 0xFF bytes into up to `count` files' contents.
func parts(_ data: UnsafePointer<UInt8>, _ size: Int, _ count: Int) -> [UnsafeBufferPointer<UInt8>] {
    var out = [UnsafeBufferPointer<UInt8>]()
    var start = 0
    for i in 0..<size where data[i] == 0xFF && out.count < count - 1 {
        out.append(UnsafeBufferPointer(start: data + start, count: i - start))
        start = i + 1
    }
    out.append(UnsafeBufferPointer(start: data + start, count: size - start))
    return out
}

/// Feeds one fuzz input to a reader, then (when it reads) through the default filter, and checks
/// the invariants: no crash, every sample gives one finite output.
public func runFuzzInput(_ data: UnsafePointer<UInt8>, _ size: Int, target: FuzzTarget) {
    let all = UnsafeBufferPointer(start: data, count: size)
    var trace: Trace?
    switch target {
    case .native:
        trace = try? TraceFormat.load(path: write(all, "trace.csv"), format: .native)
    case .delimited:
        // The first part holds the options (KEY=VALUE lines: columns, units, remap, header-rows,
        // delimiter), the second the file.
        let p = parts(data, size, 2)
        var options = DelimitedReadOptions()
        for line in String(decoding: p[0], as: UTF8.self).split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
            guard kv.count == 2 else { continue }
            switch kv[0] {
            case "columns": options.columns = kv[1]
            case "units": options.units = kv[1]
            case "remap": options.remap = try? SensorRemap(spec: kv[1])
            case "header-rows": options.headerRows = min(50, max(0, Int(kv[1]) ?? 1))
            case "delimiter": options.separator = TextDialect.separator(named: kv[1])
            case "strict": options.strict = true
            default: break
            }
        }
        trace = try? TraceFormat.load(
            path: write(p.count > 1 ? p[1] : UnsafeBufferPointer(start: data, count: 0), "any.txt"), format: .delimited,
            options: options)
    case .zip:
        trace = try? TraceFormat.load(path: write(all, "export.zip"))
    case .commandline:
        runCommandLine(data, size)
    case .xiofusion:
        trace = try? TraceFormat.load(path: write(all, "sensor_data.csv"), format: .xioFusion)
    case .euroc:
        let p = parts(data, size, 2)
        try? FileManager.default.createDirectory(
            atPath: scratch + "/mav0/imu0", withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(
            atPath: scratch + "/mav0/state_groundtruth_estimate0", withIntermediateDirectories: true)
        _ = write(p[0], "mav0/imu0/data.csv")
        if p.count > 1 {
            _ = write(p[1], "mav0/state_groundtruth_estimate0/data.csv")
        } else {
            unlink(scratch + "/mav0/state_groundtruth_estimate0/data.csv")
        }
        trace = try? TraceFormat.load(path: scratch + "/mav0/imu0/data.csv", format: .euroc)
    case .ximu3:
        let p = parts(data, size, 2)
        let inertial = write(p[0], "Inertial.csv")
        if p.count > 1 {
            _ = write(p[1], "Magnetometer.csv")
        } else {
            unlink(scratch + "/Magnetometer.csv")
        }
        trace = try? TraceFormat.load(path: inertial, format: .ximu3)
    case .phyphox, .sensorlogger:
        let names =
            target == .phyphox
            ? ["Accelerometer.csv", "Gyroscope.csv", "Magnetometer.csv"]
            : ["Accelerometer.csv", "Gravity.csv", "Gyroscope.csv", "Magnetometer.csv"]
        let p = parts(data, size, names.count)
        for (i, name) in names.enumerated() {
            if i < p.count {
                _ = write(p[i], name)
            } else {
                unlink(scratch + "/" + name)
            }
        }
        trace = try? TraceFormat.load(
            path: scratch + "/" + names[0], format: target == .phyphox ? .phyphox : .sensorLogger)
    case .sensorfiles:
        // A folder of its own: per-sensor files named for their sensors (date-time clocks too).
        let folder = scratch + "/sensors"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let names = ["accel.csv", "gyro.txt", "Compass.csv"]
        let p = parts(data, size, names.count)
        for (i, name) in names.enumerated() {
            if i < p.count {
                _ = write(p[i], "sensors/" + name)
            } else {
                unlink(folder + "/" + name)
            }
        }
        trace = try? TraceFormat.load(path: folder, format: .sensorFiles)
    case .estimate:
        _ = try? EstimateReader.read(path: write(all, "estimate.csv"))
    case .calibration:
        if let c = try? SensorCalibration(contentsOf: write(all, "cal.json")) {
            _ = c.apply(SensorSample(t: 0, gyroscope: .unitX, accelerometer: .unitZ, magnetometer: .unitY))
        }
    }
    // Filter the parsed trace too (every sample must give a finite output); long fuzz inputs only
    // slow the search down, so the filter check is kept to the first 200 samples.
    guard var trace, !trace.samples.isEmpty else { return }
    if trace.samples.count > 200 { trace.samples.removeLast(trace.samples.count - 200) }
    let estimates = RunConfiguration().estimates(trace.samples)
    precondition(estimates.allSatisfy { $0.attitude.isFinite }, "non-finite attitude")
    precondition(estimates.count == trace.samples.count, "lost samples")
}

/// The command line with fuzzed arguments (split at NUL bytes), run in a scratch folder that
/// holds a small trace `t.csv`. Arguments are kept inside that folder: `/` and `..` are removed,
/// so no run can touch a file outside it. `simulate` is left out (its output size is bounded by
/// its own check, which has a test, and large runs would only slow the search).
func runCommandLine(_ data: UnsafePointer<UInt8>, _ size: Int) {
    let folder = scratch + "/cli"
    if !FileManager.default.fileExists(atPath: folder + "/t.csv") {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,gt_qw,gt_qx,gt_qy,gt_qz,moving\n"
        for k in 0..<300 { text += "\(Double(k) * 0.01),0.01,0,0.2,0,0.1,9.8,20,0,-40,1,0,0,0,1\n" }
        try? text.write(toFile: folder + "/t.csv", atomically: true, encoding: .utf8)
    }
    var args = [String]()
    var start = 0
    for i in 0...size where i == size || data[i] == 0 {
        let text = String(decoding: UnsafeBufferPointer(start: data + start, count: i - start), as: UTF8.self)
        args.append(text.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "..", with: "__"))
        start = i + 1
        if args.count >= 16 { break }
    }
    guard let first = args.first, first != "simulate", !args.contains("simulate") else { return }
    FileManager.default.changeCurrentDirectoryPath(folder)
    _ = MotionFusionCLI.run(args, output: ConsoleOutput(out: { _ in }, err: { _ in }))
    // Keep the folder small: remove what the run wrote, keep the trace.
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name != "t.csv" {
        try? FileManager.default.removeItem(atPath: folder + "/" + name)
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer's driver with `callback` as the target.
public func runFuzzDriver(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var c = argc
    var v = argv
    return LLVMFuzzerRunDriver(&c, &v, callback)
}
