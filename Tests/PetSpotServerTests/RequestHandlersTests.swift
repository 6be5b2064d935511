import Foundation
import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol
import PetSpotStore
@testable import PetSpotServer
import Testing

/// Each area's handlers in process, through the daemon's one request path (no socket): typed
/// results, the domain's errors as the client sees them, and which answers are ready at once.
/// The same methods over a real socket are in PetSpotIntegrationTests.
@Suite("Request handlers by area, in process")
struct RequestHandlersTests {
    let user = Peer(pid: 1, uid: 1000, gid: 1000)
    let otherUser = Peer(pid: 2, uid: 1001, gid: 1001)
    let relay = Peer(pid: 3, uid: 990, gid: 990, groups: [InProcessDaemon.relayGroup])

    func result(_ response: RPCResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        guard case .success(let value) = response.outcome else {
            Issue.record("expected a result, got \(response)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return value
    }

    func error(_ response: RPCResponse, sourceLocation: SourceLocation = #_sourceLocation) throws -> RPCError {
        guard case .failure(let error) = response.outcome else {
            Issue.record("expected an error, got \(response)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return error
    }

    @Test("the route table has one handler for each method of the protocol's list, and none for any other")
    func oneRoutePerMethod() async throws {
        let daemon = try await InProcessDaemon()
        let names = ProtocolMethods.all.map { $0.name }
        #expect(daemon.routes.names.sorted() == names.sorted())
        for spec in ProtocolMethods.all {
            #expect(daemon.routes.route(spec.name, relay: true) != nil)
            #expect((daemon.routes.route(spec.name, relay: false) != nil) == (spec.visibility == .everyone), "\(spec.name)")
        }
        // The "no method" error lists what this caller may call, from the same list.
        let unknown = try error(await daemon.callNamed("flow.nope", as: user))
        #expect(unknown.kind == .methodNotFound)
        #expect(unknown.message.hasSuffix("the methods are " + ProtocolMethods.offered(toRelay: false).map { $0.name }.joined(separator: ", ")))
        try await daemon.close()
    }

    /// A report filed through a flow walked with valid values; its id.
    func submitted(_ daemon: InProcessDaemon) async throws -> String {
        let id = try await prepared(daemon)
        return try #require(try result(await daemon.call(FlowSubmit.self, ["flowId": .string(id)]))["report"]?["id"]?.stringValue)
    }

    /// A flow walked to its summary with valid values; its id.
    func prepared(_ daemon: InProcessDaemon) async throws -> String {
        let id = try #require(try result(await daemon.call(FlowStart.self))["flow"]?["id"]?.stringValue)
        let flowID = JSONValue.string(id)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 120)
        let steps: [JSONObject] = [
            ["chipNumber": "616 09 1234 5678 9"],
            ["photo": ["data": .string(Data(png).base64EncodedString())]],
            ["species": "dog", "race": "Beagle", "gender": "male"],
            ["contactEmail": "owner@example.org"],
        ]
        for values in steps {
            _ = try result(await daemon.call(FlowUpdate.self, ["flowId": flowID, "values": .object(values)]))
            #expect(try result(await daemon.call(FlowContinue.self, ["flowId": flowID]))["accepted"] == true, "\(values)")
        }
        return id
    }

    // MARK: daemon

    @Test("rpc.discover gives the contract's document, with the relay methods only to a relay; daemon.info its protocol version")
    func daemonArea() async throws {
        let daemon = try await InProcessDaemon()
        #expect(try result(await daemon.call(RPCDiscover.self, as: user)) == ProtocolContract.openRPC(version: petspotdVersion, relay: false))
        #expect(try result(await daemon.call(RPCDiscover.self, as: relay)) == ProtocolContract.openRPC(version: petspotdVersion, relay: true))
        #expect(try result(await daemon.call(DaemonInfo.self))["protocolVersion"] == .int(petspotProtocolVersion))
        #expect(try result(await daemon.call(SpeciesList.self, ["locale": "pl"]))["species"]?.arrayValue?.first?["name"] == "Pies")
        let extra = try error(await daemon.call(DaemonInfo.self, ["verbose": true]))
        #expect(extra.kind == .invalidParams && extra.parameter == "verbose")
        // Memory only: ready at once, written on the event loop.
        _ = try daemon.answer(#"{"jsonrpc":"2.0","id":1,"method":"daemon.info"}"#)
        _ = try daemon.answer(#"{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}"#)
        try await daemon.close()
    }

    // MARK: flow

    @Test("flow methods: the flow's own refusals, another user's flow and the registry's limit, each as the client sees it")
    func flowArea() async throws {
        let daemon = try await InProcessDaemon()
        let id = try #require(try result(await daemon.call(FlowStart.self))["flow"]?["id"]?.stringValue)
        let wrongField = try error(await daemon.call(FlowUpdate.self, ["flowId": .string(id), "values": ["contactEmail": "a@b.c"]]))
        #expect(wrongField.kind == .wrongStep || wrongField.kind == .invalidParams, "\(wrongField)")
        let early = try error(await daemon.call(FlowSubmit.self, ["flowId": .string(id)]))
        #expect(early.kind == .wrongStep)
        let locationTooSoon = try error(await daemon.call(FlowRequestLocation.self, ["flowId": .string(id)]))
        #expect(locationTooSoon.kind == .wrongStep)
        let notYours = try error(await daemon.call(FlowGet.self, ["flowId": .string(id)], as: otherUser))
        #expect(notYours.kind == .flowNotFound && notYours.parameter == "flowId")
        // The registry holds 10 flows (InProcessDaemon): the 11th is refused, naming the limit.
        for _ in 1..<10 { _ = try result(await daemon.call(FlowStart.self)) }
        let limit = try error(await daemon.call(FlowStart.self))
        #expect(limit.kind == .limitExceeded && limit.details["limit"] == "limits.maxFlows" && limit.details["max"] == 10)
        #expect(try result(await daemon.call(FlowCancel.self, ["flowId": .string(id)]))["flow"]?["state"] == "cancelled")
        #expect(try error(await daemon.call(FlowGet.self, ["flowId": .string(id)])).kind == .flowNotFound)
        try await daemon.close()
    }

    // MARK: reports and relay

    @Test("a submitted report is listed, got, claimed by a relay and acknowledged; ids and cursors not given out are named")
    func reportsAndRelayAreas() async throws {
        let daemon = try await InProcessDaemon()
        let id = try await prepared(daemon)
        let submitted = try result(await daemon.call(FlowSubmit.self, ["flowId": .string(id)]))
        let reportID = try #require(submitted["report"]?["id"]?.stringValue)
        #expect(submitted["flow"]?["state"] == "completed")
        // Submitting again gives the same report.
        #expect(try result(await daemon.call(FlowSubmit.self, ["flowId": .string(id)]))["report"]?["id"] == .string(reportID))

        let list = try result(await daemon.call(ReportsList.self))
        #expect(list["reports"]?.arrayValue?.count == 1 && list["cursor"] == .null)
        #expect(try result(await daemon.call(ReportsGet.self, ["reportId": .string(reportID)]))["report"]?["id"] == .string(reportID))
        #expect(try result(await daemon.call(ReportsList.self, as: otherUser))["reports"] == [])
        let missing = try error(await daemon.call(ReportsGet.self, ["reportId": .string(reportID)], as: otherUser))
        #expect(missing.kind == .reportNotFound && missing.parameter == "reportId")
        let cursor = try error(await daemon.call(ReportsList.self, ["cursor": "not-a-cursor"]))
        #expect(cursor.kind == .invalidParams && cursor.parameter == "cursor")

        let hidden = try error(await daemon.call(RelayClaim.self, as: user))
        #expect(hidden.kind == .methodNotFound)
        let claim = try RelayClaim.Result(json: try result(await daemon.call(RelayClaim.self, as: relay)))
        #expect(claim.reports.map(\.report.id) == [reportID] && claim.reports.first?.photo?.mediaType == "image/png")
        let unknown = try error(await daemon.call(RelayAck.self, ["reportIds": ["no-such-report"]], as: relay))
        #expect(unknown.kind == .reportNotFound && unknown.parameter == "reportIds")
        let ack = try RelayAck.Result(json: try result(await daemon.call(RelayAck.self, ["reportIds": [.string(reportID)]], as: relay)))
        #expect(ack == RelayAck.Result(delivered: 1, alreadyDelivered: 0))
        let status = try RelayStatus.Result(json: try result(await daemon.call(RelayStatus.self, as: relay)))
        #expect(status.pending == 0 && status.claimed == 0 && status.delivered == 1)
        try await daemon.close()
    }

    @Test("relay.ack delivers the version its claim handed out: a report changed since stays pending until claimed again")
    func ackDeliversClaimedVersion() async throws {
        let daemon = try await InProcessDaemon()
        let id = try await prepared(daemon)
        let reportID = try #require(try result(await daemon.call(FlowSubmit.self, ["flowId": .string(id)]))["report"]?["id"]?.stringValue)
        let claim = try RelayClaim.Result(json: try result(await daemon.call(RelayClaim.self, as: relay)))
        #expect(claim.reports.map(\.report.id) == [reportID])
        // Changed while the relay holds version 1.
        _ = try await daemon.services.store.close(id: reportID, ownerUID: user.uid, outcome: .found,
                                                  now: daemon.services.clock.wallTime())
        let ack = try RelayAck.Result(json: try result(await daemon.call(RelayAck.self, ["reportIds": [.string(reportID)]], as: relay)))
        #expect(ack == RelayAck.Result(delivered: 1, alreadyDelivered: 0))
        #expect(try RelayStatus.Result(json: try result(await daemon.call(RelayStatus.self, as: relay))).pending == 1)
        #expect(try await daemon.services.store.get(id: reportID, ownerUID: user.uid)?.deliveredVersion == 1)

        let again = try RelayClaim.Result(json: try result(await daemon.call(RelayClaim.self, as: relay)))
        #expect(again.reports.map(\.report.id) == [reportID])
        _ = try result(await daemon.call(RelayAck.self, ["reportIds": [.string(reportID)]], as: relay))
        #expect(try RelayStatus.Result(json: try result(await daemon.call(RelayStatus.self, as: relay))).pending == 0)
        #expect(try await daemon.services.store.get(id: reportID, ownerUID: user.uid)?.deliveredVersion == 2)
        try await daemon.close()
    }

    // MARK: location

    @Test("location methods answer later, off the event loop; with no provider the location is unavailable")
    func locationArea() async throws {
        let daemon = try await InProcessDaemon()
        let line = #"{"jsonrpc":"2.0","id":1,"method":"location.status"}"#
        guard case .later = daemon.responder(user).respond(line: .init(string: line), draining: false) else {
            Issue.record("location.status answered on the event loop")
            return
        }
        #expect(try result(await daemon.call(LocationStatus.self))["providers"] == [])
        let current = try result(await daemon.call(LocationCurrent.self, ["timeoutMs": 1]))
        #expect(current["location"]?["status"]?.stringValue != "ok", "\(current)")
        try await daemon.close()
    }

    // MARK: domain errors

    @Test("each domain error maps to one client error, in one place", arguments: [
        (RPCError(FlowRegistryError.flowNotFound(id: "f")), RPCErrorKind.flowNotFound, "flowId" as String?, nil as String?),
        (RPCError(FlowRegistryError.limitReached(setting: "limits.maxFlows", max: 3, message: "m")), .limitExceeded, nil, "limits.maxFlows"),
        (RPCError(FlowRegistryError.flow(.wrongStep(message: "m"))), .wrongStep, nil, nil),
        (RPCError(FlowError.invalidParams(message: "m", parameter: "values.age")), .invalidParams, "values.age", nil),
        (RPCError(ReportStoreError(kind: .invalidCursor, path: nil, message: "m")), .invalidParams, "cursor", nil),
        (RPCError(ReportStoreError(kind: .reportNotFound, path: nil, message: "m")), .reportNotFound, "reportIds", nil),
        (RPCError(ReportStoreError(kind: .io, path: "/x", message: "m")), .storageFailed, nil, nil),
        (RPCError(ReportStoreError(kind: .damaged, path: "/x", message: "m")), .storageFailed, nil, nil),
    ])
    func domainErrors(error: RPCError, kind: RPCErrorKind, parameter: String?, limit: String?) {
        #expect(error.kind == kind)
        #expect(error.parameter == parameter)
        #expect(error.details["limit"]?.stringValue == limit)
    }
}
