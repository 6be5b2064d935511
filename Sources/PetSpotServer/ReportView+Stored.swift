import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore

extension ReportView {
    /// A stored report as the protocol shows it; `expireAfter` is `reports.expireAfterDays` in
    /// force, from which its `expiresAt` is reckoned.
    init(_ report: StoredReport, expireAfter: Duration) throws(RPCError) {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(report.valuesJSON)
        } catch {
            throw RPCError(.internalError, "report \(report.id) has unreadable values: \(error)")
        }
        guard case .object(let values) = parsed else {
            throw RPCError(.internalError, "report \(report.id) has values that are not an object")
        }
        let delivery: Delivery = switch report.delivery {
        case .pending: .pending
        case .delivered(let at): .delivered(at: at)
        }
        let status: Status = switch report.status {
        case .missing: .missing
        case .found: .found
        case .withdrawn: .withdrawn
        case .expired: .expired
        }
        self.init(id: report.id, flowID: report.flowID, submittedAt: report.submittedAt, status: status, version: report.version,
                  updatedAt: ISO8601.string(report.updatedAt), expiresAt: report.life.expiresAt(after: expireAfter).map(ISO8601.string),
                  erased: report.isErased, values: values, delivery: delivery)
    }
}
