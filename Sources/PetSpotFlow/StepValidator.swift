/// What Continue checks: the rules that depend on several fields or on a field being present,
/// applied to the stored values of one step.
enum StepValidator {
    /// An empty result means the step may be left.
    static func issues(on step: StepID, in values: FlowValues, env: FlowEnvironment) -> [FlowField: FieldIssue] {
        var issues: [FlowField: FieldIssue] = [:]
        switch step {
        case .chip, .photo, .summary:
            break

        case .description:
            if let date = values.disappearanceDate {
                // "Today" may have been reckoned in another zone when the date was set.
                if date > env.today { issues[.disappearanceDate] = .futureDate }
            } else {
                issues[.disappearanceDate] = .required(.disappearanceDate)
            }
            if let species = values.species {
                // The catalog may have been reloaded since the species was chosen.
                if !env.species.contains(species) { issues[.species] = .unknownSpecies }
            } else {
                issues[.species] = .required(.species)
            }
            if isRequired(.race, in: values) && values.race == nil {
                issues[.race] = .required(.race)
            }
            if values.gender == nil {
                issues[.gender] = .required(.gender)
            }
            switch (values.latitude, values.longitude) {
            case (nil, .some): issues[.latitude] = .missingCoordinate(.latitude)
            case (.some, nil): issues[.longitude] = .missingCoordinate(.longitude)
            default: break
            }

        case .contact:
            // A report nobody can answer is useless.
            if values.contactPhone == nil && values.contactEmail == nil {
                issues[.contactPhone] = .noContact
                issues[.contactEmail] = .noContact
            }
        }
        return issues
    }

    /// Whether the screen marks the field as required. The contact fields are required only
    /// as a pair, which the step's text explains, so neither is marked alone.
    static func isRequired(_ field: FlowField, in values: FlowValues) -> Bool {
        switch field {
        case .disappearanceDate, .species, .gender: true
        case .race: values.species != nil
        case .chipNumber, .photo, .age, .latitude, .longitude, .additionalDescription, .contactPhone, .contactEmail: false
        }
    }
}
