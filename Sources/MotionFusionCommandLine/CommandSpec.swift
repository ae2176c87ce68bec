import MotionFusion

/// A failure the command line reports on stderr, with its exit status: the library's
/// ``StatusError``, whose one table (``StatusError/from(_:)``) maps every library error.
public typealias CommandLineError = StatusError

/// One option of a subcommand, declared once: its name, value placeholder, one-sentence help and
/// how it is parsed and validated. The usage line, the help page, the accepted names and the
/// parsing all come from this declaration.
struct Option<Settings> {
    /// Name without the dashes (`filter` for `--filter`).
    let name: String
    /// Placeholder of the value (`NAME`, `6d|9d`), or nil for a flag.
    let value: String?
    /// One sentence saying what it does (and its default).
    let help: String
    /// Options that may not be given together with this one.
    let conflicts: [String]
    /// Applies the value (an empty string for a flag) to the settings, throwing a usage error when
    /// it is malformed.
    let apply: (inout Settings, String) throws -> Void

    init(
        _ name: String, value: String?, _ help: String, conflicts: [String] = [],
        apply: @escaping (inout Settings, String) throws -> Void
    ) {
        self.name = name
        self.value = value
        self.help = help
        self.conflicts = conflicts
        self.apply = apply
    }

    /// A flag that sets a Boolean.
    static func flag(_ name: String, _ help: String, _ path: WritableKeyPath<Settings, Bool>) -> Option {
        Option(name, value: nil, help) { s, _ in s[keyPath: path] = true }
    }

    /// A choice among an enumeration's raw values (case-insensitive).
    static func choice<E: RawRepresentable & CaseIterable>(
        _ name: String, _ help: String, _ path: WritableKeyPath<Settings, E?>, conflicts: [String] = []
    ) -> Option where E.RawValue == String {
        let names = E.allCases.map(\.rawValue)
        return Option(name, value: names.joined(separator: "|"), help, conflicts: conflicts) { s, text in
            guard let v = E.allCases.first(where: { $0.rawValue == text.lowercased() }) else {
                throw CommandLineError.usage(
                    "--\(name) must be one of \(names.joined(separator: ", ")); got '\(text.escapedForMessage)'")
            }
            s[keyPath: path] = v
        }
    }

    /// A finite number within `range`.
    static func number(
        _ name: String, value: String, _ help: String, _ path: WritableKeyPath<Settings, Double?>,
        in range: ClosedRange<Double>, conflicts: [String] = []
    ) -> Option {
        Option(name, value: value, help, conflicts: conflicts) { s, text in
            s[keyPath: path] = try parseNumber(name, text, in: range)
        }
    }

    /// Text taken as is.
    static func text(
        _ name: String, value: String, _ help: String, _ path: WritableKeyPath<Settings, String?>,
        conflicts: [String] = []
    ) -> Option {
        Option(name, value: value, help, conflicts: conflicts) { s, text in s[keyPath: path] = text }
    }

    /// The same option acting on a part of larger settings.
    func lifted<Outer>(_ path: WritableKeyPath<Outer, Settings>) -> Option<Outer> {
        let apply = self.apply
        return Option<Outer>(name, value: value, help, conflicts: conflicts) { s, text in
            try apply(&s[keyPath: path], text)
        }
    }
}

/// A finite number within `range`, or a usage error naming the option.
func parseNumber(_ name: String, _ text: String, in range: ClosedRange<Double>) throws -> Double {
    guard case .value(let v) = DecimalParser.parse(text), v.isFinite else {
        throw CommandLineError.usage("--\(name) expects a number, got '\(text.escapedForMessage)'")
    }
    guard range.contains(v) else {
        throw CommandLineError.usage(
            "--\(name) must be in [\(fmt(range.lowerBound)), \(fmt(range.upperBound))], got \(fmt(v))")
    }
    return v
}

/// A whole number within `range`, or a usage error naming the option.
func parseCount(_ name: String, _ text: String, in range: ClosedRange<Int>) throws -> Int {
    let v = try parseNumber(name, text, in: Double(range.lowerBound)...Double(range.upperBound))
    guard v == v.rounded() else { throw CommandLineError.usage("--\(name) takes a whole number, got \(fmt(v))") }
    return Int(v)
}

func fmt(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
}

/// A subcommand: its arguments, its options, how settings are finished and validated, and what it
/// runs. Declared once; usage and help are generated from it.
struct Command<Settings> {
    let name: String
    let summary: String
    /// Positional arguments: placeholder and help.
    let arguments: [(name: String, help: String)]
    let options: [Option<Settings>]
    /// Extra help sections (title, lines).
    var sections: [(title: String, lines: [(String, String)])] = []
    let initial: Settings
    /// Receives the positional arguments and checks combinations after all options are applied.
    let finish: (inout Settings, [String]) throws -> Void
    let run: (Settings, ConsoleOutput) throws -> Void

    /// `motionfusion NAME ARG [--opt VALUE] …`.
    var usage: String {
        var parts = ["motionfusion", name] + arguments.map(\.name)
        for o in options { parts.append("[--\(o.name)\(o.value.map { " " + $0 } ?? "")]") }
        return parts.joined(separator: " ")
    }

    /// The help page: usage, summary, one line per argument and option, extra sections.
    var help: String {
        var out = "USAGE: \(usage)\n\n\(summary).\n"
        func table(_ title: String, _ rows: [(String, String)]) {
            guard !rows.isEmpty else { return }
            out += "\n\(title):\n"
            let width = min(30, rows.map(\.0.count).max() ?? 0)
            for (left, right) in rows {
                if left.count > width {
                    out += "  \(left)\n  \(String(repeating: " ", count: width))  \(right)\n"
                } else {
                    out += "  \(left)\(String(repeating: " ", count: width - left.count))  \(right)\n"
                }
            }
        }
        table("ARGUMENTS", arguments.map { ($0.name, $0.help) })
        table(
            "OPTIONS",
            options.map { ("--\($0.name)\($0.value.map { " " + $0 } ?? "")", $0.help) } + [("--help", "show this page")]
        )
        for s in sections { table(s.title, s.lines) }
        return out
    }

    /// Parses `arguments`: unknown, repeated and conflicting options are usage errors; `--`
    /// ends the options.
    func parse(_ arguments: [String]) throws -> Settings {
        var settings = initial
        var positionals = [String]()
        var seen = [String]()
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" {
                positionals.append(contentsOf: arguments[(i + 1)...])
                break
            }
            guard a.hasPrefix("--") && a.count > 2 else {
                positionals.append(a)
                i += 1
                continue
            }
            var name = String(a.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                let known = options.map { "--" + $0.name }.joined(separator: ", ")
                throw CommandLineError.usage(
                    "unknown option --\(name.escapedForMessage) (\(self.name) accepts: \(known))")
            }
            guard !seen.contains(name) else { throw CommandLineError.usage("--\(name) given twice") }
            if let clash = option.conflicts.first(where: { seen.contains($0) }) {
                throw CommandLineError.usage("--\(name) and --\(clash) cannot be combined")
            }
            if let clash = options.first(where: { seen.contains($0.name) && $0.conflicts.contains(name) }) {
                throw CommandLineError.usage("--\(name) and --\(clash.name) cannot be combined")
            }
            seen.append(name)
            var value = ""
            if option.value != nil {
                if let inline {
                    value = inline
                } else {
                    guard i + 1 < arguments.count else {
                        throw CommandLineError.usage("--\(name) needs a value (\(option.value!))")
                    }
                    value = arguments[i + 1]
                    i += 1
                }
                // An empty value (an unset shell variable, or a list of nothing) is a mistake, never
                // "as if absent".
                guard !value.allSatisfy({ $0.isWhitespace || $0 == "," }) else {
                    throw CommandLineError.usage("--\(name) needs a value (\(option.value!)); got an empty one")
                }
            } else if inline != nil {
                throw CommandLineError.usage("--\(name) takes no value")
            }
            try option.apply(&settings, value)
            i += 1
        }
        try finish(&settings, positionals)
        return settings
    }

    /// The type-erased subcommand.
    var erased: Subcommand {
        Subcommand(name: name, summary: summary, usage: usage, help: help) { args, console in
            let settings = try parse(args)
            try run(settings, console)
        }
    }
}

/// A subcommand of `motionfusion`, whatever its settings.
struct Subcommand {
    var name: String
    var summary: String
    var usage: String
    var help: String
    var execute: ([String], ConsoleOutput) throws -> Void
}

/// Exactly `count` positional arguments named `names`, or a usage error.
func expectArguments(_ positionals: [String], _ names: [String]) throws {
    guard positionals.count == names.count else {
        if positionals.count < names.count {
            throw CommandLineError.usage("missing \(names[positionals.count])")
        }
        throw CommandLineError.usage(
            "unexpected argument '\(positionals[names.count].escapedForMessage)'\(names.isEmpty ? "" : " (expected \(names.joined(separator: " ")))")"
        )
    }
}

/// The TRACE of a command that reads one trace into a required `--output` (`output`, nil when not
/// given: a usage error saying `missing`).
func traceWithOutput(_ positionals: [String], output: String?, missing: String) throws -> String {
    try expectArguments(positionals, ["TRACE"])
    guard output != nil else { throw CommandLineError.usage(missing) }
    return positionals[0]
}

/// Where `--output` of a command reading `trace` goes: never onto the trace, `-` on the console's
/// standard output.
func outputTarget(_ path: String, reading trace: String, _ console: ConsoleOutput) throws -> OutputTarget {
    try CommandLineError.rethrowing {
        try OutputTarget.resolve(path, protecting: InputFiles([trace]))
    }
}
