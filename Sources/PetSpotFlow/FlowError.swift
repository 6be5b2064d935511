/// A protocol-level refusal; the server maps it to a JSON-RPC error.
///
/// A value that breaks a field's rule is not a `FlowError`: it becomes a field error on the
/// screen. These are for requests a client should never send.
public enum FlowError: Error, Sendable, Equatable {
    /// A method or field not allowed on the current step or state.
    case wrongStep(message: String)
    /// A malformed parameter; `parameter` names it as a path ("values.foo").
    case invalidParams(message: String, parameter: String)

    public var message: String {
        switch self {
        case .wrongStep(let message), .invalidParams(let message, _): message
        }
    }
}
