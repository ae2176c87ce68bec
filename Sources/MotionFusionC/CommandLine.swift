import Glibc
import MotionFusion
import MotionFusionCommandLine
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// C strings `argv[0..<count]`.
func strings(_ argv: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int32) -> [String] {
    guard let argv, count > 0 else { return [] }
    return (0..<Int(count)).compactMap { argv[$0].map { String(cString: $0) } }
}

@_cdecl("mf_cli_run")
public func mf_cli_run(
    _ argc: Int32, _ argv: UnsafePointer<UnsafePointer<CChar>?>?, _ capture: Int32,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    let arguments = strings(argv, argc)
    guard capture != 0 else { return MotionFusionCLI.run(arguments) }
    // Folder runs print from several threads.
    let lock = Lock()
    var outText = ""
    var errText = ""
    var console = ConsoleOutput(
        out: { t in lock.withLock { outText += t } }, err: { t in lock.withLock { errText += t } })
    // Estimates written to `-` go through a descriptor, not the console: an unnamed temporary
    // file takes them, and they come first in the captured standard output.
    guard let file = tmpfile() else { return MotionFusionCLI.run(arguments, output: console) }
    defer { fclose(file) }
    let fd = fileno(file)
    console.standardOutput = fd
    let status = MotionFusionCLI.run(arguments, output: console)
    var written = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    lseek(fd, 0, SEEK_SET)
    while true {
        let n = read(fd, &chunk, chunk.count)
        guard n > 0 else { break }
        written += chunk[0..<n]
    }
    outText = String(decoding: written, as: UTF8.self) + outText
    out?.pointee = cString(outText)
    err?.pointee = cString(errText)
    return status
}

@_cdecl("mf_install_signal_handlers")
public func mf_install_signal_handlers() { PendingOutputs.installSignalHandlers() }

/// The plan of a folder run: the command line's own (``FolderRunner/plan(_:from:outputFolder:extraInputs:)``),
/// so runs that execute the command line once per trace write the same files as one
/// `replay`/`reconstruct SRC --output FOLDER`.
func folderPlan(source: String, folder: String?, format: TraceFormat?, extraInputs: [String]) throws -> JSONValue {
    let inputs = try TraceInputs.expand(source, format: format)
    guard inputs.count > 1 || inputs[0] != source else { return ["folder": false] }
    let plan = try FolderRunner.plan(inputs, from: source, outputFolder: folder, extraInputs: extraInputs)
    return [
        "folder": true, "inputs": .array(plan.inputs.map { .string($0) }),
        "outputs": .array(plan.outputs.map { .string($0.given) }), "notes": .array(plan.renamed.map { .string($0) }),
    ]
}

@_cdecl("mf_folder_plan")
public func mf_folder_plan(
    _ source: UnsafePointer<CChar>?, _ outputFolder: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?,
    _ extraInputs: UnsafePointer<UnsafePointer<CChar>?>?, _ extraCount: Int32,
    _ plan: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ error: UnsafeMutablePointer<CChar>?,
    _ errorCapacity: Int
) -> Int32 {
    reporting(error, errorCapacity) {
        guard let source = text(source) else { throw CallError.usage("a source path is needed") }
        let f = try Arguments.choice(format, "format", TraceFormat.self)
        let p = try folderPlan(
            source: source, folder: text(outputFolder), format: f, extraInputs: strings(extraInputs, extraCount))
        plan?.pointee = cString(p.text)
    }
}
