import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import PetSpotTestSupport
import Testing

@testable import petspot

/// petspot and petspot-relay against a daemon (`ScriptedDaemon`, `HostileAnswers`) whose every
/// answer carries text that would drive a terminal: well-formed answers, answers the strict
/// readers refuse, error answers, and answers that are not JSON-RPC or not JSON. Whatever a
/// command prints, on standard output or standard error, and whatever the relay logs or keeps
/// in its state file, carries none of it raw: no C0 control but the line feed that ends a line,
/// no DEL, no C1 control, no line or paragraph separator and no bidirectional control. The
/// text itself must show (escaped), so that a command that printed nothing passes for nothing.
@Suite("Nothing a daemon answers acts on the terminal", .serialized)
struct HostileDaemonTests {
    typealias Way = HostileAnswers.Way

    /// What a terminal would act on, or what would reorder what it shows; the line feed is a
    /// line's end. Written out here rather than taken from the code under test.
    static func actsOnTerminal(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// The characters of `output` a terminal would act on, each with what surrounds it; with
    /// `crlfLineEnds`, a carriage return right before a line feed is a CSV record's end.
    static func rawControls(_ output: String, crlfLineEnds: Bool = false) -> [String] {
        let scalars = Array(output.unicodeScalars)
        var found: [String] = []
        for (index, scalar) in scalars.enumerated() where actsOnTerminal(scalar) {
            if crlfLineEnds, scalar == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { continue }
            let context = String(String.UnicodeScalarView(scalars[max(index - 12, 0)..<min(index + 12, scalars.count)]))
            found.append("U+\(String(scalar.value, radix: 16, uppercase: true)) in \(context.debugDescription)")
        }
        return found
    }

    struct Run {
        let what: String
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs a program, and checks what it printed: nothing raw, the text shown, and at most one
    /// line of its own on standard error (a message quoting the daemon cannot forge a second).
    @discardableResult
    static func check(_ path: String, _ arguments: [String], input: String? = nil, way: Way, crlfLineEnds: Bool = false,
                      textShown: Bool = true, oneErrorLine: Bool = true) throws -> Run {
        let result = try runProgram(path, arguments, input: input, environment: [:])
        let what = "\(way): \((path as NSString).lastPathComponent) \(arguments.joined(separator: " "))"
        let run = Run(what: what, status: result.status, stdout: result.stdout, stderr: result.stderr)
        let raw = rawControls(run.stdout, crlfLineEnds: crlfLineEnds) + rawControls(run.stderr)
        #expect(raw.isEmpty, "\(what): \(raw.prefix(5))")
        if textShown {
            #expect((run.stdout + run.stderr).contains(HostileAnswers.marker), "\(what) showed none of the daemon's text:\n\(run.stdout)\n\(run.stderr)")
        }
        if oneErrorLine {
            // `reports list --watch --json` notes a missed change on standard error, its output being JSON.
            let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .filter { $0 != "some changes were missed; the list as it is now:" }
            #expect(lines.count <= 1 && (run.stderr.isEmpty || run.stderr.hasSuffix("\n")), "\(what): \(run.stderr.debugDescription)")
        }
        return run
    }

    @Test("petspot: status, location (once, watched, JSON), reports list (JSON, all, watched), show, export, found, withdraw, renew, amend, erase, call, animals (list, watched, show, lookup), completion",
          arguments: Way.allCases)
    func petspotCommands(way: Way) throws {
        let fake = try ScriptedDaemon(script: HostileAnswers.script(way))
        defer { fake.stop() }
        let socket = ["--socket", fake.socketPath]
        let photo = fake.directory.appendingPathComponent("rex.png").path
        try Data(pngBytes).write(to: URL(fileURLWithPath: photo))
        let saved = fake.directory.appendingPathComponent("saved.png").path
        let commands: [[String]] = [
            ["status"], ["location"], ["location", "--json"], ["location", "--watch"], ["location", "--watch", "--json"],
            ["reports", "list"], ["reports", "list", "--json"], ["reports", "list", "--all"],
            ["reports", "list", "--watch"], ["reports", "list", "--watch", "--json"],
            ["reports", "show", "r1"], ["reports", "show", "--json", "r1"],
            ["reports", "export", "--format", "ndjson"],
            ["reports", "found", "r1"], ["reports", "withdraw", "r1"], ["reports", "renew", "r1"], ["reports", "renew", "--json", "r1"],
            ["reports", "amend", "r1", "--phone", "+48 601 234 999", "--clear", "age"], ["reports", "erase", "--yes", "r1"],
            ["reports", "amend", "r1", "--photo", photo], ["reports", "erase", "--yes", "--json", "r1"],
            ["call", "daemon.info"], ["call", "reports.get", #"{"reportId":"r1"}"#],
            ["animals"], ["animals", "--json"], ["animals", "--all"], ["animals", "--watch"], ["animals", "--watch", "--json"],
            ["animals", "show", "a1"], ["animals", "show", "--json", "a1"], ["animals", "show", "a1", "--photo", saved],
            ["animals", "lookup", "616091234567890"], ["animals", "lookup", "--json", "616091234567890"],
        ]
        let runs = try commands.map { try Self.check(Paths.petspot, $0 + socket, way: way) }
        // The table of methods: a refused rpc.discover has no member that can quote the daemon.
        let methods = try Self.check(Paths.petspot, ["call", "--list"] + socket, way: way, textShown: way != .refusedValue)
        let csv = try Self.check(Paths.petspot, ["reports", "export", "--format", "csv"] + socket, way: way, crlfLineEnds: true)

        if way == .wellFormed {
            for run in runs where !run.what.contains("--watch") {
                #expect(run.status == 0, "\(run.what): \(run.stderr)")
            }
            // A watch prints what came, then ends at the change that does not fit, saying so.
            for run in runs where run.what.contains("--watch") {
                #expect(run.status == 69 && run.stdout.contains(HostileAnswers.marker) && run.stderr.contains("does not fit the protocol"),
                        "\(run.what): \(run.stdout)\(run.stderr)")
            }
            #expect(methods.status == 0 && csv.status == 0)
            // The same document, every string as it came: JSON escapes spare the terminal, not the data.
            let json = try #require(runs.first { $0.what.hasSuffix("reports list --json --socket \(fake.socketPath)") })
            let first = try JSONParser.parse(String(json.stdout.split(separator: "\n")[0]))
            #expect(first[path: "values", "race"] == .string(HostileAnswers.text))
            #expect(first["delivery"] == ["state": "pending"])
            // Each line whole and in the order written: the list first, then what the watch told.
            // A single report (show, or one changed) is indented JSON over several lines.
            for run in runs where run.what.contains("--json") && ![" show ", " renew ", " erase "].contains(where: run.what.contains) {
                for line in run.stdout.split(separator: "\n") {
                    #expect((try? JSONParser.parse(String(line))) != nil, "\(run.what): \(line.prefix(300))")
                }
            }
            let watched = try #require(runs.first { $0.what.contains("reports list --watch --socket") })
            #expect(watched.stdout.hasPrefix("ID "), "\(watched.stdout.prefix(300))")
        } else {
            for run in runs + [methods, csv] {
                // `call` prints what it is given, refused by no reader; an error answer exits 1.
                let calls = run.what.contains(" call ") && !run.what.contains("--list")
                let expected: Set<Int32> = calls ? [way == .refusedValue ? 0 : way == .errorAnswer ? 1 : 69] : [1, 69]
                #expect(expected.contains(run.status), "\(run.what): \(run.status) \(run.stderr)")
            }
        }

        // Shell completion offers no report id a terminal would act on.
        let completion = try runProgram(Paths.petspot, ["---completion", "reports", "show", "--", "positional@0", "4", "0",
                                                        Paths.petspot, "reports", "show"] + socket + [""], environment: [:])
        #expect(Self.rawControls(completion.stdout + completion.stderr).isEmpty, "\(completion.stdout.debugDescription)")
        // Nor a species id.
        let species = try runProgram(Paths.petspot, ["---completion", "reports", "amend", "--", "--species", "7", "0",
                                                     Paths.petspot, "reports", "amend", "r1"] + socket + ["--species", ""], environment: [:])
        #expect(Self.rawControls(species.stdout + species.stderr).isEmpty, "\(species.stdout.debugDescription)")
        if way == .wellFormed { #expect(species.stdout == "dog\n", "\(species.stdout.debugDescription)") }
    }

    @Test("reports erase's question on a terminal shows the daemon's report, and the start of its id, visibly")
    func eraseQuestion() throws {
        let fake = try ScriptedDaemon(script: HostileAnswers.script(.wellFormed))
        defer { fake.stop() }
        let conn = try PetSpotConnection(socketPath: fake.socketPath)
        let report = try ReportAnswer(json: ["report": HostileAnswers.report(1)]).report
        let question = ReportsEraseCommand.question(report, species: SpeciesNames(conn), now: Date())
        let raw = Self.rawControls(question)
        #expect(raw.isEmpty, "\(raw.prefix(5))")
        #expect(question.contains(#"PWNED\u{7}\u{1B}[2J\u{9B}31m\r\u{8}\t"#), "\(question)")
        #expect(question.hasSuffix("Type r1-allow (the start of its id) to erase it, anything else keeps it: "), "\(question.suffix(100))")
    }

    /// The plain mode's answers: a species by number, cleared, kept; :gps and Go to Settings on
    /// the alert; :continue refused; :back, :help, :submit.
    static let reportInput = ["1", "-", "", ":gps", "2", ":continue", ":back", ":help", ":submit"].joined(separator: "\n") + "\n"

    @Test("petspot report, its answers piped in, against a flow answered in every way", arguments: Way.allCases)
    func report(way: Way) throws {
        // daemon.info answered as it should: what comes after it is what is tried.
        let fake = try ScriptedDaemon(script: HostileAnswers.script(way, overrides: ["daemon.info": .wellFormed]))
        defer { fake.stop() }
        let run = try Self.check(Paths.petspot, ["report", "--socket", fake.socketPath], input: Self.reportInput, way: way)
        if way == .wellFormed {
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            #expect(fake.received("flow.submit") == 1 && fake.received("flow.requestLocation") == 1 && fake.received("flow.back") == 1)
        } else {
            #expect(run.status != 0)
        }
    }

    @Test("the full-screen renderer (a terminal on both ends) draws the view, its alert and notices quoting the daemon visibly")
    func fullScreenRenderer() throws {
        let view = try FlowView(json: HostileAnswers.flow(refusing: false, alert: true))
        let renderer = ScreenRenderer(layout: .fullScreen(width: 100), style: .plain, copy: .english)
        let notices: [Notice] = [.problem(HostileAnswers.text), .info(HostileAnswers.text, details: [HostileAnswers.text])]
        var drawn = ""
        for focus in [ReportFocus.field("species"), .field("race"), .proceed, .alert] {
            let frame = renderer.frame(view, focus: focus, change: .screen, notices: notices)
            #expect(frame.hasPrefix(Terminal.clearScreen))
            drawn += frame.dropFirst(Terminal.clearScreen.count) + renderer.prompt(view, focus: focus)
        }
        drawn += renderer.submitted(reportID: HostileAnswers.text) + renderer.submittedElsewhere(reportID: HostileAnswers.text)
            + renderer.immediate(.problem(HostileAnswers.text))
        let raw = Self.rawControls(drawn)
        #expect(raw.isEmpty, "\(raw.prefix(5))")
        #expect(drawn.contains(#"PWNED\u{7}\u{1B}[2J\u{9B}31m\r\u{8}\t"#), "\(drawn)")
    }

    @Test("petspot report against a flow that starts, and whose every later call is answered with an error")
    func reportWithErrors() throws {
        let fake = try ScriptedDaemon(script: HostileAnswers.script(.errorAnswer, overrides: [
            "daemon.info": .wellFormed, "flow.start": .wellFormed, "flow.watch": .wellFormed,
        ]))
        defer { fake.stop() }
        let run = try Self.check(Paths.petspot, ["report", "--socket", fake.socketPath], input: Self.reportInput, way: .errorAnswer)
        #expect(run.status == 1)
        #expect(fake.received("flow.update") >= 1 && fake.received("flow.submit") == 1 && fake.received("flow.cancel") == 1)
    }

    @Test("petspot-relay: --status, and a run without PostgreSQL that watches the daemon", arguments: Way.allCases)
    func relayWithoutPostgres(way: Way) throws {
        let fake = try ScriptedDaemon(script: HostileAnswers.script(way))
        defer { fake.stop() }
        let noState = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-no-state-\(UUID().uuidString.prefix(8)).json").path
        let status = try Self.check(Paths.petspotRelay, ["--status", "--socket", fake.socketPath, "--state-file", noState], way: way,
                                    textShown: way != .refusedValue, oneErrorLine: false)
        #expect(status.status == (way == .wellFormed ? 3 : 2), "\(status.stdout)")

        // Port 1 refuses at once: the relay gets as far as watching the daemon for filed reports.
        let relay = try RelayProcess(socket: fake.socketPath, postgresURL: "postgresql://relay@127.0.0.1:1/petspot", box: "box")
        relay.arguments += ["--log-level", "debug"]
        try relay.start()
        let told = way == .wellFormed ? "watching petspotd for filed reports" : "not watching petspotd"
        try waitUntil("the relay to watch the daemon\n\(relay.log)") { relay.logLines(containing: told) > 0 && relay.logLines(containing: "PostgreSQL unreachable") > 0 }
        #expect(try relay.stop() == 0)
        let raw = Self.rawControls(relay.log)
        #expect(raw.isEmpty, "\(way): \(raw.prefix(5))")
        // The refusals of relay.watch that can quote the daemon do.
        if ![.wellFormed, .refusedValue].contains(way) {
            #expect(relay.log.contains(HostileAnswers.marker), "\(relay.log)")
        }
        try Self.check(Paths.petspotRelay, ["--status", "--socket", fake.socketPath, "--state-file", relay.statePath], way: way,
                       textShown: way != .refusedValue, oneErrorLine: false)
    }

    @Test("petspot-relay delivering to PostgreSQL from a daemon whose claims, acknowledgements and refusals carry the text")
    func relayWithPostgres() throws {
        let server = try PostgresServer()
        defer { try? server.stop() }
        let cases: [(name: String, claim: Way, ack: Way)] = [
            ("claimed and acknowledged", .wellFormed, .wellFormed), ("acknowledgement refused", .wellFormed, .errorAnswer),
        ] + Way.allCases.filter { $0 != .wellFormed }.map { ("claim: \($0)", $0, .wellFormed) }
        for (index, test) in cases.enumerated() {
            let fake = try ScriptedDaemon(script: HostileAnswers.script(test.claim, overrides: [
                "relay.watch": .wellFormed, "relay.ack": test.ack, "relay.status": .wellFormed,
            ], box: "box-\(index)"))
            defer { fake.stop() }
            let relay = try RelayProcess(socket: fake.socketPath, postgresURL: server.url(), box: "box-\(index)")
            try relay.start()
            // The first claim is stored and acknowledged; the second has a time PostgreSQL
            // refuses, quoting it; a claim that does not fit is asked again.
            try waitUntil("\(test.name): the relay to claim twice\n\(relay.log)") {
                fake.received("relay.claim") >= 2 && (test.claim != .wellFormed || fake.received("relay.ack") >= 1)
            }
            try waitUntil("\(test.name): the relay to log what the daemon or PostgreSQL said\n\(relay.log)") {
                relay.log.contains(HostileAnswers.marker)
            }
            // The state file is written after the log line: --status reads the error from it.
            try waitUntil("\(test.name): the relay's state file to keep its last error\n\(logText(at: relay.statePath))") {
                (try? JSONParser.parse(logText(at: relay.statePath)))?["lastErrorAt"]?.stringValue != nil
            }
            #expect(try relay.stop() == 0)
            let raw = Self.rawControls(relay.log) + Self.rawControls(logText(at: relay.statePath))
            #expect(raw.isEmpty, "\(test.name): \(raw.prefix(5))")
            let status = try Self.check(Paths.petspotRelay, ["--status", "--socket", fake.socketPath, "--state-file", relay.statePath],
                                        way: test.claim, oneErrorLine: false)
            #expect(status.status == 1, "\(test.name): \(status.stdout)")
        }
        // What was stored centrally is the daemon's text as it came: escaping is for people.
        #expect(try server.psql("SELECT count(*) FROM reports WHERE report->'values'->>'race' = \(Self.sqlLiteral(HostileAnswers.text))") == "1")
    }

    static func sqlLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
