import PetSpotText
import PetSpotViews

extension FlowView {
    /// The view as it is drawn: every word a person reads (titles, labels, values shown, errors,
    /// options, the alert) as `VisibleText` writes it, since they come from the daemon and must
    /// not act on the terminal. Multi-line texts keep their line breaks. Names, option ids,
    /// actions, the step and the values stay as they are: the session matches and sends those.
    var visible: FlowView {
        var shown = self
        shown.id = VisibleText.line(id)
        if case .active(var active) = state {
            active.screen = active.screen.visible
            shown.state = .active(active)
        }
        return shown
    }
}

extension FlowView.Screen {
    var visible: FlowView.Screen {
        var shown = self
        shown.title = VisibleText.line(title)
        shown.progress?.label = VisibleText.line(progress?.label ?? "")
        shown.heading = VisibleText.line(heading)
        shown.text = VisibleText.lines(text)
        shown.fields = fields.map(\.visible)
        shown.toast = toast.map(VisibleText.line)
        if let alert {
            shown.alert = FlowView.Alert(
                title: VisibleText.line(alert.title), message: VisibleText.lines(alert.message),
                actions: alert.actions.map { FlowView.AlertAction(id: $0.id, label: VisibleText.line($0.label), settings: $0.settings) })
        }
        return shown
    }
}

extension FlowView.Field {
    var visible: FlowView.Field {
        var shown = self
        shown.label = VisibleText.line(label)
        shown.placeholder = placeholder.map(VisibleText.line)
        shown.display = display.map(VisibleText.lines)
        shown.error = error.map(VisibleText.lines)
        shown.helper = helper.map(VisibleText.lines)
        shown.counter = counter.map(VisibleText.line)
        shown.options = options?.map { FlowView.Option(id: $0.id, name: VisibleText.line($0.name)) }
        return shown
    }
}
