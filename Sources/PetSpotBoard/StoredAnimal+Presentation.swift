import PetSpotFlow
import PetSpotJSON
import PetSpotViews

extension StoredAnimal {
    /// The report as a caller of `standing` is shown it, with its distance from `origin` when
    /// the list has one.
    ///
    /// The public: no chip number, the position to 3 decimals and every distance from there,
    /// a masked contact, the photo only as a metadata-free copy. Staff: the chip number, 5
    /// decimals and distances from the exact position, the whole contact, the photo as stored
    /// (they are trusted with the exact position already, and a HEIC photo has no clean copy).
    public func animal(for standing: Standing, near origin: GeoPoint?) -> Animal {
        let position = lastSeen(for: standing)
        let decimals = standing.positionDecimals
        let distance = origin.flatMap { distanceKm(from: $0, for: standing) }
        let contact: Animal.Contact = switch standing {
        case .public: Animal.Contact(phone: contactPhone.flatMap(ContactMask.phone), email: contactEmail.map(ContactMask.email))
        case .staff: Animal.Contact(phone: contactPhone, email: contactEmail)
        }
        return Animal(
            id: id, box: box, status: status,
            chipNumber: standing == .staff ? chipNumber : nil,
            species: species, race: race, gender: gender, age: age, disappearanceDate: disappearanceDate,
            lastSeen: position.map {
                Animal.Position(latitude: $0.latitude.literal(decimals: decimals), longitude: $0.longitude.literal(decimals: decimals))
            },
            distanceKm: distance.map(Self.kilometresLiteral),
            description: additionalDescription,
            photo: standing == .staff ? photo : metadataFreePhoto,
            contact: contact, submittedAt: submittedAt, updatedAt: updatedAt, version: version)
    }

    /// Decimals of `distanceKm` as shown: metres.
    public static let distanceDecimals = 3

    /// A distance as a JSON number with 3 decimals, rounded half away from zero on its decimal
    /// digits (the shortest text that reads back as the same Double).
    static func kilometresLiteral(_ kilometres: Double) -> JSONNumber {
        let scaled = DecimalLiteral(kilometres)?.scaled(decimals: distanceDecimals) ?? 0
        return JSONNumber(validatedLiteral: fixedPointText(scaled, decimals: distanceDecimals))
    }
}
