/// A failure the command line reports on stderr, with its exit code.
public struct CommandLineError: Error, CustomStringConvertible {
    /// The message, printed after `motionfusion: error: `.
    public var message: String
    /// Exit status: 2 for usage mistakes, 1 for bad input or failed work.
    public var exitCode: Int32

    /// A usage error (exit 2).
    public static func usage(_ message: String) -> CommandLineError {
        CommandLineError(message: message, exitCode: 2)
    }

    /// A failure caused by the input (exit 1).
    public static func input(_ message: String) -> CommandLineError {
        CommandLineError(message: message, exitCode: 1)
    }

    public var description: String { message }
}

/// Minimal option parsing: `--name value`, `--name=value`, boolean `--flag`, and positionals.
/// Unknown options are errors, so typos never pass silently.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: String] = [:]
    var flags: Set<String> = []

    /// Parses `arguments` given the options that take a value and the boolean flags.
    init(_ arguments: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws {
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" {
                positionals.append(contentsOf: arguments[(i + 1)...])
                break
            }
            if a.hasPrefix("--") && a.count > 2 {
                var name = String(a.dropFirst(2))
                var inlineValue: String?
                if let eq = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if valueOptions.contains(name) {
                    if let v = inlineValue {
                        values[name] = v
                    } else {
                        guard i + 1 < arguments.count else {
                            throw CommandLineError.usage("option --\(name) needs a value")
                        }
                        values[name] = arguments[i + 1]
                        i += 1
                    }
                } else if flagOptions.contains(name) {
                    guard inlineValue == nil else { throw CommandLineError.usage("option --\(name) takes no value") }
                    flags.insert(name)
                } else {
                    let known = (valueOptions.union(flagOptions)).sorted().map { "--" + $0 }.joined(separator: ", ")
                    throw CommandLineError.usage("unknown option --\(name) (known: \(known))")
                }
            } else {
                positionals.append(a)
            }
            i += 1
        }
    }

    /// A value option converted to a number, with a clear error when it is not one.
    func double(_ name: String) throws -> Double? {
        guard let text = values[name] else { return nil }
        guard let v = Double(text), v.isFinite else {
            throw CommandLineError.usage("--\(name) expects a number, got '\(text)'")
        }
        return v
    }

    /// A value option converted to an integer.
    func int(_ name: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let v = Int(text) else { throw CommandLineError.usage("--\(name) expects an integer, got '\(text)'") }
        return v
    }

    /// A value option restricted to `choices`.
    func choice(_ name: String, _ choices: [String]) throws -> String? {
        guard let text = values[name] else { return nil }
        guard choices.contains(text.lowercased()) else {
            throw CommandLineError.usage("--\(name) must be one of \(choices.joined(separator: ", ")), got '\(text)'")
        }
        return text.lowercased()
    }

    /// Exactly one positional argument, named `what` in the error.
    func single(_ what: String) throws -> String {
        guard positionals.count == 1 else {
            throw CommandLineError.usage(
                positionals.isEmpty ? "missing \(what)" : "expected one \(what), got \(positionals.count) arguments")
        }
        return positionals[0]
    }
}
