import PetSpotJSON
import PetSpotViews

/// Draws the `screen` of an active flow's view. The screen is a function of the flow's state,
/// the environment and the locale, so a client needs no copy of the rules to draw it.
struct ScreenBuilder {
    let step: StepID
    let values: FlowValues
    let feedback: ScreenFeedback
    let refusals: [FlowField: FieldRefusal]
    let env: FlowEnvironment
    let locale: FlowLocale
    let strings: StringCatalog

    init(step: StepID, values: FlowValues, feedback: ScreenFeedback, refusals: [FlowField: FieldRefusal],
         env: FlowEnvironment, locale: FlowLocale) {
        self.step = step
        self.values = values
        self.feedback = feedback
        self.refusals = refusals
        self.env = env
        self.locale = locale
        self.strings = StringCatalog(locale)
    }

    var screen: FlowView.Screen {
        let copy = strings.step(step)
        return FlowView.Screen(
            title: copy.title,
            progress: progress,
            heading: copy.heading,
            text: copy.text,
            fields: fields,
            actions: actions,
            toast: feedback.showsToast ? strings.toast : nil,
            alert: alert)
    }

    var fields: [FlowView.Field] {
        step == .summary ? FlowField.allCases.map(summaryField) : step.fields.map(inputField)
    }

    private var progress: FlowView.Progress? {
        step.number.map { FlowView.Progress(current: $0, total: StepID.dataStepCount, label: "\($0)/\(StepID.dataStepCount)") }
    }

    private var actions: [String] {
        switch step {
        case .chip, .photo, .contact: ["continue", "back"]
        case .description: ["continue", "back", "requestLocation"]
        case .summary: ["submit", "back"]
        }
    }

    private func inputField(_ field: FlowField) -> FlowView.Field {
        let label = strings.label(field)
        var screenField = FlowView.Field(
            name: field.rawValue,
            label: field.isLabelledOptional ? strings.optionalLabel(label) : label,
            placeholder: strings.placeholder(field),
            value: values.json(of: field),
            display: refusals[field].map(\.sent) ?? display(field),
            required: StepValidator.isRequired(field, in: values),
            // Race describes a species, so it waits for one.
            enabled: field != .race || values.species != nil,
            error: (refusals[field]?.issue ?? feedback.issues[field]).map(strings.issue),
            helper: helper(field))
        switch field {
        case .species:
            screenField.options = env.species.options(locale: locale)
        case .gender:
            screenField.options = Gender.allCases.map { FlowView.Option(id: $0.rawValue, name: strings.gender($0)) }
        case .additionalDescription:
            let count = values.additionalDescription?.count ?? 0
            screenField.counter = "\(count)/\(FieldNormalizer.maxDescriptionLength)"
        default:
            break
        }
        return screenField
    }

    /// Read-only, for checking before submit.
    private func summaryField(_ field: FlowField) -> FlowView.Field {
        FlowView.Field(
            name: field.rawValue,
            label: strings.label(field),
            placeholder: strings.notProvided,
            value: values.json(of: field),
            display: display(field),
            required: StepValidator.isRequired(field, in: values),
            enabled: false)
    }

    private func display(_ field: FlowField) -> String? {
        switch field {
        case .chipNumber: values.chipNumber.map { ChipNumber(normalizing: $0).formatted }
        case .photo: values.photo.map { strings.photoSummary($0.mediaType, strings.byteSize($0.byteCount)) }
        case .disappearanceDate: values.disappearanceDate.map(strings.date)
        case .species: values.species.map { env.species.name(of: $0, locale: locale) ?? $0 }
        case .race: values.race
        case .gender: values.gender.map(strings.gender)
        case .age: values.age.map(strings.years)
        case .latitude: values.latitude?.text
        case .longitude: values.longitude?.text
        case .additionalDescription: values.additionalDescription
        case .contactPhone: values.contactPhone
        case .contactEmail: values.contactEmail
        }
    }

    private func helper(_ field: FlowField) -> String? {
        switch field {
        case .chipNumber:
            let hints = values.chipNumber.map { ChipNumber(normalizing: $0).hints } ?? []
            return hints.isEmpty ? nil : hints.map(strings.chipHint).joined(separator: " ")
        case .photo:
            if let photo = values.photo { return strings.photoDetails(photo.sha256, photo.filename) }
            return strings.photoFormats(strings.byteSize(env.maxPhotoBytes))
        case .latitude:
            return locationNote
        case .longitude:
            return [locationNote, strings.noOtherLocationDetails].compactMap { $0 }.joined(separator: " ")
        default:
            return nil
        }
    }

    private var locationNote: String? {
        switch feedback.locationNote {
        case .found(let source): strings.locationFound(source)
        case .timedOut: strings.locationTimedOut
        case .unavailable: strings.locationUnavailable
        case nil: nil
        }
    }

    private var alert: FlowView.Alert? {
        guard let alert = feedback.alert else { return nil }
        let (copy, settings) =
            switch alert {
            case .permissionDenied(let settings): (strings.permissionDeniedAlert, settings)
            case .servicesDisabled(let settings): (strings.servicesDisabledAlert, settings)
            }
        return FlowView.Alert(title: copy.title, message: copy.message, actions: [
            FlowView.AlertAction(id: "cancel", label: strings.cancel),
            FlowView.AlertAction(id: "openSettings", label: strings.goToSettings, settings: settings),
        ])
    }
}
