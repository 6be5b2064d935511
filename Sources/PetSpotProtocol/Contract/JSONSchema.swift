import PetSpotJSON

/// A JSON Schema (draft 7) of a piece of the protocol, as the OpenRPC document gives it.
///
/// Built from a handful of constructors rather than written as JSON, so that an object's
/// `required` is exactly its members minus the optional ones, and closed to other members.
public struct JSONSchema: Sendable {
    public let json: JSONValue

    public init(json: JSONValue) {
        self.json = json
    }

    public static func string(_ description: String? = nil) -> JSONSchema {
        described(["type": "string"], description)
    }

    /// One of `values`.
    public static func oneOf(_ values: [String], _ description: String? = nil) -> JSONSchema {
        described(["type": "string", "enum": .array(values.map(JSONValue.string))], description)
    }

    /// Exactly `value`.
    public static func constant(_ value: String) -> JSONSchema {
        JSONSchema(json: ["type": "string", "enum": [.string(value)]])
    }

    public static func integer(_ range: ClosedRange<Int>? = nil, _ description: String? = nil) -> JSONSchema {
        numeric("integer", range, description)
    }

    public static func number(_ range: ClosedRange<Int>? = nil, _ description: String? = nil) -> JSONSchema {
        numeric("number", range, description)
    }

    private static func numeric(_ type: String, _ range: ClosedRange<Int>?, _ description: String?) -> JSONSchema {
        var object: JSONObject = ["type": .string(type)]
        if let range {
            object["minimum"] = .int(range.lowerBound)
            object["maximum"] = .int(range.upperBound)
        }
        return described(object, description)
    }

    public static let boolean = JSONSchema(json: ["type": "boolean"])
    public static let null = JSONSchema(json: ["type": "null"])

    public static func array(_ items: JSONSchema, count: ClosedRange<Int>? = nil, _ description: String? = nil) -> JSONSchema {
        var object: JSONObject = ["type": "array", "items": items.json]
        if let count {
            object["minItems"] = .int(count.lowerBound)
            object["maxItems"] = .int(count.upperBound)
        }
        return described(object, description)
    }

    /// An object with exactly these members; all are required but those in `optional`.
    public static func object(_ members: KeyValuePairs<String, JSONSchema>, optional: Set<String> = [],
                              _ description: String? = nil) -> JSONSchema {
        var properties = JSONObject()
        for (name, schema) in members { properties[name] = schema.json }
        let required = members.map(\.key).filter { !optional.contains($0) }
        return described(["type": "object", "properties": .object(properties),
                          "required": .array(required.map(JSONValue.string)), "additionalProperties": false], description)
    }

    /// Any object whose member values fit `values` (a map).
    public static func map(of values: JSONSchema, _ description: String? = nil) -> JSONSchema {
        described(["type": "object", "additionalProperties": values.json], description)
    }

    /// A shape kept once under `components/schemas`.
    public static func ref(_ name: String) -> JSONSchema {
        JSONSchema(json: ["$ref": .string("#/components/schemas/\(name)")])
    }

    /// `schema`, or null.
    public static func nullable(_ schema: JSONSchema) -> JSONSchema {
        JSONSchema(json: ["oneOf": [null.json, schema.json]])
    }

    /// Exactly one of `schemas`.
    public static func either(_ schemas: [JSONSchema], _ description: String? = nil) -> JSONSchema {
        described(["oneOf": .array(schemas.map(\.json))], description)
    }

    /// Any JSON value.
    public static func any(_ description: String) -> JSONSchema {
        described([:], description)
    }

    private static func described(_ object: JSONObject, _ description: String?) -> JSONSchema {
        var object = object
        if let description { object["description"] = .string(description) }
        return JSONSchema(json: .object(object))
    }
}
