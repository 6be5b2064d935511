import PetSpotViews

/// Every user-facing string of the flow, in one language.
///
/// A catalog is built with the memberwise initialiser, and strings that vary by a case are
/// closures over an exhaustive `switch`, so a language with a missing string does not compile.
/// Protocol error messages (`FlowError`) are for client developers and stay in English.
public struct StringCatalog: Sendable {
    public struct StepCopy: Sendable, Hashable {
        public let title: String
        public let heading: String
        public let text: String
    }

    public struct AlertCopy: Sendable, Hashable {
        public let title: String
        public let message: String
    }

    // MARK: Screens and fields
    public let step: @Sendable (StepID) -> StepCopy
    public let label: @Sendable (FlowField) -> String
    /// Decorates the label of a field a report is complete without: "Animal age (optional)".
    public let optionalLabel: @Sendable (String) -> String
    public let placeholder: @Sendable (FlowField) -> String
    /// The placeholder of an empty field on the summary.
    public let notProvided: String
    /// "Some information must be corrected".
    public let toast: String

    // MARK: Values as a person reads them
    public let gender: @Sendable (Gender) -> String
    public let years: @Sendable (Int) -> String
    public let date: @Sendable (CalendarDate) -> String
    public let decimalSeparator: String
    public let photoSummary: @Sendable (_ mediaType: String, _ size: String) -> String

    // MARK: Helper texts
    public let chipHint: @Sendable (ChipNumber.Hint) -> String
    public let photoFormats: @Sendable (_ sizeLimit: String) -> String
    public let photoDetails: @Sendable (_ sha256: String, _ filename: String?) -> String
    public let noOtherLocationDetails: String
    public let locationFound: @Sendable (_ source: String) -> String
    public let locationTimedOut: String
    public let locationUnavailable: String

    // MARK: Errors
    public let issue: @Sendable (FieldIssue) -> String

    // MARK: Location
    public let locationMessage: @Sendable (LocationOutcome) -> String
    public let permissionDeniedAlert: AlertCopy
    public let servicesDisabledAlert: AlertCopy
    public let cancel: String
    public let goToSettings: String
}

extension StringCatalog {
    /// The catalog of `locale`; a locale without one does not compile.
    public init(_ locale: FlowLocale) {
        switch locale {
        case .en: self = .english
        case .pl: self = .polish
        }
    }

    /// A size in the catalog's number format: "12.3 KiB", "12,3 KiB".
    public func byteSize(_ bytes: Int) -> String {
        ByteSize.text(bytes, decimalSeparator: decimalSeparator)
    }
}
