import FoundationEssentials
import PetSpotBoard
import PetSpotJSON
import PetSpotViews

/// The board of a report store as the animal list's rules read it: what the daemon's
/// `animals.*` list from, and what tests and benchmarks page through the same way.
public struct BoardAnimalIndex: AnimalIndex {
    public let store: ReportStore

    public init(store: ReportStore) {
        self.store = store
    }

    public func places(in boxes: [GeoBox], excluding: [GeoBox], species: String?, limit: Int)
        async throws(ReportStoreError) -> (reports: [PlacedReport], complete: Bool)
    {
        let found = try await store.boardPlaces(in: boxes.map(ScaledBox.init(outward:)), excluding: excluding.map(ScaledBox.init(inward:)),
                                                species: species, limit: limit)
        var reports: [PlacedReport] = []
        reports.reserveCapacity(found.places.count)
        for place in found.places {
            // The board holds only positions that are in range: it was handed GeoPoints.
            guard let position = try? GeoPoint(latitude: Coordinate(scaled: place.latitude), longitude: Coordinate(scaled: place.longitude)) else { continue }
            reports.append(PlacedReport(id: place.id, version: place.version, submittedAt: place.submittedAt, position: position))
        }
        return (reports, found.complete)
    }

    public func animals(ids: [String]) async throws(ReportStoreError) -> [StoredAnimal] {
        try Self.animals(try await store.boardEntries(ids: ids))
    }

    public func newestFirst(after: (submittedAt: String, id: String)?, species: String?, withPosition: Bool?,
                            limit: Int) async throws(ReportStoreError) -> [StoredAnimal]
    {
        let position: BoardPositionFilter = switch withPosition {
        case true?: .with
        case false?: .without
        case nil: .any
        }
        return try Self.animals(try await store.boardNewestFirst(after: after, species: species, position: position, limit: limit))
    }

    static func animals(_ entries: [BoardEntry]) throws(ReportStoreError) -> [StoredAnimal] {
        var animals: [StoredAnimal] = []
        animals.reserveCapacity(entries.count)
        for entry in entries { animals.append(try StoredAnimal(entry)) }
        return animals
    }
}

extension StoredAnimal {
    /// A board entry as the list's rules read it. Entries the daemon wrote itself always read;
    /// one that does not is `unreadableValues`.
    public init(_ entry: BoardEntry) throws(ReportStoreError) {
        guard case .object(let values)? = try? JSONParser.parse(entry.valuesJSON) else {
            throw ReportStoreError(kind: .unreadableValues, path: nil, message: "report \(entry.id) has values on the board that are not a JSON object")
        }
        let status: Animal.Status = switch entry.status {
        case .missing: .missing
        case .found: .found
        case .withdrawn: .withdrawn
        case .expired: .expired
        }
        let publicPhoto: Animal.Photo? = if case .cleaned(let copy) = entry.publicPhoto {
            Animal.Photo(mediaType: copy.mediaType, bytes: copy.bytes, sha256: copy.sha256)
        } else {
            nil
        }
        do {
            try self.init(id: entry.id, box: entry.box, status: status, submittedAt: entry.submittedAt,
                          updatedAt: Date.ISO8601FormatStyle().format(entry.updatedAt), version: entry.version,
                          values: values, metadataFreePhoto: publicPhoto)
        } catch {
            throw ReportStoreError(kind: .unreadableValues, path: nil, message: "report \(entry.id) has values on the board this daemon cannot read: \(error)")
        }
    }
}

extension ScaledBox {
    /// A box of degrees as the index of scaled positions is asked for it: rounded outward,
    /// every position of 5 decimals in the box is within it.
    public init(outward box: GeoBox) {
        let scaled = box.scaledOutward
        self.init(minLatitude: scaled.minLatitude, maxLatitude: scaled.maxLatitude, minLongitude: scaled.minLongitude, maxLongitude: scaled.maxLongitude)
    }

    /// Rounded inward: every position of 5 decimals within it is in the box.
    public init(inward box: GeoBox) {
        let scaled = box.scaledInward
        self.init(minLatitude: scaled.minLatitude, maxLatitude: scaled.maxLatitude, minLongitude: scaled.minLongitude, maxLongitude: scaled.maxLongitude)
    }
}
