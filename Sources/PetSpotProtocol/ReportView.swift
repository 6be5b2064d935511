import PetSpotJSON

/// A stored report as `reports.get`, `reports.list`, `flow.submit` and `relay.claim` show it.
public struct ReportView: Sendable, Equatable {
    /// Whether a relay has taken the report to the central database.
    public enum Delivery: Sendable, Equatable {
        case pending
        /// ISO 8601 UTC.
        case delivered(at: String)
    }

    /// Where a report stands (protocol revision 4).
    public enum Status: String, Sendable, CaseIterable {
        case missing, found, withdrawn, expired
    }

    public let id: String
    public let flowID: String
    /// ISO 8601 UTC.
    public let submittedAt: String
    public let status: Status
    /// 1 at submit, +1 at every change.
    public let version: Int
    /// When it last changed, ISO 8601 UTC.
    public let updatedAt: String
    /// When a `missing` report becomes `expired` unless renewed; nil in any other status.
    public let expiresAt: String?
    /// Its personal data is gone: of `values` only `species` and `disappearanceDate` remain.
    public let erased: Bool
    /// Every field's stored value by name, as the flow's `values`.
    public let values: JSONObject
    public let delivery: Delivery
    /// Members a newer daemon added that this version does not know: kept and written back
    /// after the others, so that a client passing a report on (`--json`, the relay's central
    /// copy) loses nothing.
    public let otherMembers: JSONObject

    public init(id: String, flowID: String, submittedAt: String, status: Status, version: Int, updatedAt: String, expiresAt: String?,
                erased: Bool, values: JSONObject, delivery: Delivery, otherMembers: JSONObject = [:])
    {
        self.id = id
        self.flowID = flowID
        self.submittedAt = submittedAt
        self.status = status
        self.version = version
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.erased = erased
        self.values = values
        self.delivery = delivery
        self.otherMembers = otherMembers
    }

    static let knownMembers: Set<String> = ["id", "flowId", "submittedAt", "status", "version", "updatedAt", "expiresAt", "erased",
                                            "values", "delivery"]

    /// `{id, flowId, submittedAt, status, version, updatedAt, expiresAt, erased, values, delivery}`.
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
                (key: "status", value: .string(status.rawValue)), (key: "version", value: .int(version)),
                (key: "updatedAt", value: .string(updatedAt)), (key: "expiresAt", value: .optional(expiresAt)),
                (key: "erased", value: .bool(erased)), (key: "values", value: .object(values)), (key: "delivery", value: delivery)]
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
        self.init(id: id, flowID: flowID, submittedAt: submittedAt, status: try report.choice("status", as: Status.self),
                  version: try report.int("version"), updatedAt: try report.string("updatedAt"),
                  expiresAt: try report.optionalString("expiresAt"), erased: try report.bool("erased"), values: values, delivery: state,
                  otherMembers: JSONObject(members: report.object.members.filter { !Self.knownMembers.contains($0.key) }))
    }
}
