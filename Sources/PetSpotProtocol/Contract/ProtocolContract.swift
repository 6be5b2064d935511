import PetSpotJSON

/// The protocol, method by method: what `rpc.discover` answers, what `petspot call --list`
/// shows and what docs/PROTOCOL.md is checked against. Every method of `RPCMethod` has exactly
/// one entry (a test holds them to it).
public enum ProtocolContract {
    /// The OpenRPC version the document follows.
    public static let openRPCVersion = "1.3.2"

    static let flowID = MethodContract.Param("flowId", .string(), required: true, "The id flow.start gave")
    static let locale = MethodContract.Param("locale", .oneOf(["en", "pl"]), "The language of the screens; en when left out")
    static let flowAnswer = JSONSchema.object(["flow": .ref("Flow")])
    static let flowErrors: [RPCErrorKind] = [.flowNotFound, .wrongStep]
    static let exampleFlow: JSONValue = ["id": "f-1", "state": "cancelled"]

    public static let methods: [MethodContract] = [
        MethodContract(.rpcDiscover, "This document: the methods this caller may use, their params, results and errors",
                       result: "openrpcDocument", .object(["openrpc": .string(), "info": .any("OpenRPC info"), "methods": .array(.any("OpenRPC method")),
                                                           "components": .any("OpenRPC components"), "x-notifications": .array(.any("A notification"))]),
                       example: ("the document", [:], ["openrpc": .string(openRPCVersion), "info": ["title": "petspotd", "version": "…"], "methods": [], "components": [:], "x-notifications": []])),
        MethodContract(.daemonInfo, "The daemon's name, version, protocol revision, location providers and limits",
                       result: "info", .object([
                           "name": .constant("petspotd"),
                           "version": .string(),
                           "protocolVersion": .integer(1...Int(Int32.max)),
                           "locationProviders": .array(.string()),
                           "limits": .map(of: .integer(0...Int.max), "Each limit of docs/OPERATIONS.md by its name under limits"),
                       ]),
                       example: ("the daemon", [:], ["name": "petspotd", "version": "0.1.0", "protocolVersion": .int(petspotProtocolVersion),
                                                     "locationProviders": ["gpsd"], "limits": ["maxLineBytes": 16_777_216]])),
        MethodContract(.speciesList, "The species a report may name, in the locale's words", params: [locale],
                       result: "species", .object(["species": .array(.ref("Option"))]),
                       example: ("in Polish", ["locale": "pl"], ["species": [["id": "dog", "name": "Pies"]]])),
        MethodContract(.flowStart, "Starts a report on step chip", params: [locale],
                       result: "flow", flowAnswer, errors: [.limitExceeded],
                       example: ("a new report", ["locale": "en"], ["flow": exampleFlow])),
        MethodContract(.flowGet, "The flow as it is: its screen and values", params: [flowID],
                       result: "flow", flowAnswer, errors: [.flowNotFound],
                       example: ("again", ["flowId": "f-1"], ["flow": exampleFlow])),
        MethodContract(.flowUpdate, "Sets fields of the current step; null or a blank string clears one, a refused value empties it and says why",
                       params: [flowID, .init("values", .map(of: .any("A field's value: a string, a number, a photo {data, filename?} or null")),
                                              required: true, "Field name → value, for fields of the current step")],
                       result: "flow", flowAnswer, errors: flowErrors + [.limitExceeded],
                       example: ("a chip number", ["flowId": "f-1", "values": ["chipNumber": "616 09 1234 5678 9"]], ["flow": exampleFlow])),
        MethodContract(.flowContinue, "Goes to the next step if the current one is complete; accepted false leaves it as it was, with field errors",
                       params: [flowID], result: "continued", .object(["flow": .ref("Flow"), "accepted": .boolean]), errors: flowErrors,
                       example: ("to the photo", ["flowId": "f-1"], ["flow": exampleFlow, "accepted": true])),
        MethodContract(.flowBack, "Goes to the previous step; from chip the flow is cancelled", params: [flowID],
                       result: "flow", flowAnswer, errors: flowErrors,
                       example: ("back", ["flowId": "f-1"], ["flow": exampleFlow])),
        MethodContract(.flowCancel, "Cancels the flow; its id is forgotten", params: [flowID],
                       result: "flow", flowAnswer, errors: flowErrors,
                       example: ("cancelled", ["flowId": "f-1"], ["flow": exampleFlow])),
        MethodContract(.flowRequestLocation, "Fills the coordinates from the location service (step description only)",
                       params: [flowID, .init("timeoutMs", .integer(1...Int(Int32.max), "At most the daemon's location.timeoutMs"), "How long to wait for a fix")],
                       result: "located", .object(["flow": .ref("Flow"), "location": .ref("Location")]), errors: flowErrors,
                       example: ("the GPS position", ["flowId": "f-1"], ["flow": exampleFlow, "location": ["status": "timeout", "message": "No position came in time."]])),
        MethodContract(.flowDismissAlert, "Closes the alert on the screen", params: [flowID],
                       result: "flow", flowAnswer, errors: flowErrors,
                       example: ("the alert closed", ["flowId": "f-1"], ["flow": exampleFlow])),
        MethodContract(.flowSubmit, "Stores the report (step summary only); again, the same report", params: [flowID],
                       result: "submitted", .object(["flow": .ref("Flow"), "report": .ref("Report")]),
                       errors: flowErrors + [.storageFailed, .limitExceeded],
                       example: ("filed", ["flowId": "f-1"], ["flow": ["id": "f-1", "state": "completed", "reportId": "r-1"],
                                                              "report": ["id": "r-1", "flowId": "f-1", "submittedAt": "2026-11-26T12:00:00Z",
                                                                         "values": [:], "delivery": ["state": "pending"]]])),
        MethodContract(.locationCurrent, "Where the box is now, for this caller",
                       params: [.init("timeoutMs", .integer(1...Int(Int32.max), "At most the daemon's location.timeoutMs"), "How long to wait for a fix"),
                                .init("maxAgeMs", .integer(0...3_600_000), "The oldest fix to take; never more than location.maxAgeMs"),
                                locale],
                       result: "location", .object(["location": .ref("Location")]),
                       example: ("a fix", [:], ["location": ["status": "ok", "fix": ["latitude": .number(JSONNumber(validatedLiteral: "52.22968")), "longitude": .number(JSONNumber(validatedLiteral: "21.01223")), "source": "gpsd",
                                                                                     "time": "2026-11-26T12:00:00Z"], "message": "Position found."]])),
        MethodContract(.locationStatus, "The location providers, their state and this caller's permission",
                       result: "status", .object([
                           "enabled": .boolean,
                           "permission": .oneOf(["allowed", "denied", "servicesDisabled"]),
                           "providers": .array(.object([
                               "name": .string(),
                               "state": .oneOf(["ready", "connected", "disconnected", "denied", "disabled", "noFix"]),
                               "lastFixAgeMs": .nullable(.integer(0...Int.max)),
                               "lastError": .nullable(.string()),
                               "detail": .nullable(.string()),
                           ])),
                           "timeoutMs": .integer(0...Int.max),
                           "maxAgeMs": .integer(0...Int.max),
                       ]),
                       example: ("gpsd", [:], ["enabled": true, "permission": "allowed", "providers": [["name": "gpsd", "state": "connected", "lastFixAgeMs": 120,
                                                                                                          "lastError": nil, "detail": "127.0.0.1:2947"]],
                                              "timeoutMs": 10000, "maxAgeMs": 2000])),
        MethodContract(.reportsList, "The caller's reports, newest first, a page at a time",
                       params: [.init("limit", .integer(1...10_000, "At most the daemon's limits.maxReportsPage"), "Reports on this page; 20 when left out"),
                                .init("cursor", .string(), "The cursor of the page before")],
                       result: "page", .object(["reports": .array(.ref("Report")), "cursor": .nullable(.string("null at the end"))]),
                       errors: [.storageFailed],
                       example: ("the first page", ["limit": 1], ["reports": [], "cursor": nil])),
        MethodContract(.reportsGet, "One of the caller's reports", params: [.init("reportId", .string(), required: true, "The report's id")],
                       result: "report", .object(["report": .ref("Report")]), errors: [.reportNotFound, .storageFailed],
                       example: ("a report", ["reportId": "r-1"], ["report": ["id": "r-1", "flowId": "f-1", "submittedAt": "2026-11-26T12:00:00Z",
                                                                             "values": [:], "delivery": ["state": "pending"]]])),
        MethodContract(.relayClaim, "Reports not yet delivered, oldest first, with their photos, held for this relay a while (relay group only)",
                       params: [.init("limit", .integer(1...10_000, "More than relay.maxClaimReports gets that many"), "Reports at most")],
                       result: "claim", .object([
                           "reports": .array(.object([
                               "report": .ref("Report"),
                               "ownerUid": .integer(0...4_294_967_295),
                               "photo": .nullable(.object(["mediaType": .string(), "sha256": .string(), "data": .string("base64")])),
                           ])),
                           "claimTimeoutSeconds": .integer(1...Int.max),
                           "pending": .integer(0...Int.max),
                       ]),
                       errors: [.storageFailed],
                       example: ("nothing pending", ["limit": 100], ["reports": [], "claimTimeoutSeconds": 60, "pending": 0])),
        MethodContract(.relayAck, "Marks claimed reports delivered once the central database has them (relay group only)",
                       params: [.init("reportIds", .array(.string(), count: 1...10_000), required: true, "The reports stored centrally")],
                       result: "acknowledged", .object(["delivered": .integer(0...10_000), "alreadyDelivered": .integer(0...10_000)]),
                       errors: [.reportNotFound, .storageFailed],
                       example: ("one report", ["reportIds": ["r-1"]], ["delivered": 1, "alreadyDelivered": 0])),
        MethodContract(.relayStatus, "Pending, claimed and delivered counts (relay group only)",
                       result: "status", .object(["pending": .integer(0...Int.max), "claimed": .integer(0...Int.max),
                                                  "delivered": .integer(0...Int.max), "lastDeliveredAt": .nullable(.string())]),
                       errors: [.storageFailed],
                       example: ("all delivered", [:], ["pending": 0, "claimed": 0, "delivered": 12, "lastDeliveredAt": "2026-11-26T12:00:00Z"])),
    ]

    /// The entry of `method`.
    public static func contract(of method: RPCMethod) -> MethodContract {
        methods.first { $0.method == method }!
    }

    /// The OpenRPC document for a caller: relay methods only for members of the relay group.
    public static func openRPC(version: String, relay: Bool) -> JSONValue {
        let offered = methods.filter { relay || !$0.method.isRelay }
        var schemas = JSONObject()
        for (name, schema) in ProtocolSchemas.all { schemas[name] = schema.json }
        var errors = JSONObject()
        for kind in RPCErrorKind.allCases {
            errors[kind.rawValue] = ["code": .int(kind.code), "message": .string(kind.summary), "data": ["kind": .string(kind.rawValue)]]
        }
        return [
            "openrpc": .string(openRPCVersion),
            "info": [
                "title": "petspotd",
                "version": .string(version),
                "description": .string("Missing-pet reports over a Unix socket: newline-delimited JSON-RPC 2.0. protocolVersion \(petspotProtocolVersion). Every error carries data.kind; invalidParams and the not-found errors name data.parameter."),
            ],
            "methods": .array(offered.map(\.openRPC)),
            "components": ["schemas": .object(schemas), "errors": .object(errors)],
            // OpenRPC 1.x has no object for notifications (server → client, no id): each will be
            // listed here as a method object without result, by the method name it is sent with.
            "x-notifications": [],
        ]
    }
}
