import FoundationEssentials
import PetSpotFlow
import PetSpotJSON
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
            for report in page.reports { reports.append(try services.reportView(report)) }
            return ReportsList.Result(reports: reports, cursor: page.nextCursor)
        }
    }

    func get(_ params: ReportsGet.Params, _ context: RequestContext) -> Reply<ReportsGet.Result> {
        let (store, peer) = (services.store, context.peer)
        return .later { () async throws(RPCError) -> ReportsGet.Result in
            guard let report = try await storeCall({ () async throws(ReportStoreError) in try await store.get(id: params.reportId, ownerUID: peer.uid) }) else {
                throw RPCError(.reportNotFound, "no report \"\(params.reportId)\" of yours", parameter: "reportId")
            }
            return ReportsGet.Result(report: try services.reportView(report))
        }
    }
}

extension ReportsHandlers {
    func photo(_ params: ReportIDParams, _ context: RequestContext) -> Reply<PhotoData> {
        let (store, peer) = (services.store, context.peer)
        return .later { () async throws(RPCError) -> PhotoData in
            guard let report = try await storeCall({ () async throws(ReportStoreError) in try await store.get(id: params.reportId, ownerUID: peer.uid) }) else {
                throw RPCError(.reportNotFound, "no report \"\(params.reportId)\" of yours", parameter: "reportId")
            }
            guard let photo = try await storeCall({ () async throws(ReportStoreError) in try await store.photo(reportID: report.id, ownerUID: peer.uid) }) else {
                throw RPCError(.photoNotFound, report.isErased ? "report \(report.id) is erased: its photo is gone" : "report \(report.id) has no photo",
                               parameter: "reportId")
            }
            return PhotoData(mediaType: photo.mediaType, data: Data(photo.data).base64EncodedString())
        }
    }
}

// reports.close, renew, amend, erase: an owner's changes, each one durable write. A change is
// told to the owner's `reports.watch` and wakes a relay for the new version.
extension ReportsHandlers {
    func close(_ params: ReportsClose.Params, _ context: RequestContext) -> Reply<ReportAnswer> {
        let outcome: ReportChange.Closing = switch params.outcome {
        case .found: .found
        case .withdrawn: .withdrawn
        }
        return changing(params.reportId, context) { (store, owner, now) async throws(ReportChangeError) in
            try await store.close(id: params.reportId, ownerUID: owner, outcome: outcome, now: now)
        }
    }

    func renew(_ params: ReportIDParams, _ context: RequestContext) -> Reply<ReportAnswer> {
        changing(params.reportId, context) { (store, owner, now) async throws(ReportChangeError) in try await store.renew(id: params.reportId, ownerUID: owner, now: now) }
    }

    func erase(_ params: ReportIDParams, _ context: RequestContext) -> Reply<ReportAnswer> {
        changing(params.reportId, context) { (store, owner, now) async throws(ReportChangeError) in try await store.erase(id: params.reportId, ownerUID: owner, now: now) }
    }

    /// The flow's rules decide each value (`ReportAmendment`), on the report as it is in the
    /// store's transaction. A photo is decoded in memory: an amendment is rare, and the photo
    /// goes straight into the database.
    func amend(_ params: ReportsAmend.Params, _ context: RequestContext) -> Reply<ReportAnswer> {
        let services = self.services
        // About the photo's size, from its base64: a group of changes keeps within its bounds.
        let photoBytes: Int = switch params.values["photo"]?["data"] {
        case .string(let text)?: text.utf8.count / 4 * 3
        case .longString(let text)?: text.utf8Count / 4 * 3
        default: 0
        }
        return changing(params.reportId, context) { (store, owner, now) async throws(ReportChangeError) in
            let env = services.flowEnvironment()
            let prepared = PreparedUpdate(params.values, env: env)
            return try await store.amend(id: params.reportId, ownerUID: owner, now: now, photoBytes: photoBytes) { stored in
                guard case .object(let storedValues)? = try? JSONParser.parse(stored.valuesJSON),
                      let values = FlowValues(stored: storedValues)
                else { throw RPCError(.internalError, "report \(stored.id) has stored values this daemon cannot read") }
                let amended: FlowValues
                do throws(FlowError) {
                    amended = try ReportAmendment.apply(prepared, to: values, env: env)
                } catch {
                    throw RPCError(error)
                }
                let photo: PhotoAmendment
                var newPhotoBytes: [UInt8]?
                switch params.values["photo"] {
                case nil: photo = .keep
                case .null?: photo = .remove
                case _?:
                    guard let new = amended.photo, let bytes = try? new.content.bytes() else {
                        throw RPCError(.internalError, "the amended photo of report \(stored.id) cannot be read back")
                    }
                    photo = .replace(StoredPhoto(mediaType: new.mediaType, sha256: new.sha256, data: bytes))
                    newPhotoBytes = bytes
                }
                return (JSONWriter.string(amended.json), photo, BoardFields(values: amended, photoBytes: newPhotoBytes))
            }
        }
    }

    /// One owner's change of a report, in a task (the disk): the report as it is after it,
    /// told to the owner's watches and the relay when it is a new version.
    private func changing(_ reportID: String, _ context: RequestContext,
                          _ change: @escaping @Sendable (ReportStore, UInt32, Date) async throws(ReportChangeError) -> ReportChangeResult) -> Reply<ReportAnswer>
    {
        let (services, owner) = (self.services, context.peer.uid)
        return .later { () async throws(RPCError) -> ReportAnswer in
            // Read only when someone watches the animal list; another change meanwhile may be
            // told as this one, which a watcher reads as the same news.
            let before = await services.watchedAnimal(reportID)
            let result: ReportChangeResult
            do throws(ReportChangeError) {
                result = try await change(services.store, owner, services.clock.wallTime())
            } catch {
                throw RPCError(error, reportID: reportID)
            }
            let view = try services.reportView(result.report)
            if result.changed {
                services.subscriptions.reportChanged(.updated, view, owner: owner)
                services.pendingCount.reportsFiled()
                await services.animalChanged(result.report.id, before: before)
            }
            return ReportAnswer(report: view)
        }
    }
}
