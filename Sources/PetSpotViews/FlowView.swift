import PetSpotJSON

/// The flow view of docs/PROTOCOL.md ("The flow view"): everything a client needs to draw the
/// current screen. The daemon builds it from a flow and writes it with `json`; a client reads
/// it back with `init(json:)` (both in FlowView+JSON.swift), so the two ends share one shape.
/// Every word and every rule in it comes from the daemon.
public struct FlowView: Sendable, Equatable {
    public var id: String
    public var state: State

    /// An ended flow shows only how it ended.
    public enum State: Sendable, Equatable {
        case active(Active)
        case completed(reportID: String?)
        case cancelled
        /// Idle past `limits.flowIdleTimeoutSeconds` and gone: only `flow.changed` says so,
        /// as the last word to a watcher.
        case expired
    }

    /// What an active flow shows: its step, in its language, and every value it holds.
    public struct Active: Sendable, Equatable {
        public var step: String
        public var locale: String
        public var screen: Screen
        /// Every field of the flow by name, as stored (null when empty).
        public var values: JSONObject

        public init(step: String, locale: String, screen: Screen, values: JSONObject) {
            (self.step, self.locale, self.screen, self.values) = (step, locale, screen, values)
        }
    }

    public struct Screen: Sendable, Equatable {
        public var title: String
        /// Nil on the summary.
        public var progress: Progress?
        public var heading: String
        public var text: String
        public var fields: [Field]
        public var actions: [String]
        public var toast: String?
        public var alert: Alert?

        public init(title: String, progress: Progress?, heading: String, text: String, fields: [Field],
                    actions: [String], toast: String?, alert: Alert?) {
            (self.title, self.progress, self.heading, self.text) = (title, progress, heading, text)
            (self.fields, self.actions, self.toast, self.alert) = (fields, actions, toast, alert)
        }
    }

    /// "3/4": which data step this is.
    public struct Progress: Sendable, Equatable {
        public var current: Int
        public var total: Int
        public var label: String

        public init(current: Int, total: Int, label: String) {
            (self.current, self.total, self.label) = (current, total, label)
        }
    }

    /// One field as a client draws it: what it is called, what it holds, and what to say about it.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var label: String
        public var placeholder: String?
        /// The stored value, null when empty.
        public var value: JSONValue
        /// The value as a person reads it; for a refused value, what was sent.
        public var display: String?
        public var required: Bool
        public var enabled: Bool
        public var error: String?
        public var helper: String?
        public var counter: String?
        /// The choices of a select field; nil (no member) on every other field.
        public var options: [Option]?

        public init(name: String, label: String, placeholder: String? = nil, value: JSONValue = .null,
                    display: String? = nil, required: Bool, enabled: Bool, error: String? = nil,
                    helper: String? = nil, counter: String? = nil, options: [Option]? = nil) {
            (self.name, self.label, self.placeholder, self.value) = (name, label, placeholder, value)
            (self.display, self.required, self.enabled, self.error) = (display, required, enabled, error)
            (self.helper, self.counter, self.options) = (helper, counter, options)
        }
    }

    /// A choice of a select field, also an entry of `species.list`.
    public struct Option: Sendable, Equatable {
        public var id: String
        public var name: String

        public init(id: String, name: String) {
            (self.id, self.name) = (id, name)
        }
    }

    /// A dialog the client shows until it is dismissed.
    public struct Alert: Sendable, Equatable {
        public var title: String
        public var message: String
        public var actions: [AlertAction]

        public init(title: String, message: String, actions: [AlertAction]) {
            (self.title, self.message, self.actions) = (title, message, actions)
        }
    }

    public struct AlertAction: Sendable, Equatable {
        public var id: String
        public var label: String
        /// Where "Go to Settings" points.
        public var settings: SettingsLocation?

        public init(id: String, label: String, settings: SettingsLocation? = nil) {
            (self.id, self.label, self.settings) = (id, label, settings)
        }
    }

    public init(id: String, state: State) {
        (self.id, self.state) = (id, state)
    }
}

extension FlowView {
    public var isActive: Bool {
        if case .active = state { return true }
        return false
    }

    /// What an active flow shows; nil once it has ended.
    public var active: Active? {
        if case .active(let active) = state { return active }
        return nil
    }

    public var step: String? { active?.step }
    public var screen: Screen? { active?.screen }

    public func field(_ name: String) -> Field? {
        screen?.fields.first { $0.name == name }
    }

    public func can(_ action: String) -> Bool {
        screen?.actions.contains(action) ?? false
    }
}
