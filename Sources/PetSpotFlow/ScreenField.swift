import PetSpotJSON

/// One field as a client draws it: what it is called, what it holds, and what to say about it.
struct ScreenField {
    var name: FlowField
    var label: String
    var placeholder: String?
    /// The stored value, null when empty.
    var value: JSONValue
    /// The value as a person reads it.
    var display: String?
    var required: Bool
    var enabled: Bool
    var error: String?
    var helper: String?
    var counter: String?
    /// The choices of a select field: `[{id, name}]`.
    var options: [JSONValue]?

    var json: JSONValue {
        var object: JSONObject = [
            "name": .string(name.rawValue),
            "label": .string(label),
            "placeholder": .optional(placeholder),
            "value": value,
            "display": .optional(display),
            "required": .bool(required),
            "enabled": .bool(enabled),
            "error": .optional(error),
            "helper": .optional(helper),
            "counter": .optional(counter),
        ]
        if let options {
            object.members.append((key: "options", value: .array(options)))
        }
        return .object(object)
    }
}
