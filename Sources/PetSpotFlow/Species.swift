import PetSpotViews

/// One entry of the curated species list: a stable id and its name in every locale.
public struct Species: Sendable, Hashable {
    public let id: String
    public let names: [FlowLocale: String]

    public init(id: String, names: [FlowLocale: String]) {
        self.id = id
        self.names = names
    }

    /// The name in `locale`; a validated catalog has one for every locale.
    public func name(in locale: FlowLocale) -> String {
        names[locale] ?? id
    }
}
