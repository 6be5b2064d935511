import FoundationEssentials
import PetSpotBoard
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotViews

/// animals.*: the animal list, for every user of the socket, each shown as the caller may see
/// it (`Standing`: staff by `board.staffGroup`, else the public). Always later: the disk, and
/// the location permission, which may ask a directory service.
struct AnimalsHandlers: Sendable {
    let services: DaemonServices

    /// Animals on a page when a call asks for no number.
    static let defaultLimit = 20

    func list(_ params: AnimalsList.Params, _ context: RequestContext) -> Reply<AnimalsList.Result> {
        let (services, peer) = (self.services, context.peer)
        let standing = context.standing
        let limit = params.limit ?? min(Self.defaultLimit, context.limits.maxReportsPage)
        return .later { () async throws(RPCError) -> AnimalsList.Result in
            let (query, after) = try Self.query(params, standing: standing, peer: peer, services: services)
            let page = try await Self.page(query, after: after, limit: limit, services)
            return AnimalsList.Result(animals: page.animals, near: query.origin.map { AnimalPosition($0.point) }, cursor: page.cursor?.text)
        }
    }

    func get(_ params: AnimalIDParams, _ context: RequestContext) -> Reply<AnimalAnswer> {
        let (services, standing) = (self.services, context.standing)
        return .later { () async throws(RPCError) -> AnimalAnswer in
            AnimalAnswer(animal: try await Self.listed(params.animalId, services).animal(for: standing, near: nil))
        }
    }

    /// The photo as `animal.photo` describes it: for staff as it was sent, for the public its
    /// copy without metadata, made again from the stored bytes (the same bytes every time).
    func photo(_ params: AnimalIDParams, _ context: RequestContext) -> Reply<PhotoData> {
        let (services, standing) = (self.services, context.standing)
        return .later { () async throws(RPCError) -> PhotoData in
            let entry = try await Self.listedEntry(params.animalId, services)
            let animal = try Self.stored(entry)
            let shown = standing == .staff ? animal.photo : animal.metadataFreePhoto
            guard shown != nil, let stored = try await storeCall({ () async throws(ReportStoreError) in
                entry.isOwn ? try await services.store.boardPhoto(id: animal.id) : try await services.store.fleetPhoto(id: animal.id, box: entry.box)
            }) else {
                throw RPCError(.photoNotFound, animal.photo == nil ? "animal \(animal.id) has no photo"
                    : "the photo of animal \(animal.id) cannot be shown without its metadata (its format cannot be cleaned)", parameter: "animalId")
            }
            if standing == .staff { return PhotoData(mediaType: stored.mediaType, data: Data(stored.data).base64EncodedString()) }
            guard let clean = MetadataFreePhoto(cleaning: stored.data) else {
                throw RPCError(.photoNotFound, "the photo of animal \(animal.id) cannot be shown without its metadata", parameter: "animalId")
            }
            return PhotoData(mediaType: clean.mediaType, data: Data(clean.data).base64EncodedString())
        }
    }

    func lookup(_ params: AnimalsLookup.Params, _ context: RequestContext) throws(RPCError) -> Reply<AnimalsLookup.Result> {
        let key: ChipLookupKey
        do {
            key = try ChipLookupKey(reading: params.chipNumber)
        } catch {
            throw RPCError(.invalidParams, error.description, parameter: "chipNumber")
        }
        let (services, standing, limit) = (self.services, context.standing, context.limits.maxReportsPage)
        return .later { () async throws(RPCError) -> AnimalsLookup.Result in
            let entries = try await storeCall { () async throws(ReportStoreError) in try await services.store.boardEntries(chipDigits: key.digits, limit: limit) }
            var animals: [Animal] = []
            for entry in entries { animals.append(try Self.stored(entry).animal(for: standing, near: nil)) }
            return AnimalsLookup.Result(animals: animals)
        }
    }

    /// A watch of the listing near a place (or the box): registered before its first page is
    /// read, so that no change between the two is missed.
    func watch(_ params: AnimalsWatch.Params, _ context: RequestContext) throws(RPCError) -> Reply<AnimalsWatch.Result> {
        let subscriber = try context.watcher()
        let (services, peer, standing) = (self.services, context.peer, context.standing)
        let (max, limit) = (context.limits.maxSubscriptionsPerConnection, min(Self.defaultLimit, context.limits.maxReportsPage))
        return .later { () async throws(RPCError) -> AnimalsWatch.Result in
            let listing = AnimalsList.Params(near: params.near, radiusKm: params.radiusKm)
            let (query, _) = try Self.query(listing, standing: standing, peer: peer, services: services)
            guard let id = services.subscriptions.watch(.animals, by: subscriber, max: max, animals: query) else {
                throw RPCError.limitExceeded("limits.maxSubscriptionsPerConnection", max: max,
                                             "a connection may hold at most \(max) watches; unwatch one first")
            }
            do throws(RPCError) {
                let page = try await Self.page(query, after: nil, limit: limit, services)
                return AnimalsWatch.Result(subscription: id, animals: page.animals)
            } catch {
                _ = services.subscriptions.unwatch(id, by: subscriber)
                throw error
            }
        }
    }

    /// A listed animal: `missing` on the board; anything else is `animalNotFound`.
    static func listed(_ id: String, _ services: DaemonServices) async throws(RPCError) -> StoredAnimal {
        try Self.stored(try await listedEntry(id, services))
    }

    /// The board's entry of a listed animal, the box's own or another box's.
    static func listedEntry(_ id: String, _ services: DaemonServices) async throws(RPCError) -> BoardEntry {
        guard let entry = try await storeCall({ () async throws(ReportStoreError) in try await services.store.boardEntry(id: id) }),
              entry.status == .missing
        else {
            throw RPCError(.animalNotFound, "no missing animal \"\(id)\" on this box's list: never listed, or found, withdrawn, expired or erased since",
                           parameter: "animalId")
        }
        return entry
    }

    /// The page `query` shows after `after`, read from the store's board.
    static func page(_ query: AnimalQuery, after: AnimalOrderKey?, limit: Int, _ services: DaemonServices) async throws(RPCError) -> AnimalListPage {
        let index = BoardAnimalIndex(store: services.store)
        return try await storeCall { () async throws(ReportStoreError) in try await query.page(from: index, after: after, limit: limit) }
    }

    static func stored(_ entry: BoardEntry) throws(RPCError) -> StoredAnimal {
        do {
            return try StoredAnimal(entry)
        } catch {
            throw RPCError(error)
        }
    }

    /// What a listing asks for, from its params or its cursor: a cursor's listing goes on with
    /// the origin it began with, and the same params must come with it.
    static func query(_ params: AnimalsList.Params, standing: Standing, peer: Peer, services: DaemonServices)
        throws(RPCError) -> (AnimalQuery, AnimalOrderKey?)
    {
        let near = try params.near.map(Self.point)
        let radius = params.radiusKm.map { Double($0.literal) ?? 0 }
        if let text = params.cursor {
            do {
                let cursor = try AnimalCursor(text: text)
                return (try cursor.continuing(near: near, radiusKm: radius, species: params.species, standing: standing), cursor.after)
            } catch {
                throw RPCError(.invalidParams, error.description, parameter: "cursor")
            }
        }
        if let species = params.species, !services.settings.species.contains(species) {
            throw RPCError(.invalidParams, "unknown species \"\(species)\"; species.list gives the ids", parameter: "species")
        }
        let origin: AnimalQuery.Origin? = near.map(AnimalQuery.Origin.near) ?? Self.boxPosition(for: peer, services).map(AnimalQuery.Origin.box)
        do {
            return (try AnimalQuery(origin: origin, radiusKm: radius, species: params.species, standing: standing), nil)
        } catch {
            throw RPCError(.invalidParams, error.description, parameter: "radiusKm")
        }
    }

    /// The box's own position, if the location service holds a fix young enough now and the
    /// caller may have the location; never a wait.
    static func boxPosition(for peer: Peer, _ services: DaemonServices) -> GeoPoint? {
        guard case .fix(let fix) = services.location.now(for: LocationClient(uid: peer.uid, gid: peer.gid)) else { return nil }
        return try? GeoPoint(latitude: fix.latitude, longitude: fix.longitude)
    }

    static func point(_ near: AnimalPosition) throws(RPCError) -> GeoPoint {
        do {
            return try GeoPoint(latitude: near.latitude.decimal, longitude: near.longitude.decimal)
        } catch {
            throw RPCError(.invalidParams, "near: \(error)", parameter: "near")
        }
    }
}

extension RequestContext {
    /// How much of the animal list the caller sees.
    var standing: Standing { isStaff ? .staff : .public }
}

extension AnimalPosition {
    init(_ point: GeoPoint) {
        self.init(latitude: point.latitude.literal, longitude: point.longitude.literal)
    }
}

