import Foundation
import NIOConcurrencyHelpers
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// `petspot report` driven as a person drives it: on a real terminal in tmux, and through a pipe.
@Suite("petspot report", .serialized)
struct ReportCommandTests {
    @Test("a whole report on a terminal: chip, back, photo from a file, refused Continue, GPS, summary, submit")
    func wholeReportOnATerminal() throws {
        let daemon = try DaemonProcess().start()
        let photo = try writePhoto(in: daemon)
        let tmux = try TmuxSession([Paths.petspot, "report", "--socket", daemon.socketPath], directory: daemon.directory)

        var screen = try tmux.waitForPrompt("Microchip number (optional)")
        #expect(screen.contains(" Microchip number"))
        #expect(screen.contains("1/4"))
        #expect(screen.contains("Microchip identification is the most efficient way to reunite with your pet."))
        #expect(screen.contains("00000-00000-00000"), "the placeholder")
        let flowID = try #require(Self.flowID(in: screen))

        try tmux.type("616 0912 3456 7890")
        screen = try tmux.waitForPrompt("Press Enter to continue")
        #expect(screen.contains("61609-12345-67890"), "the daemon's display of the chip")
        #expect(screen.contains("The first three digits, 616, are an ISO 3166 numeric country code."))
        try tmux.type("")
        screen = try tmux.waitForPrompt("Animal photo (optional)")
        #expect(screen.contains("2/4"))

        // Back keeps the chip: it is the default of the prompt.
        try tmux.type(":back")
        screen = try tmux.waitForPrompt("Microchip number (optional) [61609-12345-67890]")
        #expect(screen.contains("1/4"))
        try tmux.type("")
        try tmux.waitForPrompt("Press Enter to continue")
        try tmux.type("")
        try tmux.waitForPrompt("Animal photo (optional)")

        try tmux.type(photo)
        screen = try tmux.waitForPrompt("Press Enter to continue")
        #expect(screen.contains("image/png, \(pngBytes.count) B"))
        let shownSHA = try #require(Self.firstMatch(#"rex\.png, SHA-256\s+([0-9a-f]{64})"#, in: screen), "\(screen)")
        try tmux.type("")

        // Continue with nothing chosen is refused: the toast, an error under each field at
        // fault, and the prompt starts again at the first of them.
        try tmux.waitForPrompt("Date of disappearance")
        try tmux.type(":continue")
        screen = try tmux.waitForPrompt("Animal species")
        #expect(screen.contains("3/4"))
        #expect(screen.contains("Some information must be corrected"))
        #expect(screen.contains("Select the species."))
        #expect(screen.contains("Select the gender."))
        #expect(screen.contains("1 Dog"), "species are offered by number")

        try tmux.type("1")
        try tmux.waitForPrompt("Animal race")
        try tmux.type("Beagle")
        try tmux.waitForPrompt("Gender")
        try tmux.type("male")
        try tmux.waitForPrompt("Animal age (optional)")
        // A refused value is asked again, with the daemon's error.
        try tmux.type("41")
        screen = try tmux.waitFor("Enter the age in whole years, from 0 to 40.")
        try tmux.waitForPrompt("Animal age (optional)")
        try tmux.type("4")
        try tmux.waitForPrompt("Latitude (optional)")
        try tmux.type(":gps")
        screen = try tmux.waitForPrompt("Latitude (optional) [52.22968]")
        #expect(screen.contains("GPS position found and filled in (source: simulated)."))
        try tmux.type("")
        try tmux.waitForPrompt("Longitude (optional) [21.01223]")
        try tmux.type("")
        try tmux.waitForPrompt("Animal additional description (optional)")
        try tmux.type("Brown collar")
        screen = try tmux.waitForPrompt("Press Enter to continue")
        #expect(screen.contains("12/500"), "the counter")
        try tmux.type("")

        screen = try tmux.waitForPrompt("Phone number")
        #expect(screen.contains("4/4"))
        try tmux.type("")
        try tmux.waitForPrompt("Email address")
        try tmux.type("owner@example.org")
        try tmux.waitForPrompt("Press Enter to continue")
        try tmux.type("")

        screen = try tmux.waitForPrompt("Type :submit to send the report")
        for text in ["Summary", "Check your report", "61609-12345-67890", "image/png", "Dog", "Beagle", "Male", "4 years",
                     "52.22968", "21.01223", "Brown collar", "Not provided", "owner@example.org"] {
            #expect(screen.contains(text), "the summary shows \(text)")
        }
        try tmux.type(":submit")
        #expect(try tmux.waitForExit() == 0)
        screen = try tmux.screen()
        let reportID = try #require(Self.reportID(in: screen), "\(screen)")

        // What the daemon stored is what was typed on the terminal.
        let conn = try daemon.connect()
        let report = try conn.result("reports.get", ["reportId": .string(reportID)])["report"]!
        #expect(report["flowId"] == .string(flowID))
        #expect(report[path: "values", "chipNumber"] == "616091234567890")
        #expect(report[path: "values", "species"] == "dog")
        #expect(report[path: "values", "race"] == "Beagle")
        #expect(report[path: "values", "gender"] == "male")
        #expect(report[path: "values", "age"] == 4)
        #expect(JSONWriter.string(report[path: "values", "latitude"]!) == "52.22968")
        #expect(report[path: "values", "additionalDescription"] == "Brown collar")
        #expect(report[path: "values", "contactEmail"] == "owner@example.org")
        #expect(report[path: "values", "photo", "bytes"] == .int(pngBytes.count))
        #expect(report[path: "values", "photo", "sha256"] == .string(shownSHA))
        #expect(try conn.result("flow.get", ["flowId": .string(flowID)])[path: "flow", "reportId"] == .string(reportID))
    }

    @Test("permission denied: the alert with its two actions; Go to Settings names the setting; Cancel closes it")
    func permissionDeniedAlert() throws {
        let daemon = try DaemonProcess(arguments: ["--simulated-mode", "permission-denied"]).start()
        let tmux = try TmuxSession([Paths.petspot, "report", "--socket", daemon.socketPath], directory: daemon.directory)
        let screen0 = try tmux.waitForPrompt("Microchip number (optional)")
        let flowID = JSONValue.string(try #require(Self.flowID(in: screen0)))
        for prompt in ["Microchip number (optional)", "Press Enter to continue", "Animal photo (optional)", "Press Enter to continue"] {
            try tmux.waitForPrompt(prompt)
            try tmux.type("")
        }
        try tmux.waitForPrompt("Date of disappearance")
        let conn = try daemon.connect()

        try tmux.type(":gps")
        var screen = try tmux.waitForPrompt("Choose 1–2")
        #expect(screen.contains("Location access denied"))
        #expect(screen.contains("1 Cancel"))
        #expect(screen.contains("2 Go to Settings"))
        #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "screen", "alert"] != .null)

        // Go to Settings: the file and the key to change, and the alert is closed.
        try tmux.type("2")
        screen = try tmux.waitForPrompt("Date of disappearance")
        #expect(screen.contains("\"location.simulated.mode\""))
        #expect(screen.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: " ", with: "")
            .contains(daemon.configPath.replacingOccurrences(of: " ", with: "")))
        #expect(!screen.contains("Location access denied"))
        #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "screen", "alert"] == .null)

        // Cancel (here: Enter) closes it and leaves the coordinates as they were.
        try tmux.type(":gps")
        try tmux.waitForPrompt("Choose 1–2")
        #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "screen", "alert"] != .null)
        try tmux.type("")
        screen = try tmux.waitForPrompt("Date of disappearance")
        #expect(!screen.contains("Location access denied"))
        let flow = try conn.result("flow.get", ["flowId": flowID])["flow"]!
        #expect(flow[path: "screen", "alert"] == .null)
        #expect(flow[path: "values", "latitude"] == .null)
        #expect(flow["step"] == "description")
    }

    @Test("Ctrl-C cancels the flow on the daemon, even while a location request is waiting, and exits 130")
    func controlCCancels() throws {
        let daemon = try DaemonProcess(settings: ["location": ["timeoutMs": 60_000]], arguments: ["--simulated-mode", "no-fix"]).start()
        let tmux = try TmuxSession([Paths.petspot, "report", "--socket", daemon.socketPath], directory: daemon.directory)
        let flowID = JSONValue.string(try #require(Self.flowID(in: try tmux.waitForPrompt("Microchip number (optional)"))))
        for prompt in ["Microchip number (optional)", "Press Enter to continue", "Animal photo (optional)", "Press Enter to continue"] {
            try tmux.waitForPrompt(prompt)
            try tmux.type("")
        }
        try tmux.waitForPrompt("Date of disappearance")
        let conn = try daemon.connect()
        #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "state"] == "active")

        // The no-fix provider holds this request for a minute; Ctrl-C must not wait for it.
        try tmux.type(":gps")
        try tmux.waitFor("Requesting the GPS position…")
        try tmux.press("C-c")
        #expect(try tmux.waitForExit(seconds: 20) == 130)
        let screen = try tmux.screen()
        #expect(screen.contains("petspot: interrupted: the report was cancelled and nothing was stored"))
        #expect(try conn.failure("flow.get", ["flowId": flowID]).kind == .flowNotFound)
    }

    @Test("a daemon that goes away: one clear line and exit 69")
    func lostDaemon() throws {
        let daemon = try DaemonProcess().start()
        let tmux = try TmuxSession([Paths.petspot, "report", "--socket", daemon.socketPath], directory: daemon.directory)
        try tmux.waitForPrompt("Microchip number (optional)")
        // While it waits for a line it watches the flow, so the end of the connection shows at once.
        try daemon.kill()
        #expect(try tmux.waitForExit() == 69)
        let screen = try tmux.screen()
        let lines = screen.split(separator: "\n").filter { $0.hasPrefix("petspot:") }
        #expect(lines.count == 1, "\(screen)")
        #expect(lines.first?.hasPrefix("petspot: lost the connection to petspotd") == true, "\(screen)")
    }

    @Test("colour on a terminal, none with NO_COLOR, plain lines with TERM=dumb")
    func colourAndDumbTerminals() throws {
        let daemon = try DaemonProcess().start()
        let command = [Paths.petspot, "report", "--socket", daemon.socketPath]
        let coloured = try TmuxSession(command, directory: daemon.directory)
        try coloured.waitForPrompt("Microchip number (optional)")
        #expect(try coloured.screen(escapes: true).contains("\u{1B}["))

        let noColour = try TmuxSession(command, environment: ["NO_COLOR": "1"], directory: daemon.directory)
        try noColour.waitForPrompt("Microchip number (optional)")
        #expect(!(try noColour.screen(escapes: true).contains("\u{1B}[")))

        // tmux sets TERM in the pane itself, so the program is started through env.
        let dumb = try TmuxSession(["/usr/bin/env", "TERM=dumb"] + command, directory: daemon.directory)
        let screen = try dumb.waitFor("? Microchip number (optional)")
        #expect(screen.contains("== 1/4 Microchip number =="))
        #expect(!(try dumb.screen(escapes: true).contains("\u{1B}[")))
    }

    @Test("the same report through piped stdin, in plain lines without escape codes")
    func pipedReport() throws {
        let daemon = try DaemonProcess().start()
        let photo = try writePhoto(in: daemon)
        let input = [
            "616 0912 3456 7890", "",                 // chip, continue
            ":back", "", "",                          // back from the photo step: keep the chip, continue
            photo, "",                                // the photo, continue
            "", "", "", "", "", "", "", "",           // description left empty (race is skipped), continue: refused
            "dog", "Beagle", "2", "4", ":gps", "", "", "Brown collar", "",  // from the first error on
            "", "owner@example.org", "",             // contact, continue
            ":submit",
        ]
        let result = try runProgram(Paths.petspot, ["report", "--socket", daemon.socketPath], input: input.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("\u{1B}"))
        let out = result.stdout
        for line in ["== 1/4 Microchip number ==", "== 2/4 Animal photo ==", "== 3/4 Animal description ==",
                     "== 4/4 Contact details ==", "== Summary ==", "? Microchip number (optional) (00000-00000-00000):",
                     "? Microchip number (optional) [61609-12345-67890]:", "! Some information must be corrected",
                     "    error: Select the species.", "    note: GPS position found and filled in (source: simulated).",
                     "  Animal photo: image/png, \(pngBytes.count) B", "  Animal species: Dog"] {
            #expect(out.contains(line + "\n"), "\(line)")
        }
        let reportID = try #require(Self.reportID(in: out), "\(out)")
        let flowID = try #require(Self.flowID(in: out))
        let conn = try daemon.connect()
        let report = try conn.result("reports.get", ["reportId": .string(reportID)])["report"]!
        #expect(report["flowId"] == .string(flowID))
        #expect(report[path: "values", "chipNumber"] == "616091234567890")
        #expect(report[path: "values", "species"] == "dog")
        #expect(report[path: "values", "gender"] == "male")
        #expect(report[path: "values", "longitude"].map(JSONWriter.string) == "21.01223")
        #expect(report[path: "values", "photo", "mediaType"] == "image/png")
        #expect(report[path: "values", "contactEmail"] == "owner@example.org")
    }

    @Test("input that ends before submit cancels the flow and exits 1; :cancel too; Polish screens with --locale pl")
    func inputEndsAndCancel() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let ended = try runProgram(Paths.petspot, ["report", "--socket", daemon.socketPath], input: "123\n\n")
        #expect(ended.status == 1)
        #expect(ended.stderr == "petspot: the input ended before the report was submitted; the report was cancelled\n")
        let endedFlow = try #require(Self.flowID(in: ended.stdout))
        #expect(try conn.failure("flow.get", ["flowId": .string(endedFlow)]).kind == .flowNotFound)

        let polish = try runProgram(Paths.petspot, ["report", "--socket", daemon.socketPath, "--locale", "pl"], input: ":help\n:cancel\n")
        #expect(polish.status == 1)
        #expect(polish.stdout.contains("== 1/4 Numer mikrochipa =="))
        #expect(polish.stdout.contains("* Polecenia"))
        #expect(polish.stdout.contains("Zgłoszenie anulowane; nic nie zostało zapisane."))
        let polishFlow = try #require(Self.flowID(in: polish.stdout))
        #expect(try conn.failure("flow.get", ["flowId": .string(polishFlow)]).kind == .flowNotFound)
        #expect(try conn.result("reports.list")["reports"] == [])
    }

    @Test("through a pipe, waiting for a line: a change made elsewhere shows at once; a cancel elsewhere exits 1, a submit elsewhere 0")
    func changedElsewhere() throws {
        let daemon = try DaemonProcess().start()
        let other = try daemon.connect()

        let cancelled = try PipedReport(daemon)
        var flowID = try cancelled.flowID()
        _ = try other.result("flow.update", ["flowId": .string(flowID), "values": ["chipNumber": "616091234567890"]])
        try cancelled.waitFor("* This report was changed elsewhere.\n? Microchip number (optional) [61609-12345-67890]:\n")
        _ = try other.result("flow.cancel", ["flowId": .string(flowID)])
        var ended = try cancelled.waitForExit()
        #expect(ended.status == 1)
        #expect(ended.stdout.hasSuffix("[61609-12345-67890]:\nThis report was cancelled elsewhere; nothing was stored.\n"), "\(ended.stdout)")
        #expect(ended.stderr == "")

        let submitted = try PipedReport(daemon)
        flowID = try submitted.flowID()
        try walkToSummary(other, flowID)
        try submitted.waitFor("? Type :submit to send the report, or :back to change something:\n")
        let reportID = try #require(try other.result("flow.submit", ["flowId": .string(flowID)])[path: "report", "id"]?.stringValue)
        ended = try submitted.waitForExit()
        #expect(ended.status == 0)
        #expect(ended.stdout.hasSuffix("This report was submitted elsewhere: \(reportID)\nShow it with: petspot reports show \(reportID)\n"), "\(ended.stdout)")
        #expect(ended.stderr == "")
    }

    /// `petspot report` with a pipe as stdin that the test keeps open, so that it waits for a
    /// line the way it waits for a person; what it writes is read as it comes.
    final class PipedReport {
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private let errors = Pipe()
        private let written = NIOLockedValueBox((stdout: "", stderr: "", closed: 0))

        init(_ daemon: DaemonProcess) throws {
            process.executableURL = URL(fileURLWithPath: Paths.petspot)
            process.arguments = ["report", "--socket", daemon.socketPath]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            let written = written
            for (pipe, isOutput) in [(output, true), (errors, false)] {
                pipe.fileHandleForReading.readabilityHandler = { handle in
                    let data = handle.availableData
                    written.withLockedValue { written in
                        if data.isEmpty {
                            handle.readabilityHandler = nil
                            written.closed += 1
                        } else if isOutput {
                            written.stdout += String(decoding: data, as: UTF8.self)
                        } else {
                            written.stderr += String(decoding: data, as: UTF8.self)
                        }
                    }
                }
            }
            try process.run()
        }

        deinit {
            if process.isRunning { process.terminate() }
            try? input.fileHandleForWriting.close()
        }

        var stdout: String { written.withLockedValue { $0.stdout } }

        /// The flow's id, once petspot waits for the first line (and so watches the flow).
        func flowID() throws -> String {
            let text = try waitFor("\n? Microchip number (optional) (00000-00000-00000):\n")
            return try #require(ReportCommandTests.flowID(in: text))
        }

        @discardableResult
        func waitFor(_ text: String) throws -> String {
            var last = ""
            do {
                try waitUntil("\"\(text)\" from petspot report") {
                    last = stdout
                    return last.contains(text)
                }
            } catch {
                throw TimedOut(description: "\(error)\n--- stdout ---\n\(last)")
            }
            return last
        }

        /// Waits for the end of the program and of its output, with its stdin still open.
        ///
        /// The end of its output is the end of the program: once it has exited, all it wrote is
        /// in the pipes. Their end of file may not come, though, when another process started
        /// meanwhile holds a write end (a pipe's ends are inherited by any child spawned while
        /// they are open, and Foundation's `Pipe` is not close-on-exec): then what is left is
        /// read without waiting for it.
        func waitForExit() throws -> (status: Int32, stdout: String, stderr: String) {
            do {
                try waitUntil("petspot report to exit") { !process.isRunning }
            } catch {
                let state = written.withLockedValue { "output ends closed: \($0.closed) of 2\n--- stdout ---\n\($0.stdout)--- stderr ---\n\($0.stderr)" }
                throw TimedOut(description: "\(error); \(state)")
            }
            if (try? waitUntil("the output's end of file", seconds: 2) { written.withLockedValue { $0.closed == 2 } }) == nil {
                for pipe in [output, errors] { pipe.fileHandleForReading.readabilityHandler = nil }
                let rest = (stdout: Self.drain(output), stderr: Self.drain(errors))
                written.withLockedValue {
                    $0.stdout += rest.stdout
                    $0.stderr += rest.stderr
                }
            }
            return written.withLockedValue { (process.terminationStatus, $0.stdout, $0.stderr) }
        }

        /// What waits in the pipe now, read without blocking.
        private static func drain(_ pipe: Pipe) -> String {
            let fd = pipe.fileHandleForReading.fileDescriptor
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                bytes += chunk[..<count]
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    // MARK: Helpers

    private func writePhoto(in daemon: DaemonProcess) throws -> String {
        let path = daemon.directory.appendingPathComponent("rex.png").path
        try Data(pngBytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The flow id: the plain mode's first line "flow: ID", the terminal's footer "flow ID".
    static func flowID(in text: String) -> String? {
        firstMatch(#"flow:? ([0-9a-f-]{36})"#, in: text)
    }

    static func reportID(in text: String) -> String? {
        firstMatch(#"Report submitted: ([0-9a-f-]{36})"#, in: text)
    }

    static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }
}
