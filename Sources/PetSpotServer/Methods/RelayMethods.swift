import FoundationEssentials
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore

// relay.*: for members of relay.group only (the router hides them from anyone else).
extension RequestRouter {
    func relayClaim(_ p: inout RPCParams) throws(RPCError) -> Reply<MethodOutcome> {
        let relay = services.configuration.relay
        // A claim asks for at most what it wants: more than the daemon hands out now gets that
        // many, so a reload that lowers relay.maxClaimReports does not stall a relay.
        let limit = min(try p.optionalInt("limit", in: DaemonConfiguration.Relay.maxClaimReportsRange) ?? relay.maxClaimReports,
                        relay.maxClaimReports)
        try p.finish()
        let (store, claims) = (services.store, services.relayClaims)
        return .work { () async throws(RPCError) -> JSONValue in
            let candidates = try await storeCall { () async throws(ReportStoreError) in
                try await store.claimable(excluding: claims.held(), maxReports: limit, maxPhotoBytes: relay.maxClaimBytes)
            }
            // Another claim may have taken some of them meanwhile: those are left out.
            let taken = Set(claims.take(candidates.map(\.report.id), for: .seconds(relay.claimTimeoutSeconds)))
            var reports: [RelayClaim.Item] = []
            for candidate in candidates where taken.contains(candidate.report.id) {
                reports.append(RelayClaim.Item(
                    report: try ReportJSON.object(candidate.report), ownerUID: Int(candidate.report.ownerUID),
                    photo: candidate.photo.map { photo in
                        RelayClaim.Photo(mediaType: photo.mediaType, sha256: photo.sha256, base64: Data(photo.data).base64EncodedString())
                    }))
            }
            let counts = try await storeCall { () async throws(ReportStoreError) in try await store.deliveryCounts() }
            return RelayClaim.Result(reports: reports, claimTimeoutSeconds: relay.claimTimeoutSeconds, pending: counts.pending).json
        }
    }

    func relayAck(_ p: inout RPCParams) throws(RPCError) -> Reply<MethodOutcome> {
        // Whatever the limits are now: the ids may have been claimed before a reload lowered them.
        let ids = try p.requiredStrings("reportIds", count: DaemonConfiguration.Relay.maxClaimReportsRange)
        try p.finish()
        let services = self.services
        return .work { () async throws(RPCError) -> JSONValue in
            let deliveredAt = ISO8601.string(services.clock.wallTime())
            let marking = try await storeCall { () async throws(ReportStoreError) in
                try await services.store.markDelivered(ids: ids, at: deliveredAt)
            }
            services.relayClaims.release(ids)
            return RelayAck.Result(delivered: marking.delivered, alreadyDelivered: marking.alreadyDelivered).json
        }
    }

    func relayStatus(_ p: inout RPCParams) throws(RPCError) -> Reply<MethodOutcome> {
        try p.finish()
        let (store, claims) = (services.store, services.relayClaims)
        return .work { () async throws(RPCError) -> JSONValue in
            let counts = try await storeCall { () async throws(ReportStoreError) in try await store.deliveryCounts() }
            return RelayStatus.Result(pending: counts.pending, claimed: claims.count, delivered: counts.delivered,
                                      lastDeliveredAt: counts.lastDeliveredAt).json
        }
    }
}
