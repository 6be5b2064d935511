import FoundationEssentials
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotViews

/// flow.*: the caller's flows, through the registry, which hides other users' flows. A change
/// to a flow is told to its watches once the handler has made it (`published`).
struct FlowHandlers: Sendable {
    let services: DaemonServices

    func start(_ params: FlowStart.Params, _ context: RequestContext) throws(RPCError) -> Reply<FlowAnswer> {
        let flow = try registryCall { () throws(FlowRegistryError) in
            try services.registry.start(Flow(id: services.makeID(), locale: params.locale ?? .en), owner: context.peer.uid)
        }
        return .now(FlowAnswer(flow: flow.view(env: services.flowEnvironment())))
    }

    /// The most frequent request: its whole result is written once per change of the flow and
    /// kept with it.
    func get(_ params: FlowIDParams, _ context: RequestContext) throws(RPCError) -> Reply<FlowAnswer> {
        let services = self.services
        return .written(try registryCall { () throws(FlowRegistryError) in
            try services.registry.renderedView(params.flowId, owner: context.peer.uid, generation: services.settingsGeneration) { flow in
                let (env, generation) = services.flowEnvironmentAndGeneration()
                return (JSONWriter.bytes(FlowAnswer(flow: flow.view(env: env)).json), generation)
            }
        })
    }

    func update(_ params: FlowUpdate.Params, _ context: RequestContext) throws(RPCError) -> Reply<FlowAnswer> {
        let (services, peer) = (self.services, context.peer)
        let apply: @Sendable () throws(RPCError) -> FlowAnswer = { () throws(RPCError) -> FlowAnswer in
            let env = services.flowEnvironment()
            let (prepared, reservation) = try Self.spooling(PreparedUpdate(params.values, env: env), flowID: params.flowId,
                                                            owner: peer.uid, services: services)
            return try services.registry.answering(params.flowId, owner: peer.uid, taking: reservation) { (flow) throws(FlowError) in
                try flow.update(prepared, env: env)
                return FlowAnswer(flow: flow.view(env: env))
            }
        }
        // A photo takes real time to decode and hash: never on the event loop.
        let reply: Reply<FlowAnswer> = PreparedUpdate.hasSlowPart(params.values) ? .later { () throws(RPCError) in try apply() } : .now(try apply())
        return published(reply, context)
    }

    /// The update with its photo, if any, decoded into the spool (the flow keeps only the
    /// file), and the room reserved for it. The room comes first, so that a photo the update
    /// would refuse (another flow, step or share) is never written.
    private static func spooling(_ prepared: PreparedUpdate, flowID: String, owner: UInt32,
                                 services: DaemonServices) throws(RPCError) -> (PreparedUpdate, PhotoReservation?)
    {
        guard let bytes = prepared.photoByteCount else { return (prepared, nil) }
        let room = try registryCall { () throws(FlowRegistryError) in
            try services.registry.reservePhoto(flowID, owner: owner, bytes: bytes) { (flow) throws(FlowError) in try flow.checkUpdate(prepared) }
        }
        do throws(RPCError) {
            let kept = try prepared.keepingPhoto { (upload) throws(RPCError) in
                try services.photoSpool.keep(upload, minFreeBytes: services.limits.minFreeDiskBytes)
            }
            return (kept, room)
        } catch {
            services.registry.giveBack(room)
            throw error
        }
    }

    func continueStep(_ params: FlowIDParams, _ context: RequestContext) throws(RPCError) -> Reply<FlowContinue.Result> {
        published(try onFlow(params, context) { (flow, env) throws(FlowError) in
            let accepted = try flow.continueStep(env: env)
            return FlowContinue.Result(flow: flow.view(env: env), accepted: accepted)
        }, context)
    }

    func back(_ params: FlowIDParams, _ context: RequestContext) throws(RPCError) -> Reply<FlowAnswer> {
        published(try onFlow(params, context) { (flow, env) throws(FlowError) in
            try flow.back()
            return FlowAnswer(flow: flow.view(env: env))
        }, context)
    }

    func cancel(_ params: FlowIDParams, _ context: RequestContext) throws(RPCError) -> Reply<FlowAnswer> {
        published(try onFlow(params, context) { (flow, env) throws(FlowError) in
            try flow.cancel()
            return FlowAnswer(flow: flow.view(env: env))
        }, context)
    }

    func dismissAlert(_ params: FlowIDParams, _ context: RequestContext) throws(RPCError) -> Reply<FlowAnswer> {
        published(try onFlow(params, context) { (flow, env) throws(FlowError) in
            try flow.dismissAlert()
            return FlowAnswer(flow: flow.view(env: env))
        }, context)
    }

    /// The shape of every method that takes only `flowId`: act on the caller's flow now and
    /// answer with what the action gives.
    private func onFlow<R: RPCResultCoding>(_ params: FlowIDParams, _ context: RequestContext,
                                            _ action: (inout Flow, FlowEnvironment) throws(FlowError) -> R) throws(RPCError) -> Reply<R>
    {
        let env = services.flowEnvironment()
        return .now(try services.registry.answering(params.flowId, owner: context.peer.uid) { (flow) throws(FlowError) in try action(&flow, env) })
    }

    func requestLocation(_ params: FlowRequestLocation.Params, _ context: RequestContext) throws(RPCError) -> Reply<FlowRequestLocation.Result> {
        let (id, peer) = (params.flowId, context.peer)
        // Refuse a wrong step at once rather than after a location wait.
        let locale = try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) -> FlowLocale in
            try flow.checkCanTakeLocation()
            return flow.locale
        }
        let services = self.services
        return published(.later { () async throws(RPCError) -> FlowRequestLocation.Result in
            let outcome = await services.location.current(for: LocationClient(uid: peer.uid, gid: peer.gid),
                                                          timeout: params.timeoutMs.map { .milliseconds($0) })
            let env = services.flowEnvironment()
            return try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) in
                try flow.applyLocation(outcome)
                return FlowRequestLocation.Result(flow: flow.view(env: env), location: outcome.view(locale: locale))
            }
        }, context)
    }

    /// The photo's bytes, read back from the spool and checked against the hash taken when it
    /// came: a bad sector of an SD card must not turn into a stored report with a wrong photo.
    private static func bytes(of photo: Photo) throws(RPCError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try photo.content.bytes()
        } catch {
            throw RPCError(.internalError, "cannot read the flow's photo back from the spool: \(error); nothing was stored")
        }
        guard SHA256.hexHash(bytes) == photo.sha256 else {
            throw RPCError(.internalError, "the flow's photo read back from the spool is not the photo sent (its SHA-256 differs); nothing was stored: go back to step 'photo' (flow.back) and send the photo again")
        }
        return bytes
    }

    func submit(_ params: FlowIDParams, _ context: RequestContext) throws(RPCError) -> Reply<FlowSubmit.Result> {
        let (id, peer) = (params.flowId, context.peer)
        let services = self.services
        let env = services.flowEnvironment()
        enum Next { case alreadyStored(reportID: String, view: FlowView), store(NewReport, photo: Photo?) }
        let next = try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) -> Next in
            if flow.state == .completed, let reportID = flow.reportID {
                return .alreadyStored(reportID: reportID, view: flow.view(env: env))
            }
            try flow.checkSubmittable()
            return .store(NewReport(id: services.makeID(), flowID: flow.id, ownerUID: peer.uid,
                                    submittedAt: ISO8601.string(services.clock.wallTime()),
                                    valuesJSON: JSONWriter.string(flow.values.json), photo: nil,
                                    board: BoardFields(values: flow.values, photoBytes: nil)),
                          photo: flow.values.photo)
        }
        return published(.later { () async throws(RPCError) -> FlowSubmit.Result in
            switch next {
            case .alreadyStored(let reportID, let view):
                guard let stored = try await storeCall({ () async throws(ReportStoreError) in try await services.store.get(id: reportID, ownerUID: peer.uid) }) else {
                    throw RPCError(.internalError, "the report \(reportID) of this flow is missing from the database")
                }
                return FlowSubmit.Result(flow: view, report: try services.reportView(stored))
            case .store(var report, let photo):
                // Read back from the spool here, not under the registry's lock: one photo per submit.
                if let photo {
                    let bytes = try Self.bytes(of: photo)
                    report.photo = StoredPhoto(mediaType: photo.mediaType, sha256: photo.sha256, data: bytes)
                    // What the public will be shown of it, described once, as it is stored.
                    report.board.publicPhoto = BoardFields.publicPhoto(of: bytes)
                }
                let (stored, inserted) = try await storeCall { () async throws(ReportStoreError) in try await services.store.submit(report) }
                let reportView = try services.reportView(stored)
                if inserted {
                    services.subscriptions.reportChanged(.filed, reportView, owner: peer.uid)
                    services.pendingCount.reportsFiled()
                    await services.animalChanged(stored.id, before: nil)
                }
                // Durable now: only from here on may the flow say it is completed. If another
                // connection cancelled it (or it expired) meanwhile, the report still stands.
                let view: FlowView
                do throws(FlowRegistryError) {
                    view = try services.registry.withFlow(id, owner: peer.uid) { flow in
                        if flow.state == .active { flow.complete(reportID: stored.id) }
                        return flow.view(env: env)
                    }
                } catch {
                    guard case .flowNotFound = error else { throw RPCError(error) }
                    view = FlowView(id: id, state: .completed(reportID: stored.id))
                }
                return FlowSubmit.Result(flow: view, report: reportView)
            }
        }, context)
    }

    /// `reply`, whose flow's watches are told of it once it is made. Two connections may
    /// change one flow at once and publish in either order: each watch is given the flow as
    /// it is when published, with its revision, so that a late older view is skipped.
    private func published<R: FlowResult>(_ reply: Reply<R>, _ context: RequestContext) -> Reply<R> {
        let (services, owner) = (self.services, context.peer.uid)
        return reply.onResult { answer in
            let flow = answer.flow
            guard services.subscriptions.isWatched(.flow(flow.id)) else { return }
            guard case .active = flow.state, let current = try? services.registry.flow(flow.id, owner: owner) else {
                services.subscriptions.flowChanged(flow)
                return
            }
            services.subscriptions.flowChanged(current.flow.view(env: services.flowEnvironment()), revision: current.revision)
        }
    }
}
