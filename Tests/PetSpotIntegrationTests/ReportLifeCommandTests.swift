import Foundation
import NIOConcurrencyHelpers
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// `petspot reports found/withdraw/renew/amend/erase` as a person or a script runs them, against a
/// real daemon; and where each report stands in `reports list` and `reports show`.
@Suite("petspot reports: a report's life", .serialized)
struct ReportLifeCommandTests {
    /// A daemon whose missing reports expire 12 days after they are filed or renewed.
    static func daemon() throws -> DaemonProcess {
        try DaemonProcess(settings: ["reports": ["expireAfterDays": 12]]).start()
    }

    static func petspot(_ arguments: [String], _ daemon: DaemonProcess, input: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram(Paths.petspot, arguments + ["--socket", daemon.socketPath], input: input)
    }

    /// The output's lines, without the padding around them.
    static func lines(_ output: String) -> [String] {
        output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func file(_ conn: PetSpotConnection) throws -> String {
        try #require(try fileReport(conn).submit[path: "report", "id"]?.stringValue)
    }

    static func stored(_ conn: PetSpotConnection, _ id: String) throws -> JSONValue {
        try #require(try conn.result("reports.get", ["reportId": .string(id)])["report"])
    }

    @Test("renew, found and withdraw print the report after the change; the same close again changes nothing; a closed report refuses the rest, exit 1")
    func closeAndRenew() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let id = try Self.file(conn)

        let renewed = try Self.petspot(["reports", "renew", id], daemon)
        #expect(renewed.status == 0 && renewed.stderr.isEmpty, "\(renewed)")
        let renewedLines = Self.lines(renewed.stdout)
        #expect(renewedLines.first == "Report \(id)")
        #expect(renewedLines.contains("Status         missing, expires in 12 days"), "\(renewed.stdout)")
        let after = try Self.stored(conn, id)
        #expect(after["version"] == 2 && after["status"] == "missing")
        #expect(renewedLines.contains("Expires        \(after["expiresAt"]?.stringValue ?? "?")"), "\(renewed.stdout)")
        #expect(renewedLines.contains("Version        2, last changed \(after["updatedAt"]?.stringValue ?? "?")"), "\(renewed.stdout)")

        let found = try Self.petspot(["reports", "found", id], daemon)
        #expect(found.status == 0, "\(found)")
        let foundLines = Self.lines(found.stdout)
        #expect(foundLines.contains("Status         found less than a minute ago"), "\(found.stdout)")
        #expect(foundLines.contains { $0.hasPrefix("Version        3, last changed ") })
        #expect(!foundLines.contains { $0.hasPrefix("Expires") }, "a found report does not expire")
        #expect(foundLines.contains("Microchip      61609-12345-6789"), "the whole report, as show prints it")
        #expect(try Self.stored(conn, id)["status"] == "found")

        // The same close again: the same report, no new version.
        let again = try Self.petspot(["reports", "found", id], daemon)
        #expect(again.status == 0 && again.stdout == found.stdout, "\(again)")
        #expect(try Self.stored(conn, id)["version"] == 3)

        for command in ["withdraw", "renew"] {
            let refused = try Self.petspot(["reports", command, id], daemon)
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(command): \(refused)")
            #expect(refused.stderr.hasPrefix("petspot: reports.\(command == "renew" ? "renew" : "close"): the report is found: "), "\(refused.stderr)")
            #expect(refused.stderr.hasSuffix(" [reportClosed]\n"), "\(refused.stderr)")
        }
        #expect(try Self.stored(conn, id)["version"] == 3, "a refusal changed the report")

        // --json: the report after the change, as the daemon gives it.
        let other = try Self.file(conn)
        let withdrawn = try Self.petspot(["reports", "withdraw", "--json", other], daemon)
        #expect(withdrawn.status == 0, "\(withdrawn)")
        let json = try JSONParser.parse(withdrawn.stdout)
        #expect(json == (try Self.stored(conn, other)))
        #expect(json["status"] == "withdrawn" && json["version"] == 2 && json["expiresAt"] == .null)

        let unknown = try Self.petspot(["reports", "found", "no-such-report"], daemon)
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "petspot: reports.close: no report \"no-such-report\" of yours [reportNotFound]\n", "\(unknown.stderr)")
    }

    @Test("list and show: each report's status, version and how soon it expires or how long ago it ended; --json as the daemon gives it")
    func listAndShowStanding() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let found = try Self.file(conn)
        let missing = try Self.file(conn)
        _ = try conn.result("reports.close", ["reportId": .string(found), "outcome": "found"])

        let list = try Self.petspot(["reports", "list"], daemon)
        #expect(list.status == 0, "\(list)")
        let rows = list.stdout.split(separator: "\n").map(String.init)
        #expect(rows.count == 3, "\(list.stdout)")
        // Columns padded to the widest status.
        func status(_ text: String) -> String { text.padding(toLength: "found less than a minute ago".count, withPad: " ", startingAt: 0) }
        #expect(rows[0].hasSuffix(status("STATUS") + "  VERSION  DELIVERY"), "\(rows[0])")
        #expect(rows[1].hasPrefix(missing) && rows[1].hasSuffix(status("missing, expires in 12 days") + "  1        pending"), "\(rows[1])")
        #expect(rows[2].hasPrefix(found) && rows[2].hasSuffix(status("found less than a minute ago") + "  2        pending"), "\(rows[2])")

        let show = try Self.petspot(["reports", "show", missing], daemon)
        #expect(Self.lines(show.stdout).prefix(3) == ["Report \(missing)", "Status         missing, expires in 12 days",
                                                      "Expires        \(try Self.stored(conn, missing)["expiresAt"]?.stringValue ?? "?")"],
                "\(show.stdout)")

        let json = try Self.petspot(["reports", "list", "--json"], daemon)
        let reports = try json.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(reports == [try Self.stored(conn, missing), try Self.stored(conn, found)])
    }

    @Test("list --watch tells each change made elsewhere with where the report then stands and its version")
    func watched() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let id = try Self.file(conn)
        let watch = try FollowingProgram(["reports", "list", "--watch", "--socket", daemon.socketPath])
        func lines() -> [String] { watch.lines }
        try waitUntil("the list") { lines().count >= 2 }
        #expect(lines()[1].contains("missing, expires in 12 days"), "\(lines())")

        _ = try conn.result("reports.close", ["reportId": .string(id), "outcome": "found"])
        try waitUntil("the change to be told\n\(lines())") { lines().count >= 3 }
        _ = try conn.result("reports.erase", ["reportId": .string(id)])
        try waitUntil("the erasure to be told\n\(lines())") { lines().count >= 4 }
        #expect(try watch.interrupt() == 0)
        let told = Array(lines().dropFirst(2))
        #expect(told[0].hasPrefix("updated    \(id)  ") && told[0].hasSuffix("  found less than a minute ago  version 2"), "\(told)")
        #expect(told[1].hasPrefix("updated    \(id)  ") && told[1].hasSuffix("  -  found, erased  version 3"), "the chip gone too: \(told)")
    }

    @Test("an expired report: expired, how long ago, and no expiry; renew makes it missing again")
    func expired() throws {
        // 0.00003 days: 2.6 s. Erased a year later, the default.
        let days = JSONValue.number(JSONNumber(validatedLiteral: "0.00003"))
        let daemon = try DaemonProcess(settings: ["reports": ["expireAfterDays": days]]).start()
        let conn = try daemon.connect()
        let id = try Self.file(conn)
        try waitUntil("the report to expire", seconds: 30) { try Self.stored(conn, id)["status"] == "expired" }

        let list = try Self.petspot(["reports", "list"], daemon)
        #expect(list.stdout.split(separator: "\n").last?.hasSuffix("expired less than a minute ago  2        pending") == true, "\(list.stdout)")
        let show = try Self.petspot(["reports", "show", id], daemon)
        let lines = Self.lines(show.stdout)
        #expect(lines.contains("Status         expired less than a minute ago"), "\(show.stdout)")
        #expect(!lines.contains { $0.hasPrefix("Expires") })

        // Renewed, it is missing again, for another 2.6 s: it may expire again before petspot
        // prints it, so the daemon's answer decides what the line says.
        let renewed = try Self.petspot(["reports", "renew", "--json", id], daemon)
        let report = try JSONParser.parse(renewed.stdout)
        #expect(renewed.status == 0 && report["status"] == "missing" && report["version"] == 3, "\(renewed)")
    }

    @Test("amend: several fields at once, normalised by the flow; --clear and a new photo; a refused value names the flag and the field and changes nothing")
    func amend() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let id = try Self.file(conn)
        let filed = try Self.stored(conn, id)

        let amended = try Self.petspot(["reports", "amend", id, "--phone", "+48 601-234-999", "--email", " new@example.org ",
                                        "--race", "Terrier", "--age", "5", "--latitude", "51.5", "--longitude", "-0.1276",
                                        "--description", "Red collar\nlimps", "--chip", "616 09 1111 2222 3"], daemon)
        #expect(amended.status == 0 && amended.stderr.isEmpty, "\(amended)")
        let lines = Self.lines(amended.stdout)
        for line in ["Version        2, last changed", "Phone          +48601234999", "Email          new@example.org", "Race           Terrier",
                     "Age            5 years", "Last seen      51.50000, -0.12760", "Description    Red collar", "limps",
                     "Microchip      61609-11112-2223"] {
            #expect(lines.contains { $0.hasPrefix(line) }, "\(line)\n\(amended.stdout)")
        }
        let report = try Self.stored(conn, id)
        #expect(report["version"] == 2 && report[path: "values", "additionalDescription"] == "Red collar\nlimps")
        #expect(report[path: "values", "species"] == filed[path: "values", "species"], "what was not named stays")

        // A new photo and an emptied field; the photo read from a file as petspot report reads it.
        let photoPath = daemon.directory.appendingPathComponent("rex-2.png").path
        let newPhoto = Array(pngBytes.prefix(8)) + Array(repeating: 9, count: 300)
        try Data(newPhoto).write(to: URL(fileURLWithPath: photoPath))
        let second = try Self.petspot(["reports", "amend", id, "--photo", photoPath, "--clear", "age", "--clear", "phone"], daemon)
        #expect(second.status == 0, "\(second)")
        #expect(Self.lines(second.stdout).contains("Age            -"), "\(second.stdout)")
        #expect(Self.lines(second.stdout).contains("Photo          image/png, 308 B (308 bytes)"), "\(second.stdout)")
        let cleared = try Self.stored(conn, id)
        #expect(cleared["version"] == 3 && cleared[path: "values", "age"] == .null && cleared[path: "values", "contactPhone"] == .null)

        // Refused: one line naming the flag, the field and the flow's message; nothing changed,
        // not even the value beside it that was fine.
        let refusals: [([String], String)] = [
            (["--email", "not an address", "--race", "Collie"],
             "petspot: reports.amend: --email (values.contactEmail): Enter an email address like name@example.com. [invalidParams]\n"),
            (["--species", "cat"], "petspot: reports.amend: --race (values.race): "),
            (["--clear", "email"], "petspot: reports.amend: --phone (values.contactPhone): "),
            (["--age", "99"], "petspot: reports.amend: --age (values.age): "),
        ]
        for (arguments, message) in refusals {
            let refused = try Self.petspot(["reports", "amend", id] + arguments, daemon)
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(arguments): \(refused)")
            #expect(refused.stderr.hasPrefix(message) && refused.stderr.hasSuffix(" [invalidParams]\n"), "\(arguments): \(refused.stderr)")
        }
        // Refused before any call: an empty value, a field both set and cleared, an unreadable photo.
        for (arguments, status) in [(["--phone", ""], 64), (["--age", "3", "--clear", "age"], 64), (["--photo", "/nonexistent/rex.png"], 64)] as [([String], Int32)] {
            let refused = try Self.petspot(["reports", "amend", id] + arguments, daemon)
            #expect(refused.status == status && refused.stdout.isEmpty, "\(arguments): \(refused)")
        }
        #expect(try Self.stored(conn, id) == cleared, "a refused amendment changed the report")

        _ = try conn.result("reports.close", ["reportId": .string(id), "outcome": "found"])
        let closed = try Self.petspot(["reports", "amend", id, "--age", "6"], daemon)
        #expect(closed.status == 1 && closed.stderr.hasPrefix("petspot: reports.amend: the report is found: ") && closed.stderr.hasSuffix(" [reportClosed]\n"),
                "\(closed)")
    }

    @Test("erase --yes erases and prints what is left; without --yes and no terminal it erases nothing and exits 64")
    func eraseInScripts() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let kept = try Self.file(conn)
        let erased = try Self.file(conn)

        for input in [nil, "yes\n", "\(kept.prefix(8))\n"] {
            let refused = try Self.petspot(["reports", "erase", kept], daemon, input: input)
            #expect(refused.status == 64 && refused.stdout.isEmpty, "\(refused)")
            #expect(refused.stderr == "petspot: reports erase: standard input is not a terminal, so there is nobody to ask; nothing was erased. "
                        + "To erase without asking, add --yes.\n", "\(refused.stderr)")
        }
        let untouched = try Self.stored(conn, kept)
        #expect(untouched["erased"] == false && untouched["version"] == 1 && untouched[path: "values", "contactEmail"] == "owner@example.org")

        let run = try Self.petspot(["reports", "erase", "--yes", erased], daemon)
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run)")
        let lines = Self.lines(run.stdout)
        for line in ["Report \(erased)", "Status         withdrawn, erased", "Microchip      -", "Species        Dog", "Email          -",
                     "Phone          -", "Photo          -", "Last seen      -"] {
            #expect(lines.contains(line), "\(line)\n\(run.stdout)")
        }
        let report = try Self.stored(conn, erased)
        #expect(report["erased"] == true && report["status"] == "withdrawn" && report[path: "values", "contactEmail"] == .null)
        // Again: the same report, unchanged.
        let again = try Self.petspot(["reports", "erase", "--yes", "--json", erased], daemon)
        #expect(again.status == 0, "\(again)")
        #expect(try JSONParser.parse(again.stdout) == report)
        let found = try Self.petspot(["reports", "found", erased], daemon)
        #expect(found.status == 1 && found.stderr.hasSuffix(" [reportErased]\n"), "\(found)")
    }

    @Test("erase on a terminal: the report and what erasing removes, then the start of its id confirms; anything else erases nothing")
    func eraseOnATerminal() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let id = try Self.file(conn)
        let code = String(id.prefix(8))
        let question = "Type \(code) (the start of its id) to erase it, anything else keeps it:"

        let declined = try TmuxSession([Paths.petspot, "reports", "erase", id, "--socket", daemon.socketPath], directory: daemon.directory)
        var screen = try declined.waitFor(question)
        #expect(screen.contains("Report \(id)") && screen.contains("Email          owner@example.org"), "\(screen)")
        #expect(screen.contains("This cannot be undone."))
        try declined.type("yes")
        #expect(try declined.waitForExit() == 1)
        screen = try declined.screen()
        #expect(screen.contains("petspot: nothing was erased."), "\(screen)")
        #expect(try Self.stored(conn, id)["erased"] == false)

        let confirmed = try TmuxSession([Paths.petspot, "reports", "erase", id, "--socket", daemon.socketPath], directory: daemon.directory)
        try confirmed.waitFor(question)
        try confirmed.type(code)
        #expect(try confirmed.waitForExit() == 0)
        #expect(try confirmed.screen().contains("Status         withdrawn, erased"))
        #expect(try Self.stored(conn, id)["erased"] == true)

        // An erased report is erased again without a question: there is nothing left to lose.
        let again = try TmuxSession([Paths.petspot, "reports", "erase", id, "--socket", daemon.socketPath], directory: daemon.directory)
        #expect(try again.waitForExit() == 0)
        #expect(try !again.screen().contains("Type "))
    }
}
