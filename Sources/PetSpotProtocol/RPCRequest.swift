import PetSpotJSON

/// One JSON-RPC request, validated. `id` is nil for a notification.
public struct RPCRequest: Sendable, Equatable {
    public let id: JSONValue?
    public let method: String
    public let params: JSONObject

    public init(id: JSONValue?, method: String, params: JSONObject = JSONObject()) {
        self.id = id
        self.method = method
        self.params = params
    }

    public var isNotification: Bool { id == nil }

    /// Validates the envelope of one request. On failure returns the error together with the id
    /// to answer it under: null when the id itself could not be read, none for a notification
    /// (no `id`, a string `method`), which is never answered, even when the rest is wrong.
    public static func validate(_ value: JSONValue) -> Result<RPCRequest, RPCFailure> {
        guard let object = value.objectValue else {
            return .failure(RPCFailure(id: .null, error: RPCError(.invalidRequest, "a request must be a JSON object, not \(value.typeName)")))
        }
        var id: JSONValue? = nil
        if let rawID = object["id"] {
            switch rawID {
            // A long id is copied: the answer must not keep the request's whole line.
            case .number, .string, .longString: id = rawID.copyingLongString
            default:
                return .failure(RPCFailure(id: .null, error: RPCError(.invalidRequest, "\"id\" must be a number or a string, not \(rawID.typeName)", parameter: "id")))
            }
        }
        let isNotification = object["id"] == nil && object["method"]?.isString == true
        // Spelled out: a bare `nil` here would become JSONValue's own null literal.
        let answerID: JSONValue? = isNotification ? Optional.none : .some(id ?? .null)
        if let version = object["jsonrpc"], version != .string("2.0") {
            return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "\"jsonrpc\" must be \"2.0\" when present", parameter: "jsonrpc")))
        }
        guard let methodValue = object["method"] else {
            return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "a request needs a \"method\"", parameter: "method")))
        }
        guard let method = methodValue.stringValue else {
            return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "\"method\" must be a string, not \(methodValue.typeName)", parameter: "method")))
        }
        var params = JSONObject()
        if let rawParams = object["params"] {
            switch rawParams {
            case .object(let o): params = o
            case .null: break
            default:
                return .failure(RPCFailure(id: answerID, error: RPCError(.invalidParams, "\"params\" must be an object of named parameters, not \(rawParams.typeName)", parameter: "params")))
            }
        }
        for member in object.members {
            switch member.key {
            case "jsonrpc", "id", "method", "params": continue
            default:
                return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "unknown member \"\(member.key)\" in the request; a request has jsonrpc, id, method and params", parameter: member.key)))
            }
        }
        return .success(RPCRequest(id: id, method: method, params: params))
    }

    public var json: JSONValue {
        var object: JSONObject = ["jsonrpc": "2.0"]
        if let id { object["id"] = id }
        object["method"] = .string(method)
        if !params.isEmpty { object["params"] = .object(params) }
        return .object(object)
    }
}

/// An error together with the id it answers; no id for a notification, which gets no answer.
public struct RPCFailure: Error, Sendable, Equatable {
    public let id: JSONValue?
    public let error: RPCError

    public init(id: JSONValue?, error: RPCError) {
        self.id = id
        self.error = error
    }
}
