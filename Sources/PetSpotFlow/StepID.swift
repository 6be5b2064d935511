/// The screens of the flow, in order: four data steps, then the summary.
public enum StepID: String, Sendable, CaseIterable {
    case chip, photo, description, contact, summary

    /// How many steps show progress ("N/4"); the summary is not counted.
    public static let dataStepCount = 4

    /// The step's position among the data steps (1...4); nil on the summary.
    public var number: Int? {
        switch self {
        case .chip: 1
        case .photo: 2
        case .description: 3
        case .contact: 4
        case .summary: nil
        }
    }

    /// Where Back leads; nil on the first step, where Back cancels the flow.
    public var previous: StepID? {
        switch self {
        case .chip: nil
        case .photo: .chip
        case .description: .photo
        case .contact: .description
        case .summary: .contact
        }
    }

    /// Where Continue leads; nil on the summary, which is submitted instead.
    public var next: StepID? {
        switch self {
        case .chip: .photo
        case .photo: .description
        case .description: .contact
        case .contact: .summary
        case .summary: nil
        }
    }

    /// The fields a client may set on this step, in screen order.
    public var fields: [FlowField] {
        FlowField.allCases.filter { $0.step == self }
    }
}
