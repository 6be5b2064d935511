import PetSpotJSON

/// An error answer: what went wrong in words a person can act on, its kind, and where a
/// parameter is at fault, which one (`values.age`, `flowId`).
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    public let kind: RPCErrorKind
    public let message: String
    public let parameter: String?
    /// Further members of `data` (e.g. `limit` and `max` for limitExceeded).
    public let details: JSONObject

    public init(_ kind: RPCErrorKind, _ message: String, parameter: String? = nil, details: JSONObject = JSONObject()) {
        self.kind = kind
        self.message = message
        self.parameter = parameter
        self.details = details
    }

    public var description: String {
        if let parameter { return "\(kind.rawValue): \(message) (parameter \(parameter))" }
        return "\(kind.rawValue): \(message)"
    }

    public var json: JSONValue {
        var data: JSONObject = ["kind": .string(kind.rawValue)]
        if let parameter { data["parameter"] = .string(parameter) }
        for member in details { data[member.key] = member.value }
        return ["code": .int(kind.code), "message": .string(message), "data": .object(data)]
    }

    /// Reads the `error` member of an answer.
    public init?(json: JSONValue) {
        guard let object = json.objectValue,
              let code = object["code"].flatMap({ value -> Int? in
                  if case .number(let n) = value { return n.exactInt }
                  return nil
              }),
              let message = object["message"]?.stringValue
        else { return nil }
        let data = object["data"]?.objectValue ?? JSONObject()
        let kind = data["kind"]?.stringValue.flatMap(RPCErrorKind.init(rawValue:)) ?? RPCErrorKind(code: code) ?? .internalError
        var details = data
        details["kind"] = nil
        details["parameter"] = nil
        self.init(kind, message, parameter: data["parameter"]?.stringValue, details: details)
    }

    /// A limit was reached; `limit` names the setting so an operator knows what to raise.
    public static func limitExceeded(_ limit: String, max: Int, _ message: String) -> RPCError {
        RPCError(.limitExceeded, message, details: ["limit": .string(limit), "max": .int(max)])
    }
}
