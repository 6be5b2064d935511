/// Every error an answer can carry: the JSON-RPC code and the stable `data.kind` name.
///
/// Codes are part of the public protocol: never renumber one, only add.
public enum RPCErrorKind: String, Sendable, CaseIterable {
    case parseError
    case invalidRequest
    case methodNotFound
    case invalidParams
    case internalError
    case flowNotFound
    case wrongStep
    case limitExceeded
    case lineTooLong
    case reportNotFound
    case storageFailed
    case shuttingDown

    public var code: Int {
        switch self {
        case .parseError: -32700
        case .invalidRequest: -32600
        case .methodNotFound: -32601
        case .invalidParams: -32602
        case .internalError: -32603
        case .flowNotFound: -32001
        case .wrongStep: -32002
        case .limitExceeded: -32003
        case .lineTooLong: -32004
        case .reportNotFound: -32005
        case .storageFailed: -32006
        case .shuttingDown: -32007
        }
    }

    public init?(code: Int) {
        guard let kind = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = kind
    }
}
