import Logging
import PetSpotJSON
import PetSpotProtocol

/// Finds a request's method and hands its params to the handler of its area (daemon, flow,
/// location, reports, relay: one file each, in the order of the protocol's method table).
/// Handlers decode params, call the domain and shape the result; they answer `now` when they
/// only touch memory, `later` when they wait.
public struct RequestRouter: Sendable {
    public let services: DaemonServices
    public let faults: FaultLog

    public init(services: DaemonServices, faults: FaultLog) {
        self.services = services
        self.faults = faults
    }

    /// Answers one request; a fault among the answers (storage, internal, a limit) is logged
    /// with the request's own logger, made from `logger`, the connection's.
    public func route(_ request: RPCRequest, peer: Peer, logger: Logger) -> Reply<MethodOutcome> {
        switch dispatch(request, peer: peer) {
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

    private func dispatch(_ request: RPCRequest, peer: Peer) -> Reply<MethodOutcome> {
        let isRelay = services.isRelay(peer)
        // To a peer outside relay.group the relay methods do not exist: the same answer as any
        // unknown name, and the list it gives leaves them out.
        guard let method = RPCMethod(rawValue: request.method), !method.isRelay || isRelay else {
            let known = RPCMethod.allCases.filter { !$0.isRelay || isRelay }
            return .now(.failure(RPCError(.methodNotFound, "no method \"\(request.method)\"; the methods are \(known.map(\.rawValue).joined(separator: ", "))", parameter: "method")))
        }
        var params = RPCParams(request.params)
        do throws(RPCError) {
            switch method {
            case .rpcDiscover: return try rpcDiscover(&params, relay: isRelay)
            case .daemonInfo: return try daemonInfo(&params)
            case .speciesList: return try speciesList(&params)
            case .flowStart: return try flowStart(&params, peer)
            case .flowGet: return try flowGet(&params, peer)
            case .flowUpdate: return try flowUpdate(&params, peer)
            case .flowContinue: return try flowContinue(&params, peer)
            case .flowBack: return try flowBack(&params, peer)
            case .flowCancel: return try flowCancel(&params, peer)
            case .flowDismissAlert: return try flowDismissAlert(&params, peer)
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
