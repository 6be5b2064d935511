import Foundation
import NIOConcurrencyHelpers
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import PetSpotTestSupport
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

    // MARK: Changes made elsewhere

    @Test("a session waiting for a line shows a change made to its flow on another connection, once, with a notice")
    func showsChangeMadeElsewhere() throws {
        let daemon = try DaemonProcess().start()
        let typed = try TypedLines()
        let output = SharedOutput()
        let running = try RunningSession(daemon, input: typed, output: output)
        let other = try daemon.connect()
        let flowID = try running.flowID()
        #expect(output.count(of: "? Microchip number (optional) (00000-00000-00000):\n") == 1)
        _ = try other.result("flow.update", ["flowId": .string(flowID), "values": ["chipNumber": "616091234567890"]])
        try waitUntil("the other connection's chip number on the screen") { output.count(of: "? Microchip number (optional) [61609-12345-67890]:\n") == 1 }
        #expect(output.text.hasSuffix("* This report was changed elsewhere.\n? Microchip number (optional) [61609-12345-67890]:\n"), "\(output.text)")
        #expect(output.count(of: "  Microchip number (optional): 61609-12345-67890\n") == 1)

        // The session's own change is told back by the watch too: that is no change elsewhere.
        typed.send("-")
        try waitUntil("the chip number cleared") { output.count(of: "? Press Enter to continue:\n") == 1 }
        _ = try other.result("flow.update", ["flowId": .string(flowID), "values": ["chipNumber": "616 0912 3456 7891"]])
        try waitUntil("the second change on the screen") { output.count(of: "  Microchip number (optional): 61609-12345-67891\n") == 1 }
        try waitUntil("the prompt again") { output.count(of: "? Press Enter to continue:\n") == 2 }
        #expect(output.count(of: "* This report was changed elsewhere.\n") == 2, "\(output.text)")

        // It goes on from the view it was told: Continue takes the other connection's chip number.
        typed.send("")
        try waitUntil("the photo step") { output.text.contains("? Animal photo (optional) (path to an image file):\n") }
        #expect(try other.result("flow.get", ["flowId": .string(flowID)])[path: "flow", "values", "chipNumber"] == "616091234567891")
        typed.send(":cancel")
        #expect(try running.outcome() == .cancelled)
    }

    @Test("a flow submitted, cancelled or expired elsewhere ends the session waiting for a line, saying so")
    func endedElsewhere() throws {
        let daemon = try DaemonProcess().start()
        let other = try daemon.connect()

        let submitted = SharedOutput()
        let submitting = try RunningSession(daemon, input: try TypedLines(), output: submitted)
        let flowID = try submitting.flowID()
        try walkToSummary(other, flowID)
        let reportID = try #require(try other.result("flow.submit", ["flowId": .string(flowID)])[path: "report", "id"]?.stringValue)
        #expect(try submitting.outcome() == .submittedElsewhere(reportID: reportID))
        #expect(submitted.text.hasSuffix("This report was submitted elsewhere: \(reportID)\nShow it with: petspot reports show \(reportID)\n"),
                "\(submitted.text)")
        #expect(submitted.text.contains("== Summary =="), "each step the other connection went through was shown")
        #expect(submitting.flowIDs == [flowID, nil], "Ctrl-C has nothing left to cancel")

        let cancelled = SharedOutput()
        let cancelling = try RunningSession(daemon, input: try TypedLines(), output: cancelled)
        _ = try other.result("flow.cancel", ["flowId": .string(try cancelling.flowID())])
        #expect(try cancelling.outcome() == .cancelledElsewhere)
        #expect(cancelled.text.hasSuffix("? Microchip number (optional) (00000-00000-00000):\nThis report was cancelled elsewhere; nothing was stored.\n"),
                "\(cancelled.text)")

        let idle = try DaemonProcess(settings: ["limits": ["flowIdleTimeoutSeconds": 1]]).start()
        let expired = SharedOutput()
        let expiring = try RunningSession(idle, input: try TypedLines(), output: expired, locale: .pl)
        #expect(try expiring.outcome() == .expired)
        #expect(expired.text.hasSuffix("To zgłoszenie wygasło: zbyt długo pozostawało niedokończone, nic nie zostało zapisane.\n"), "\(expired.text)")
    }

    /// Forwards to the daemon, but as one older than watches would answer flow.watch.
    final class NoWatchDaemon: DaemonCalling {
        let connection: PetSpotConnection
        private(set) var methods: [String] = []

        init(_ connection: PetSpotConnection) {
            self.connection = connection
        }

        func call(_ method: String, _ params: JSONObject) throws(ClientError) -> Result<JSONValue, RPCError> {
            methods.append(method)
            if method == "flow.watch" { return .failure(RPCError(.methodNotFound, "no method \"flow.watch\"", parameter: "method")) }
            return try connection.call(method, params)
        }
    }

    @Test("a daemon without flow.watch (methodNotFound): the session goes on without watching")
    func withoutWatches() throws {
        let daemon = try DaemonProcess().start()
        let older = NoWatchDaemon(try daemon.connect())
        let output = CapturedOutput()
        let session = ReportSession(daemon: older, notifications: older.connection, input: ScriptedInput(["616 0912 3456 7890", "", ":cancel"]),
                                    output: output, renderer: ScreenRenderer(layout: .plain, style: .plain, copy: .english), copy: .english)
        #expect(try session.run(locale: .en) == .cancelled)
        #expect(older.methods == ["flow.start", "flow.watch", "flow.update", "flow.continue", "flow.cancel"])
        #expect(output.text.contains("? Animal photo (optional) (path to an image file):\n"))
        #expect(!output.text.contains("elsewhere"))
    }

    @Test("stdin's own line reader: several lines in one read, \\r\\n, a last line without newline; a line read ahead is ready at once")
    func standardInputLines() throws {
        let typed = try TypedLines()
        // A watch that never speaks, so that every wait polls stdin and the connection together:
        // a line already in the buffer must be taken without waiting for more input.
        let quiet = try QuietSource()
        typed.write("one\r\ntwo\n\nthr")
        #expect(try typed.input.next(or: quiet) == .line("one"))
        #expect(try typed.input.next(or: quiet) == .line("two"))
        #expect(try typed.input.next(or: quiet) == .line(""))
        typed.write("ee\r")
        typed.close()
        #expect(try typed.input.next(or: quiet) == .line("three"))
        #expect(try typed.input.next(or: quiet) == .ended)
        #expect(try typed.input.next(or: nil) == .ended)
    }

    /// Lines typed into a pipe the session reads as its stdin, one at a time, when the test says.
    final class TypedLines: @unchecked Sendable {
        let input: StandardInput
        private let readEnd: Int32
        private let writeEnd = NIOLockedValueBox<Int32>(-1)

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw TimedOut(description: "pipe: \(String(cString: strerror(errno)))") }
            readEnd = ends[0]
            writeEnd.withLockedValue { $0 = ends[1] }
            input = StandardInput(descriptor: readEnd)
        }

        func send(_ line: String) {
            write(line + "\n")
        }

        func write(_ text: String) {
            writeEnd.withLockedValue { fd in
                let bytes = Array(text.utf8)
                #expect(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
            }
        }

        /// The end of the input.
        func close() {
            writeEnd.withLockedValue { fd in
                if fd >= 0 { Glibc.close(fd) }
                fd = -1
            }
        }

        deinit {
            close()
            Glibc.close(readEnd)
        }
    }

    /// A notification source that has nothing to tell, and after 10 s fails the read, so that a
    /// reader that waits when it should not ends the test instead of hanging it.
    final class QuietSource: NotificationSource, @unchecked Sendable {
        private let ends: [Int32]

        init() throws {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { throw TimedOut(description: "pipe: \(String(cString: strerror(errno)))") }
            self.ends = ends
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { [self] in
                var byte: UInt8 = 1
                _ = Glibc.write(self.ends[1], &byte, 1)
            }
        }

        func notificationIfReady() throws(ClientError) -> DaemonNotification? {
            var entry = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 0) > 0 { throw ClientError("no line came within 10 s") }
            return nil
        }

        var notificationDescriptor: Int32 { ends[0] }

        func discardNotificationsBeforeAnswers() {}

        deinit {
            Glibc.close(ends[0])
            Glibc.close(ends[1])
        }
    }

    /// What the session writes, read by the test while the session runs on its thread.
    final class SharedOutput: TextOutput, Sendable {
        private let written = NIOLockedValueBox("")

        func write(_ text: String) {
            written.withLockedValue { $0 += text }
        }

        var text: String { written.withLockedValue { $0 } }

        func count(of line: String) -> Int {
            text.components(separatedBy: line).count - 1
        }
    }

    /// A plain-mode session on its own connection, run on a thread of its own as `petspot report`
    /// runs it on the main thread, blocked in its waits while the test acts.
    final class RunningSession: @unchecked Sendable {
        private let state = NIOLockedValueBox<(flowIDs: [String?], outcome: Result<ReportSession.Outcome, ReportSession.Failure>?)>(([], nil))
        private let output: SharedOutput

        init(_ daemon: DaemonProcess, input: TypedLines, output: SharedOutput, locale: FlowLocale = .en) throws {
            self.output = output
            let connection = try daemon.connect()
            let state = state
            let session = ReportSession(daemon: connection, notifications: connection, input: input.input, output: output,
                                        renderer: ScreenRenderer(layout: .plain, style: .plain, copy: .forLocale(locale)),
                                        copy: .forLocale(locale), onFlowChange: { id in state.withLockedValue { $0.flowIDs.append(id) } })
            nonisolated(unsafe) let unsafeSession = session
            Thread {
                let outcome = Result { () throws(ReportSession.Failure) in try unsafeSession.run(locale: locale) }
                // The input is the test's to close; the connection is the session's.
                state.withLockedValue { $0.outcome = outcome }
                withExtendedLifetime(input) {}
            }.start()
        }

        var flowIDs: [String?] { state.withLockedValue { $0.flowIDs } }

        /// The flow the session started, once it waits for the first line (and so watches it).
        func flowID() throws -> String {
            try waitUntil("the first prompt") { output.text.contains("\n? ") }
            return try #require(flowIDs.first ?? nil)
        }

        func outcome() throws -> ReportSession.Outcome {
            try waitUntil("the session to end") { state.withLockedValue { $0.outcome != nil } }
            return try state.withLockedValue { $0.outcome! }.get()
        }
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
