/// What the animal list is searched by that the store cannot read for itself: the caller's
/// reading of a report's values, and the description of its photo's metadata-free copy, made
/// by the same rules that show them (PetSpotBoard). Handed in with a submit and an amendment.
public struct BoardFields: Sendable, Hashable {
    /// The last-seen position in degrees × 100 000 (the flow's 5 decimals), both or neither:
    /// -9 000 000...9 000 000 and -18 000 000...18 000 000.
    public var latitude: Int?
    public var longitude: Int?
    /// The chip number's ASCII digits, as a lookup reads one; nil or empty: none.
    public var chipDigits: String?
    /// The species id, for the list's species filter.
    public var species: String?
    /// The photo's metadata-free copy, described; nil when the public may not see the photo
    /// (a format that cannot be cleaned). Read only together with a photo being stored: a
    /// submit with a photo, an amendment that replaces it. A report without a photo has none,
    /// and an amendment that keeps the photo keeps its description.
    public var publicPhoto: PhotoDescription?

    public init(latitude: Int?, longitude: Int?, chipDigits: String?, species: String?, publicPhoto: PhotoDescription?) {
        self.latitude = latitude
        self.longitude = longitude
        self.chipDigits = chipDigits
        self.species = species
        self.publicPhoto = publicPhoto
    }

    /// A report the list finds by nothing: no position, chip, species or public photo.
    public static let none = BoardFields(latitude: nil, longitude: nil, chipDigits: nil, species: nil, publicPhoto: nil)

    /// What is wrong with the fields, or nil: a position out of range or half given.
    var problem: String? {
        switch (latitude, longitude) {
        case (nil, nil): break
        case (let latitude?, let longitude?):
            if abs(latitude) > ScaledBox.maxLatitude { return "latitude \(latitude) is not within ±\(ScaledBox.maxLatitude) (degrees × 100000)" }
            if abs(longitude) > ScaledBox.maxLongitude { return "longitude \(longitude) is not within ±\(ScaledBox.maxLongitude) (degrees × 100000)" }
        default: return "a position needs both latitude and longitude"
        }
        if let chipDigits, !chipDigits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            return "chipDigits \"\(chipDigits)\" holds more than ASCII digits"
        }
        return nil
    }
}
