import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

/// The examples of the contract tell one story, a report made from start to end: each read
/// with its method's own types is what that call really answers at its point of the story.
/// (OpenRPCExamplesTests plays the story on a live daemon and holds each answer to its example
/// word for word; Tests/OpenRPC/check-openrpc.py holds each to its schema.)
@Suite("The contract's examples")
struct ProtocolExamplesTests {
    static func example<M: RPCMethodSpec>(_ method: M.Type) throws -> M.Result {
        try M.Result(json: M.contract.example.result)
    }

    static func params<M: RPCMethodSpec>(_ method: M.Type) throws -> M.Params {
        var reader = RPCParams(M.contract.example.params)
        return try M.Params(&reader, bounds: .widest)
    }

    static func example<N: RPCNotificationSpec>(_ notification: N.Type) throws -> N.Params {
        try N.Params(json: .object(N.contract.example))
    }

    /// Every field of a flow, as the document's FlowValues requires them.
    static let fieldNames: [String] = ProtocolContract.openRPC(version: "test", relay: true)["components"]?["schemas"]?["FlowValues"]?["required"]?
        .arrayValue?.compactMap(\.stringValue) ?? []

    static let descriptionFields = ["disappearanceDate", "species", "race", "gender", "age", "latitude", "longitude", "additionalDescription"]

    /// An active flow's step and the fields its screen shows, by the method whose example it is.
    struct ActiveCase: Sendable, CustomStringConvertible {
        let flow: @Sendable () throws -> FlowView
        let method: String
        let step: String
        let fields: [String]
        var description: String { method }
    }

    static let activeCases: [ActiveCase] = [
        .init(flow: { try example(FlowStart.self).flow }, method: FlowStart.name, step: "chip", fields: ["chipNumber"]),
        .init(flow: { try example(FlowUpdate.self).flow }, method: FlowUpdate.name, step: "chip", fields: ["chipNumber"]),
        .init(flow: { try example(FlowContinue.self).flow }, method: FlowContinue.name, step: "photo", fields: ["photo"]),
        .init(flow: { try example(FlowBack.self).flow }, method: FlowBack.name, step: "chip", fields: ["chipNumber"]),
        .init(flow: { try example(FlowRequestLocation.self).flow }, method: FlowRequestLocation.name, step: "description", fields: descriptionFields),
        .init(flow: { try example(FlowDismissAlert.self).flow }, method: FlowDismissAlert.name, step: "description", fields: descriptionFields),
        .init(flow: { try example(FlowWatch.self).flow }, method: FlowWatch.name, step: "contact", fields: ["contactPhone", "contactEmail"]),
        .init(flow: { try example(FlowGet.self).flow }, method: FlowGet.name, step: "summary", fields: fieldNames),
    ]

    @Test("an active flow's example is whole: in English, on its step, with that step's screen and every field's value", arguments: activeCases)
    func activeFlows(_ active: ActiveCase) throws {
        let flow = try active.flow()
        let state = try #require(flow.active, "\(active.method): \(flow.state)")
        #expect(state.step == active.step)
        #expect(state.locale == "en")
        #expect(state.screen.fields.map(\.name) == active.fields)
        #expect(state.screen.toast == nil && state.screen.alert == nil)
        #expect(state.screen.fields.allSatisfy { $0.error == nil })
        #expect(state.screen.actions.contains(active.step == "summary" ? "submit" : "continue"))
        #expect(state.values.keys == Self.fieldNames)
        #expect(try flow.id == Self.params(FlowGet.self).flowId, "one flow throughout")
    }

    @Test("flow.start answers a new flow with nothing filled in; flow.update the chip number it was sent")
    func startAndUpdate() throws {
        let started = try #require(try Self.example(FlowStart.self).flow.active)
        #expect(started.values.members.allSatisfy { $0.value == .null })
        #expect(started.screen.fields.first?.value == .null)
        let sent = try Self.params(FlowUpdate.self).values["chipNumber"]?.stringValue
        let updated = try #require(try Self.example(FlowUpdate.self).flow.active)
        #expect(sent?.filter(\.isNumber) == updated.values["chipNumber"]?.stringValue)
        #expect(updated.values.members.filter { $0.value != .null }.map(\.key) == ["chipNumber"])
    }

    @Test("flow.continue is accepted; flow.requestLocation fills in the fix it answers; the dismissed alert leaves the coordinates empty")
    func continueAndLocate() throws {
        #expect(try Self.example(FlowContinue.self).accepted)
        let located = try Self.example(FlowRequestLocation.self)
        let fix = try #require(located.location.fix)
        #expect(located.location.status == .ok)
        #expect(located.flow.active?.values["latitude"] == fix.latitude.json)
        #expect(located.flow.active?.values["longitude"] == fix.longitude.json)
        let dismissed = try #require(try Self.example(FlowDismissAlert.self).flow.active)
        #expect(dismissed.values["latitude"] == .null && dismissed.values["longitude"] == .null)
    }

    @Test("flow.submit answers the completed flow and its whole report; every other report of the examples is that one")
    func submitted() throws {
        let submitted = try Self.example(FlowSubmit.self)
        let flowID = try Self.params(FlowSubmit.self).flowId
        #expect(submitted.flow == FlowView(id: flowID, state: .completed(reportID: submitted.report.id)))
        let report = submitted.report
        #expect(report.flowID == flowID)
        #expect(report.values.keys == Self.fieldNames)
        #expect(report.values.members.allSatisfy { $0.value != .null }, "a report with every field filled in")
        #expect(report.delivery == .pending)
        #expect(try report.values == Self.example(FlowGet.self).flow.active?.values, "the summary's values")

        #expect(try Self.example(ReportsList.self).reports == [report])
        #expect(try Self.example(RelayClaim.self).reports.map(\.report) == [report])
        #expect(try Self.example(ReportsChanged.self).report == report)
        #expect(try Self.params(ReportsGet.self).reportId == report.id)
        #expect(try Self.params(RelayAck.self).reports == [.init(reportId: report.id, version: report.version)])
        let delivered = try Self.example(ReportsGet.self).report
        #expect(delivered.id == report.id && delivered.values == report.values)
        guard case .delivered(let at) = delivered.delivery else {
            Issue.record("reports.get's example is not delivered: \(delivered.delivery)")
            return
        }
        #expect(try Self.example(RelayStatus.self).lastDeliveredAt == at)
        #expect(try Self.example(FlowChanged.self).flow == submitted.flow, "the watch's last word")
    }

    @Test("flow.cancel answers its flow cancelled; it is another flow than the report's")
    func cancelled() throws {
        let cancelled = try Self.example(FlowCancel.self).flow
        #expect(try cancelled == FlowView(id: Self.params(FlowCancel.self).flowId, state: .cancelled))
        #expect(try cancelled.id != Self.params(FlowGet.self).flowId)
    }

    @Test("daemon.info from a daemon of revision 4, which names no box, reads with no box; a box of null too")
    func infoWithoutBox() throws {
        guard case .object(var members) = DaemonInfo.contract.example.result else { Issue.record("daemon.info's example is not an object"); return }
        #expect(try DaemonInfo.Result(json: .object(members)).box == "kiosk-7")
        members["box"] = .null
        #expect(try DaemonInfo.Result(json: .object(members)).box == nil)
        members["box"] = nil
        members["protocolVersion"] = 4
        #expect(try DaemonInfo.Result(json: .object(members)).box == nil)
    }

    @Test("the location examples: a fix from gpsd, then, to the watch, the fix lost")
    func locations() throws {
        let current = try Self.example(LocationCurrent.self).location
        #expect(current.status == .ok && current.fix?.source == "gpsd")
        #expect(try Self.example(LocationWatch.self).location == current)
        #expect(try Self.example(LocationStatus.self).providers.map(\.name) == ["gpsd"])
        #expect(try Self.example(DaemonInfo.self).locationProviders == ["gpsd"])
        let lost = try Self.example(LocationChanged.self).location
        #expect(lost.status != .ok && lost.fix == nil)
    }

    @Test("every notification's example params read with its type and write back byte for byte, naming only its params",
          arguments: ProtocolNotifications.all.map(NotificationCase.init))
    func notifications(_ notification: NotificationCase) throws {
        try notification.check()
    }
}

/// One notification type, opened so that a test can call its generic reader.
struct NotificationCase: Sendable, CustomStringConvertible {
    let spec: any RPCNotificationSpec.Type
    var description: String { spec.notification.rawValue }

    init(_ spec: any RPCNotificationSpec.Type) {
        self.spec = spec
    }

    func check() throws {
        try Self.check(spec)
    }

    private static func check<N: RPCNotificationSpec>(_ spec: N.Type) throws {
        let example = N.contract.example
        let params = try N.Params(json: .object(example))
        #expect(JSONWriter.string(.object(params.json)) == JSONWriter.string(.object(example)))
        #expect(Set(example.keys).isSubset(of: Set(N.contract.params.map(\.name))))
        #expect(Set(N.contract.params.filter(\.required).map(\.name)).isSubset(of: Set(example.keys)))
    }
}
