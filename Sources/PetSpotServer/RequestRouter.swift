import Logging
import PetSpotJSON
import PetSpotProtocol

/// Finds a request's method and hands its params to the handler of its area (daemon, flow,
/// location, reports, relay: one file each, in the order of the protocol's method table).
/// The router reads a method's typed params (`RPCMethodSpec.Params`); its handler calls the
/// domain and gives the typed result, `now` when it only touches memory, `later` when it waits.
public struct RequestRouter: Sendable {
    public let services: DaemonServices
    public let faults: FaultLog

    public init(services: DaemonServices, faults: FaultLog) {
        self.services = services
        self.faults = faults
    }

    /// Answers one request; a fault among the answers (storage, internal, a limit) is logged
    /// with the request's own logger, made from `logger`, the connection's.
    /// `subscriber`: the connection's watches; nil where there is no connection to notify.
    func route(_ request: RPCRequest, peer: Peer, subscriber: Subscriber?, logger: Logger) -> Reply<MethodOutcome> {
        switch dispatch(request, peer: peer, subscriber: subscriber) {
        case .now(let outcome):
            logFault(outcome, request, logger)
            return .now(outcome)
        case .later(let work):
            return .later { [self] in
                let outcome = await work()
                logFault(outcome, request, logger)
                return outcome
            }
        }
    }

    private func dispatch(_ request: RPCRequest, peer: Peer, subscriber: Subscriber?) -> Reply<MethodOutcome> {
        let (isRelay, bounds) = services.requestSettings(for: peer)
        // To a peer outside relay.group the relay methods do not exist: the same answer as any
        // unknown name, and the list it gives leaves them out.
        guard let method = RPCMethod(rawValue: request.method), !method.isRelay || isRelay else {
            let known = RPCMethod.allCases.filter { !$0.isRelay || isRelay }
            return .now(.failure(RPCError(.methodNotFound, "no method \"\(request.method)\"; the methods are \(known.map(\.rawValue).joined(separator: ", "))", parameter: "method")))
        }
        let params = request.params
        switch method {
        case .rpcDiscover: return handle(RPCDiscover.self, params, bounds) { _ throws(RPCError) in rpcDiscover(relay: isRelay) }
        case .daemonInfo: return handle(DaemonInfo.self, params, bounds) { _ throws(RPCError) in daemonInfo() }
        case .speciesList: return handle(SpeciesList.self, params, bounds) { p throws(RPCError) in speciesList(p) }
        case .flowStart: return handle(FlowStart.self, params, bounds) { p throws(RPCError) in try flowStart(p, peer) }
        case .flowGet: return handle(FlowGet.self, params, bounds) { p throws(RPCError) in try flowGet(p, peer) }
        // A change to a flow is told to its watches once the handler has made it.
        case .flowUpdate: return handle(FlowUpdate.self, params, bounds) { p throws(RPCError) in published(flowUpdate(p, peer), peer) }
        case .flowContinue: return handle(FlowContinue.self, params, bounds) { p throws(RPCError) in published(try flowContinue(p, peer), peer) }
        case .flowBack: return handle(FlowBack.self, params, bounds) { p throws(RPCError) in published(try flowBack(p, peer), peer) }
        case .flowCancel: return handle(FlowCancel.self, params, bounds) { p throws(RPCError) in published(try flowCancel(p, peer), peer) }
        case .flowDismissAlert: return handle(FlowDismissAlert.self, params, bounds) { p throws(RPCError) in published(try flowDismissAlert(p, peer), peer) }
        case .flowRequestLocation: return handle(FlowRequestLocation.self, params, bounds) { p throws(RPCError) in published(try flowRequestLocation(p, peer), peer) }
        case .flowSubmit: return handle(FlowSubmit.self, params, bounds) { p throws(RPCError) in published(try flowSubmit(p, peer), peer) }
        case .locationCurrent: return handle(LocationCurrent.self, params, bounds) { p throws(RPCError) in locationCurrent(p, peer) }
        case .locationStatus: return handle(LocationStatus.self, params, bounds) { _ throws(RPCError) in locationStatus(peer) }
        case .reportsList: return handle(ReportsList.self, params, bounds) { p throws(RPCError) in reportsList(p, peer) }
        case .reportsGet: return handle(ReportsGet.self, params, bounds) { p throws(RPCError) in reportsGet(p, peer) }
        case .relayClaim: return handle(RelayClaim.self, params, bounds) { p throws(RPCError) in relayClaim(p) }
        case .relayAck: return handle(RelayAck.self, params, bounds) { p throws(RPCError) in relayAck(p) }
        case .relayStatus: return handle(RelayStatus.self, params, bounds) { _ throws(RPCError) in relayStatus() }
        case .locationWatch: return handle(LocationWatch.self, params, bounds) { p throws(RPCError) in try locationWatch(p, try watcher(subscriber)) }
        case .flowWatch: return handle(FlowWatch.self, params, bounds) { p throws(RPCError) in try flowWatch(p, try watcher(subscriber)) }
        case .reportsWatch: return handle(ReportsWatch.self, params, bounds) { _ throws(RPCError) in try reportsWatch(try watcher(subscriber)) }
        case .relayWatch: return handle(RelayWatch.self, params, bounds) { _ throws(RPCError) in try relayWatch(try watcher(subscriber)) }
        case .unwatch: return handle(Unwatch.self, params, bounds) { p throws(RPCError) in try unwatch(p, try watcher(subscriber)) }
        }
    }

    /// Reads `M`'s params, runs its handler and hands its typed answer to the envelope writer.
    private func handle<M: RPCMethodSpec>(_ method: M.Type, _ params: JSONObject, _ bounds: ParamBounds,
                                          _ handler: (M.Params) throws(RPCError) -> MethodReply<M.Result>) -> Reply<MethodOutcome>
    {
        var reader = RPCParams(params)
        do throws(RPCError) {
            return try handler(try M.Params(&reader, bounds: bounds)).outcome()
        } catch {
            return .now(.failure(error))
        }
    }

    private func logFault(_ outcome: MethodOutcome, _ request: RPCRequest, _ connectionLogger: Logger) {
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
}
