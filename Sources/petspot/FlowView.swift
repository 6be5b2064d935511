import PetSpotJSON

/// The daemon's flow view (docs/PROTOCOL.md, "The flow view") read into Swift values.
/// Only reading: every word and every rule in it comes from the daemon.
struct FlowView {
    var id: String
    /// "active", "completed" or "cancelled".
    var state: String
    var step: String?
    var locale: String?
    var reportID: String?
    var screen: Screen?

    struct Screen {
        var title: String
        var progressLabel: String?
        var heading: String
        var text: String
        var fields: [Field]
        var actions: [String]
        var toast: String?
        var alert: Alert?
    }

    struct Field {
        var name: String
        var label: String
        var placeholder: String?
        var value: JSONValue
        var display: String?
        var required: Bool
        var enabled: Bool
        var error: String?
        var helper: String?
        var counter: String?
        var options: [Option]

        var isEmpty: Bool { value.isNull }
    }

    struct Option: Equatable {
        var id: String
        var name: String
    }

    struct Alert {
        var title: String
        var message: String
        var actions: [AlertAction]
    }

    struct AlertAction {
        var id: String
        var label: String
        var settingsFile: String?
        var settingsKey: String?
    }

    var isActive: Bool { state == "active" }

    func field(_ name: String) -> Field? {
        screen?.fields.first { $0.name == name }
    }

    func can(_ action: String) -> Bool {
        screen?.actions.contains(action) ?? false
    }
}

extension FlowView {
    init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, let state = json["state"]?.stringValue else { return nil }
        self.init(id: id, state: state, step: json["step"]?.stringValue, locale: json["locale"]?.stringValue,
                  reportID: json["reportId"]?.stringValue, screen: json["screen"].flatMap(Screen.init(json:)))
    }

    /// Before the first answer: no flow yet.
    static let none = FlowView(id: "", state: "none", step: nil, locale: nil, reportID: nil, screen: nil)
}

extension FlowView.Screen {
    init?(json: JSONValue) {
        guard json.objectValue != nil else { return nil }
        title = json["title"]?.stringValue ?? ""
        progressLabel = json["progress"]?["label"]?.stringValue
        heading = json["heading"]?.stringValue ?? ""
        text = json["text"]?.stringValue ?? ""
        fields = (json["fields"]?.arrayValue ?? []).compactMap(FlowView.Field.init(json:))
        actions = (json["actions"]?.arrayValue ?? []).compactMap(\.stringValue)
        toast = json["toast"]?.stringValue
        alert = json["alert"].flatMap(FlowView.Alert.init(json:))
    }
}

extension FlowView.Field {
    init?(json: JSONValue) {
        guard let name = json["name"]?.stringValue else { return nil }
        self.name = name
        label = json["label"]?.stringValue ?? name
        placeholder = json["placeholder"]?.stringValue
        value = json["value"] ?? .null
        display = json["display"]?.stringValue
        required = json["required"] == .bool(true)
        enabled = json["enabled"] != .bool(false)
        error = json["error"]?.stringValue
        helper = json["helper"]?.stringValue
        counter = json["counter"]?.stringValue
        options = (json["options"]?.arrayValue ?? []).compactMap { option in
            guard let id = option["id"]?.stringValue else { return nil }
            return FlowView.Option(id: id, name: option["name"]?.stringValue ?? id)
        }
    }

    /// What the field holds, as the person reads it: the daemon's display, else the raw value.
    var shownValue: String? {
        display ?? value.plainText
    }
}

extension FlowView.Alert {
    init?(json: JSONValue) {
        guard json.objectValue != nil else { return nil }
        title = json["title"]?.stringValue ?? ""
        message = json["message"]?.stringValue ?? ""
        actions = (json["actions"]?.arrayValue ?? []).compactMap { action in
            guard let id = action["id"]?.stringValue else { return nil }
            return FlowView.AlertAction(
                id: id, label: action["label"]?.stringValue ?? id,
                settingsFile: action["settings"]?["file"]?.stringValue,
                settingsKey: action["settings"]?["key"]?.stringValue)
        }
    }
}
