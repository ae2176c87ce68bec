#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a run over a folder of traces writes: every trace's output in the output folder, resolved
/// and checked against every input before anything runs, and the notices printed before the run.
/// The one plan of `replay`/`reconstruct SRC --output FOLDER` and of the C ABI's `mf_folder_plan`.
public struct FolderPlan: Sendable {
    /// The traces, in order.
    public var inputs: [String]
    /// The output of each trace.
    public var outputs: [OutputTarget]
    /// The lines printed before the run: entries skipped and files named for one sensor (when the
    /// plan was made from the folder, ``make(source:format:outputFolder:extraInputs:)``), then
    /// `INPUT -> NAME (another trace has the same name)` for each output renamed.
    public var notes: [String]

    /// Output names for `inputs`: the input's name without its extension, plus `.csv`; when two
    /// inputs share a name, the later ones get `-2`, `-3`, ….
    public static func outputNames(_ inputs: [String]) -> [String] {
        var used = Set<String>()
        return inputs.map { input in
            var stem = PathText.name(input)
            let ext = PathText.fileExtension(stem)
            if ["csv", "txt", "tsv", "zip"].contains(ext) { stem = PathText.stem(stem) }
            var name = stem + ".csv"
            var k = 2
            while used.contains(name.lowercased()) {
                name = "\(stem)-\(k).csv"
                k += 1
            }
            used.insert(name.lowercased())
            return name
        }
    }

    /// The plan of the TRACE argument `source` into `outputFolder` (``make(_:from:outputFolder:extraInputs:)``
    /// after ``TraceInputs/select(_:format:)``), or nil when `source` names one trace.
    public static func make(source: String, format: TraceFormat?, outputFolder: String?, extraInputs: [String])
        throws -> FolderPlan?
    {
        let (traces, notes) = try TraceInputs.select(source, format: format)
        guard TraceInputs.isFolder(traces, source: source) else { return nil }
        var plan = try make(traces, from: source, outputFolder: outputFolder, extraInputs: extraInputs)
        plan.notes = notes + plan.notes
        return plan
    }

    /// Plans the run of `inputs` (the traces of the folder `source`) into `outputFolder`, creating
    /// the folder when missing; refuses a missing or file `outputFolder` and any output that is an
    /// input (below `source`, or one of `extraInputs`). Its notes are the outputs renamed.
    public static func make(_ inputs: [String], from source: String, outputFolder: String?, extraInputs: [String])
        throws -> FolderPlan
    {
        guard let folder = outputFolder, folder != "-" else {
            throw StatusError.usage("a folder of traces needs --output FOLDER (one estimate file per trace)")
        }
        var isDir = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), !isDir {
            throw StatusError.usage("\(folder): is a file; a folder of traces needs --output FOLDER")
        }
        let protected = InputFiles([source] + extraInputs)
        let names = outputNames(inputs)
        if !isDir {
            // A new folder holds no input, so nothing in it can collide with one.
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch let error as CocoaError {
                // The words Foundation's `localizedDescription` gave this error.
                throw StatusError.input(
                    "\(folder): cannot create output folder: The operation could not be completed. (NSCocoaErrorDomain error \(error.code.rawValue).)"
                )
            } catch {
                throw StatusError.input("\(folder): cannot create output folder: \(error)")
            }
        }
        // Every output is resolved, and checked against every input, before anything is written.
        let targets = try names.map { name in
            try StatusError.rethrowing {
                try OutputTarget.resolve(PathText.join(folder, name), protecting: protected)
            }
        }
        let renamed = zip(inputs, names).filter { input, name in name != outputNames([input])[0] }.map {
            input, name in "\(input) -> \(name) (another trace has the same name)"
        }
        return FolderPlan(inputs: inputs, outputs: targets, notes: renamed)
    }
}
