/// A failure with its status: 2 for a usage mistake, 1 for bad input or failed work. The command
/// line prints the message after `motionfusion SUB: error: ` and exits with the status; the C ABI
/// returns the status (`MF_ERROR_INPUT` 1, `MF_ERROR_USAGE` 2) with the message.
public struct StatusError: Error, CustomStringConvertible {
    /// The message.
    public var message: String
    /// 2 for usage mistakes, 1 for bad input or failed work.
    public var status: Int32

    /// Creates an error.
    public init(message: String, status: Int32) {
        self.message = message
        self.status = status
    }

    /// A usage error (status 2).
    public static func usage(_ message: String) -> StatusError {
        StatusError(message: message, status: 2)
    }

    /// A failure caused by the input or the work (status 1).
    public static func input(_ message: String) -> StatusError {
        StatusError(message: message, status: 1)
    }

    /// The status error for any error of the library: usage for output-path, column or unit spec
    /// and parameter mistakes, input otherwise. The one mapping of errors to messages and statuses,
    /// for the command line's exit statuses and the C ABI's status codes alike.
    public static func from(_ error: Error) -> StatusError {
        switch error {
        case let e as StatusError: return e
        case let e as ParameterError: return .usage(e.description)
        case let e as OutputError: return e.isUsage ? .usage(e.message) : .input(e.message)
        case let e as ColumnSpecError: return .usage(e.description)
        case let e as TraceError where e.kind == .columnSpecification: return .usage(e.description)
        default: return .input("\(error)")
        }
    }

    /// Runs `body`, turning any error it throws into a status error (``from(_:)``).
    public static func rethrowing<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw from(error) }
    }

    public var description: String { message }
}
