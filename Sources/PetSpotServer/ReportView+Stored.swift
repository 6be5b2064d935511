import PetSpotJSON
import PetSpotProtocol
import PetSpotStore

extension ReportView {
    /// A stored report as the protocol shows it.
    init(_ report: StoredReport) throws(RPCError) {
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
        self.init(id: report.id, flowID: report.flowID, submittedAt: report.submittedAt, values: values, delivery: delivery)
    }
}
