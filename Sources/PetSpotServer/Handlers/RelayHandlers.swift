import FoundationEssentials
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore

/// relay.*: for members of relay.group only (the route table hides them from anyone else).
struct RelayHandlers: Sendable {
    let services: DaemonServices

    func claim(_ params: RelayClaim.Params, _ context: RequestContext) -> Reply<RelayClaim.Result> {
        let relay = services.configuration.relay
        // A claim asks for at most what it wants: more than the daemon hands out now gets that
        // many, so a reload that lowers relay.maxClaimReports does not stall a relay.
        let limit = min(params.limit ?? relay.maxClaimReports, relay.maxClaimReports)
        let (store, claims) = (services.store, services.relayClaims)
        return .later { () async throws(RPCError) -> RelayClaim.Result in
            let candidates = try await storeCall { () async throws(ReportStoreError) in
                try await store.claimable(excluding: claims.held(), maxReports: limit, maxPhotoBytes: relay.maxClaimBytes)
            }
            // Another claim may have taken some of them meanwhile: those are left out. The lease
            // keeps the version handed out: the one an acknowledgement delivers.
            let taken = Set(claims.take(candidates.map(\.report.id), for: .seconds(relay.claimTimeoutSeconds),
                                        versions: Dictionary(candidates.map { ($0.report.id, $0.report.version) }) { a, _ in a }))
            var reports: [RelayClaim.Item] = []
            for candidate in candidates where taken.contains(candidate.report.id) {
                reports.append(RelayClaim.Item(
                    report: try services.reportView(candidate.report), ownerUID: Int(candidate.report.ownerUID),
                    photo: candidate.photo.map { photo in
                        RelayClaim.Photo(mediaType: photo.mediaType, sha256: photo.sha256, base64: Data(photo.data).base64EncodedString())
                    }))
            }
            let counts = try await storeCall { () async throws(ReportStoreError) in try await store.deliveryCounts() }
            return RelayClaim.Result(reports: reports, claimTimeoutSeconds: relay.claimTimeoutSeconds, pending: counts.pending)
        }
    }

    func ack(_ params: RelayAck.Params, _ context: RequestContext) -> Reply<RelayAck.Result> {
        let services = self.services
        return .later { () async throws(RPCError) -> RelayAck.Result in
            let deliveredAt = ISO8601.string(services.clock.wallTime())
            // A relay of revision 4 says which version it stored; one of revision 3 stored the
            // version its claim handed out, or, without a lease (ended, or from before a
            // restart), the first, which every report had: a later one stays pending.
            let versions: [DeliveredVersion]
            if let reports = params.reports {
                versions = reports.map { DeliveredVersion(reportID: $0.reportId, version: $0.version) }
            } else {
                let ids = params.reportIds ?? []
                let claimed = services.relayClaims.versions(of: ids)
                versions = ids.map { DeliveredVersion(reportID: $0, version: claimed[$0] ?? 1) }
            }
            let marking = try await storeCall { () async throws(ReportStoreError) in
                try await services.store.markDelivered(versions, at: deliveredAt)
            }
            services.relayClaims.release(versions.map(\.reportID))
            if services.subscriptions.watchesReports, !marking.newlyDelivered.isEmpty,
               let reports = try? await services.store.reports(ids: marking.newlyDelivered)
            {
                for report in reports {
                    guard let view = try? services.reportView(report) else { continue }
                    services.subscriptions.reportChanged(.delivered, view, owner: report.ownerUID)
                }
            }
            return RelayAck.Result(delivered: marking.delivered, alreadyDelivered: marking.alreadyDelivered)
        }
    }

    func status(_ params: NoParams, _ context: RequestContext) -> Reply<RelayStatus.Result> {
        let (store, claims) = (services.store, services.relayClaims)
        return .later { () async throws(RPCError) -> RelayStatus.Result in
            let counts = try await storeCall { () async throws(ReportStoreError) in try await store.deliveryCounts() }
            return RelayStatus.Result(pending: counts.pending, claimed: claims.count, delivered: counts.delivered,
                                      lastDeliveredAt: counts.lastDeliveredAt)
        }
    }
}
