import FoundationEssentials

/// A report as the animal list holds it: its box, life, values and what it is searched by.
/// The list's rules (PetSpotBoard's `StoredAnimal`) decide what a caller sees of it.
public struct BoardEntry: Sendable, Hashable {
    public let id: String
    /// The `box.name` of the box it was filed at.
    public let box: String
    /// Filed at this box (it has an owner here), not brought down from another.
    public let isOwn: Bool
    public let status: ReportStatus
    public let version: Int
    /// ISO 8601 UTC, whole seconds: text order is time order.
    public let submittedAt: String
    public let updatedAt: Date
    /// The report's `values` object as compact JSON text.
    public let valuesJSON: String
    /// Degrees × 100 000, both or neither.
    public let latitude: Int?
    public let longitude: Int?
    public let chipDigits: String?
    public let species: String?
    /// The photo as stored; nil: none.
    public let photo: PhotoDescription?
    public let publicPhoto: PublicPhoto

    public init(
        id: String, box: String, isOwn: Bool, status: ReportStatus, version: Int, submittedAt: String, updatedAt: Date,
        valuesJSON: String, latitude: Int?, longitude: Int?, chipDigits: String?, species: String?,
        photo: PhotoDescription?, publicPhoto: PublicPhoto
    ) {
        self.id = id
        self.box = box
        self.isOwn = isOwn
        self.status = status
        self.version = version
        self.submittedAt = submittedAt
        self.updatedAt = updatedAt
        self.valuesJSON = valuesJSON
        self.latitude = latitude
        self.longitude = longitude
        self.chipDigits = chipDigits
        self.species = species
        self.photo = photo
        self.publicPhoto = publicPhoto
    }
}
