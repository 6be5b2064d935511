import PetSpotProtocol
import PetSpotStore

/// reports.*: the caller's stored reports; always later (the disk).
struct ReportsHandlers: Sendable {
    let services: DaemonServices

    func list(_ params: ReportsList.Params, _ context: RequestContext) -> Reply<ReportsList.Result> {
        let limit = params.limit ?? min(20, context.limits.maxReportsPage)
        let (store, peer) = (services.store, context.peer)
        return .later { () async throws(RPCError) -> ReportsList.Result in
            let page = try await storeCall { () async throws(ReportStoreError) in
                try await store.list(ownerUID: peer.uid, limit: limit, cursor: params.cursor)
            }
            var reports: [ReportView] = []
            for report in page.reports { reports.append(try ReportView(report)) }
            return ReportsList.Result(reports: reports, cursor: page.nextCursor)
        }
    }

    func get(_ params: ReportsGet.Params, _ context: RequestContext) -> Reply<ReportsGet.Result> {
        let (store, peer) = (services.store, context.peer)
        return .later { () async throws(RPCError) -> ReportsGet.Result in
            guard let report = try await storeCall({ () async throws(ReportStoreError) in try await store.get(id: params.reportId, ownerUID: peer.uid) }) else {
                throw RPCError(.reportNotFound, "no report \"\(params.reportId)\" of yours", parameter: "reportId")
            }
            return ReportsGet.Result(report: try ReportView(report))
        }
    }
}
