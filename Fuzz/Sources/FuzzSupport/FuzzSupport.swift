import Foundation
import Glibc
import MotionFusion

/// The readers under fuzzing.
public enum FuzzTarget: String, CaseIterable {
    case native, euroc, xiofusion, ximu3, phyphox, sensorlogger, estimate, calibration
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
        trace = try? Trace.readNative(path: write(all, "trace.csv"))
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
    var count = 0
    FilterKind.default.run(trace.samples, mode: .nineD) { e in
        precondition(e.attitude.isFinite, "non-finite attitude")
        count += 1
    }
    precondition(count == trace.samples.count, "lost samples")
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
