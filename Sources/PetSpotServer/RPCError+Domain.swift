import PetSpotFlow
import PetSpotProtocol
import PetSpotStore

// Every domain error becomes the error a client sees here, and nowhere else: the flow's rules,
// the flow registry and the report store know nothing of the wire.

extension RPCError {
    init(_ error: FlowError) {
        switch error {
        case .wrongStep(let message): self.init(.wrongStep, message)
        case .invalidParams(let message, let parameter): self.init(.invalidParams, message, parameter: parameter)
        }
    }

    init(_ error: FlowRegistryError) {
        switch error {
        case .flowNotFound(let id):
            self.init(.flowNotFound, "no flow \"\(id)\": it never existed, was cancelled, expired, or belongs to another user", parameter: "flowId")
        case .limitReached(let setting, let max, let message):
            self = .limitExceeded(setting, max: max, message)
        case .flow(let error):
            self.init(error)
        }
    }

    /// `reportIds` and `cursor` name what the client sent that the store found wrong: only a
    /// listing throws `.invalidCursor`, and only marking reports delivered (`relay.ack`)
    /// throws `.reportNotFound`; a missing report elsewhere is nil, not an error.
    /// An owner's change of report `reportID` that did not happen, as the client sees it.
    init(_ error: ReportChangeError, reportID: String) {
        switch error {
        case .refused(.reportNotFound), .refused(.stillMissing):
            self.init(.reportNotFound, "no report \"\(reportID)\" of yours", parameter: "reportId")
        case .refused(.reportClosed(let status)):
            self.init(.reportClosed, "the report is \(status.rawValue): it can no longer change, only be erased (reports.erase)",
                      parameter: "reportId", details: ["status": .string(status.rawValue)])
        case .refused(.reportErased):
            self.init(.reportErased, "the report's personal data is erased: it can no longer change", parameter: "reportId")
        case .rejected(let error as RPCError):
            self = error
        case .rejected(let error):
            self.init(.internalError, "the change of report \(reportID) failed: \(error)")
        case .failed(let failure):
            self.init(failure)
        }
    }

    init(_ error: ReportStoreError) {
        switch error.kind {
        case .invalidCursor:
            self.init(.invalidParams, "\"cursor\" is not one this daemon gave out", parameter: "cursor")
        case .reportNotFound:
            self.init(.reportNotFound, "\"reportIds\": \(error.message); nothing was marked delivered", parameter: "reportIds")
        case .unreadableValues:
            self.init(.internalError, error.message)
        default:
            self.init(.storageFailed, "the reports database failed: \(error.clientMessage)")
        }
    }
}

/// Runs a registry call, failing with the error a client sees.
func registryCall<T>(_ body: () throws(FlowRegistryError) -> T) throws(RPCError) -> T {
    do {
        return try body()
    } catch {
        throw RPCError(error)
    }
}

extension FlowRegistry {
    /// `withFlow`, failing with the error a client sees.
    func answering<R>(_ id: String, owner: UInt32, taking reservation: PhotoReservation? = nil,
                      _ body: (inout Flow) throws(FlowError) -> R) throws(RPCError) -> R {
        try registryCall { () throws(FlowRegistryError) in try withFlow(id, owner: owner, taking: reservation, body) }
    }
}

/// Runs a store call, failing with the error a client sees.
func storeCall<T>(_ body: () async throws(ReportStoreError) -> T) async throws(RPCError) -> T {
    do {
        return try await body()
    } catch {
        throw RPCError(error)
    }
}
