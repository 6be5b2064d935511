import FoundationEssentials
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotViews

// flow.*: the caller's flows, through the registry, which hides other users' flows.
extension RequestRouter {
    func flowStart(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let locale = try p.optionalChoice("locale", as: FlowLocale.self) ?? .en
        try p.finish()
        let flow = try registryCall { () throws(FlowRegistryError) in
            try services.registry.start(Flow(id: services.makeID(), locale: locale), owner: peer.uid)
        }
        return .result(["flow": flow.view(env: services.flowEnvironment()).json])
    }

    /// The most frequent request: its whole result is written once per change of the flow and
    /// kept with it.
    func flowGet(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let id = try p.requiredString("flowId")
        try p.finish()
        let services = self.services
        return .now(.success(.written(try registryCall { () throws(FlowRegistryError) in
            try services.registry.renderedView(id, owner: peer.uid, generation: services.settingsGeneration) { flow in
                let (env, generation) = services.flowEnvironmentAndGeneration()
                return (JSONWriter.bytes(["flow": flow.view(env: env).json]), generation)
            }
        })))
    }

    func flowUpdate(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let id = try p.requiredString("flowId")
        let values = try p.requiredObject("values")
        try p.finish()
        let services = self.services
        let apply: @Sendable () -> MethodOutcome = {
            let env = services.flowEnvironment()
            let prepared = PreparedUpdate(values, env: env)
            return Result { () throws(RPCError) -> MethodResult in
                try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) -> MethodResult in
                    try flow.update(prepared, env: env)
                    return .json(["flow": flow.view(env: env).json])
                }
            }
        }
        // A photo takes real time to decode and hash: never on the event loop.
        return PreparedUpdate.hasSlowPart(values) ? .later { apply() } : .now(apply())
    }

    func flowContinue(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        try onFlow(&p, peer) { (flow, env) throws(FlowError) in ["accepted": .bool(try flow.continueStep(env: env))] }
    }

    func flowBack(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        try onFlow(&p, peer) { (flow, _) throws(FlowError) in try flow.back(); return [:] }
    }

    func flowCancel(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        try onFlow(&p, peer) { (flow, _) throws(FlowError) in try flow.cancel(); return [:] }
    }

    func flowDismissAlert(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        try onFlow(&p, peer) { (flow, _) throws(FlowError) in try flow.dismissAlert(); return [:] }
    }

    /// The shape of every method that takes only `flowId`: act on the caller's flow, then
    /// answer `{flow, …}` with the view after the action and whatever the action adds.
    private func onFlow(_ p: inout RPCParams, _ peer: Peer,
                        _ action: (inout Flow, FlowEnvironment) throws(FlowError) -> JSONObject) throws(RPCError) -> Reply<MethodOutcome>
    {
        let id = try p.requiredString("flowId")
        try p.finish()
        let env = services.flowEnvironment()
        return .result(try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) -> JSONValue in
            let extra = try action(&flow, env)
            return .object(JSONObject(members: [(key: "flow", value: flow.view(env: env).json)] + extra.members))
        })
    }

    func flowRequestLocation(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let id = try p.requiredString("flowId")
        let timeoutMs = try p.optionalInt("timeoutMs", in: 1...services.configuration.locationTimeoutMs)
        try p.finish()
        // Refuse a wrong step at once rather than after a location wait.
        let locale = try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) -> FlowLocale in
            try flow.checkCanTakeLocation()
            return flow.locale
        }
        let services = self.services
        return .work { () async throws(RPCError) -> JSONValue in
            let outcome = await services.location.current(for: LocationClient(uid: peer.uid, gid: peer.gid),
                                                          timeout: timeoutMs.map { .milliseconds($0) })
            let env = services.flowEnvironment()
            return try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) -> JSONValue in
                try flow.applyLocation(outcome)
                return ["flow": flow.view(env: env).json, "location": outcome.json(locale: locale)]
            }
        }
    }

    func flowSubmit(_ p: inout RPCParams, _ peer: Peer) throws(RPCError) -> Reply<MethodOutcome> {
        let id = try p.requiredString("flowId")
        try p.finish()
        let services = self.services
        let env = services.flowEnvironment()
        enum Next { case alreadyStored(reportID: String, view: FlowView), store(NewReport) }
        let next = try services.registry.answering(id, owner: peer.uid) { (flow) throws(FlowError) -> Next in
            if flow.state == .completed, let reportID = flow.reportID {
                return .alreadyStored(reportID: reportID, view: flow.view(env: env))
            }
            try flow.checkSubmittable()
            let photo = flow.values.photo.map { StoredPhoto(mediaType: $0.mediaType, sha256: $0.sha256, data: $0.data) }
            return .store(NewReport(id: services.makeID(), flowID: flow.id, ownerUID: peer.uid,
                                    submittedAt: ISO8601.string(services.clock.wallTime()),
                                    valuesJSON: JSONWriter.string(flow.values.json), photo: photo))
        }
        return .work { () async throws(RPCError) -> JSONValue in
            switch next {
            case .alreadyStored(let reportID, let view):
                guard let stored = try await storeCall({ () async throws(ReportStoreError) in try await services.store.get(id: reportID, ownerUID: peer.uid) }) else {
                    throw RPCError(.internalError, "the report \(reportID) of this flow is missing from the database")
                }
                return ["flow": view.json, "report": try ReportJSON.encode(stored)]
            case .store(let report):
                let (stored, _) = try await storeCall { () async throws(ReportStoreError) in try await services.store.submit(report) }
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
                return ["flow": view.json, "report": try ReportJSON.encode(stored)]
            }
        }
    }
}
