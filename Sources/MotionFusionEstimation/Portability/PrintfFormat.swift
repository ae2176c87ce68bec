import Glibc

/// A value `String(printf:_:)` fills in: integers and floating-point numbers go through the C
/// library's `vsnprintf`, text (`%@`) goes in as it is.
public protocol PrintfArgument {}
extension Int: PrintfArgument {}
extension Int32: PrintfArgument {}
extension UInt: PrintfArgument {}
extension Double: PrintfArgument {}
extension String: PrintfArgument {}
extension Substring: PrintfArgument {}

extension String {
    /// `format` filled in with `arguments` as Foundation's `String(format:)` fills it in without a
    /// locale, so the library needs no Foundation (FoundationEssentials has no `String(format:)`).
    /// Each number conversion (`%d`, `%8d`, `%.3f`, `%+.3f`, `%g`, `%.3g`, `%e`…) is made by the C
    /// library's `vsnprintf`, `%d` on an `Int` as `%ld`; `%@` takes text as it is (a field width
    /// is ignored, as Foundation on Linux ignores it); `%%` is a percent sign.
    public init(printf format: String, _ arguments: any PrintfArgument...) {
        var result = ""
        var next = arguments.makeIterator()
        var i = format.unicodeScalars.startIndex
        let scalars = format.unicodeScalars
        while i < scalars.endIndex {
            let c = scalars[i]
            i = scalars.index(after: i)
            guard c == "%", i < scalars.endIndex else {
                result.unicodeScalars.append(c)
                continue
            }
            if scalars[i] == "%" {
                result += "%"
                i = scalars.index(after: i)
                continue
            }
            // Flags, width and precision, then length modifiers (dropped: the argument's type
            // decides them), then the conversion.
            var spec = "%"
            while i < scalars.endIndex, "-+ #0123456789.".unicodeScalars.contains(scalars[i]) {
                spec.unicodeScalars.append(scalars[i])
                i = scalars.index(after: i)
            }
            while i < scalars.endIndex, "hlLqjzt".unicodeScalars.contains(scalars[i]) { i = scalars.index(after: i) }
            guard i < scalars.endIndex else { break }
            let conversion = scalars[i]
            i = scalars.index(after: i)
            result += Self.filledIn(spec, conversion, next.next())
        }
        self = result
    }

    /// One conversion `spec` + `conversion` (`spec` without length modifiers) of `argument`.
    private static func filledIn(_ spec: String, _ conversion: Unicode.Scalar, _ argument: (any PrintfArgument)?)
        -> String
    {
        if conversion == "@" {
            // Foundation on Linux ignores a field width on `%@`: so does this.
            return (argument as? String) ?? (argument as? Substring).map(String.init) ?? ""
        }
        let value: CVarArg
        var format = spec
        switch argument {
        case let v as Int:
            value = v
            format += "l"
        case let v as UInt:
            value = v
            format += "l"
        case let v as Int32: value = v
        case let v as Double: value = v
        default: return ""
        }
        format.unicodeScalars.append(conversion)
        return vsnprintfText(format, value)
    }

    /// `format` with one argument, through `vsnprintf`.
    private static func vsnprintfText(_ format: String, _ value: CVarArg) -> String {
        var capacity = 64
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let written = withVaList([value]) { list in
                buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, format, list) }
            }
            guard written >= 0 else { return "" }
            if Int(written) < capacity {
                return String(decoding: buffer[..<Int(written)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            capacity = Int(written) + 1
        }
    }
}

extension String {
    /// `self` cut or filled with spaces to `length` UTF-16 units, as Foundation's
    /// `padding(toLength: length, withPad: " ", startingAt: 0)` makes it.
    public func paddedWithSpaces(toLength length: Int) -> String {
        let units = utf16.count
        if units >= length { return String(decoding: Array(utf16.prefix(length)), as: UTF16.self) }
        return self + String(repeating: " ", count: length - units)
    }
}
