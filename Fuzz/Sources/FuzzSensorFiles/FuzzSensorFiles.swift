import FuzzSupport

/// libFuzzer entry: one input through the per-sensor folder reader (sensor-files). Errors are
/// expected; crashes, hangs and unbounded memory are findings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    runFuzzInput(data, size, target: .sensorfiles)
    return 0
}

/// The program entry SwiftPM links as main: hands control to libFuzzer's driver.
@_cdecl("FuzzSensorFiles_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzDriver(argc, argv, fuzz)
}
