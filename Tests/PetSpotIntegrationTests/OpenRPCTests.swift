import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import Testing

/// rpc.discover against a live daemon, checked by an independent validator: Debian's
/// python3-jsonschema and the OpenRPC meta-schema kept in Tests/OpenRPC.
@Suite("The OpenRPC document", .serialized)
struct OpenRPCTests {
    static let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("OpenRPC/check-openrpc.py").path

    /// Calls through `conn`, keeping each method's answer for the schema check.
    final class Recorder {
        let conn: PetSpotConnection
        var answers: [JSONValue] = []

        init(_ conn: PetSpotConnection) { self.conn = conn }

        @discardableResult
        func call(_ method: String, _ params: JSONObject = JSONObject()) throws -> JSONValue {
            let result = try conn.result(method, params)
            answers.append(["method": .string(method), "result": result])
            return result
        }
    }

    /// check-openrpc.py on `document` and, if given, `answers`: its exit status and output.
    func check(_ document: JSONValue, answers: [JSONValue]? = nil) throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrpc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let documentPath = directory.appendingPathComponent("document.json").path
        try JSONWriter.string(document).write(toFile: documentPath, atomically: true, encoding: .utf8)
        var arguments = [Self.checker, documentPath]
        if let answers {
            let answersPath = directory.appendingPathComponent("answers.ndjson").path
            try answers.map(JSONWriter.string).joined(separator: "\n").write(toFile: answersPath, atomically: true, encoding: .utf8)
            arguments.append(answersPath)
        }
        let result = try runProgram("/usr/bin/python3", arguments, environment: ["PATH": "/usr/bin:/bin"])
        return (result.status, result.stdout + result.stderr)
    }

    @Test("the document fits the OpenRPC meta-schema, and every answer of a whole report walk fits its method's result schema")
    func wholeWalk() throws {
        // Root, the caller, is staff here too: the animal list shows it the whole report and its photo as sent.
        let daemon = try DaemonProcess.forRelay(settings: ["board": ["staffGroup": "root"]]).start()
        let r = Recorder(try daemon.connect())
        let document = try r.call("rpc.discover")
        #expect(document["openrpc"] == "1.3.2")
        let names = document["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names == ProtocolMethods.all.map { $0.name }, "every method, relay ones too for the relay group")

        try r.call("daemon.info")
        try r.call("species.list", ["locale": "pl"])
        try r.call("location.status")
        try r.call("location.current", ["timeoutMs": 5000])
        let id = try r.call("flow.start")[path: "flow", "id"]!
        try r.call("flow.update", ["flowId": id, "values": ["chipNumber": "616 09 1234 5678 9"]])
        try r.call("flow.continue", ["flowId": id])
        try r.call("flow.update", ["flowId": id, "values": ["photo": ["data": .string(Data(pngBytes).base64EncodedString()), "filename": "rex.png"]]])
        try r.call("flow.continue", ["flowId": id])
        try r.call("flow.continue", ["flowId": id])  // refused: the toast and field errors
        try r.call("flow.update", ["flowId": id, "values": ["species": "dog", "race": "Beagle", "gender": "male", "age": -1]])
        try r.call("flow.requestLocation", ["flowId": id, "timeoutMs": 5000])
        try r.call("flow.update", ["flowId": id, "values": ["age": 4, "additionalDescription": "Brown collar\nwhite paws"]])
        try r.call("flow.continue", ["flowId": id])
        try r.call("flow.update", ["flowId": id, "values": ["contactEmail": "owner@example.org"]])
        try r.call("flow.back", ["flowId": id])
        try r.call("flow.continue", ["flowId": id])
        try r.call("flow.continue", ["flowId": id])
        try r.call("flow.get", ["flowId": id])
        let reportID = try r.call("flow.submit", ["flowId": id])[path: "report", "id"]!
        try r.call("flow.get", ["flowId": id])
        try r.call("flow.submit", ["flowId": id])
        try r.call("reports.list", ["limit": 5])
        try r.call("reports.get", ["reportId": reportID])
        try r.call("reports.photo", ["reportId": reportID])
        let near: JSONValue = ["latitude": .number(JSONNumber(validatedLiteral: "52.2297")), "longitude": .number(JSONNumber(validatedLiteral: "21.0122"))]
        try r.call("animals.list", ["near": near, "radiusKm": 5, "limit": 5])
        try r.call("animals.list", ["species": "cat"])
        try r.call("animals.get", ["animalId": reportID])
        try r.call("animals.photo", ["animalId": reportID])
        try r.call("animals.lookup", ["chipNumber": "616-09-1234-5678-9"])
        try r.call("animals.watch", ["near": near])
        let other = try r.call("flow.start", ["locale": "pl"])[path: "flow", "id"]!
        try r.call("flow.cancel", ["flowId": other])
        try r.call("relay.status")
        let watch = try r.call("reports.watch")["subscription"]!
        try r.call("relay.watch")
        try r.call("location.watch")
        try r.call("flow.watch", ["flowId": try r.call("flow.start")[path: "flow", "id"]!])
        try r.call("unwatch", ["subscription": watch])
        try r.call("relay.claim", ["limit": 10])
        try r.call("relay.ack", ["reportIds": [reportID]])
        try r.call("reports.get", ["reportId": reportID])
        try r.call("relay.status")
        // Its life after submit, each answer the whole report.
        try r.call("reports.amend", ["reportId": reportID, "values": ["contactPhone": "+48 601 234 999", "age": nil]])
        try r.call("reports.renew", ["reportId": reportID])
        try r.call("reports.close", ["reportId": reportID, "outcome": "found"])
        let claimed = try r.call("relay.claim", ["limit": 10])
        let version = try #require(claimed["reports"]?.arrayValue?.first?[path: "report", "version"])
        try r.call("relay.ack", ["reports": [["reportId": reportID, "version": version]]])
        try r.call("reports.erase", ["reportId": reportID])
        // Another box's reports coming down: one listed (with its photo), one refused, then gone.
        let fleetValues: JSONValue = ["chipNumber": "616091234567890", "photo": nil, "disappearanceDate": "2026-11-25", "species": "dog",
                                      "race": "Beagle", "gender": "male", "age": 4, "latitude": .number(JSONNumber(validatedLiteral: "52.22968")),
                                      "longitude": .number(JSONNumber(validatedLiteral: "21.01223")), "additionalDescription": nil,
                                      "contactPhone": "+48601234567", "contactEmail": nil]
        let fleetReport: JSONObject = ["reportId": "fleet-1", "box": "kiosk-12", "status": "missing", "version": 1,
                                       "submittedAt": "2026-11-26T12:04:31Z", "updatedAt": "2026-11-26T12:04:31Z", "values": fleetValues,
                                       "photo": ["mediaType": "image/png", "data": .string(Data(pngBytes).base64EncodedString())]]
        try r.call("relay.fleetPut", ["cursor": 1, "reports": [.object(fleetReport), ["reportId": "fleet-2", "box": "kiosk-12", "status": "missing", "version": 1,
                                                                                      "submittedAt": "x", "updatedAt": "x", "values": [:]]]])
        try r.call("animals.get", ["animalId": "fleet-1"])
        try r.call("relay.fleet")
        try r.call("relay.fleetPut", ["cursor": 2, "reports": [["reportId": "fleet-1", "box": "kiosk-12", "status": "found", "version": 2,
                                                               "submittedAt": "2026-11-26T12:04:31Z", "updatedAt": "2026-11-26T12:05:00Z"]]])

        // A location refused: the alert, with its settings, and its dismissal.
        let denied = try DaemonProcess(arguments: ["--simulated-mode", "permission-denied"]).start()
        let d = Recorder(try denied.connect())
        let deniedID = try d.call("flow.start")[path: "flow", "id"]!
        try d.call("flow.continue", ["flowId": deniedID])
        try d.call("flow.continue", ["flowId": deniedID])
        let alerted = try d.call("flow.requestLocation", ["flowId": deniedID])
        #expect(alerted[path: "flow", "screen", "alert"] != .null)
        try d.call("flow.dismissAlert", ["flowId": deniedID])
        try d.call("location.current")

        let answers = r.answers + d.answers
        #expect(Set(answers.compactMap { $0["method"]?.stringValue }) == Set(ProtocolMethods.all.map { $0.name }), "every method answered")
        let checked = try check(document, answers: answers)
        #expect(checked.status == 0, "\(checked.output)")
        #expect(checked.output.contains("\(answers.count) answers"), "\(checked.output)")
    }

    @Test("a schema is precise: an answer with a member of the wrong type, a missing or an unknown member does not fit")
    func wrongAnswersFail() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let document = try conn.result("rpc.discover")
        let info = try conn.result("daemon.info")
        #expect(try check(document, answers: [["method": "daemon.info", "result": info]]).status == 0)
        var wrongType = info.objectValue!
        wrongType["protocolVersion"] = "2"
        var missing = info.objectValue!
        missing["name"] = nil
        var unknown = info.objectValue!
        unknown["extra"] = true
        let flow = try conn.result("flow.start")
        var badStep = flow[path: "flow"]!.objectValue!
        badStep["step"] = "payment"
        for wrong in [JSONValue.object(wrongType), .object(missing), .object(unknown)] {
            let checked = try check(document, answers: [["method": "daemon.info", "result": wrong]])
            #expect(checked.status == 1, "\(JSONWriter.string(wrong)): \(checked.output)")
        }
        let checked = try check(document, answers: [["method": "flow.get", "result": ["flow": .object(badStep)]]])
        #expect(checked.status == 1 && checked.output.contains("flow.get"), "\(checked.output)")
    }

    /// `value` with the member at `path` (names, and indexes of arrays) set to `new`, or removed.
    static func setting(_ value: JSONValue, _ path: ArraySlice<String>, to new: JSONValue?) -> JSONValue? {
        guard let key = path.first else { return new }
        switch value {
        case .object(var object):
            object[key] = object[key].flatMap { setting($0, path.dropFirst(), to: new) } ?? (path.count == 1 ? new : nil)
            return .object(object)
        case .array(var elements):
            guard let index = Int(key), elements.indices.contains(index), let changed = setting(elements[index], path.dropFirst(), to: new)
            else { return value }
            elements[index] = changed
            return .array(elements)
        default:
            return value
        }
    }

    /// `document` with the example of `name` (under `list`) changed at `path` below it.
    static func changingExample(_ document: JSONValue, _ list: String, _ name: String, _ path: [String], to new: JSONValue?) throws -> JSONValue {
        let index = try #require(document[list]?.arrayValue?.firstIndex { $0["name"] == .string(name) }, "no \(name)")
        return try #require(setting(document, [list, "\(index)", "examples", "0"] + path, to: new))
    }

    @Test("every example, in the document for users and in the relay group's, fits its own schemas; one that does not is named")
    func examplesFitTheirSchemas() throws {
        let relay = try DaemonProcess.forRelay().start()
        let relayDocument = try relay.connect().result("rpc.discover")
        let user = try DaemonProcess().start()
        let userDocument = try user.connect().result("rpc.discover")
        for (name, document) in [("users'", userDocument), ("the relay group's", relayDocument)] {
            let examples = (document["methods"]?.arrayValue?.count ?? 0) + (document["x-notifications"]?.arrayValue?.count ?? 0)
            let checked = try check(document)
            #expect(checked.status == 0, "\(name): \(checked.output)")
            #expect(checked.output.contains("its \(examples) examples"), "\(name): \(checked.output)")
        }

        // A report without the values its schema requires; a flow without its screen; a param
        // the method does not take; a notification without a param it must carry.
        let broken: [(document: JSONValue, says: [String])] = [
            (try Self.changingExample(relayDocument, "methods", "flow.submit", ["result", "value", "report", "values"], to: .object([:])),
             ["example 'filed' of method flow.submit: result: report/values: 'chipNumber' is a required property"]),
            (try Self.changingExample(userDocument, "methods", "flow.start", ["result", "value", "flow", "screen"], to: nil),
             ["method flow.start: result: flow:", "'screen' is a required property"]),
            (try Self.changingExample(userDocument, "methods", "flow.get", ["params", "0", "name"], to: "flowID"),
             ["method flow.get: params: flowID is no param of flow.get", "method flow.get: params: flowId is required and not given"]),
            (try Self.changingExample(userDocument, "x-notifications", "reports.changed", ["params", "1"], to: ["name": "change", "value": "lost"]),
             ["notification reports.changed: params.change: (value): 'lost' is not one of"]),
            (try Self.changingExample(userDocument, "methods", "rpc.discover", ["result", "value", "openrpc"], to: "1.0"),
             ["method rpc.discover: result, as an OpenRPC document: openrpc:"]),
        ]
        for (document, says) in broken {
            let checked = try check(document)
            #expect(checked.status == 1, "\(checked.output)")
            for words in says { #expect(checked.output.contains(words), "\(words) not in:\n\(checked.output)") }
        }
    }

    @Test("outside the relay group the document has no relay methods; daemon.info says protocol 6")
    func relayMethodsOnlyForTheRelay() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let names = try conn.result("rpc.discover")["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(names == ProtocolMethods.offered(toRelay: false).map { $0.name })
        #expect(try conn.result("daemon.info")["protocolVersion"] == 6)
        let notifications = try conn.result("rpc.discover")["x-notifications"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(notifications == ["location.changed", "flow.changed", "reports.changed", "watch.ended", "animals.changed"],
                "no relay.pending; watch.ended for a staff member's animals.watch")
        let error = try conn.failure("rpc.discover", ["verbose": true])
        #expect(error.kind == .invalidParams)
    }
}
