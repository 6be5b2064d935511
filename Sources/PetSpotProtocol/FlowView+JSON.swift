import PetSpotJSON
import PetSpotViews

// The flow view on the wire. The writer and the reader of each part stand side by side, so a
// member added to one is seen missing from the other; FlowViewRoundTripTests holds them to
// `FlowView(json: view.json) == view`. Members are written in the order of PROTOCOL.md.

// MARK: Writing

extension FlowView {
    public var json: JSONValue {
        switch state {
        case .cancelled:
            return ["id": .string(id), "state": "cancelled"]
        case .completed(let reportID):
            return ["id": .string(id), "state": "completed", "reportId": .optional(reportID)]
        case .active(let active):
            return [
                "id": .string(id),
                "state": "active",
                "step": .string(active.step),
                "locale": .string(active.locale),
                "screen": active.screen.json,
                "values": .object(active.values),
            ]
        }
    }
}

extension FlowView.Screen {
    public var json: JSONValue {
        [
            "title": .string(title),
            "progress": progress?.json ?? .null,
            "heading": .string(heading),
            "text": .string(text),
            "fields": .array(fields.map(\.json)),
            "actions": .array(actions.map(JSONValue.string)),
            "toast": .optional(toast),
            "alert": alert?.json ?? .null,
        ]
    }
}

extension FlowView.Progress {
    public var json: JSONValue {
        ["current": .int(current), "total": .int(total), "label": .string(label)]
    }
}

extension FlowView.Field {
    public var json: JSONValue {
        var object: JSONObject = [
            "name": .string(name),
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
            object.members.append((key: "options", value: .array(options.map(\.json))))
        }
        return .object(object)
    }
}

extension FlowView.Option {
    /// `{id, name}`.
    public var json: JSONValue {
        ["id": .string(id), "name": .string(name)]
    }
}

extension FlowView.Alert {
    public var json: JSONValue {
        ["title": .string(title), "message": .string(message), "actions": .array(actions.map(\.json))]
    }
}

extension FlowView.AlertAction {
    public var json: JSONValue {
        var object: JSONObject = ["id": .string(id), "label": .string(label)]
        if let settings {
            object.members.append((key: "settings", value: settings.json))
        }
        return .object(object)
    }
}

// MARK: Reading

extension FlowView {
    /// Reads the `flow` member of an answer. Members this version does not know are passed
    /// over; a member it needs that is missing or of the wrong type is an error naming it.
    public init(json: JSONValue) throws(FlowViewError) {
        let flow = try WireObject(json, at: "flow")
        let id = try flow.string("id")
        let state: State
        switch try flow.string("state") {
        case "active":
            state = .active(Active(
                step: try flow.string("step"),
                locale: try flow.string("locale"),
                screen: try Screen(try flow.object("screen")),
                values: try flow.object("values").object))
        case "completed":
            state = .completed(reportID: try flow.optionalString("reportId"))
        case "cancelled":
            state = .cancelled
        case let other:
            throw FlowViewError(at: flow.path("state"), "must be \"active\", \"completed\" or \"cancelled\", not \"\(other)\"")
        }
        self.init(id: id, state: state)
    }
}

extension FlowView.Screen {
    init(_ screen: WireObject) throws(FlowViewError) {
        self.init(
            title: try screen.string("title"),
            progress: try screen.optionalObject("progress").map(FlowView.Progress.init),
            heading: try screen.string("heading"),
            text: try screen.string("text"),
            fields: try screen.objects("fields", FlowView.Field.init),
            actions: try screen.strings("actions"),
            toast: try screen.optionalString("toast"),
            alert: try screen.optionalObject("alert").map(FlowView.Alert.init))
    }
}

extension FlowView.Field {
    init(_ field: WireObject) throws(FlowViewError) {
        self.init(
            name: try field.string("name"),
            label: try field.string("label"),
            placeholder: try field.optionalString("placeholder"),
            value: try field.value("value"),
            display: try field.optionalString("display"),
            required: try field.bool("required"),
            enabled: try field.bool("enabled"),
            error: try field.optionalString("error"),
            helper: try field.optionalString("helper"),
            counter: try field.optionalString("counter"),
            options: field.has("options") ? try field.objects("options", FlowView.Option.init) : nil)
    }
}

extension FlowView.Progress {
    init(_ progress: WireObject) throws(FlowViewError) {
        self.init(current: try progress.int("current"), total: try progress.int("total"), label: try progress.string("label"))
    }
}

extension FlowView.Option {
    init(_ option: WireObject) throws(FlowViewError) {
        self.init(id: try option.string("id"), name: try option.string("name"))
    }
}

extension FlowView.Alert {
    init(_ alert: WireObject) throws(FlowViewError) {
        self.init(
            title: try alert.string("title"),
            message: try alert.string("message"),
            actions: try alert.objects("actions", FlowView.AlertAction.init))
    }
}

extension FlowView.AlertAction {
    init(_ action: WireObject) throws(FlowViewError) {
        self.init(
            id: try action.string("id"),
            label: try action.string("label"),
            settings: action.has("settings") ? try SettingsLocation(try action.object("settings")) : nil)
    }
}

extension SettingsLocation {
    init(_ settings: WireObject) throws(FlowViewError) {
        self.init(file: try settings.string("file"), key: try settings.string("key"))
    }
}

/// One object of the view while it is read, with where it stands ("flow.screen.fields[2]")
/// so that an error names the member at fault.
struct WireObject {
    let object: JSONObject
    let location: String

    init(_ value: JSONValue, at location: String) throws(FlowViewError) {
        guard case .object(let object) = value else {
            throw FlowViewError(at: location, "must be an object, not \(value.typeName)")
        }
        self.object = object
        self.location = location
    }

    func path(_ key: String) -> String { location + "." + key }

    /// Whether a member that is written only when it has something to say (`options`,
    /// `settings`) is there.
    func has(_ key: String) -> Bool { object[key] != nil }

    /// Any JSON value, null included; only a missing member is an error.
    func value(_ key: String) throws(FlowViewError) -> JSONValue {
        guard let value = object[key] else { throw FlowViewError(at: path(key), "is missing") }
        return value
    }

    func string(_ key: String) throws(FlowViewError) -> String {
        let value = try value(key)
        guard case .string(let text) = value else { throw FlowViewError(at: path(key), "must be a string, not \(value.typeName)") }
        return text
    }

    /// A string or null.
    func optionalString(_ key: String) throws(FlowViewError) -> String? {
        let value = try value(key)
        switch value {
        case .null: return nil
        case .string(let text): return text
        default: throw FlowViewError(at: path(key), "must be a string or null, not \(value.typeName)")
        }
    }

    func bool(_ key: String) throws(FlowViewError) -> Bool {
        let value = try value(key)
        guard case .bool(let flag) = value else { throw FlowViewError(at: path(key), "must be true or false, not \(value.typeName)") }
        return flag
    }

    func int(_ key: String) throws(FlowViewError) -> Int {
        let value = try value(key)
        guard case .number(let number) = value, let int = number.exactInt else {
            throw FlowViewError(at: path(key), "must be a whole number, not \(value.typeName)")
        }
        return int
    }

    func object(_ key: String) throws(FlowViewError) -> WireObject {
        try WireObject(try value(key), at: path(key))
    }

    /// An object or null.
    func optionalObject(_ key: String) throws(FlowViewError) -> WireObject? {
        let value = try value(key)
        return value.isNull ? nil : try WireObject(value, at: path(key))
    }

    func strings(_ key: String) throws(FlowViewError) -> [String] {
        try elements(key).map { element throws(FlowViewError) in
            guard case .string(let text) = element.value else {
                throw FlowViewError(at: element.path, "must be a string, not \(element.value.typeName)")
            }
            return text
        }
    }

    func objects<T>(_ key: String, _ read: (WireObject) throws(FlowViewError) -> T) throws(FlowViewError) -> [T] {
        try elements(key).map { element throws(FlowViewError) in try read(try WireObject(element.value, at: element.path)) }
    }

    private func elements(_ key: String) throws(FlowViewError) -> [(value: JSONValue, path: String)] {
        let value = try value(key)
        guard case .array(let elements) = value else { throw FlowViewError(at: path(key), "must be an array, not \(value.typeName)") }
        return elements.enumerated().map { (value: $0.element, path: "\(path(key))[\($0.offset)]") }
    }
}
