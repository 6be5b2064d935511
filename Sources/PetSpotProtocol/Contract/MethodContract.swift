import PetSpotJSON

/// One method of the protocol as the OpenRPC document describes it: its parameters (always by
/// name), its result, the errors it can answer and an example pairing.
public struct MethodContract: Sendable {
    public struct Param: Sendable {
        public let name: String
        public let schema: JSONSchema
        public let required: Bool
        public let summary: String

        public init(_ name: String, _ schema: JSONSchema, required: Bool = false, _ summary: String) {
            self.name = name
            self.schema = schema
            self.required = required
            self.summary = summary
        }

        /// The OpenRPC content descriptor.
        var openRPC: JSONValue {
            ["name": .string(name), "summary": .string(summary), "required": .bool(required), "schema": schema.json]
        }
    }

    public struct Example: Sendable {
        public let name: String
        public let params: JSONObject
        public let result: JSONValue
    }

    /// The method's name on the wire.
    public let name: String
    public let summary: String
    public let params: [Param]
    /// The result's name in the document and its schema.
    public let resultName: String
    public let result: JSONSchema
    /// Beyond those every method can answer (`invalidParams`, `internalError`, `shuttingDown`).
    public let errors: [RPCErrorKind]
    public let example: Example

    public init(_ name: String, _ summary: String, params: [Param] = [], result resultName: String, _ result: JSONSchema,
                errors: [RPCErrorKind] = [], example: (name: String, params: JSONObject, result: JSONValue)) {
        self.name = name
        self.summary = summary
        self.params = params
        self.resultName = resultName
        self.result = result
        self.errors = errors
        self.example = Example(name: example.name, params: example.params, result: example.result)
    }

    /// Errors any method can answer.
    public static let commonErrors: [RPCErrorKind] = [.invalidParams, .internalError, .shuttingDown]

    /// Every error it can answer: the common ones, then its own.
    public var errorKinds: [RPCErrorKind] {
        Self.commonErrors + errors.filter { !Self.commonErrors.contains($0) }
    }

    /// The OpenRPC method object.
    public var openRPC: JSONValue {
        [
            "name": .string(name),
            "summary": .string(summary),
            "paramStructure": "by-name",
            "params": .array(params.map(\.openRPC)),
            "result": ["name": .string(resultName), "schema": result.json],
            "errors": .array(errorKinds.map { ["$ref": .string("#/components/errors/\($0.rawValue)")] }),
            "examples": [[
                "name": .string(example.name),
                "params": .array(example.params.map { ["name": .string($0.key), "value": $0.value] }),
                "result": ["name": .string(resultName), "value": example.result],
            ]],
        ]
    }
}
