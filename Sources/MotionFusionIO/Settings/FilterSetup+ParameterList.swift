// The `NAME=VALUE,…` form of `setParameter(_:_:)` (`--param`), beside the other text readers, so
// that the estimation module needs no tokenizer (`KeyValueList`, `DecimalParser`).

extension FilterSetup {
    /// Sets parameters from `NAME=VALUE,…`.
    public mutating func setParameters(_ spec: String) throws {
        var given = Set<String>()
        func malformed(_ item: Substring) -> Error {
            ParameterError(description: "expected NAME=NUMBER pairs such as gyroscopeNoise=0.003; got '\(item)'")
        }
        try KeyValueList.forEach(spec, malformed: malformed) { name, value, item in
            guard case .value(let v) = DecimalParser.parse(value) else { throw malformed(item) }
            guard given.insert(name).inserted else { throw ParameterError(description: "'\(name)' is given twice") }
            try setParameter(name, v)
        }
    }
}
