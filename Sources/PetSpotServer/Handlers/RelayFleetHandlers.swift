import FoundationEssentials
import Logging
import PetSpotBoard
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore

/// relay.fleet and relay.fleetPut: the other boxes' reports coming down (REPORTS.md, "The
/// animal list"). For members of relay.group only, as the other relay.* methods. What comes
/// down is read again by this box's flow rules (`FleetReportRules`): every box's relay writes
/// through one central role, so one compromised box must not put on a kiosk's list what its
/// flow would never have stored.
struct RelayFleetHandlers: Sendable {
    let services: DaemonServices

    func fleet(_ params: NoParams, _ context: RequestContext) -> Reply<RelayFleet.Result> {
        let (services, peer, maxLineBytes) = (self.services, context.peer, context.limits.maxLineBytes)
        return .later { () async throws(RPCError) -> RelayFleet.Result in
            let state = try await storeCall { () async throws(ReportStoreError) in try await services.store.fleetState() }
            let position = AnimalsHandlers.boxPosition(for: peer, services).map(AnimalPosition.init)
            return RelayFleet.Result(cursor: state.cursor, reports: state.reports, maxReports: services.configuration.maxFleetReports,
                                     position: position, maxLineBytes: maxLineBytes, maxPhotoBytes: services.flowEnvironment().maxPhotoBytes)
        }
    }

    func put(_ params: RelayFleetPut.Params, _ context: RequestContext) -> Reply<RelayFleetPut.Result> {
        let (services, peer, logger) = (self.services, context.peer, context.logger)
        return .later { () async throws(RPCError) -> RelayFleetPut.Result in
            let env = services.flowEnvironment()
            var changes: [FleetChange] = []
            var refused: [RelayFleetPut.Refusal] = []
            changes.reserveCapacity(params.reports.count)
            for item in params.reports {
                switch Self.change(item, ownBox: services.settings.boxName, env: env) {
                case .success(let change):
                    changes.append(change)
                case .failure(let refusal):
                    refused.append(refusal)
                    // What this box cannot list leaves it: an older copy would show what the
                    // central database no longer holds.
                    changes.append(.gone(id: item.reportId, box: item.box, version: item.version))
                }
            }
            let configuration = services.configuration
            let origin = AnimalsHandlers.boxPosition(for: peer, services).map { (latitude: $0.latitude.scaled, longitude: $0.longitude.scaled) }
            let bounds = FleetBounds(maxReports: configuration.maxFleetReports, maxPhotoBytes: configuration.maxFleetPhotoBytes, origin: origin)
            var ids = Array(Set(changes.map(\.id)))
            if params.restart, services.subscriptions.isWatched(.animals),
               let held = try? await services.store.boardNewestFirst(after: nil, species: nil, position: .any, limit: Int.max) {
                ids = Array(Set(ids + held.filter { !$0.isOwn }.map(\.id)))
            }
            let before = await Self.watched(ids, services)
            let outcome = try await storeCall { () async throws(ReportStoreError) in
                try await services.store.applyFleet(changes, cursor: params.cursor, bounds: bounds, now: services.clock.wallTime(),
                                                    restart: params.restart)
            }
            let boxes = Dictionary(params.reports.map { ($0.reportId, $0.box) }) { _, last in last }
            refused += outcome.ownIDs.map {
                RelayFleetPut.Refusal(reportId: $0, box: boxes[$0] ?? "", reason: "reportId: a report of this box's own, which never comes down")
            }
            if !refused.isEmpty {
                logger.warning("reports of other boxes refused by this box's flow rules; they are not listed here", metadata: [
                    "count": "\(refused.count)",
                    "first": "\(refused[0].reportId) of box \(refused[0].box): \(refused[0].reason)",
                ])
            }
            if outcome.evicted > 0 || outcome.photosDropped > 0 {
                logger.notice("the fleet's copy is at its bounds: the farthest, then the oldest, went first", metadata: [
                    "reportsRemoved": "\(outcome.evicted)", "photosDropped": "\(outcome.photosDropped)",
                    "board.maxFleetReports": "\(bounds.maxReports)", "board.maxFleetPhotoBytes": "\(bounds.maxPhotoBytes)",
                ])
            }
            if let before {
                let changed = Set(outcome.listed).union(outcome.removed)
                for id in ids where changed.contains(id) {
                    services.subscriptions.animalChanged(before: before[id], after: await services.watchedAnimal(id))
                }
            }
            return RelayFleetPut.Result(cursor: params.cursor, listed: outcome.listed.count, removed: outcome.removed.count, refused: refused)
        }
    }

    /// What an item of the feed is to this box: a copy to list (its values as this box's flow
    /// writes them), a copy gone, or a refusal naming why.
    static func change(_ item: RelayFleetPut.Item, ownBox: String, env: FlowEnvironment) -> Result<FleetChange, RelayFleetPut.Refusal> {
        func refuse(_ reason: String) -> Result<FleetChange, RelayFleetPut.Refusal> {
            .failure(RelayFleetPut.Refusal(reportId: item.reportId, box: item.box, reason: reason))
        }
        guard Self.isReportID(item.reportId) else { return refuse("reportId is not a report id: 1 to 64 letters, digits and '-'") }
        if let problem = DaemonConfiguration.boxNameProblem(item.box) { return refuse("box: \(problem)") }
        guard item.box != ownBox else { return refuse("box: filed at this box, whose own reports are never brought down") }
        guard item.isListed, let values = item.values else {
            return .success(.gone(id: item.reportId, box: item.box, version: item.version))
        }
        guard let submitted = try? Date.ISO8601FormatStyle().parse(item.submittedAt),
              let updated = try? Date.ISO8601FormatStyle().parse(item.updatedAt)
        else { return refuse("submittedAt and updatedAt must be ISO 8601 UTC times") }
        let kept: FlowValues
        do {
            kept = try FleetReportRules.values(values, photoBase64: item.photo?.base64, env: env)
        } catch {
            return refuse(error.message)
        }
        var photo: StoredPhoto?
        var photoBytes: [UInt8]?
        if let described = kept.photo {
            guard let bytes = try? described.content.bytes() else { return refuse("photo: its bytes cannot be read") }
            photo = StoredPhoto(mediaType: described.mediaType, sha256: described.sha256, data: bytes)
            photoBytes = bytes
        }
        return .success(.listed(FleetCopy(
            id: item.reportId, box: item.box, version: item.version, submittedAt: ISO8601.string(submitted), updatedAt: updated,
            valuesJSON: JSONWriter.string(kept.json), board: BoardFields(values: kept, photoBytes: photoBytes), photo: photo)))
    }

    /// Report ids as boxes make them (UUIDs), or anything as plain: shown and searched as they are.
    static func isReportID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    /// The animals as watchers see them now, by id, when anyone watches the list; nil when nobody does.
    static func watched(_ ids: [String], _ services: DaemonServices) async -> [String: StoredAnimal]? {
        guard services.subscriptions.isWatched(.animals) else { return nil }
        var animals: [String: StoredAnimal] = [:]
        for id in ids {
            if let animal = await services.watchedAnimal(id) { animals[id] = animal }
        }
        return animals
    }
}
