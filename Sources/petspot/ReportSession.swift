import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

/// Walks a person through one report: shows each screen the daemon describes, sends what the
/// person types with `flow.update`, and shows what comes back. The loop knows prompts and
/// commands, never the flow's rules: which fields there are, what is valid, what a value looks
/// like and what to say about it all come from the daemon's flow view. While it waits for a
/// line it watches the flow (`flow.watch`), so that a change made elsewhere (another
/// `petspot report`, the phone app, `petspot call`) shows at once, and a flow submitted,
/// cancelled or expired elsewhere ends the session.
final class ReportSession {
    enum Outcome: Equatable {
        case submitted(reportID: String)
        /// `:cancel`, or `:back` on the first step.
        case cancelled
        /// The input ended first; the flow was cancelled.
        case inputEnded
        /// Another connection of the flow's owner submitted it (its report id, when the daemon said).
        case submittedElsewhere(reportID: String?)
        /// Another connection of the flow's owner cancelled it.
        case cancelledElsewhere
        /// It was left idle past the daemon's limit and is gone.
        case expired
    }

    enum Failure: Error {
        /// The daemon went away.
        case lost(ClientError)
        /// The flow no longer exists (expired, or cancelled elsewhere).
        case flowGone(RPCError)
        /// The daemon would not start a flow (e.g. too many open ones).
        case notStarted(RPCError)
    }

    private let daemon: DaemonCalling
    private let input: LineInput
    /// The connection `daemon` calls through, for the flow's watch; nil: no watch.
    private let notifications: NotificationSource?
    private let output: TextOutput
    private let renderer: ScreenRenderer
    private let copy: ReportCopy
    /// The longest request line the daemon takes, to refuse a too large photo before sending it.
    private let maxLineBytes: Int?
    private let readPhoto: (String) throws(PhotoFile.Unreadable) -> PhotoFile
    /// Told the flow id when a flow starts and nil when it ends, so Ctrl-C knows what to cancel.
    private let onFlowChange: (String?) -> Void

    /// Before the first answer: no flow yet.
    private var view = FlowView(id: "", state: .cancelled)
    private var focus = ReportFocus.proceed
    /// Where to return when the open alert is closed.
    private var focusBeforeAlert: ReportFocus?
    private var change = ScreenChange.screen
    private var notices: [Notice] = []
    /// The flow's watch, while it lasts.
    private var subscription: String?

    init(daemon: DaemonCalling, notifications: NotificationSource? = nil, input: LineInput, output: TextOutput,
         renderer: ScreenRenderer, copy: ReportCopy, maxLineBytes: Int? = nil,
         readPhoto: @escaping (String) throws(PhotoFile.Unreadable) -> PhotoFile = { path throws(PhotoFile.Unreadable) in try PhotoFile.read(typed: path) },
         onFlowChange: @escaping (String?) -> Void = { _ in })
    {
        self.daemon = daemon
        self.notifications = notifications
        self.input = input
        self.output = output
        self.renderer = renderer
        self.copy = copy
        self.maxLineBytes = maxLineBytes
        self.readPhoto = readPhoto
        self.onFlowChange = onFlowChange
    }

    func run(locale: FlowLocale) throws(Failure) -> Outcome {
        switch try call(FlowStart.self, FlowStart.Params(locale: locale)) {
        case .success(let result): view = result.flow
        case .failure(let error): throw .notStarted(error)
        }
        onFlowChange(view.id)
        try watchFlow()
        output.write(renderer.opening(view))
        enterStep()
        while true {
            trackAlert()
            output.write(renderer.frame(view, focus: focus, change: change, notices: notices))
            notices = []
            change = .none
            output.write(renderer.prompt(view, focus: focus))
            switch try nextEvent() {
            case .line(let line):
                if let outcome = try handle(ReportEntry(line: line)) { return outcome }
            case .ended:
                // Nobody is left to finish it: drop the flow rather than leave it to expire.
                _ = try? call(FlowCancel.self, thisFlow)
                onFlowChange(nil)
                return .inputEnded
            case .changed(let changed):
                if let outcome = adopt(changed) { return outcome }
            }
        }
    }

    // MARK: The watch

    private enum Event {
        case line(String)
        case ended
        /// The flow as a change made elsewhere left it.
        case changed(FlowView)
    }

    /// Asks the daemon to tell of every change to the flow. A daemon without watches (before
    /// protocol 3, `methodNotFound`) or with none left for this connection (`limitExceeded`)
    /// is used without: the session then shows what its own requests bring back, as before.
    private func watchFlow() throws(Failure) {
        guard notifications != nil else { return }
        switch try call(FlowWatch.self, thisFlow) {
        case .success(let result):
            subscription = result.subscription
            // Only an active flow is taken: an ended one is told again as the watch's last word.
            if result.flow.isActive { view = result.flow }
        case .failure(let error):
            if error.kind == .flowNotFound {
                onFlowChange(nil)
                throw .flowGone(error)
            }
        }
    }

    /// The person's next line, or a change to the flow made elsewhere, whichever comes first.
    private func nextEvent() throws(Failure) -> Event {
        while true {
            let changed: FlowChanged.Params?
            do {
                switch try input.next(or: subscription == nil ? nil : notifications) {
                case .line(let line): return .line(line)
                case .ended: return .ended
                case .notification(let notification): changed = try notification.reading(FlowChanged.self)
                }
            } catch {
                // Lost while the prompt waits: the last words go on a line of their own.
                output.write(renderer.leavingPrompt())
                throw .lost(error)
            }
            guard let changed, changed.subscription == subscription else { continue }
            if changed.isLast { subscription = nil }
            // A change the session made itself is told too, after its answer: that view is shown
            // already. (Those told before an answer are dropped with it: see `call`.)
            if changed.flow == view { continue }
            return .changed(changed.flow)
        }
    }

    /// Shows the flow as it was changed elsewhere, saying so, or ends the session once it has
    /// ended there.
    private func adopt(_ changed: FlowView) -> Outcome? {
        let step = view.step
        view = changed
        switch changed.state {
        case .completed(let reportID):
            onFlowChange(nil)
            output.write(renderer.submittedElsewhere(reportID: reportID))
            return .submittedElsewhere(reportID: reportID)
        case .cancelled:
            onFlowChange(nil)
            output.write(renderer.ended(copy.cancelledElsewhere))
            return .cancelledElsewhere
        case .expired:
            onFlowChange(nil)
            output.write(renderer.ended(copy.expired))
            return .expired
        case .active:
            break
        }
        notices.append(.info(copy.changedElsewhere))
        if changed.step != step {
            enterStep()
            return nil
        }
        // The same step: the prompt stays where it was, unless its field is gone or unavailable now.
        focus = stillThere(focus)
        focusBeforeAlert = focusBeforeAlert.map(stillThere)
        change = .screen
        return nil
    }

    // MARK: Input

    private func handle(_ entry: ReportEntry) throws(Failure) -> Outcome? {
        switch entry {
        case .command(let command):
            return try perform(command)
        case .unknownCommand(let name):
            notices.append(.warning(copy.unknownCommand(name)))
        case .keep, .clear, .value:
            switch focus {
            case .field(let name): try edit(name, entry)
            case .proceed:
                if entry == .keep { return try perform(.continueStep) }
                notices.append(.info(copy.continueHint))
            case .summary: notices.append(.info(copy.summaryPrompt))
            case .alert: try choose(entry)
            }
        }
        return nil
    }

    private func edit(_ name: String, _ entry: ReportEntry) throws(Failure) {
        guard let field = view.field(name) else {
            focus = firstFocus()
            return
        }
        switch entry {
        case .keep:
            advance(after: name)
        case .clear:
            try update(name, .null)
        case .value(let text) where name == "photo":
            // On the photo field, what a person types is the file's path.
            try attachPhoto(text, advancing: true)
        case .value(let text):
            try update(name, .string(Self.optionID(for: text, in: field)))
        case .command, .unknownCommand:
            break
        }
    }

    private func perform(_ command: ReportEntry.Command) throws(Failure) -> Outcome? {
        switch command {
        case .back:
            guard try flowCall(FlowBack.self, thisFlow) != nil else { return nil }
            // Back on the first step cancels the flow.
            if !view.isActive { return finishCancelled() }
            enterStep()
        case .cancel:
            guard try flowCall(FlowCancel.self, thisFlow) != nil else { return nil }
            return finishCancelled()
        case .continueStep:
            guard view.can("continue") else { return notHere(":continue") }
            guard let result = try flowCall(FlowContinue.self, thisFlow) else { return nil }
            if result.accepted {
                enterStep()
            } else {
                // Refused: the toast and the errors are on the screen; start at the first error.
                let firstError = view.screen?.fields.first { $0.enabled && $0.error != nil }
                focus = firstError.map { .field($0.name) } ?? firstFocus()
                change = .screen
            }
        case .gps:
            guard view.can("requestLocation") else { return notHere(":gps") }
            output.write(renderer.immediate(.info(copy.requestingLocation)))
            // The outcome is on the screen: a helper under the coordinates, or an alert.
            guard try flowCall(FlowRequestLocation.self, FlowRequestLocation.Params(flowId: view.id)) != nil else { return nil }
            change = .screen
        case .photo(let path):
            guard view.step != "summary", view.field("photo") != nil else { return notHere(":photo") }
            guard let path else {
                notices.append(.warning(copy.photoUsage))
                return nil
            }
            try attachPhoto(path, advancing: false)
        case .submit:
            guard view.can("submit") else { return notHere(":submit") }
            guard let result = try flowCall(FlowSubmit.self, thisFlow) else { return nil }
            onFlowChange(nil)
            let reportID = result.report.id
            output.write(renderer.submitted(reportID: reportID))
            return .submitted(reportID: reportID)
        case .edit:
            focus = firstFocus()
            change = .screen
        case .help:
            let width = copy.commands.map(\.command.count).max() ?? 0
            notices.append(.info(copy.commandsTitle, details: copy.commands.map { TextLayout.pad($0.command, to: width) + "  " + $0.meaning }))
        }
        return nil
    }

    /// One of the open alert's actions, by its number or its label; Enter is Cancel.
    private func choose(_ entry: ReportEntry) throws(Failure) {
        guard let alert = view.screen?.alert else { return }
        let chosen: FlowView.AlertAction?
        switch entry {
        case .keep:
            chosen = alert.actions.first { $0.id == "cancel" } ?? alert.actions.first
        case .value(let text):
            let typed = text.trimmingWhitespace.lowercased()
            if let number = Int(typed), alert.actions.indices.contains(number - 1) {
                chosen = alert.actions[number - 1]
            } else {
                chosen = alert.actions.first { $0.id.lowercased() == typed || $0.label.lowercased() == typed }
            }
        default:
            chosen = nil
        }
        guard let chosen else {
            notices.append(.warning(copy.alertPrompt(alert.actions.count)))
            return
        }
        if let settings = chosen.settings {
            notices.append(.info(copy.settings(settings.file, settings.key)))
        }
        // Either way the alert closes, as a phone's does; flow.dismissAlert is its Cancel.
        guard try flowCall(FlowDismissAlert.self, thisFlow) != nil else { return }
    }

    // MARK: Daemon calls

    private func update(_ name: String, _ value: JSONValue) throws(Failure) {
        guard try flowCall(FlowUpdate.self, FlowUpdate.Params(flowId: view.id, values: JSONObject(members: [(key: name, value: value)]))) != nil else { return }
        change = .field(name)
        // A refused value asks again; an accepted one moves on.
        if view.field(name)?.error == nil { advance(after: name) }
    }

    private func attachPhoto(_ typedPath: String, advancing: Bool) throws(Failure) {
        let photo: PhotoFile
        do {
            photo = try readPhoto(typedPath)
        } catch {
            notices.append(.problem(copy.photoUnreadable(typedPath.trimmingWhitespace, error.reason)))
            return
        }
        if let maxLineBytes, !photo.fits(maxLineBytes: maxLineBytes) {
            let largest = PhotoFile.largest(maxLineBytes: maxLineBytes)
            notices.append(.problem(copy.photoTooLarge(typedPath.trimmingWhitespace, ByteSize.text(photo.bytes.count), ByteSize.text(largest))))
            return
        }
        guard try flowCall(FlowUpdate.self, FlowUpdate.Params(flowId: view.id, values: ["photo": photo.upload.json])) != nil else { return }
        change = .field("photo")
        if advancing, view.field("photo")?.error == nil { advance(after: "photo") }
    }

    /// The params of a method that takes only this flow's id.
    private var thisFlow: FlowIDParams { FlowIDParams(flowId: view.id) }

    /// A flow method on this flow; its answer's view becomes the one shown. An error answer
    /// becomes a notice, except that a flow that is gone ends the session.
    private func flowCall<M: RPCMethodSpec>(_ method: M.Type, _ params: M.Params) throws(Failure) -> M.Result? where M.Result: FlowResult {
        switch try call(method, params) {
        case .success(let result):
            view = result.flow
            return result
        case .failure(let error):
            if error.kind == .flowNotFound {
                onFlowChange(nil)
                throw .flowGone(error)
            }
            notices.append(.problem(error.message))
            return nil
        }
    }

    private func call<M: RPCMethodSpec>(_ method: M.Type, _ params: M.Params) throws(Failure) -> Result<M.Result, RPCError> {
        defer {
            // What the watch told before this answer is older than the answer's view, which is
            // shown instead: taken for a change elsewhere, it would put an older screen back.
            notifications?.discardNotificationsBeforeAnswers()
        }
        do {
            return try daemon.call(method, params)
        } catch {
            throw .lost(error)
        }
    }

    // MARK: Focus

    private func enterStep() {
        focus = firstFocus()
        focusBeforeAlert = nil
        change = .screen
    }

    private func firstFocus() -> ReportFocus {
        if view.step == "summary" { return .summary }
        return view.screen?.fields.first(where: \.enabled).map { .field($0.name) } ?? .proceed
    }

    /// `focus`, or the step's first prompt when it was on a field this screen no longer offers.
    private func stillThere(_ focus: ReportFocus) -> ReportFocus {
        if case .field(let name) = focus, view.field(name)?.enabled != true { return firstFocus() }
        return focus
    }

    /// The next field that takes a value, or the Continue prompt after the last one.
    private func advance(after name: String) {
        let fields = view.screen?.fields ?? []
        guard let index = fields.firstIndex(where: { $0.name == name }),
            let next = fields[(index + 1)...].first(where: \.enabled)
        else {
            focus = .proceed
            return
        }
        focus = .field(next.name)
    }

    /// An open alert takes every answer until it is closed; then the person is back where they were.
    private func trackAlert() {
        if view.screen?.alert != nil {
            if focus != .alert {
                focusBeforeAlert = focus
                focus = .alert
            }
        } else if focus == .alert {
            focus = focusBeforeAlert ?? firstFocus()
            focusBeforeAlert = nil
        }
    }

    private func notHere(_ command: String) -> Outcome? {
        notices.append(.warning(copy.notHere(command)))
        return nil
    }

    private func finishCancelled() -> Outcome {
        onFlowChange(nil)
        output.write(renderer.cancelled())
        return .cancelled
    }

    /// A choice typed as its number, its id or its name becomes the option's id; anything else
    /// goes to the daemon as typed, which says what is wrong with it.
    static func optionID(for text: String, in field: FlowView.Field) -> String {
        guard let options = field.options, !options.isEmpty else { return text }
        let typed = text.trimmingWhitespace
        if let number = Int(typed), options.indices.contains(number - 1) {
            return options[number - 1].id
        }
        let lowered = typed.lowercased()
        return options.first { $0.id.lowercased() == lowered || $0.name.lowercased() == lowered }?.id ?? text
    }
}
