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
        // One pass over the members, in place (the parser refuses a name given twice).
        var rawID: JSONValue?, version: JSONValue?, methodValue: JSONValue?, rawParams: JSONValue?
        var unknown: String?
        for index in object.members.indices {
            switch object.members[index].key {
            case "id": rawID = object.members[index].value
            case "jsonrpc": version = object.members[index].value
            case "method": methodValue = object.members[index].value
            case "params": rawParams = object.members[index].value
            default: if unknown == nil { unknown = object.members[index].key }
            }
        }
        var id: JSONValue? = nil
        if let rawID {
            switch rawID {
            // A long id is copied: the answer must not keep the request's whole line.
            case .number, .string, .longString: id = rawID.copyingLongString
            default:
                return .failure(RPCFailure(id: .null, error: RPCError(.invalidRequest, "\"id\" must be a number or a string, not \(rawID.typeName)", parameter: "id")))
            }
        }
        let isNotification = rawID == nil && methodValue?.isString == true
        // Spelled out: a bare `nil` here would become JSONValue's own null literal.
        let answerID: JSONValue? = isNotification ? Optional.none : .some(id ?? .null)
        if let version, version != .string("2.0") {
            return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "\"jsonrpc\" must be \"2.0\" when present", parameter: "jsonrpc")))
        }
        guard let methodValue else {
            return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "a request needs a \"method\"", parameter: "method")))
        }
        guard let method = methodValue.stringValue else {
            return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "\"method\" must be a string, not \(methodValue.typeName)", parameter: "method")))
        }
        var params = JSONObject()
        if let rawParams {
            switch rawParams {
            case .object(let o): params = o
            case .null: break
            default:
                return .failure(RPCFailure(id: answerID, error: RPCError(.invalidParams, "\"params\" must be an object of named parameters, not \(rawParams.typeName)", parameter: "params")))
            }
        }
        if let unknown {
            return .failure(RPCFailure(id: answerID, error: RPCError(.invalidRequest, "unknown member \"\(unknown)\" in the request; a request has jsonrpc, id, method and params", parameter: unknown)))
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
