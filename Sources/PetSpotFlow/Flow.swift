import PetSpotJSON
import PetSpotViews

/// One "report a missing pet" flow: its step, its values and what its screen says.
///
/// A flow is a value. Every action is a mutating method that either throws a `FlowError`
/// before changing anything, or applies completely; the screen is a function of the state.
public struct Flow: Sendable {
    public let id: String
    public let locale: FlowLocale
    public private(set) var state: FlowState = .active
    public private(set) var step: StepID = .chip
    public private(set) var values = FlowValues()
    public private(set) var reportID: String?

    private var feedback = ScreenFeedback()
    /// Values refused at once, by field. They outlive a visit of their step: leaving and
    /// coming back does not make a refused value acceptable.
    private var refusals: [FlowField: FieldRefusal] = [:]
    /// The date defaults to today only the first time the description step is shown, so a
    /// date the person cleared on purpose stays cleared.
    private var hasShownDescription = false

    public init(id: String, locale: FlowLocale) {
        self.id = id
        self.locale = locale
    }

    // MARK: Editing

    /// `flow.update`: checks every member of `values` (state, names, step, JSON types) before
    /// changing anything, then applies each field's rules. A value that breaks its rule empties
    /// its field and is kept only as a refusal (see `FieldRefusal`); the other values of the
    /// same update are still stored.
    public mutating func update(_ values: JSONObject, env: FlowEnvironment) throws(FlowError) {
        try update(PreparedUpdate(values, env: env), env: env)
    }

    /// `flow.update` with its photo already decoded (see `PreparedUpdate`).
    public mutating func update(_ prepared: PreparedUpdate, env: FlowEnvironment) throws(FlowError) {
        let edits = try checkedEdits(prepared.values)
        // Read once: a photo the daemon did not keep in its spool is decoded here, in memory.
        let photo = prepared.photo
        feedback.showsToast = false
        feedback.alert = nil
        for sent in edits {
            let field = sent.edit.field
            let species = self.values.species
            if let issue = FieldNormalizer.apply(sent.edit, to: &self.values, env: env, decodedPhoto: photo) {
                self.values.clear(field)
                refusals[field] = FieldRefusal(sent: sent.text, issue: issue)
                feedback.issues[field] = issue
                if field == .species { forgetRace() }
                continue
            }
            refusals[field] = nil
            feedback.issues[field] = nil
            switch field {
            case .species:
                // A new species (or none) drops the race, and with it what was refused for
                // the race, "choose a species first" included.
                if self.values.species != species { forgetRace() }
            case .latitude, .longitude:
                // Typed coordinates replace whatever the last location request said.
                feedback.locationNote = nil
            default:
                break
            }
        }
    }

    /// The checks `update(_:env:)` makes before it changes anything (state, names, step, JSON
    /// types): what a photo must pass before its bytes are kept anywhere.
    public func checkUpdate(_ prepared: PreparedUpdate) throws(FlowError) {
        _ = try checkedEdits(prepared.values)
    }

    private func checkedEdits(_ values: JSONObject) throws(FlowError) -> [FieldEdit.Sent] {
        try requireActive(to: "change its values")
        return try FieldEdit.decode(values, on: step)
    }

    /// `flow.applyLocation`: the answer of the location service to `flow.requestLocation`.
    public mutating func applyLocation(_ outcome: LocationOutcome) throws(FlowError) {
        try checkCanTakeLocation()
        feedback.showsToast = false
        feedback.alert = nil
        switch outcome {
        case .fix(let fix):
            // A provider outside the globe's ranges is broken; do not store what it said.
            guard CoordinateParser.isInRange(fix.latitude, axis: .latitude),
                CoordinateParser.isInRange(fix.longitude, axis: .longitude)
            else {
                feedback.locationNote = .unavailable
                return
            }
            values.latitude = fix.latitude
            values.longitude = fix.longitude
            for axis in [FlowField.latitude, .longitude] {
                refusals[axis] = nil
                feedback.issues[axis] = nil
            }
            feedback.locationNote = .found(source: fix.source)
        case .permissionDenied(let settings):
            feedback.alert = .permissionDenied(settings)
            feedback.locationNote = nil
        case .servicesDisabled(let settings):
            feedback.alert = .servicesDisabled(settings)
            feedback.locationNote = nil
        case .timeout:
            feedback.locationNote = .timedOut
        case .unavailable:
            feedback.locationNote = .unavailable
        }
    }

    /// Closes the alert (its Cancel); the fields stay as they were.
    public mutating func dismissAlert() throws(FlowError) {
        try requireActive(to: "close an alert")
        feedback.alert = nil
    }

    // MARK: Navigation

    /// `flow.continue`: validates the current step only. Valid: the step advances and `true`
    /// comes back. Invalid: the step stays, with a toast and an error under each field at fault.
    public mutating func continueStep(env: FlowEnvironment) throws(FlowError) -> Bool {
        try requireActive(to: "continue")
        guard let next = step.next else {
            throw .wrongStep(message: "The summary is not continued; use flow.submit to store the report.")
        }
        var issues = StepValidator.issues(on: step, in: values, env: env)
        for (field, refusal) in refusals where field.step == step {
            issues[field] = refusal.issue
        }
        guard issues.isEmpty else {
            feedback = ScreenFeedback(issues: issues, showsToast: true, locationNote: feedback.locationNote)
            return false
        }
        enter(next)
        if next == .description && !hasShownDescription {
            hasShownDescription = true
            if values.disappearanceDate == nil { values.disappearanceDate = env.today }
        }
        return true
    }

    /// `flow.back`: every value is kept. From the first step the flow is cancelled instead.
    public mutating func back() throws(FlowError) {
        try requireActive(to: "go back")
        guard let previous = step.previous else {
            end(as: .cancelled)
            return
        }
        enter(previous)
    }

    /// `flow.cancel`: the flow ends and its values are dropped.
    public mutating func cancel() throws(FlowError) {
        try requireActive(to: "be cancelled")
        end(as: .cancelled)
    }

    // MARK: Submitting

    /// The precondition of `flow.submit`: an active flow on the summary.
    public func checkSubmittable() throws(FlowError) {
        try requireActive(to: "be submitted")
        guard step == .summary else {
            throw .wrongStep(message: "A report is submitted from step 'summary'; the flow is on step '\(step.rawValue)'.")
        }
    }

    /// Called once the report is durable: the flow ends, remembering only the report's id.
    /// The values now live in the report, so the flow drops its copy (and the photo's bytes).
    public mutating func complete(reportID: String) {
        end(as: .completed)
        self.reportID = reportID
    }

    // MARK: Viewing

    /// The flow view of PROTOCOL.md. An ended flow shows only how it ended.
    public func view(env: FlowEnvironment) -> FlowView {
        switch state {
        case .cancelled:
            return FlowView(id: id, state: .cancelled)
        case .completed:
            return FlowView(id: id, state: .completed(reportID: reportID))
        case .active:
            let screen = ScreenBuilder(
                step: step, values: values, feedback: feedback, refusals: refusals, env: env, locale: locale)
            return FlowView(id: id, state: .active(FlowView.Active(
                step: step.rawValue, locale: locale.rawValue, screen: screen.screen, values: values.jsonObject)))
        }
    }

    // MARK: Private

    /// A new visit of a step starts with a clean screen: no stale errors, toast or alert.
    private mutating func enter(_ step: StepID) {
        self.step = step
        feedback = ScreenFeedback()
    }

    private mutating func end(as state: FlowState) {
        self.state = state
        values = FlowValues()
        feedback = ScreenFeedback()
        refusals = [:]
    }

    /// The race was emptied with its species: nothing about it is left to show.
    private mutating func forgetRace() {
        refusals[.race] = nil
        feedback.issues[.race] = nil
    }

    /// Whether "Request GPS position" is possible now, so a caller can refuse before waiting
    /// for a location rather than after.
    public func checkCanTakeLocation() throws(FlowError) {
        try requireActive(to: "take a location")
        guard step == .description else {
            throw .wrongStep(message: "A location can be requested on step 'description' only; the flow is on step '\(step.rawValue)'.")
        }
    }

    private func requireActive(to action: String) throws(FlowError) {
        switch state {
        case .active: return
        case .cancelled: throw .wrongStep(message: "The flow was cancelled; it can no longer \(action).")
        case .completed: throw .wrongStep(message: "The flow is completed; it can no longer \(action).")
        }
    }
}
