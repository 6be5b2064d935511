import PetSpotJSON

// The relay methods' params and results, written by the daemon and read by petspot-relay from
// these types alone, so that the two cannot drift apart. Member order is the wire's.

/// `relay.claim`: reports not yet delivered, oldest first, with their photos.
public enum RelayClaim {
    public static let method = RPCMethod.relayClaim

    public struct Params: Sendable, Equatable {
        /// Reports at most; the daemon hands out no more than `relay.maxClaimReports`.
        public var limit: Int?

        public init(limit: Int? = nil) {
            self.limit = limit
        }

        public var json: JSONObject {
            limit.map { ["limit": .int($0)] } ?? [:]
        }
    }

    public struct Photo: Sendable, Equatable {
        public let mediaType: String
        /// Lower-case hex SHA-256 of the bytes.
        public let sha256: String
        /// The bytes in base64, as they travel.
        public let base64: String

        public init(mediaType: String, sha256: String, base64: String) {
            self.mediaType = mediaType
            self.sha256 = sha256
            self.base64 = base64
        }
    }

    public struct Item: Sendable, Equatable {
        /// The report as `reports.get` gives it.
        public let report: JSONObject
        public let ownerUID: Int
        public let photo: Photo?

        public init(report: JSONObject, ownerUID: Int, photo: Photo?) {
            self.report = report
            self.ownerUID = ownerUID
            self.photo = photo
        }

        public var json: JSONValue {
            [
                "report": .object(report),
                "ownerUid": .int(ownerUID),
                "photo": photo.map { ["mediaType": .string($0.mediaType), "sha256": .string($0.sha256), "data": .string($0.base64)] } ?? .null,
            ]
        }

        init(_ wire: WireObject) throws(FlowViewError) {
            let photo = try wire.optionalObject("photo")
            self.init(report: try wire.object("report").object, ownerUID: try wire.int("ownerUid"),
                      photo: try photo.map { (p) throws(FlowViewError) in
                          Photo(mediaType: try p.string("mediaType"), sha256: try p.string("sha256"), base64: try p.string("data"))
                      })
        }
    }

    public struct Result: Sendable, Equatable {
        public let reports: [Item]
        /// How long the claim holds the reports for this relay.
        public let claimTimeoutSeconds: Int
        /// Undelivered reports left in the daemon after this claim, claimed or not.
        public let pending: Int

        public init(reports: [Item], claimTimeoutSeconds: Int, pending: Int) {
            self.reports = reports
            self.claimTimeoutSeconds = claimTimeoutSeconds
            self.pending = pending
        }

        public var json: JSONValue {
            ["reports": .array(reports.map(\.json)), "claimTimeoutSeconds": .int(claimTimeoutSeconds), "pending": .int(pending)]
        }

        /// Reads the result; an error names the member at fault ("result.reports[1].photo.data …").
        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(reports: try wire.objects("reports", Item.init), claimTimeoutSeconds: try wire.int("claimTimeoutSeconds"),
                      pending: try wire.int("pending"))
        }
    }
}

/// `relay.ack`: claimed reports the central database has committed.
public enum RelayAck {
    public static let method = RPCMethod.relayAck

    public struct Params: Sendable, Equatable {
        public var reportIds: [String]

        public init(reportIds: [String]) {
            self.reportIds = reportIds
        }

        public var json: JSONObject {
            ["reportIds": .array(reportIds.map(JSONValue.string))]
        }
    }

    public struct Result: Sendable, Equatable {
        public let delivered: Int
        public let alreadyDelivered: Int

        public init(delivered: Int, alreadyDelivered: Int) {
            self.delivered = delivered
            self.alreadyDelivered = alreadyDelivered
        }

        public var json: JSONValue {
            ["delivered": .int(delivered), "alreadyDelivered": .int(alreadyDelivered)]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(delivered: try wire.int("delivered"), alreadyDelivered: try wire.int("alreadyDelivered"))
        }
    }
}

/// `relay.status`: the daemon's delivery counts.
public enum RelayStatus {
    public static let method = RPCMethod.relayStatus

    public struct Result: Sendable, Equatable {
        public let pending: Int
        /// Under a claim now, not yet acknowledged.
        public let claimed: Int
        public let delivered: Int
        /// ISO 8601 UTC; nil before the first delivery.
        public let lastDeliveredAt: String?

        public init(pending: Int, claimed: Int, delivered: Int, lastDeliveredAt: String?) {
            self.pending = pending
            self.claimed = claimed
            self.delivered = delivered
            self.lastDeliveredAt = lastDeliveredAt
        }

        public var json: JSONValue {
            ["pending": .int(pending), "claimed": .int(claimed), "delivered": .int(delivered), "lastDeliveredAt": .optional(lastDeliveredAt)]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(pending: try wire.int("pending"), claimed: try wire.int("claimed"), delivered: try wire.int("delivered"),
                      lastDeliveredAt: try wire.optionalString("lastDeliveredAt"))
        }
    }
}
