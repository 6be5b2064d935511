import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

/// Watches over a real socket: what a change on one connection tells the watches of another,
/// in what order, and when a watch ends.
@Suite("Watches and their notifications", .serialized)
struct WatchTests {
    /// The next notification, within a deadline that fails the test rather than hangs it.
    func next(_ conn: PetSpotConnection, sourceLocation: SourceLocation = #_sourceLocation) throws -> DaemonNotification {
        try #require(try conn.nextNotification(timeout: .seconds(20)), "no notification within 20 s", sourceLocation: sourceLocation)
    }

    func subscription(_ result: JSONValue) throws -> String {
        try #require(result["subscription"]?.stringValue)
    }

    @Test("flow.watch on a second connection sees an update and the submit made on the first, and ends with it")
    func flowWatch() throws {
        let daemon = try DaemonProcess().start()
        let (first, second) = (try daemon.connect(), try daemon.connect())
        let flowID = try prepareReport(first)
        let watch = try second.result("flow.watch", ["flowId": .string(flowID)])
        let id = try subscription(watch)
        #expect(watch[path: "flow", "step"] == "summary")

        _ = try first.result("flow.back", ["flowId": .string(flowID)])
        let back = try #require(try next(second).reading(FlowChanged.self))
        #expect(back.subscription == id)
        guard case .active(let active) = back.flow.state else { Issue.record("\(back.flow)"); return }
        #expect(active.step == "contact")

        _ = try first.result("flow.continue", ["flowId": .string(flowID)])
        _ = try #require(try next(second).reading(FlowChanged.self))
        let submit = try first.result("flow.submit", ["flowId": .string(flowID)])
        let last = try #require(try next(second).reading(FlowChanged.self))
        #expect(last.flow.state == .completed(reportID: submit[path: "report", "id"]?.stringValue))
        #expect(last.isLast)
        // The watch ended with the flow.
        #expect(try second.failure("unwatch", ["subscription": .string(id)]).kind == .invalidParams)
    }

    @Test("a reload that takes the connection's user out of relay.group ends its relay.watch with watch.ended, and nothing of the relay reaches it after")
    func relayWatchEndsWithItsPermission() throws {
        // The test's own primary group: this connection is in it, by SO_PEERCRED.
        let group = try #require(getgrgid(getgid()).map { String(cString: $0.pointee.gr_name) })
        let daemon = try DaemonProcess(settings: ["relay": ["group": .string(group)]]).start()
        let (relay, user) = (try daemon.connect(), try daemon.connect())
        let id = try subscription(try relay.result("relay.watch"))

        try daemon.rewriteConfiguration(["relay": ["group": "petspot-no-such-group"]])
        daemon.signal(SIGHUP)
        let ended = try #require(try next(relay).reading(WatchEnded.self))
        #expect(ended.subscription == id)
        #expect(ended.reason == .permissionRevoked)
        #expect(ended.message.contains("relay.group"), "\(ended.message)")
        #expect(try relay.failure("relay.claim").kind == .methodNotFound)
        #expect(try relay.failure("unwatch", ["subscription": .string(id)]).kind == .invalidParams, "the watch outlived its end")

        // A report filed now is no news for the former relay; an answer comes before anything else.
        let flowID = try prepareReport(user)
        _ = try user.result("flow.submit", ["flowId": .string(flowID)])
        #expect(try relay.result("daemon.info")["name"] == "petspotd", "a notification came before the answer")
        #expect(try relay.notificationIfReady() == nil)
        #expect(logLines(daemon.log, containing: "ended relay watches whose user is no longer in relay.group").count == 1)
    }

    @Test("a reload that takes the connection's user out of board.staffGroup ends its staff watch of the animal list; watched again, the list is the public's")
    func staffWatchEndsWithItsPermission() throws {
        let group = try #require(getgrgid(getgid()).map { String(cString: $0.pointee.gr_name) })
        let daemon = try DaemonProcess(settings: ["board": ["staffGroup": .string(group)]]).start()
        let (staff, owner) = (try daemon.connect(), try daemon.connect())
        let id = try subscription(try staff.result("animals.watch"))
        _ = try owner.result("flow.submit", ["flowId": .string(try prepareReport(owner))])
        let seen = try #require(try next(staff).reading(AnimalsChanged.self))
        #expect(seen.subscription == id && seen.animal?.chipNumber != nil, "staff see the chip")

        try daemon.rewriteConfiguration(["board": ["staffGroup": "petspot-no-such-group"]])
        daemon.signal(SIGHUP)
        let ended = try #require(try next(staff).reading(WatchEnded.self))
        #expect(ended.subscription == id)
        #expect(ended.reason == .permissionRevoked)
        #expect(ended.message.contains("board.staffGroup"), "\(ended.message)")
        #expect(try staff.failure("unwatch", ["subscription": .string(id)]).kind == .invalidParams, "the watch outlived its end")

        let again = try subscription(try staff.result("animals.watch"))
        _ = try owner.result("flow.submit", ["flowId": .string(try prepareReport(owner))])
        let shown = try #require(try next(staff).reading(AnimalsChanged.self))
        #expect(shown.subscription == again && shown.change == .added && shown.animal?.chipNumber == nil, "watched again as the public")
        #expect(logLines(daemon.log, containing: "ended staff watches of the animal list").count == 1)
    }

    @Test("a notification caused by a request goes out after that request's answer, on the same connection")
    func orderOnOwnConnection() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        _ = try conn.result("flow.watch", ["flowId": flowID])
        // Two requests on one line-batch of the wire: answers and notifications in their order.
        try conn.send(line: JSONWriter.string(["jsonrpc": "2.0", "id": 7, "method": "flow.update",
                                               "params": ["flowId": flowID, "values": ["chipNumber": "616091234567890"]]]))
        let answer = try #require(try conn.readValue())
        #expect(answer["id"] == 7)
        let notification = try #require(try conn.readValue())
        #expect(notification["id"] == nil)
        #expect(notification["method"] == "flow.changed")
        #expect(notification[path: "params", "flow", "values", "chipNumber"] == answer[path: "result", "flow", "values", "chipNumber"])
        // Cancelling ends the watch with one last notification saying so.
        _ = try conn.result("flow.cancel", ["flowId": flowID])
        let cancelled = try #require(try next(conn).reading(FlowChanged.self))
        #expect(cancelled.flow.state == .cancelled)
    }

    @Test("a flow that expires ends its watch with state expired")
    func expiredFlow() throws {
        let daemon = try DaemonProcess(settings: ["limits": ["flowIdleTimeoutSeconds": 1]]).start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        _ = try conn.result("flow.watch", ["flowId": flowID])
        let expired = try #require(try next(conn).reading(FlowChanged.self))
        #expect(expired.flow == FlowView(id: flowID.stringValue!, state: .expired))
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run a client as another user"))
    func anotherUsersFlowIsNotFound() throws {
        let daemon = try DaemonProcess().start()
        let flowID = try daemon.connect().result("flow.start")[path: "flow", "id"]!.stringValue!
        let result = try runProgram("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                         Paths.petspot, "call", "--socket", daemon.socketPath, "flow.watch", #"{"flowId":"\#(flowID)"}"#])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("\"flowNotFound\""), "\(result.stdout)")
    }

    @Test("reports.watch sees a new report and its delivery; relay.watch sees it become claimable")
    func reportsAndRelay() throws {
        let daemon = try DaemonProcess.forRelay().start()
        let watcher = try daemon.connect()
        let relay = try daemon.connect()
        let reportsWatch = try subscription(try watcher.result("reports.watch"))
        let relayWatch = try relay.result("relay.watch")
        #expect(relayWatch["pending"] == 0)

        let (_, submit) = try fileReport(try daemon.connect())
        let reportID = try #require(submit[path: "report", "id"]?.stringValue)
        let filed = try #require(try next(watcher).reading(ReportsChanged.self))
        #expect(filed.subscription == reportsWatch)
        #expect(filed.change == .filed)
        #expect(filed.report?.id == reportID)
        #expect(filed.report?.delivery == .pending)
        let pending = try #require(try next(relay).reading(RelayPending.self))
        #expect(pending.pending == 1)

        let claim = try relay.result("relay.claim")
        #expect(claim[path: "reports"]?.arrayValue?.count == 1)
        _ = try relay.result("relay.ack", ["reportIds": [.string(reportID)]])
        let delivered = try #require(try next(watcher).reading(ReportsChanged.self))
        #expect(delivered.change == .delivered)
        #expect(delivered.report?.id == reportID)
        guard case .delivered? = delivered.report?.delivery else { Issue.record("\(String(describing: delivered.report))"); return }
    }

    @Test("unwatch ends one watch; unknown ids and too many watches are refused, naming what is wrong")
    func unwatchAndLimit() throws {
        let daemon = try DaemonProcess(settings: ["limits": ["maxSubscriptionsPerConnection": 2]]).start()
        let conn = try daemon.connect()
        let dropped = try subscription(try conn.result("reports.watch"))
        let kept = try subscription(try conn.result("reports.watch"))
        let refused = try conn.failure("reports.watch")
        #expect(refused.kind == .limitExceeded)
        #expect(refused.details["limit"] == "limits.maxSubscriptionsPerConnection")
        #expect(refused.details["max"] == 2)

        #expect(try conn.result("unwatch", ["subscription": .string(dropped)]) == ["unwatched": true])
        let unknown = try conn.failure("unwatch", ["subscription": .string(dropped)])
        #expect(unknown.kind == .invalidParams)
        #expect(unknown.parameter == "subscription")
        #expect(unknown.message.contains(dropped))

        // The report reaches the watch kept, and nothing reaches the one ended before it.
        _ = try fileReport(try daemon.connect())
        let filed = try #require(try next(conn).reading(ReportsChanged.self))
        #expect(filed.subscription == kept)
        // A place freed by unwatch can be taken again.
        _ = try subscription(try conn.result("reports.watch"))
    }

    @Test("location.watch follows the simulated position as requests move it; a reader that stops gets only the latest")
    func locationCoalesces() throws {
        let a: JSONValue = [.number(JSONNumber(validatedLiteral: "52.1")), .number(JSONNumber(validatedLiteral: "21.1"))]
        let b: JSONValue = [.number(JSONNumber(validatedLiteral: "52.2")), .number(JSONNumber(validatedLiteral: "21.2"))]
        // The smallest output allowance: past it, what waits for the watcher is coalesced.
        let daemon = try DaemonProcess(settings: ["location": ["providers": ["simulated"], "simulated": ["mode": "fix", "position": a, "track": [a, b]]],
                                                  "limits": ["maxPendingOutputBytes": 65_536]]).start()
        let watcher = try daemon.connect()
        let watch = try watcher.result("location.watch")
        #expect(watch[path: "location", "fix", "latitude"] == .number(JSONNumber(validatedLiteral: "52.10000")))

        let mover = try daemon.connect()
        // Each location.current moves the simulated box one point on: A, B, A, B, …; the
        // watcher reads none of it meanwhile.
        let moves = 6_000
        for _ in 0..<moves { _ = try mover.result("location.current") }
        // Then a reload puts the box at C: once C arrives, nothing older can follow it.
        let c: JSONValue = [.number(JSONNumber(validatedLiteral: "52.3")), .number(JSONNumber(validatedLiteral: "21.3"))]
        try daemon.rewriteConfiguration(["location": ["providers": ["simulated"], "simulated": ["mode": "fix", "position": c, "track": [c]]]])
        daemon.signal(SIGHUP)
        var latitudes: [String] = []
        while latitudes.last != "52.30000" {
            let changed = try #require(try next(watcher).reading(LocationChanged.self))
            latitudes.append(changed.location.fix.map { $0.latitude.text } ?? "none")
        }
        #expect(latitudes.allSatisfy { ["52.10000", "52.20000", "52.30000"].contains($0) }, "\(latitudes)")
        // Coalesced: far fewer notifications than the 5,999 changes, never one position twice in a row.
        #expect(latitudes.count < moves / 2, "\(latitudes.count) notifications for \(moves) moves")
        #expect(zip(latitudes, latitudes.dropFirst()).allSatisfy { $0 != $1 }, "\(latitudes)")
    }

    @Test("a real gpsd fed NMEA on a pty: a move, a lost fix and a regained fix each reach a watcher; unwatch ends the stream")
    func locationFromGpsd() throws {
        let gps = try GpsdFixture()
        let daemon = try DaemonProcess(settings: ["location": ["maxAgeMs": 5000]],
                                       arguments: ["--location-providers", "gpsd", "--gpsd", gps.endpoint]).start()
        let conn = try daemon.connect()
        let id = try subscription(try conn.result("location.watch"))
        let other = try subscription(try conn.result("location.watch"))

        func nextLocation(until accept: (LocationView) -> Bool) throws -> LocationView {
            while true {
                let changed = try #require(try next(conn).reading(LocationChanged.self))
                if changed.subscription == id, accept(changed.location) { return changed.location }
            }
        }
        let first = try nextLocation { $0.status == .ok }
        #expect(first.fix?.latitude.text == "52.22968")
        #expect(first.fix?.source == "gpsd")

        gps.feeder.set(.fix(latitude: -33.8688197, longitude: 151.2092955))
        let moved = try nextLocation { $0.fix?.latitude.text != "52.22968" }
        #expect(moved.fix?.latitude.text == "-33.86882")
        #expect(moved.fix?.longitude.text == "151.20930")

        gps.feeder.set(.noFix)
        let lost = try nextLocation { _ in true }
        #expect(lost.status == .timeout)

        gps.feeder.set(.fix(latitude: 52.2296756, longitude: 21.0122287))
        let regained = try nextLocation { _ in true }
        #expect(regained.status == .ok)
        #expect(regained.fix?.latitude.text == "52.22968")

        // Unwatched: the next change reaches only the other watch.
        #expect(try conn.result("unwatch", ["subscription": .string(id)]) == ["unwatched": true])
        gps.feeder.set(.noFix)
        while true {
            let changed = try #require(try next(conn).reading(LocationChanged.self))
            if changed.location.status == .timeout {
                #expect(changed.subscription == other)
                break
            }
            #expect(changed.subscription == other)
        }
    }
}
