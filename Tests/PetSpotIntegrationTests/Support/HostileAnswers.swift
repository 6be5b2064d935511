import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

/// What a hostile or broken daemon answers (`ScriptedDaemon`'s script): every method the clients
/// call, in one of several ways, with `text` in every string it can put one in.
enum HostileAnswers {
    /// A window title, a bell, a screen clear, a one-character CSI, a carriage return, a
    /// backspace, a tab, a line feed, DEL, NEL, the line and paragraph separators, a right-to-left
    /// override, an isolate, a right-to-left mark and the Arabic letter mark.
    static let text = "allowed\u{1B}]0;PWNED\u{7}\u{1B}[2J\u{9B}31m\r\u{8}\t\n\u{7F}\u{85}\u{2028}\u{2029}\u{202E}\u{2066}\u{200F}\u{61C}end"
    /// The part of `text` that shows through any escaping: proof that the text reached the output.
    static let marker = "PWNED"

    enum Way: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Answers that fit the contract, `text` in every free string; watches notify (the
        /// last notification of a location or reports watch does not fit, which ends the watch).
        case wellFormed
        /// Answers with `text` where one of a fixed set of words belongs, or as a member name
        /// whose value does not fit: the strict readers refuse the value.
        case refusedValue
        /// Error answers whose message, kind, parameter and further data carry `text`.
        case errorAnswer
        /// An object under the request's id that is neither a result nor an error.
        case notJSONRPC
        /// A result under another id, `text`.
        case wrongID
        /// A line that is not JSON: a member named twice, its name `text`.
        case notJSON

        var description: String { rawValue }
    }

    /// Every request answered `way`, except the methods in `overrides`.
    /// `box`: daemon.info names this box, as a relay given `--box` needs it to.
    static func script(_ way: Way, overrides: [String: Way] = [:], box: String? = nil) -> ScriptedDaemon.Script {
        { request in
            if let box, request.method == "daemon.info" {
                let info = DaemonInfo.Result(version: "0.1.0", box: box, locationProviders: [], limits: [])
                return [JSONWriter.string(["jsonrpc": "2.0", "id": request.id, "result": info.json])]
            }
            return lines(request, overrides[request.method] ?? way)
        }
    }

    static func lines(_ request: ScriptedDaemon.Request, _ way: Way) -> [String] {
        let id = request.id
        switch way {
        case .wellFormed, .refusedValue:
            let (result, notifications) = answer(request, refusing: way == .refusedValue)
            return [JSONWriter.string(["jsonrpc": "2.0", "id": id, "result": result])]
                + notifications.map { JSONWriter.string(["jsonrpc": "2.0", "method": .string($0.method), "params": $0.params]) }
        case .errorAnswer:
            // relay.ack's own error, so that the relay takes its branch for it.
            let ack = request.method == "relay.ack"
            var data: JSONObject = ["kind": ack ? "reportNotFound" : .string(text), "parameter": .string(text), "limit": .string(text),
                                    "max": .string(text), "details": [.string(text)]]
            data[text] = .string(text)
            let error: JSONValue = ["code": .int(ack ? -32005 : -32003), "message": .string(text), "data": .object(data)]
            return [JSONWriter.string(["jsonrpc": "2.0", "id": id, "error": error])]
        case .notJSONRPC:
            return [JSONWriter.string(["jsonrpc": "2.0", "id": id, "outcome": .string(text), text: .string(text)])]
        case .wrongID:
            return [JSONWriter.string(["jsonrpc": "2.0", "id": .string(text), "result": ["flow": .string(text)]])]
        case .notJSON:
            let name = JSONWriter.string(.string(text))
            return [#"{"jsonrpc":"2.0","id":\#(JSONWriter.string(id)),"result":{\#(name):1,\#(name):2}}"#]
        }
    }

    // MARK: Results

    /// The result of `request`, and the notifications that follow it.
    private static func answer(_ request: ScriptedDaemon.Request, refusing: Bool) -> (JSONValue, [(method: String, params: JSONValue)]) {
        let t = JSONValue.string(text)
        switch request.method {
        case "rpc.discover":
            return (["openrpc": t, "methods": refusing ? t : [["name": t, "params": [["name": t, "required": true], ["name": t]], "summary": t]]], [])
        case "daemon.info":
            let limits: JSONValue = refusing
                ? [text: t]
                : ["maxPhotoBytes": 10_485_760, "maxFlowsPerUser": 50, "flowIdleTimeoutSeconds": 1800, "maxReportsPage": 2,
                   "maxLineBytes": 16_777_216, text: 7]
            return (["name": t, "version": t, "protocolVersion": .int(petspotProtocolVersion), "box": t,
                    "locationProviders": [t], "limits": limits], [])
        case "species.list":
            return (["species": refusing ? [["id": t, "name": 1]] : [["id": "dog", "name": t], ["id": t, "name": t]]], [])
        case "location.status":
            return (locationStatus(refusing: refusing), [])
        case "location.current":
            return (["location": location(refusing: refusing)], [])
        case "location.watch":
            // A change, then one that does not fit: the watch ends there.
            return (["subscription": t, "location": location(refusing: refusing)],
                    [("location.changed", ["subscription": t, "location": LocationView(status: .timeout, message: text).json]),
                     ("location.changed", ["subscription": t, "location": location(refusing: true)])])
        case "reports.list":
            // Two pages: the pager follows the cursor.
            let first = request.params["cursor"] == nil
            return (["reports": first ? [report(1, refusing: refusing), report(2, delivered: true)] : [report(3, species: text)],
                     "cursor": first ? t : .null], [])
        case "reports.get", "reports.close", "reports.renew", "reports.amend", "reports.erase":
            return (["report": report(1, refusing: refusing)], [])
        case "reports.watch":
            return (["subscription": t],
                    [("reports.changed", ["subscription": t, "change": "filed", "report": report(4, refusing: refusing)]),
                     ("reports.changed", ["subscription": t, "change": "overflow"]),
                     ("reports.changed", ["subscription": t, "change": t, "report": report(5)])])
        case "flow.start", "flow.get", "flow.update", "flow.back", "flow.dismissAlert":
            return (["flow": flow(refusing: refusing)], [])
        case "flow.watch":
            // A change made elsewhere, told at once.
            return (["subscription": t, "flow": flow(refusing: refusing)],
                    [("flow.changed", ["subscription": t, "flow": flow(refusing: refusing, title: "elsewhere ")])])
        case "flow.continue":
            return (["flow": flow(refusing: refusing), "accepted": false], [])
        case "flow.requestLocation":
            return (["flow": flow(refusing: refusing, alert: true), "location": location(refusing: refusing, status: .permissionDenied)], [])
        case "flow.cancel":
            return (["flow": refusing ? ["id": t, "state": t] : FlowView(id: text, state: .cancelled).json], [])
        case "flow.submit":
            return (["flow": refusing ? ["id": t, "state": t] : FlowView(id: text, state: .completed(reportID: text)).json,
                     "report": report(1, refusing: refusing)], [])
        case "relay.status":
            return (refusing ? ["pending": t, "claimed": t, "delivered": t, "lastDeliveredAt": t]
                             : RelayStatus.Result(pending: 3, claimed: 1, delivered: 2, lastDeliveredAt: text).json, [])
        case "relay.watch":
            return (["subscription": t, "pending": refusing ? t : 1], [("relay.pending", ["subscription": t, "pending": 2])])
        case "relay.claim":
            // One report that PostgreSQL takes, then one whose submittedAt it refuses, quoting it; then none.
            let reports: [JSONValue] = switch request.count {
            case 1: [claimed(report(6, refusing: refusing, submittedAt: "2026-11-21T13:07:27Z", updatedAt: "2026-11-21T13:07:27Z"))]
            case 2: [claimed(report(7, refusing: refusing))]
            default: []
            }
            return (["reports": .array(reports), "claimTimeoutSeconds": 60, "pending": .int(reports.count)], [])
        case "relay.fleet":
            return (refusing ? ["cursor": t, "reports": t, "maxReports": t, "position": t, "maxLineBytes": t, "maxPhotoBytes": t]
                             : RelayFleet.Result(cursor: 0, reports: 3, maxReports: 5, position: nil, maxLineBytes: 1 << 20, maxPhotoBytes: 1 << 20).json, [])
        case "relay.fleetPut":
            return (refusing ? ["cursor": t, "listed": t, "removed": t, "refused": t]
                             : ["cursor": 1, "listed": 0, "removed": 0, "refused": [["reportId": t, "box": t, "reason": t]]], [])
        case "relay.ack":
            return (refusing ? ["delivered": t, "alreadyDelivered": t] : ["delivered": 1, "alreadyDelivered": 0], [])
        case "animals.list":
            // Two pages, as reports.list: the pager follows the cursor.
            let first = request.params["cursor"] == nil
            return (["animals": first ? [animal(1, refusing: refusing), animal(2)] : [animal(3)],
                     "near": ["latitude": .number(JSONNumber(validatedLiteral: "52.1")), "longitude": .number(JSONNumber(validatedLiteral: "21.1"))], "cursor": first ? t : .null], [])
        case "animals.get":
            return (["animal": animal(1, refusing: refusing)], [])
        case "animals.lookup":
            return (["animals": [animal(1, refusing: refusing)]], [])
        case "animals.photo", "reports.photo":
            return (["mediaType": t, "data": refusing ? 7 : .string(photoBase64)], [])
        case "animals.watch":
            // A change, then the watcher fell behind, then a change that does not fit: the watch ends there.
            return (["subscription": t, "animals": [animal(1, refusing: refusing)]],
                    [("animals.changed", ["subscription": t, "change": "added", "animal": animal(4, refusing: refusing)]),
                     ("animals.changed", ["subscription": t, "change": "overflow"]),
                     ("animals.changed", ["subscription": t, "change": t, "animal": animal(5)])])
        case "unwatch":
            return (["unwatched": refusing ? t : true], [])
        default:
            return ([text: t], [])
        }
    }

    static func locationStatus(refusing: Bool) -> JSONValue {
        let provider = ProviderStatus(name: text, state: .connected, lastFixAgeMs: 5, lastError: text, detail: text).json
        let status = LocationStatusView(enabled: true, permission: .allowed, providers: [], timeoutMs: 1000, maxAgeMs: 1000).json
        guard case .object(var object) = status else { return status }
        object["providers"] = [provider, ["name": .string(text), "state": refusing ? .string(text) : "noFix",
                                          "lastFixAgeMs": nil, "lastError": nil, "detail": nil]]
        if refusing { object["permission"] = .string(text) }
        return .object(object)
    }

    static func location(refusing: Bool, status: LocationView.Status = .ok) -> JSONValue {
        let fix = status == .ok
            ? LocationFix(latitude: Coordinate(scaled: 5_222_968), longitude: Coordinate(scaled: 2_101_223),
                          source: text, time: text, accuracy: JSONNumber(validatedLiteral: "4.2"))
            : nil
        let view = LocationView(status: status, fix: fix, message: text, settings: SettingsLocation(file: text, key: text)).json
        guard refusing, case .object(var object) = view else { return view }
        object["status"] = .string(text)
        return .object(object)
    }

    static func report(_ number: Int, refusing: Bool = false, delivered: Bool = false, species: String = "dog",
                       submittedAt: String = text, updatedAt: String = text) -> JSONValue {
        let values: JSONObject = [
            "chipNumber": .string(text), "photo": ["mediaType": .string(text), "bytes": 5, "sha256": .string(text)],
            "disappearanceDate": .string(text), "species": .string(species), "race": .string(text), "gender": .string(text),
            "age": 4, "latitude": .string(text), "longitude": .string(text), "additionalDescription": .string(text),
            "contactPhone": .string(text), "contactEmail": .string(text), text: .string(text),
        ]
        let view = ReportView(id: "r\(number)-\(text)", flowID: text, submittedAt: submittedAt, status: .missing, version: 1,
                              updatedAt: updatedAt, expiresAt: text, erased: false, values: values,
                              delivery: delivered ? .delivered(at: text) : .pending, otherMembers: [text: .string(text)]).json
        guard refusing, case .object(var object) = view else { return view }
        object["delivery"] = ["state": .string(text)]
        return .object(object)
    }

    /// A one-pixel PNG: what a photo answer carries.
    static let photoBase64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

    /// An animal of the list, `text` in every free string.
    static func animal(_ number: Int, refusing: Bool = false) -> JSONValue {
        // Distances no place can be at: one too large for any number type, one below nothing.
        let distance = switch number { case 2: "1e400"; case 3: "-5"; default: "0.036" }
        let view = Animal(
            id: "a\(number)-\(text)", box: text, status: .missing, chipNumber: text, species: "dog", race: text, gender: text, age: 3,
            disappearanceDate: text, lastSeen: Animal.Position(latitude: JSONNumber(validatedLiteral: "52.230"), longitude: JSONNumber(validatedLiteral: "21.012")),
            distanceKm: JSONNumber(validatedLiteral: distance), description: text + "\n" + text,
            photo: Animal.Photo(mediaType: text, bytes: 70, sha256: text), contact: Animal.Contact(phone: text, email: text),
            submittedAt: text, updatedAt: text, version: 1).json
        guard refusing, case .object(var object) = view else { return view }
        object["status"] = .string(text)
        return .object(object)
    }

    static func claimed(_ report: JSONValue) -> JSONValue {
        ["report": report, "ownerUid": 0, "photo": nil]
    }

    /// A flow on its description step, every word `text`: its fields with values, errors,
    /// helpers and options, a toast, and an alert when asked.
    static func flow(refusing: Bool, title: String = "", alert: Bool = false) -> JSONValue {
        let option = FlowView.Option(id: "dog", name: text)
        let fields = [
            FlowView.Field(name: "species", label: text, placeholder: text, value: "dog", display: text, required: true, enabled: true,
                           error: text, helper: text, counter: text, options: [option, FlowView.Option(id: text, name: text)]),
            FlowView.Field(name: "race", label: text, placeholder: text, value: .string(text), display: text, required: true, enabled: true,
                           helper: text, counter: text),
            FlowView.Field(name: text, label: text, placeholder: text, required: false, enabled: false, error: text),
        ]
        let screen = FlowView.Screen(
            title: title + text, progress: FlowView.Progress(current: 3, total: 4, label: text), heading: text, text: text + "\n" + text,
            fields: fields, actions: ["continue", "back", "requestLocation", "submit", text], toast: text,
            alert: alert ? FlowView.Alert(title: text, message: text, actions: [
                FlowView.AlertAction(id: "cancel", label: text),
                FlowView.AlertAction(id: "settings", label: text, settings: SettingsLocation(file: text, key: text)),
            ]) : nil)
        let view = FlowView(id: text, state: .active(.init(step: text, locale: text, screen: screen, values: [text: .string(text)]))).json
        guard refusing, case .object(var object) = view else { return view }
        object["state"] = .string(text)
        return .object(object)
    }
}
