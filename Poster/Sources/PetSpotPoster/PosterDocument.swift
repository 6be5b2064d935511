import PetSpotFlow
import PetSpotViews

/// What one poster shows: the input document petspot hands over, read and checked
/// (`PosterDocument(json:)`; the format is in docs/man/petspot-poster.1). Values are kept as the
/// daemon gave them: a masked contact stays masked, coordinates keep their decimals.
public struct PosterDocument: Sendable, Equatable {
    /// Where the animal was last seen, as the decimal literals of the input ("52.22968").
    public struct Position: Sendable, Equatable {
        public let latitude: String
        public let longitude: String

        public init(latitude: String, longitude: String) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// How to reach the owner: whole on the owner's own poster, masked for the public.
    public struct Contact: Sendable, Equatable {
        public let phone: String?
        public let email: String?

        public init(phone: String?, email: String?) {
            self.phone = phone
            self.email = email
        }
    }

    /// The photo's bytes, of a type its magic bytes confirm.
    public struct Photo: Sendable, Equatable {
        public let mediaType: String
        public let bytes: [UInt8]

        public init(mediaType: String, bytes: [UInt8]) {
            self.mediaType = mediaType
            self.bytes = bytes
        }
    }

    public let id: String
    /// The language the document asks for, unless --locale says otherwise.
    public let locale: FlowLocale?
    /// An id of the species catalog ("dog").
    public let species: String
    /// The species' name in the poster's language, as the daemon's species list gives it.
    public let speciesName: String?
    public let race: String?
    public let gender: Gender?
    public let age: Int?
    public let disappearanceDate: CalendarDate?
    public let lastSeen: Position?
    public let description: String?
    public let contact: Contact
    /// Digits only; printed only when asked (--chip).
    public let chipNumber: String?
    public let photo: Photo?

    public init(
        id: String, locale: FlowLocale? = nil, species: String, speciesName: String? = nil, race: String? = nil,
        gender: Gender? = nil, age: Int? = nil, disappearanceDate: CalendarDate? = nil, lastSeen: Position? = nil,
        description: String? = nil, contact: Contact, chipNumber: String? = nil, photo: Photo? = nil
    ) {
        (self.id, self.locale, self.species, self.speciesName) = (id, locale, species, speciesName)
        (self.race, self.gender, self.age, self.disappearanceDate) = (race, gender, age, disappearanceDate)
        (self.lastSeen, self.description, self.contact) = (lastSeen, description, contact)
        (self.chipNumber, self.photo) = (chipNumber, photo)
    }
}
