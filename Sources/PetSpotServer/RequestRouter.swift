import FoundationEssentials
import Logging
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore

/// An answer now, or work that waits (location, disk) and answers later. Everything that only
/// touches memory answers now, on the event loop, without a task hop.
public enum Reply: Sendable {
    case done(Result<JSONValue, RPCError>)
    case pending(@Sendable () async -> Result<JSONValue, RPCError>)
    /// `{"flow": view}`, with the view already written for the wire (`flow.get`).
    case flowView([UInt8])
    /// The result already written for the wire (`daemon.info`).
    case written([UInt8])
}

/// Decodes a method's parameters, calls the domain and shapes the answer. One short function
/// per method, in the order of the protocol's method table.
public struct RequestRouter: Sendable {
    public let services: DaemonServices
    public let faults: FaultLog

    public init(services: DaemonServices, faults: FaultLog) {
        self.services = services
        self.faults = faults
    }

    /// Answers one request; a fault among the answers (storage, internal, a limit) is logged
    /// with the request's own logger, made from `logger`, the connection's.
    public func route(_ request: RPCRequest, peer: Peer, logger: Logger) -> Reply {
        switch dispatch(request, peer: peer) {
        case .done(let outcome):
            logFault(outcome, request, logger)
            return .done(outcome)
        case .pending(let work):
            return .pending { [self] in
                let outcome = await work()
                logFault(outcome, request, logger)
                return outcome
            }
        case .flowView(let view):
            return .flowView(view)
        case .written(let result):
            return .written(result)
        }
    }

    private func logFault(_ outcome: Result<JSONValue, RPCError>, _ request: RPCRequest, _ connectionLogger: Logger) {
        guard case .failure(let error) = outcome else { return }
        let level: Logger.Level
        var key = "\(error.kind.rawValue) \(request.method)"
        var metadata: Logger.Metadata = ["kind": "\(error.kind.rawValue)"]
        switch error.kind {
        case .storageFailed:
            level = .error
            metadata["database"] = "\(services.configuration.databasePath)"
        case .internalError:
            level = .error
        case .limitExceeded:
            level = .warning
            if let limit = error.details["limit"]?.stringValue {
                key += " \(limit)"
                metadata["limit"] = "\(limit)"
            }
        default:
            return
        }
        if let flowID = request.params["flowId"]?.stringValue {
            // A client chooses what it sends: a long one is cut, not copied whole into the log.
            metadata["flowId"] = "\(flowID.count <= 64 ? flowID : String(flowID.prefix(64)) + "…")"
        }
        metadata["error"] = "\(error.message)"
        faults.record(key, level, "request failed", metadata, logger: connectionLogger.forRequest(request))
    }

    private func dispatch(_ request: RPCRequest, peer: Peer) -> Reply {
        let isRelay = services.isRelay(peer)
        // To a peer outside relay.group the relay methods do not exist: the same answer as any
        // unknown name, and the list it gives leaves them out.
        guard let method = RPCMethod(rawValue: request.method), !method.isRelay || isRelay else {
            let known = RPCMethod.allCases.filter { !$0.isRelay || isRelay }
            return .done(.failure(RPCError(.methodNotFound, "no method \"\(request.method)\"; the methods are \(known.map(\.rawValue).joined(separator: ", "))", parameter: "method")))
        }
        var params = RPCParams(request.params)
        do {
            switch method {
            case .rpcDiscover:
                try params.finish()
                return .done(.success(isRelay ? Self.relayDocument : Self.document))
            case .daemonInfo: return try daemonInfo(&params)
            case .speciesList: return .done(.success(try speciesList(&params)))
            case .flowStart: return .done(.success(try flowStart(&params, peer)))
            case .flowGet: return try flowGet(&params, peer)
            case .flowUpdate: return try flowUpdate(&params, peer)
            case .flowContinue: return .done(.success(try flowContinue(&params, peer)))
            case .flowBack: return .done(.success(try flowBack(&params, peer)))
            case .flowCancel: return .done(.success(try flowCancel(&params, peer)))
            case .flowDismissAlert: return .done(.success(try flowDismissAlert(&params, peer)))
            case .flowRequestLocation: return try flowRequestLocation(&params, peer)
            case .flowSubmit: return try flowSubmit(&params, peer)
            case .locationCurrent: return try locationCurrent(&params, peer)
            case .locationStatus: return try locationStatus(&params, peer)
            case .reportsList: return try reportsList(&params, peer)
            case .reportsGet: return try reportsGet(&params, peer)
            case .relayClaim: return try relayClaim(&params)
            case .relayAck: return try relayAck(&params)
            case .relayStatus: return try relayStatus(&params)
            }
        } catch {
            return .done(.failure(error))
        }
    }

    // MARK: daemon

    /// rpc.discover's answers: fixed for a build, so made once rather than on every call.
    static let document = ProtocolContract.openRPC(version: petspotdVersion, relay: false)
    static let relayDocument = ProtocolContract.openRPC(version: petspotdVersion, relay: true)

    private func daemonInfo(_ p: inout RPCParams) throws(RPCError) -> Reply {
        try p.finish()
        return .written(services.writtenInfo { JSONWriter.bytes(Self.daemonInfo($0)) })
    }

    private static func daemonInfo(_ settings: RuntimeSettings) -> JSONValue {
        let limits = settings.configuration.limits
        return [
            "name": "petspotd",
            "version": .string(petspotdVersion),
            "protocolVersion": .int(petspotProtocolVersion),
            "locationProviders": .array(settings.location.providerNames.map(JSONValue.string)),
            "limits": [
                "flowIdleTimeoutSeconds": .int(limits.flowIdleTimeoutSeconds),
                "maxLineBytes": .int(limits.maxLineBytes),
                "maxFlowsPerUser": .int(limits.maxFlowsPerUser),
                "maxFlows": .int(limits.maxFlows),
                "maxConnections": .int(limits.maxConnections),
                "maxPendingOutputBytes": .int(limits.maxPendingOutputBytes),
                "stalledReaderTimeoutSeconds": .int(limits.stalledReaderTimeoutSeconds),
                "maxQueuedRequests": .int(limits.maxQueuedRequests),
                "maxBatchSize": .int(limits.maxBatchSize),
                "maxJSONDepth": .int(limits.maxJSONDepth),
                "maxPhotoBytes": .int(limits.maxPhotoBytes),
                "maxPhotoBytesInMemory": .int(limits.maxPhotoBytesInMemory),
                "maxReportsPage": .int(limits.maxReportsPage),
            ],
        ]
    }

    private func speciesList(_ p: inout RPCParams) throws(RPCError) -> JSONValue {
        let locale = try p.optionalChoice("locale", as: FlowLocale.self) ?? .en
        try p.finish()
        return services.settings.species.json(locale: locale)
    }

    // MARK: flows

    private func flowStart(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> JSONValue {
        let locale = try p.optionalChoice("locale", as: FlowLocale.self) ?? .en
        try p.finish()
        let flow = try services.registry.start(Flow(id: services.makeID(), locale: locale), owner: peer.uid)
        return ["flow": flow.view(env: services.flowEnvironment()).json]
    }

    /// The most frequent request: its view is written once per change of the flow and kept.
    private func flowGet(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        let id = try p.requiredString("flowId")
        try p.finish()
        let services = self.services
        return .flowView(try services.registry.renderedView(id, owner: peer.uid, generation: services.settingsGeneration) { flow in
            let (env, generation) = services.flowEnvironmentAndGeneration()
            return (JSONWriter.bytes(flow.view(env: env).json), generation)
        })
    }

    private func flowUpdate(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        let id = try p.requiredString("flowId")
        let values = try p.requiredObject("values")
        try p.finish()
        let services = self.services
        let apply: @Sendable () -> Result<JSONValue, RPCError> = {
            let env = services.flowEnvironment()
            let prepared = PreparedUpdate(values, env: env)
            return Result { () throws(RPCError) -> JSONValue in
                try services.registry.withFlow(id, owner: peer.uid) { (flow) throws(FlowError) -> JSONValue in
                    try flow.update(prepared, env: env)
                    return ["flow": flow.view(env: env).json]
                }
            }
        }
        // A photo takes real time to decode and hash: never on the event loop.
        return PreparedUpdate.hasSlowPart(values) ? .pending { apply() } : .done(apply())
    }

    private func flowContinue(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> JSONValue {
        try onFlow(&p, peer) { (flow, env) throws(FlowError) in ["accepted": .bool(try flow.continueStep(env: env))] }
    }

    private func flowBack(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> JSONValue {
        try onFlow(&p, peer) { (flow, _) throws(FlowError) in try flow.back(); return [:] }
    }

    private func flowCancel(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> JSONValue {
        try onFlow(&p, peer) { (flow, _) throws(FlowError) in try flow.cancel(); return [:] }
    }

    private func flowDismissAlert(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> JSONValue {
        try onFlow(&p, peer) { (flow, _) throws(FlowError) in try flow.dismissAlert(); return [:] }
    }

    /// The shape of every method that takes only `flowId`: act on the caller's flow, then
    /// answer `{flow, …}` with the view after the action and whatever the action adds.
    private func onFlow(_ p: inout RPCParams, _ peer: Peer,
                        _ action: (inout Flow, FlowEnvironment) throws(FlowError) -> JSONObject) throws(RPCError) -> JSONValue
    {
        let id = try p.requiredString("flowId")
        try p.finish()
        let env = services.flowEnvironment()
        return try services.registry.withFlow(id, owner: peer.uid) { (flow) throws(FlowError) -> JSONValue in
            let extra = try action(&flow, env)
            return .object(JSONObject(members: [(key: "flow", value: flow.view(env: env).json)] + extra.members))
        }
    }

    private func flowRequestLocation(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        let id = try p.requiredString("flowId")
        let timeoutMs = try p.optionalInt("timeoutMs", in: 1...services.configuration.locationTimeoutMs)
        try p.finish()
        // Refuse a wrong step at once rather than after a location wait.
        let locale = try services.registry.withFlow(id, owner: peer.uid) { (flow) throws(FlowError) -> FlowLocale in
            try flow.checkCanTakeLocation()
            return flow.locale
        }
        let services = self.services
        return .pending {
            let outcome = await services.location.current(for: LocationClient(uid: peer.uid, gid: peer.gid),
                                                          timeout: timeoutMs.map { .milliseconds($0) })
            let env = services.flowEnvironment()
            return Result { () throws(RPCError) -> JSONValue in
                try services.registry.withFlow(id, owner: peer.uid) { (flow) throws(FlowError) -> JSONValue in
                    try flow.applyLocation(outcome)
                    return ["flow": flow.view(env: env).json, "location": outcome.json(locale: locale)]
                }
            }
        }
    }

    private func flowSubmit(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        let id = try p.requiredString("flowId")
        try p.finish()
        let services = self.services
        let env = services.flowEnvironment()
        enum Next { case alreadyStored(reportID: String, view: FlowView), store(NewReport) }
        let next = try services.registry.withFlow(id, owner: peer.uid) { (flow) throws(FlowError) -> Next in
            if flow.state == .completed, let reportID = flow.reportID {
                return .alreadyStored(reportID: reportID, view: flow.view(env: env))
            }
            try flow.checkSubmittable()
            let photo = flow.values.photo.map { StoredPhoto(mediaType: $0.mediaType, sha256: $0.sha256, data: $0.data) }
            return .store(NewReport(id: services.makeID(), flowID: flow.id, ownerUID: peer.uid,
                                    submittedAt: ISO8601.string(services.clock.wallTime()),
                                    valuesJSON: JSONWriter.string(flow.values.json), photo: photo))
        }
        return .pending {
            do throws(RPCError) {
                switch next {
                case .alreadyStored(let reportID, let view):
                    guard let stored = try await Self.storeCall({ () async throws(ReportStoreError) in try await services.store.get(id: reportID, ownerUID: peer.uid) }) else {
                        throw RPCError(.internalError, "the report \(reportID) of this flow is missing from the database")
                    }
                    return .success(["flow": view.json, "report": try ReportJSON.encode(stored)])
                case .store(let report):
                    let (stored, _) = try await Self.storeCall { () async throws(ReportStoreError) in try await services.store.submit(report) }
                    // Durable now: only from here on may the flow say it is completed. If another
                    // connection cancelled it (or it expired) meanwhile, the report still stands.
                    let view: FlowView
                    do throws(RPCError) {
                        view = try services.registry.withFlow(id, owner: peer.uid) { flow in
                            if flow.state == .active { flow.complete(reportID: stored.id) }
                            return flow.view(env: env)
                        }
                    } catch {
                        guard error.kind == .flowNotFound else { throw error }
                        view = FlowView(id: id, state: .completed(reportID: stored.id))
                    }
                    return .success(["flow": view.json, "report": try ReportJSON.encode(stored)])
                }
            } catch {
                return .failure(error)
            }
        }
    }

    // MARK: location

    private func locationCurrent(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        let timeoutMs = try p.optionalInt("timeoutMs", in: 1...services.configuration.locationTimeoutMs)
        let maxAgeMs = try p.optionalInt("maxAgeMs", in: 0...3_600_000)
        let locale = try p.optionalChoice("locale", as: FlowLocale.self) ?? .en
        try p.finish()
        let location = services.location
        return .pending {
            let outcome = await location.current(for: LocationClient(uid: peer.uid, gid: peer.gid),
                                                 timeout: timeoutMs.map { .milliseconds($0) },
                                                 maxAge: maxAgeMs.map { .milliseconds($0) })
            return .success(["location": outcome.json(locale: locale)])
        }
    }

    private func locationStatus(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        try p.finish()
        let location = services.location
        // Off the event loop: the permission check may ask a directory service.
        return .pending { .success(await location.status(for: LocationClient(uid: peer.uid, gid: peer.gid))) }
    }

    // MARK: reports

    private func reportsList(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        let maxPage = services.limits.maxReportsPage
        let limit = try p.optionalInt("limit", in: 1...maxPage) ?? min(20, maxPage)
        let cursor = try p.optionalString("cursor")
        try p.finish()
        let store = services.store
        return .pending {
            do throws(RPCError) {
                let page = try await Self.storeCall { () async throws(ReportStoreError) in
                    try await store.list(ownerUID: peer.uid, limit: limit, cursor: cursor)
                }
                var reports: [JSONValue] = []
                for report in page.reports { reports.append(try ReportJSON.encode(report)) }
                return .success(["reports": .array(reports), "cursor": .optional(page.nextCursor)])
            } catch {
                return .failure(error)
            }
        }
    }

    private func reportsGet(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply {
        let id = try p.requiredString("reportId")
        try p.finish()
        let store = services.store
        return .pending {
            do throws(RPCError) {
                guard let report = try await Self.storeCall({ () async throws(ReportStoreError) in try await store.get(id: id, ownerUID: peer.uid) }) else {
                    return .failure(RPCError(.reportNotFound, "no report \"\(id)\" of yours", parameter: "reportId"))
                }
                return .success(["report": try ReportJSON.encode(report)])
            } catch {
                return .failure(error)
            }
        }
    }

    // MARK: relay

    private func relayClaim(_ p: inout RPCParams) throws(RPCError) -> Reply {
        let relay = services.configuration.relay
        // A claim asks for at most what it wants: more than the daemon hands out now gets that
        // many, so a reload that lowers relay.maxClaimReports does not stall a relay.
        let limit = min(try p.optionalInt("limit", in: DaemonConfiguration.Relay.maxClaimReportsRange) ?? relay.maxClaimReports,
                        relay.maxClaimReports)
        try p.finish()
        let (store, claims) = (services.store, services.relayClaims)
        return .pending {
            do throws(RPCError) {
                let candidates = try await Self.storeCall { () async throws(ReportStoreError) in
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
                let counts = try await Self.storeCall { () async throws(ReportStoreError) in try await store.deliveryCounts() }
                return .success(RelayClaim.Result(reports: reports, claimTimeoutSeconds: relay.claimTimeoutSeconds, pending: counts.pending).json)
            } catch {
                return .failure(error)
            }
        }
    }

    private func relayAck(_ p: inout RPCParams) throws(RPCError) -> Reply {
        // Whatever the limits are now: the ids may have been claimed before a reload lowered them.
        let ids = try p.requiredStrings("reportIds", count: DaemonConfiguration.Relay.maxClaimReportsRange)
        try p.finish()
        let services = self.services
        return .pending {
            do throws(RPCError) {
                let deliveredAt = ISO8601.string(services.clock.wallTime())
                let marking: DeliveryMarking
                do throws(ReportStoreError) {
                    marking = try await services.store.markDelivered(ids: ids, at: deliveredAt)
                } catch {
                    if error.kind == .reportNotFound {
                        throw RPCError(.reportNotFound, "\"reportIds\": \(error.message); nothing was marked delivered", parameter: "reportIds")
                    }
                    throw RPCError(.storageFailed, "the reports database failed: \(error.clientMessage)")
                }
                services.relayClaims.release(ids)
                return .success(RelayAck.Result(delivered: marking.delivered, alreadyDelivered: marking.alreadyDelivered).json)
            } catch {
                return .failure(error)
            }
        }
    }

    private func relayStatus(_ p: inout RPCParams) throws(RPCError) -> Reply {
        try p.finish()
        let (store, claims) = (services.store, services.relayClaims)
        return .pending {
            do throws(RPCError) {
                let counts = try await Self.storeCall { () async throws(ReportStoreError) in try await store.deliveryCounts() }
                return .success(RelayStatus.Result(pending: counts.pending, claimed: claims.count, delivered: counts.delivered,
                                                   lastDeliveredAt: counts.lastDeliveredAt).json)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Runs a store call and turns its failure into the error a client sees.
    private static func storeCall<T>(_ body: () async throws(ReportStoreError) -> T) async throws(RPCError) -> T {
        do {
            return try await body()
        } catch {
            if error.kind == .invalidCursor {
                throw RPCError(.invalidParams, "\"cursor\" is not one this daemon gave out", parameter: "cursor")
            }
            throw RPCError(.storageFailed, "the reports database failed: \(error.clientMessage)")
        }
    }
}

/// A stored report as the protocol shows it.
enum ReportJSON {
    static func encode(_ report: StoredReport) throws(RPCError) -> JSONValue {
        .object(try object(report))
    }

    static func object(_ report: StoredReport) throws(RPCError) -> JSONObject {
        let values: JSONValue
        do {
            values = try JSONParser.parse(report.valuesJSON)
        } catch {
            throw RPCError(.internalError, "report \(report.id) has unreadable values: \(error)")
        }
        let delivery: JSONValue = switch report.delivery {
        case .pending: ["state": "pending"]
        case .delivered(let at): ["state": "delivered", "deliveredAt": .string(at)]
        }
        return ["id": .string(report.id), "flowId": .string(report.flowID),
                "submittedAt": .string(report.submittedAt), "values": values, "delivery": delivery]
    }
}
