import PetSpotJSON

/// One missing animal as the animal list shows it (REPORTS.md, "The animal list"): what a
/// finder at a kiosk or a vet reads. Built for one caller: the public and staff are shown
/// different positions, chip numbers, contacts and photos of the same report.
public struct Animal: Sendable, Equatable {
    /// A report's life: `missing` at submit, then found, withdrawn or expired.
    public enum Status: String, Sendable, CaseIterable {
        case missing, found, withdrawn, expired
    }

    /// Where the animal was last seen, as the literals it travels as: 5 decimals for staff,
    /// 3 for the public.
    public struct Position: Sendable, Equatable {
        public let latitude: JSONNumber
        public let longitude: JSONNumber

        public init(latitude: JSONNumber, longitude: JSONNumber) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// The photo of the bytes served to this caller (never the data itself).
    public struct Photo: Sendable, Hashable {
        public let mediaType: String
        public let bytes: Int
        /// 64 lowercase hex digits.
        public let sha256: String

        public init(mediaType: String, bytes: Int, sha256: String) {
            self.mediaType = mediaType
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    /// How to reach the owner: whole for staff, masked for the public.
    public struct Contact: Sendable, Equatable {
        public let phone: String?
        public let email: String?

        public init(phone: String?, email: String?) {
            self.phone = phone
            self.email = email
        }
    }

    public let id: String
    /// The `box.name` of the box it was filed at.
    public let box: String
    public let status: Status
    /// Digits only; null for the public.
    public let chipNumber: String?
    /// An id of the species catalog.
    public let species: String?
    public let race: String?
    public let gender: String?
    public let age: Int?
    /// `YYYY-MM-DD`.
    public let disappearanceDate: String?
    public let lastSeen: Position?
    /// Great-circle kilometres from the list's origin, 3 decimals; null without an origin or a position.
    public let distanceKm: JSONNumber?
    /// The report's `additionalDescription`.
    public let description: String?
    public let photo: Photo?
    public let contact: Contact
    /// ISO 8601 UTC.
    public let submittedAt: String
    /// ISO 8601 UTC.
    public let updatedAt: String
    public let version: Int

    public init(
        id: String, box: String, status: Status, chipNumber: String?, species: String?, race: String?, gender: String?,
        age: Int?, disappearanceDate: String?, lastSeen: Position?, distanceKm: JSONNumber?, description: String?,
        photo: Photo?, contact: Contact, submittedAt: String, updatedAt: String, version: Int
    ) {
        (self.id, self.box, self.status, self.chipNumber) = (id, box, status, chipNumber)
        (self.species, self.race, self.gender, self.age) = (species, race, gender, age)
        (self.disappearanceDate, self.lastSeen, self.distanceKm, self.description) = (disappearanceDate, lastSeen, distanceKm, description)
        (self.photo, self.contact) = (photo, contact)
        (self.submittedAt, self.updatedAt, self.version) = (submittedAt, updatedAt, version)
    }
}
