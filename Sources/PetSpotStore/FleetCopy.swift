import FoundationEssentials

/// Another box's `missing` report as this box keeps it for its animal list: brought down from
/// the central database by the relay, its values already read by this box's flow rules.
public struct FleetCopy: Sendable, Hashable {
    public let id: String
    /// The `box.name` of the box it was filed at.
    public let box: String
    public let version: Int
    /// ISO 8601 UTC, whole seconds, as the board orders by.
    public let submittedAt: String
    public let updatedAt: Date
    /// The values as this box's flow writes them, compact JSON.
    public let valuesJSON: String
    public let board: BoardFields
    public let photo: StoredPhoto?

    public init(id: String, box: String, version: Int, submittedAt: String, updatedAt: Date, valuesJSON: String,
                board: BoardFields, photo: StoredPhoto?) {
        self.id = id
        self.box = box
        self.version = version
        self.submittedAt = submittedAt
        self.updatedAt = updatedAt
        self.valuesJSON = valuesJSON
        self.board = board
        self.photo = photo
    }
}

/// One report of another box at one version: to be listed, or gone from the list (found,
/// withdrawn, expired, erased, outside the relay's radius, or refused by the flow's rules here).
public enum FleetChange: Sendable, Hashable {
    case listed(FleetCopy)
    case gone(id: String, box: String, version: Int)

    public var id: String {
        switch self {
        case .listed(let copy): copy.id
        case .gone(let id, _, _): id
        }
    }
}

/// What the fleet's copy may take of the box (`board.maxFleetReports`,
/// `board.maxFleetPhotoBytes`), and where "farthest" is measured from.
public struct FleetBounds: Sendable, Hashable {
    public let maxReports: Int
    public let maxPhotoBytes: Int
    /// The box's position, degrees × 100 000; nil: none, the oldest go first.
    public let origin: (latitude: Int, longitude: Int)?

    public init(maxReports: Int, maxPhotoBytes: Int, origin: (latitude: Int, longitude: Int)?) {
        self.maxReports = maxReports
        self.maxPhotoBytes = maxPhotoBytes
        self.origin = origin
    }

    public static func == (a: FleetBounds, b: FleetBounds) -> Bool {
        a.maxReports == b.maxReports && a.maxPhotoBytes == b.maxPhotoBytes
            && a.origin?.latitude == b.origin?.latitude && a.origin?.longitude == b.origin?.longitude
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(maxReports)
        hasher.combine(maxPhotoBytes)
        hasher.combine(origin?.latitude)
        hasher.combine(origin?.longitude)
    }
}

/// What a batch of fleet changes did to the box's copy.
public struct FleetOutcome: Sendable, Hashable {
    /// Reports listed at the version brought (new or newer), by id.
    public let listed: [String]
    /// Copies deleted: gone centrally, or past `maxReports` (farthest, then oldest first).
    public let removed: [String]
    /// Of `removed`, those past the bound.
    public let evicted: Int
    /// Copies whose photo was dropped past `maxPhotoBytes`.
    public let photosDropped: Int
    /// Listings not stored: the box has a report of that id as its own.
    public let ownIDs: [String]
}
