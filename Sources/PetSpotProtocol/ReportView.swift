import PetSpotJSON

/// A stored report as `reports.get`, `reports.list`, `flow.submit` and `relay.claim` show it.
public struct ReportView: Sendable, Equatable {
    /// Whether a relay has taken the report to the central database.
    public enum Delivery: Sendable, Equatable {
        case pending
        /// ISO 8601 UTC.
        case delivered(at: String)
    }

    public let id: String
    public let flowID: String
    /// ISO 8601 UTC.
    public let submittedAt: String
    /// Every field's stored value by name, as the flow's `values`.
    public let values: JSONObject
    public let delivery: Delivery
    /// Members a newer daemon added that this version does not know: kept and written back
    /// after the others, so that a client passing a report on (`--json`, the relay's central
    /// copy) loses nothing.
    public let otherMembers: JSONObject

    public init(id: String, flowID: String, submittedAt: String, values: JSONObject, delivery: Delivery, otherMembers: JSONObject = [:]) {
        self.id = id
        self.flowID = flowID
        self.submittedAt = submittedAt
        self.values = values
        self.delivery = delivery
        self.otherMembers = otherMembers
    }

    static let knownMembers: Set<String> = ["id", "flowId", "submittedAt", "values", "delivery"]

    /// `{id, flowId, submittedAt, values, delivery}`.
    public var json: JSONValue {
        .object(JSONObject(members: members + otherMembers.members))
    }

    /// The report without its `delivery`: what a central database keeps, where "pending"
    /// would never be true.
    public var jsonWithoutDelivery: JSONValue {
        .object(JSONObject(members: Array(members.dropLast()) + otherMembers.members))
    }

    private var members: [(key: String, value: JSONValue)] {
        let delivery: JSONValue = switch delivery {
        case .pending: ["state": "pending"]
        case .delivered(let at): ["state": "delivered", "deliveredAt": .string(at)]
        }
        return [(key: "id", value: .string(id)), (key: "flowId", value: .string(flowID)), (key: "submittedAt", value: .string(submittedAt)),
                (key: "values", value: .object(values)), (key: "delivery", value: delivery)]
    }

    init(_ report: WireObject) throws(FlowViewError) {
        let id = try report.string("id"), flowID = try report.string("flowId"), submittedAt = try report.string("submittedAt")
        let values = try report.object("values").object
        let delivery = try report.object("delivery")
        let state: Delivery = switch try delivery.string("state") {
        case "pending": .pending
        case "delivered": .delivered(at: try delivery.string("deliveredAt"))
        case let other: throw FlowViewError(at: delivery.path("state"), "must be \"pending\" or \"delivered\", not \"\(other)\"")
        }
        self.init(id: id, flowID: flowID, submittedAt: submittedAt, values: values, delivery: state,
                  otherMembers: JSONObject(members: report.object.members.filter { !Self.knownMembers.contains($0.key) }))
    }
}
