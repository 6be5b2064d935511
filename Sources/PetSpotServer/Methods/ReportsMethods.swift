import PetSpotJSON
import PetSpotProtocol
import PetSpotStore

// reports.*: the caller's stored reports; always later (the disk).
extension RequestRouter {
    func reportsList(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let maxPage = services.limits.maxReportsPage
        let limit = try p.optionalInt("limit", in: 1...maxPage) ?? min(20, maxPage)
        let cursor = try p.optionalString("cursor")
        try p.finish()
        let store = services.store
        return .work { () async throws(RPCError) -> JSONValue in
            let page = try await storeCall { () async throws(ReportStoreError) in
                try await store.list(ownerUID: peer.uid, limit: limit, cursor: cursor)
            }
            var reports: [JSONValue] = []
            for report in page.reports { reports.append(try ReportJSON.encode(report)) }
            return ["reports": .array(reports), "cursor": .optional(page.nextCursor)]
        }
    }

    func reportsGet(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let id = try p.requiredString("reportId")
        try p.finish()
        let store = services.store
        return .work { () async throws(RPCError) -> JSONValue in
            guard let report = try await storeCall({ () async throws(ReportStoreError) in try await store.get(id: id, ownerUID: peer.uid) }) else {
                throw RPCError(.reportNotFound, "no report \"\(id)\" of yours", parameter: "reportId")
            }
            return ["report": try ReportJSON.encode(report)]
        }
    }
}
