import MotionFusion

/// C strings `argv[0..<count]`.
func strings(_ argv: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int32) -> [String] {
    guard let argv, count > 0 else { return [] }
    return (0..<Int(count)).compactMap { argv[$0].map { String(cString: $0) } }
}

/// The plan of a folder run as JSON: the library's ``FolderPlan``, the one `replay`/`reconstruct
/// SRC --output FOLDER` follows, so runs that execute the command line once per trace write the
/// same files with the same notices.
func folderPlan(source: String, folder: String?, format: TraceFormat?, extraInputs: [String]) throws -> JSONValue {
    guard let plan = try FolderPlan.make(source: source, format: format, outputFolder: folder, extraInputs: extraInputs)
    else { return ["folder": false] }
    return [
        "folder": true, "inputs": .array(plan.inputs.map { .string($0) }),
        "outputs": .array(plan.outputs.map { .string($0.given) }), "notes": .array(plan.notes.map { .string($0) }),
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
