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
        case .expired:
            return ["id": .string(id), "state": "expired"]
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
        .object(JSONObject(presentMembers: [
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
            "options": options.map { .array($0.map(\.json)) },
        ]))
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
        .object(JSONObject(presentMembers: ["id": .string(id), "label": .string(label), "settings": settings?.json]))
    }
}

// MARK: Reading

extension FlowView {
    /// Reads the `flow` member of an answer. Members this version does not know are passed
    /// over; a member it needs that is missing or of the wrong type is an error naming it.
    public init(json: JSONValue) throws(FlowViewError) {
        try self.init(try WireObject(json, at: "flow"))
    }

    /// Reads a flow that stands at `flow`'s place in an answer.
    init(_ flow: WireObject) throws(FlowViewError) {
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
        case "expired":
            state = .expired
        case let other:
            throw FlowViewError(at: flow.path("state"), "must be \"active\", \"completed\", \"cancelled\" or \"expired\", not \"\(other)\"")
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
