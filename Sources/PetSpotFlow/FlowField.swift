/// Every value a report can hold, named as on the wire, in the order screens show them.
public enum FlowField: String, Sendable, CaseIterable {
    case chipNumber
    case photo
    case disappearanceDate
    case species
    case race
    case gender
    case age
    case latitude
    case longitude
    case additionalDescription
    case contactPhone
    case contactEmail

    /// The only step on which the field can be set.
    public var step: StepID {
        switch self {
        case .chipNumber: .chip
        case .photo: .photo
        case .disappearanceDate, .species, .race, .gender, .age, .latitude, .longitude, .additionalDescription: .description
        case .contactPhone, .contactEmail: .contact
        }
    }

    /// Whether the label says "(optional)". Race is required once a species is chosen, and the
    /// contact fields are required as a pair, so none of those is labelled optional.
    public var isLabelledOptional: Bool {
        switch self {
        case .chipNumber, .photo, .age, .latitude, .longitude, .additionalDescription: true
        case .disappearanceDate, .species, .race, .gender, .contactPhone, .contactEmail: false
        }
    }
}
