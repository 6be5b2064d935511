import Logging
import PetSpotJSON
import PetSpotProtocol

/// Failures of requests an operator should hear of: a storage failure, an internal error, a
/// limit hit. Each is written through the fault log (rate-limited per kind) with the request's
/// own logger; every other refusal is the client's business and is not logged.
struct RequestFaults: Sendable {
    let log: FaultLog
    /// Named with a storage failure.
    let databasePath: String

    func record(_ error: RPCError, params: JSONObject, _ context: RequestContext) {
        let level: Logger.Level
        var key = "\(error.kind.rawValue) \(context.method)"
        var metadata: Logger.Metadata = ["kind": "\(error.kind.rawValue)"]
        switch error.kind {
        case .storageFailed:
            level = .error
            metadata["database"] = "\(databasePath)"
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
        if let flowID = params["flowId"]?.stringValue {
            // A client chooses what it sends: a long one is cut, not copied whole into the log.
            metadata["flowId"] = "\(flowID.count <= 64 ? flowID : String(flowID.prefix(64)) + "…")"
        }
        metadata["error"] = "\(error.message)"
        log.record(key, level, "request failed", metadata, logger: context.logger)
    }
}
