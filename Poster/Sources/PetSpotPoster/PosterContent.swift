import PetSpotFlow
import PetSpotViews

/// Every text of one poster, in its language: the flow's words where the flow has them (labels,
/// gender, age, the date as people say it, the species' name), the poster's own for the rest.
/// Where each goes on the page is `PosterLayout`'s business.
public struct PosterContent: Sendable, Equatable {
    /// "Gender: Female".
    public struct Line: Sendable, Equatable {
        public let label: String
        public let value: String

        public init(_ label: String, _ value: String) {
            self.label = label
            self.value = value
        }
    }

    public struct QRCode: Sendable, Equatable {
        public let payload: QRPayload
        public let caption: String
    }

    public let headline: String
    /// The species' name in capitals: "DOG", "ŚWINKA MORSKA".
    public let species: String
    /// Race, gender, age, the chip when asked for, the date and the place it was last seen.
    public let facts: [Line]
    public let descriptionTitle: String
    /// At most `PosterInputLimits.descriptionLines` lines; tabs are spaces.
    public let description: String?
    public let contactPrompt: String
    public let contacts: [Line]
    /// In the photo's place when there is none.
    public let noPhoto: String
    /// In the photo's place when it cannot be decoded here for want of a decoder.
    public let photoNotShown: String?
    public let qrCode: QRCode?
    public let reference: String
    /// The PDF's title.
    public let title: String

    public init(_ document: PosterDocument, options: PosterOptions, species catalog: SpeciesCatalog = .builtIn) throws(PosterInputError) {
        let strings = StringCatalog(options.locale), words = PosterCatalog(options.locale)
        let speciesName = document.speciesName ?? catalog.name(of: document.species, locale: options.locale) ?? document.species
        headline = words.headline
        species = speciesName.uppercased()

        var facts: [Line] = []
        if let race = document.race { facts.append(Line(strings.label(.race), race)) }
        if let gender = document.gender { facts.append(Line(strings.label(.gender), strings.gender(gender))) }
        if let age = document.age { facts.append(Line(strings.label(.age), strings.years(age))) }
        if options.showChip, let chip = document.chipNumber {
            facts.append(Line(strings.label(.chipNumber), ChipNumberText.formatted(chip)))
        }
        if let date = document.disappearanceDate { facts.append(Line(strings.label(.disappearanceDate), strings.date(date))) }
        if let position = document.lastSeen {
            facts.append(Line(words.lastSeen, "\(position.latitude), \(position.longitude)"))
        }
        self.facts = facts

        descriptionTitle = strings.step(.description).title
        description = document.description.map(Self.printable)
        contactPrompt = words.contactPrompt
        contacts = [
            document.contact.phone.map { Line(strings.label(.contactPhone), $0) },
            document.contact.email.map { Line(strings.label(.contactEmail), $0) },
        ].compactMap { $0 }
        noPhoto = words.noPhoto
        photoNotShown = document.photo.map { words.photoNotShown($0.mediaType) }

        let payload: QRPayload?
        switch options.qr {
        case nil: payload = document.lastSeen.map(QRPayload.geo)
        case .geo?:
            guard let position = document.lastSeen else {
                throw PosterInputError("lastSeen", "is null: there is no position for --qr geo")
            }
            payload = .geo(position)
        case .contact?: payload = try .contact(document.contact)
        case .none?: payload = nil
        }
        qrCode = payload.map { QRCode(payload: $0, caption: words.scanCaption($0.kind)) }
        reference = words.reference(document.id)
        title = words.title(speciesName)
    }

    /// Line breaks kept up to `descriptionLines` lines, the rest joined to the last with
    /// spaces; tabs and Windows line ends as spaces and line breaks.
    static func printable(_ description: String) -> String {
        let lines = description.replacing("\r\n", with: "\n").replacing("\r", with: "\n").replacing("\t", with: " ")
            .split(separator: "\n", omittingEmptySubsequences: false)
        let limit = PosterInputLimits.descriptionLines
        guard lines.count > limit else { return lines.joined(separator: "\n") }
        let kept = lines.prefix(limit - 1).joined(separator: "\n")
        let rest = lines.dropFirst(limit - 1).filter { !$0.isEmpty }.joined(separator: " ")
        return kept + "\n" + rest
    }
}
