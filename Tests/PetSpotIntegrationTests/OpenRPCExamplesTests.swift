import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotTestSupport
import Testing

/// The examples of rpc.discover's document are what a real call answers. They tell one story,
/// a report made from start to end on a box whose location comes from gpsd; here it is played
/// on a live daemon (gpsd being `FakeGpsd`), each example's call made with the example's params,
/// and each answer held to the example whole: every member, in order, every word. Only what the
/// daemon chooses may differ: ids (bound on first sight, one real id to each example id), times
/// (of the same form), the age of the last fix, the gpsd address, and the uid of the report's owner.
@Suite("The OpenRPC document's examples against a live daemon", .serialized)
struct OpenRPCExamplesTests {
    /// The examples of a document: params and result by method name, params by notification name.
    struct Examples {
        var params: [String: JSONObject] = [:]
        var results: [String: JSONValue] = [:]

        init(_ document: JSONValue) throws {
            let entries = (document["methods"]?.arrayValue ?? []) + (document["x-notifications"]?.arrayValue ?? [])
            for entry in entries {
                let name = try #require(entry["name"]?.stringValue)
                let example = try #require(entry["examples"]?.arrayValue?.first, "\(name) has no example")
                var params = JSONObject()
                for pair in example["params"]?.arrayValue ?? [] {
                    params[try #require(pair["name"]?.stringValue)] = pair["value"]
                }
                self.params[name] = params
                results[name] = example[path: "result", "value"]
            }
        }
    }

    /// Plays examples on a daemon and holds its answers to them.
    final class Replay {
        let examples: Examples
        /// Example id → the daemon's.
        private(set) var ids: [String: String] = [:]

        init(_ examples: Examples) {
            self.examples = examples
        }

        /// Calls `method` on `conn` with its example's params, its ids the daemon's, and holds
        /// the answer to the example's result.
        @discardableResult
        func call(_ conn: PetSpotConnection, _ method: String) throws -> JSONValue {
            let example = try #require(examples.params[method], "\(method) has no example")
            let result = try conn.result(method, try daemons(example, at: method))
            match(try #require(examples.results[method]), result, at: "\(method) result", key: nil)
            return result
        }

        /// Waits for the notification `name` on `conn` that `accept` takes (passing over others),
        /// and holds its params to the example's.
        func notification(_ conn: PetSpotConnection, _ name: String, where accept: (JSONValue) -> Bool = { _ in true }) throws {
            let example = try #require(examples.params[name], "\(name) has no example")
            while true {
                let next = try #require(try conn.nextNotification(timeout: .seconds(20)), "no \(name) within 20 s")
                guard next.method == name, accept(next.params) else { continue }
                match(.object(example), next.params, at: "\(name) params", key: nil)
                return
            }
        }

        /// The example id `example` stands for `real` (a flow started outside the examples).
        func bind(_ example: JSONValue?, to real: JSONValue?) throws {
            ids[try #require(example?.stringValue)] = try #require(real?.stringValue)
        }

        /// `params` with every example id the daemon's.
        private func daemons(_ params: JSONObject, at method: String) throws -> JSONObject {
            func replaced(_ value: JSONValue, key: String?) throws -> JSONValue {
                switch value {
                case .object(let object):
                    return .object(JSONObject(members: try object.members.map { (key: $0.key, value: try replaced($0.value, key: $0.key)) }))
                case .array(let elements):
                    return .array(try elements.map { try replaced($0, key: key) })
                case .string(let s) where Self.rule(key, value) == .id:
                    return .string(try #require(ids[s], "\(method): the example's \(key ?? "") \(s) names nothing the daemon gave yet"))
                default:
                    return value
                }
            }
            return try replaced(.object(params), key: nil).objectValue!
        }

        enum Rule {
            /// The daemon's id: bound on first sight.
            case id
            /// An ISO 8601 UTC time: any of that form.
            case time
            /// The host's or the moment's: any value of the same type.
            case chosen
            case exact
        }

        static func rule(_ key: String?, _ example: JSONValue) -> Rule {
            switch key {
            case "flowId", "reportId", "reportIds", "animalId", "subscription": .id
            // "id" also names a species or an alert's action, which are the daemon's words.
            case "id": example.stringValue.map(isUUID) == true ? .id : .exact
            case "submittedAt", "deliveredAt", "lastDeliveredAt", "time", "updatedAt", "expiresAt": .time
            case "lastFixAgeMs", "ownerUid", "detail": .chosen
            default: .exact
            }
        }

        static func isUUID(_ s: String) -> Bool {
            let characters = Array(s)
            return characters.count == 36 && characters.indices.allSatisfy { i in
                [8, 13, 18, 23].contains(i) ? characters[i] == "-" : characters[i].isHexDigit && !characters[i].isUppercase
            }
        }

        static func isTime(_ value: JSONValue) -> Bool {
            guard let characters = value.stringValue.map(Array.init), characters.count == 20 else { return false }
            let form = Array("0000-00-00T00:00:00Z")
            return zip(characters, form).allSatisfy { $1 == "0" ? $0.isASCII && $0.isNumber : $0 == $1 }
        }

        private func problem(_ text: String) {
            Issue.record(Comment(rawValue: text))
        }

        private func match(_ example: JSONValue, _ real: JSONValue, at path: String, key: String?) {
            switch (example, real) {
            case (.object(let e), .object(let r)):
                if e.keys != r.keys {
                    problem("\(path): members \(e.keys), the daemon's \(r.keys)")
                }
                for member in e {
                    if let value = r[member.key] { match(member.value, value, at: "\(path).\(member.key)", key: member.key) }
                }
            case (.array(let e), .array(let r)):
                guard e.count == r.count else {
                    problem("\(path): \(e.count) elements, the daemon's \(r.count): \(JSONWriter.string(real))")
                    return
                }
                for (index, pair) in zip(e, r).enumerated() { match(pair.0, pair.1, at: "\(path)[\(index)]", key: key) }
            default:
                let said = "\(path): the example's \(JSONWriter.string(example)), the daemon's \(JSONWriter.string(real))"
                switch Self.rule(key, example) {
                case .id:
                    guard let e = example.stringValue, let r = real.stringValue else { return problem(said) }
                    if let bound = ids[e] {
                        if bound != r { problem("\(said), where it was \(bound) before") }
                    } else if let other = ids.first(where: { $0.value == r }) {
                        problem("\(said), which the example calls \(other.key)")
                    } else {
                        ids[e] = r
                    }
                case .time:
                    if example == .null ? real != .null : (!Self.isTime(example) || !Self.isTime(real)) { problem(said) }
                case .chosen:
                    switch (example, real) {
                    case (.string, .string), (.number, .number): break
                    default: problem(said)
                    }
                case .exact:
                    if example != real { problem(said) }
                }
            }
        }
    }

    @Test("each example, played in its story on a daemon with gpsd, is the daemon's answer; each notification example the notification")
    func storyReplayed() throws {
        let gpsd = try FakeGpsd(mode: .truth)
        defer { gpsd.stop() }
        let gpsdArguments = ["--location-providers", "gpsd", "--gpsd", gpsd.endpoint]
        let daemon = try DaemonProcess(arguments: gpsdArguments + ["--relay-group", "root", "--box-name", "kiosk-7"]).start()
        let conn = try daemon.connect()
        let document = try conn.result("rpc.discover")
        let examples = try Examples(document)
        let replay = Replay(examples)

        // rpc.discover's example is the document cut to daemon.info: as the whole one has it.
        let cut = try #require(examples.results["rpc.discover"])
        #expect(cut["openrpc"] == document["openrpc"])
        #expect(cut["info"] == document["info"])
        #expect(cut["methods"] == .array(document["methods"]?.arrayValue?.filter { $0["name"] == "daemon.info" } ?? []))
        #expect(cut[path: "components", "schemas"] == .object([:]))
        let errors = try #require(cut[path: "components", "errors"]?.objectValue)
        #expect(!errors.isEmpty)
        for error in errors { #expect(document[path: "components", "errors", error.key] == error.value, "\(error.key)") }
        #expect(cut["x-notifications"] == [])

        // The box, its species and its position.
        try replay.call(conn, "daemon.info")
        try replay.call(conn, "species.list")
        try waitUntil("gpsd's fix") {
            try conn.result("location.status")["providers"]?.arrayValue?.first?["lastFixAgeMs"].map { $0 != .null } == true
        }
        try replay.call(conn, "location.status")
        try replay.call(conn, "location.current")
        let whereWatch = try daemon.connect()
        try replay.call(whereWatch, "location.watch")

        // The report, filled in with what the examples' report holds.
        let report = try #require(examples.results["flow.submit"]?[path: "report", "values"])
        let photo = try #require(examples.results["relay.claim"]?["reports"]?.arrayValue?.first?[path: "photo", "data"])
        let flowID = try #require(try replay.call(conn, "flow.start")[path: "flow", "id"])
        try replay.call(conn, "flow.update")
        try replay.call(conn, "flow.continue")
        try replay.call(conn, "flow.back")
        try Self.fill(conn, flowID, report: report, photo: photo)
        try replay.call(conn, "flow.requestLocation")
        #expect(try conn.result("flow.continue", ["flowId": flowID])["accepted"] == true)
        let flowWatch = try daemon.connect()
        try replay.call(flowWatch, "flow.watch")
        let contact = ["contactPhone", "contactEmail"].map { (key: $0, value: report[$0] ?? .null) }
        _ = try conn.result("flow.update", ["flowId": flowID, "values": .object(JSONObject(members: contact))])
        #expect(try conn.result("flow.continue", ["flowId": flowID])["accepted"] == true)
        try replay.call(conn, "flow.get")

        // Filed, watched, claimed and delivered.
        let reportsWatch = try daemon.connect()
        try replay.call(reportsWatch, "reports.watch")
        let relayWatch = try daemon.connect()
        try replay.call(relayWatch, "relay.watch")
        let animalsWatch = try daemon.connect()
        try replay.call(animalsWatch, "animals.watch")
        try replay.call(conn, "flow.submit")
        try replay.notification(flowWatch, "flow.changed") { $0[path: "flow", "state"] != "active" }
        try replay.notification(reportsWatch, "reports.changed")
        try replay.notification(relayWatch, "relay.pending")
        try replay.notification(animalsWatch, "animals.changed")
        try replay.call(conn, "reports.list")
        try replay.call(conn, "relay.claim")
        try replay.call(conn, "relay.ack")
        try replay.call(conn, "reports.get")
        try replay.call(conn, "reports.photo")

        // On the animal list, as a finder a street away sees it (root is not staff here).
        try replay.call(conn, "animals.list")
        try replay.call(conn, "animals.get")
        try replay.call(conn, "animals.photo")
        try replay.call(conn, "animals.lookup")
        try replay.call(conn, "relay.status")
        try replay.call(reportsWatch, "unwatch")

        // Its life: a phone number corrected, kept missing, found, erased.
        try replay.call(conn, "reports.amend")
        try replay.call(conn, "reports.renew")
        try replay.call(conn, "reports.close")
        try replay.call(conn, "reports.erase")

        // Another report begun and given up.
        try replay.bind(examples.params["flow.cancel"]?["flowId"], to: try conn.result("flow.start")[path: "flow", "id"])
        try replay.call(conn, "flow.cancel")

        // The receiver goes quiet.
        gpsd.set(.stall)
        try replay.notification(whereWatch, "location.changed") { $0[path: "location", "status"] != "ok" }

        // Location refused: the alert, closed. The flow is the same report's, on another box.
        let refusing = try DaemonProcess(settings: ["location": ["permission": ["allow": "nobody"]]], arguments: gpsdArguments).start()
        let refused = try refusing.connect()
        let other = Replay(examples)
        let refusedFlow = try #require(try refused.result("flow.start")[path: "flow", "id"])
        try other.bind(examples.params["flow.dismissAlert"]?["flowId"], to: refusedFlow)
        let chip = try #require(examples.params["flow.update"]?["values"])
        _ = try refused.result("flow.update", ["flowId": refusedFlow, "values": chip])
        try Self.fill(refused, refusedFlow, report: report, photo: photo)
        let alerted = try refused.result("flow.requestLocation", ["flowId": refusedFlow])
        #expect(alerted[path: "location", "status"] == "permissionDenied")
        try other.call(refused, "flow.dismissAlert")

        _ = (whereWatch, flowWatch, reportsWatch, relayWatch, animalsWatch)
    }

    /// From the photo step to the description step filled in but for its coordinates, with the
    /// values of `report`.
    static func fill(_ conn: PetSpotConnection, _ flowID: JSONValue, report: JSONValue, photo: JSONValue) throws {
        #expect(try conn.result("flow.continue", ["flowId": flowID])["accepted"] == true)
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["photo": ["data": photo, "filename": "rex.png"]]])
        #expect(try conn.result("flow.continue", ["flowId": flowID])["accepted"] == true)
        let described = ["disappearanceDate", "species", "race", "gender", "age", "additionalDescription"]
        _ = try conn.result("flow.update", ["flowId": flowID,
                                            "values": .object(JSONObject(members: described.map { (key: $0, value: report[$0] ?? .null) }))])
    }
}
