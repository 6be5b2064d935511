import PetSpotJSON

/// One answer: a result or an error, under the request's id.
public struct RPCResponse: Sendable, Equatable {
    public let id: JSONValue
    public let outcome: Result<JSONValue, RPCError>

    public init(id: JSONValue, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }

    public static func success(id: JSONValue, _ result: JSONValue) -> RPCResponse {
        RPCResponse(id: id, outcome: .success(result))
    }

    public static func failure(id: JSONValue, _ error: RPCError) -> RPCResponse {
        RPCResponse(id: id, outcome: .failure(error))
    }

    public var json: JSONValue {
        switch outcome {
        case .success(let result): ["jsonrpc": "2.0", "id": id, "result": result]
        case .failure(let error): ["jsonrpc": "2.0", "id": id, "error": error.json]
        }
    }

    /// Reads an answer as a client receives it.
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let id = object["id"] else { return nil }
        if let result = object["result"] {
            self.init(id: id, outcome: .success(result))
        } else if let errorValue = object["error"], let error = RPCError(json: errorValue) {
            self.init(id: id, outcome: .failure(error))
        } else {
            return nil
        }
    }
}
