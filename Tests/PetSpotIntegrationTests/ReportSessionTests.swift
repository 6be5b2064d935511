import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

@testable import petspot

/// The report loop with its input and output injected: what it sends for what a person types,
/// and how the renderer draws a flow view.
@Suite("petspot report: the session loop and the renderer", .serialized)
struct ReportSessionTests {
    /// Forwards to the daemon and remembers every request.
    final class RecordingDaemon: DaemonCalling {
        let connection: PetSpotConnection
        private(set) var requests: [(method: String, params: JSONObject)] = []

        init(_ connection: PetSpotConnection) {
            self.connection = connection
        }

        func call(_ method: String, _ params: JSONObject) throws(ClientError) -> Result<JSONValue, RPCError> {
            requests.append((method, params))
            return try connection.call(method, params)
        }

        /// The `values` of every flow.update, in order.
        var updates: [JSONValue] {
            requests.filter { $0.method == "flow.update" }.compactMap { $0.params["values"] }
        }
    }

    @Test("what is typed goes to the daemon as typed; numbers and names pick options; - clears; the photo is read and encoded")
    func sendsWhatIsTyped() throws {
        let daemon = try DaemonProcess().start()
        let recorder = RecordingDaemon(try daemon.connect())
        let photoPath = daemon.directory.appendingPathComponent("rex.png").path
        try Data(pngBytes).write(to: URL(fileURLWithPath: photoPath))
        let input = ScriptedInput([
            "abc 616-09", ":edit", "-", "",                                   // the chip as typed, then cleared; continue
            ":photo " + photoPath, "", "",                                    // the photo by command, keep it, continue
            "", "2", "Maine Coon", "Female", "", "", "", "::) friendly", "",  // cat by number, female by name
            "+48 123 456 789", "", "",                                        // contact, continue
            ":submit",
        ])
        let output = CapturedOutput()
        var flowIDs: [String?] = []
        let renderer = ScreenRenderer(layout: .plain, style: .plain, copy: .english)
        let session = ReportSession(daemon: recorder, input: input, output: output, renderer: renderer, copy: .english,
                                    onFlowChange: { flowIDs.append($0) })
        let outcome = try session.run(locale: .en)
        guard case .submitted(let reportID) = outcome else {
            Issue.record("not submitted: \(outcome)\n\(output.text)")
            return
        }
        #expect(recorder.updates == [
            ["chipNumber": "abc 616-09"],
            ["chipNumber": nil],
            ["photo": ["data": .string(Data(pngBytes).base64EncodedString()), "filename": "rex.png"]],
            ["species": "cat"],
            ["race": "Maine Coon"],
            ["gender": "female"],
            ["additionalDescription": ":) friendly"],
            ["contactPhone": "+48 123 456 789"],
        ])
        // The session never decides a rule: it only ever calls the daemon's methods.
        #expect(Set(recorder.requests.map(\.method)) == ["flow.start", "flow.update", "flow.continue", "flow.submit"])
        #expect(recorder.requests.dropFirst().allSatisfy { $0.params["flowId"]?.stringValue == flowIDs.first ?? nil })
        #expect(flowIDs.count == 2 && flowIDs.last == .some(nil), "the flow is forgotten once submitted")
        #expect(output.text.hasSuffix("Report submitted: \(reportID)\nShow it with: petspot reports show \(reportID)\n"))
    }

    @Test("the renderer shows what the view says: labels, values, errors, helpers, counter, options, toast and alert")
    func renderer() throws {
        let view = try FlowView(json: Self.sampleView)
        let plain = ScreenRenderer(layout: .plain, style: .plain, copy: .english)
        let text = plain.frame(view, focus: .field("species"), change: .screen, notices: [.warning("Careful")])
        #expect(text == """
            == 3/4 Animal description ==
            Animal description
            Tell us when your pet went missing.
              Animal species: (Select an option)
                error: Select the species.
                options: 1) Dog, 2) Cat
              Animal race: (e.g. Labrador) [unavailable]
              Animal additional description (optional): Brown collar (12/500)
                note: Shown to finders.
            ! Some information must be corrected
            !! Location access denied
               Ask for access.
               1) Cancel
               2) Go to Settings
            ! Careful

            """)
        #expect(plain.prompt(view, focus: .field("species")) == "? Animal species (1–2):\n")
        #expect(plain.prompt(view, focus: .field("additionalDescription")) == "? Animal additional description (optional) [Brown collar]:\n")
        #expect(plain.prompt(view, focus: .alert) == "? Choose 1–2:\n")

        let coloured = ScreenRenderer(layout: .fullScreen(width: 80), style: TextStyle(enabled: true), copy: .english)
        let screen = coloured.frame(view, focus: .field("species"), change: .none, notices: [])
        #expect(screen.hasPrefix(Terminal.clearScreen))
        #expect(screen.contains("\u{1B}[31m✗ Select the species.\u{1B}[0m"), "errors in red")
        #expect(screen.contains("3/4"))
        let bare = ScreenRenderer(layout: .fullScreen(width: 80), style: .plain, copy: .english)
            .frame(view, focus: .field("species"), change: .none, notices: [])
        #expect(!bare.dropFirst(Terminal.clearScreen.count).contains("\u{1B}"), "NO_COLOR: no escape codes but the clear")
        #expect(bare.contains(" › Animal species"))
        #expect(bare.contains("1 Dog   2 Cat"), "the focused field's options")
        #expect(bare.contains("┌─ Location access denied"))
    }

    /// Answers every call with the same result: a daemon whose flow view is broken.
    final class BrokenViewDaemon: DaemonCalling {
        let answer: JSONValue
        init(_ answer: JSONValue) { self.answer = answer }
        func call(_ method: String, _ params: JSONObject) throws(ClientError) -> Result<JSONValue, RPCError> {
            .success(answer)
        }
    }

    @Test("a flow view petspot cannot read ends the session with an error naming the member")
    func unreadableView() throws {
        var screen = try #require(Self.sampleView["screen"]?.objectValue)
        screen["fields"] = [["name": "species", "label": 7]]
        var broken = try #require(Self.sampleView.objectValue)
        broken["screen"] = .object(screen)
        let session = ReportSession(daemon: BrokenViewDaemon(["flow": .object(broken)]), input: ScriptedInput([]),
                                    output: CapturedOutput(), renderer: ScreenRenderer(layout: .plain, style: .plain, copy: .english),
                                    copy: .english)
        do {
            _ = try session.run(locale: .en)
            Issue.record("the session went on with a view it could not read")
        } catch .lost(let error) {
            #expect(error.description == "petspotd's answer to flow.start does not fit the protocol: result.flow.screen.fields[0].label must be a string, not a number")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("typed lines: empty keeps, - clears, commands, :: escapes a colon")
    func entries() {
        #expect(ReportEntry(line: "") == .keep)
        #expect(ReportEntry(line: "   ") == .keep)
        #expect(ReportEntry(line: "-") == .clear)
        #expect(ReportEntry(line: " Beagle ") == .value(" Beagle "))
        #expect(ReportEntry(line: ":back") == .command(.back))
        #expect(ReportEntry(line: ":CANCEL") == .command(.cancel))
        #expect(ReportEntry(line: ":gps") == .command(.gps))
        #expect(ReportEntry(line: ":photo ~/my rex.jpg") == .command(.photo(path: "~/my rex.jpg")))
        #expect(ReportEntry(line: ":photo") == .command(.photo(path: nil)))
        #expect(ReportEntry(line: ":continue") == .command(.continueStep))
        #expect(ReportEntry(line: ":submit") == .command(.submit))
        #expect(ReportEntry(line: ":help") == .command(.help))
        #expect(ReportEntry(line: ":nope") == .unknownCommand(name: ":nope"))
        #expect(ReportEntry(line: "::nope") == .value(":nope"))
        #expect(PhotoFile.resolve("'~/a b.png'", home: "/home/x") == "/home/x/a b.png")
        #expect(PhotoFile.resolve("~/a\\ b.png", home: "/home/x") == "/home/x/a b.png")
    }

    @Test("CSV fields are quoted as RFC 4180 says; map links")
    func formats() {
        #expect(CSVWriter.record(["a", "b,c", "say \"hi\"", "two\nlines", ""]) == "a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\",\r\n")
        #expect(MapLinks(latitude: "52.22968", longitude: "-21.01223").openStreetMap
            == "https://www.openstreetmap.org/?mlat=52.22968&mlon=-21.01223#map=17/52.22968/-21.01223")
    }

    static let sampleView: JSONValue = [
        "id": "f", "state": "active", "step": "description", "locale": "en",
        "screen": [
            "title": "Animal description", "progress": ["current": 3, "total": 4, "label": "3/4"],
            "heading": "Animal description", "text": "Tell us when your pet went missing.",
            "fields": [
                ["name": "species", "label": "Animal species", "placeholder": "Select an option", "value": nil, "display": nil,
                 "required": true, "enabled": true, "error": "Select the species.", "helper": nil, "counter": nil,
                 "options": [["id": "dog", "name": "Dog"], ["id": "cat", "name": "Cat"]]],
                ["name": "race", "label": "Animal race", "placeholder": "e.g. Labrador", "value": nil, "display": nil,
                 "required": false, "enabled": false, "error": nil, "helper": nil, "counter": nil],
                ["name": "additionalDescription", "label": "Animal additional description (optional)", "placeholder": "Colour…",
                 "value": "Brown collar", "display": "Brown collar", "required": false, "enabled": true, "error": nil,
                 "helper": "Shown to finders.", "counter": "12/500"],
            ],
            "actions": ["continue", "back", "requestLocation"],
            "toast": "Some information must be corrected",
            "alert": [
                "title": "Location access denied", "message": "Ask for access.",
                "actions": [["id": "cancel", "label": "Cancel"],
                            ["id": "openSettings", "label": "Go to Settings", "settings": ["file": "/etc/petspotd.json", "key": "location.enabled"]]],
            ],
        ],
        "values": [:],
    ]
}
