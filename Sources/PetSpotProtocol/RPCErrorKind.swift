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
    case reportClosed
    case reportErased
    case animalNotFound
    case photoNotFound

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
        case .reportClosed: -32008
        case .reportErased: -32009
        case .animalNotFound: -32010
        case .photoNotFound: -32011
        }
    }

    /// What the kind means, for the OpenRPC document; an answer's message says more.
    public var summary: String {
        switch self {
        case .parseError: "The line is not JSON"
        case .invalidRequest: "The JSON is not a JSON-RPC 2.0 request"
        case .methodNotFound: "No such method, or not one this caller may use"
        case .invalidParams: "A parameter is missing, unknown or of the wrong type or range; data.parameter names it"
        case .internalError: "The daemon failed; its log says why"
        case .flowNotFound: "No such flow of this caller: never started, cancelled, expired or another user's"
        case .wrongStep: "The flow is not on a step where this is possible"
        case .limitExceeded: "A limit was reached; data.limit names the setting, data.max its value"
        case .lineTooLong: "The line is longer than limits.maxLineBytes and was skipped"
        case .reportNotFound: "No such report of this caller"
        case .storageFailed: "The reports database failed; nothing was stored"
        case .shuttingDown: "The daemon is stopping; send it again once it is back"
        case .reportClosed: "The report is found or withdrawn: it can only be erased"
        case .reportErased: "The report's personal data is erased: it cannot change any more"
        case .animalNotFound: "No such missing animal on this box's list: never listed, or found, withdrawn, expired or erased since"
        case .photoNotFound: "The report or animal has no photo this caller may have: none was sent, it was erased, or its format cannot be shown without its metadata"
        }
    }

    public init?(code: Int) {
        guard let kind = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = kind
    }
}
