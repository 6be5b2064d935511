import PetSpotViews

/// The poster's own words, in one language. Everything else on the page (labels, genders,
/// ages, dates, species) comes from the flow's `StringCatalog`, as the summary screen shows it.
///
/// Polish: the headline is "ZAGINIONE ZWIERZĘ" ("missing animal", neuter) above the species'
/// name, rather than "ZAGINĄŁ PIES" / "ZAGINĘŁA FRETKA": a verb would have to agree with the
/// grammatical gender of each species' name, and species names come from a catalog file the
/// poster cannot know. Sentences that follow agree with "zwierzę" ("ostatnio widziane").
public struct PosterCatalog: Sendable {
    /// Large, at the top: "MISSING".
    public let headline: String
    /// Before the date and the place it was last seen.
    public let lastSeen: String
    /// Above the contact.
    public let contactPrompt: String
    /// In the photo's place when the report has none.
    public let noPhoto: String
    /// In the photo's place when no decoder for its type is installed.
    public let photoNotShown: @Sendable (_ mediaType: String) -> String
    /// Under the QR code.
    public let scanCaption: @Sendable (QRPayload.Kind) -> String
    /// The report's id, small at the bottom, for whoever deals with the report.
    public let reference: @Sendable (_ id: String) -> String
    /// The PDF's title: "Missing: Dog".
    public let title: @Sendable (_ species: String) -> String
}

extension PosterCatalog {
    public init(_ locale: FlowLocale) {
        switch locale {
        case .en: self = .english
        case .pl: self = .polish
        }
    }

    public static let english = PosterCatalog(
        headline: "MISSING",
        lastSeen: "Last seen",
        contactPrompt: "Seen this animal? Please get in touch:",
        noPhoto: "No photo",
        photoNotShown: { "This photo (\($0)) cannot be shown here: no decoder for its format is installed." },
        scanCaption: { kind in
            switch kind {
            case .geo: "Scan for a map of where it was last seen"
            case .tel: "Scan to call"
            case .mailto: "Scan to write an email"
            }
        },
        reference: { "Reference \($0)" },
        title: { "Missing: \($0)" })

    public static let polish = PosterCatalog(
        headline: "ZAGINIONE ZWIERZĘ",
        lastSeen: "Ostatnio widziane",
        contactPrompt: "Każda informacja jest cenna. Prosimy o kontakt:",
        noPhoto: "Brak zdjęcia",
        photoNotShown: { "Tego zdjęcia (\($0)) nie da się tu pokazać: brak dekodera jego formatu." },
        scanCaption: { kind in
            switch kind {
            case .geo: "Zeskanuj, aby zobaczyć na mapie, gdzie je ostatnio widziano"
            case .tel: "Zeskanuj, aby zadzwonić"
            case .mailto: "Zeskanuj, aby napisać e-mail"
            }
        },
        reference: { "Numer zgłoszenia \($0)" },
        title: { "Zaginione zwierzę: \($0)" })
}
