import PetSpotJSON
import PetSpotProtocol
import PetSpotStore

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
