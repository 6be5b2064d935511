import Foundation
import PetSpotJSON
import PetSpotProtocol
import NIOConcurrencyHelpers
import PetSpotTestSupport
import Testing

/// `petspot location`, `status`, shell completion and help.
@Suite("petspot location, status, completion and help", .serialized)
struct ClientCommandsTests {
    @Test("location: the fix with map links, then the permission and each provider")
    func location() throws {
        let daemon = try DaemonProcess().start()
        let result = try runProgram(Paths.petspot, ["location", "--socket", daemon.socketPath])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("52.22968, 21.01223 from simulated at ") == true, "\(result.stdout)")
        #expect(lines.contains("  geo:52.22968,21.01223"))
        #expect(lines.contains("  https://www.openstreetmap.org/?mlat=52.22968&mlon=21.01223#map=17/52.22968/21.01223"))
        #expect(lines.contains("location: enabled, permission allowed"))
        #expect(lines.contains { $0.hasPrefix("  simulated: ready, mode fix") })

        let denied = try DaemonProcess(arguments: ["--simulated-mode", "permission-denied"]).start()
        let refused = try runProgram(Paths.petspot, ["location", "--socket", denied.socketPath])
        #expect(refused.status == 1)
        #expect(refused.stdout.hasPrefix("permissionDenied: "))
    }

    @Test("location --watch prints the position, then a line per change petspotd pushes, until Ctrl-C")
    func watch() throws {
        // Each request moves the simulated position one point on: A, B, A, B, …
        let a: JSONValue = [.number(JSONNumber(validatedLiteral: "52.1")), .number(JSONNumber(validatedLiteral: "21.1"))]
        let b: JSONValue = [.number(JSONNumber(validatedLiteral: "52.2")), .number(JSONNumber(validatedLiteral: "21.2"))]
        let daemon = try DaemonProcess(settings: ["location": ["providers": ["simulated"], "simulated": ["mode": "fix", "position": a, "track": [a, b]]]]).start()
        let watch = try FollowingProgram(["location", "--watch", "--socket", daemon.socketPath])
        // Another client moves the box; --watch asks nothing itself.
        let mover = try daemon.connect()
        try waitUntil("six lines from --watch") {
            _ = try mover.result("location.current")
            return watch.lines.count >= 6
        }
        #expect(try watch.interrupt() == 0)

        let positions = watch.lines.map { line in
            String(line.split(separator: " ", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)
        }
        #expect(positions.count >= 6)
        #expect(positions.allSatisfy { $0 == "52.10000, 21.10000 from simulated" || $0 == "52.20000, 21.20000 from simulated" }, "\(positions)")
        // Without change detection the first position would come twice in a row.
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 != $1 }, "\(positions)")
    }

    @Test("call --list: the methods the daemon offers this user (rpc.discover), with their params and what each does")
    func callList() throws {
        let daemon = try DaemonProcess().start()
        let result = try runProgram(Paths.petspot, ["call", "--list", "--socket", daemon.socketPath])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("METHOD") == true)
        #expect(lines.count == 1 + ProtocolMethods.offered(toRelay: false).count, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("reports.close ") && $0.contains(" reportId outcome ") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("flow.update ") && $0.contains(" flowId values ") }, "\(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("reports.list ") && $0.contains(" [limit] [cursor] ") }, "\(result.stdout)")
        #expect(!result.stdout.contains("relay."), "not in the relay group: no relay methods")
        let both = try runProgram(Paths.petspot, ["call", "--list", "daemon.info", "--socket", daemon.socketPath])
        #expect(both.status != 0 && both.stderr.contains("--list takes no method"))
        let neither = try runProgram(Paths.petspot, ["call", "--socket", daemon.socketPath])
        #expect(neither.status != 0 && neither.stderr.contains("petspot call --list"))
    }

    @Test("status: version, box, limits, location and its providers")
    func status() throws {
        let daemon = try DaemonProcess(arguments: ["--box-name", "kiosk-7"]).start()
        let result = try runProgram(Paths.petspot, ["status", "--socket", daemon.socketPath])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("petspotd ") == true)
        #expect(lines.first?.hasSuffix(" on \(daemon.socketPath)") == true)
        #expect(lines.contains("box: kiosk-7"))
        #expect(lines.contains("limits: photos up to 10 MiB, 50 open reports per user, an idle report expires after 1800 s"))
        #expect(lines.contains("location: enabled, permission allowed"))
        #expect(lines.contains { $0.hasPrefix("  simulated: ready") })

        let gone = try runProgram(Paths.petspot, ["status", "--socket", daemon.directory.appendingPathComponent("none.sock").path])
        #expect(gone.status == 69)
        #expect(gone.stderr.hasPrefix("petspot: cannot connect to petspotd at "))
    }

    @Test("one version: both programs' --version, daemon.info, the status help and debian/changelog agree")
    func version() throws {
        let daemon = try DaemonProcess().start()
        let info = try daemon.connect().call("daemon.info", [:]).get()
        let version = try #require(info["version"]?.stringValue)
        for program in [Paths.petspot, Paths.petspotd] {
            let result = try runProgram(program, ["--version"])
            #expect(result.status == 0)
            #expect(result.stdout == version + "\n", "\(program) --version")
        }
        let help = try runProgram(Paths.petspot, ["status", "--help"])
        #expect(help.stdout.contains("petspotd \(version) (protocol \(petspotProtocolVersion)) on run/petspotd.sock"))
        // The package's version, as scripts/check-version reads it (a local suffix allowed).
        let changelog = try String(contentsOf: Paths.packageRoot.appendingPathComponent("debian/changelog"), encoding: .utf8)
        #expect(changelog.hasPrefix("petspotd (\(version)"))
    }

    @Test("bash completion offers subcommands, option values and report ids from the daemon")
    func bashCompletion() throws {
        let daemon = try DaemonProcess().start()
        let reportID = try fileReport(try daemon.connect()).submit[path: "report", "id"]!.stringValue!
        for shell in ["bash", "zsh", "fish"] {
            let script = try runProgram(Paths.petspot, ["--generate-completion-script", shell])
            #expect(script.status == 0)
            #expect(script.stdout.contains("report") && script.stdout.contains("export"), "\(shell)")
        }
        let scriptPath = daemon.directory.appendingPathComponent("petspot.bash").path
        try runProgram(Paths.petspot, ["--generate-completion-script", "bash"]).stdout.write(toFile: scriptPath, atomically: true, encoding: .utf8)

        func complete(_ words: [String]) throws -> Set<String> {
            let all = [Paths.petspot] + words
            let quoted = all.map { "'\($0)'" }.joined(separator: " ")
            let program = """
                source '\(scriptPath)'
                COMP_WORDS=(\(quoted))
                COMP_CWORD=\(all.count - 1)
                COMP_LINE="${COMP_WORDS[*]}"
                COMP_POINT=${#COMP_LINE}
                _petspot '\(Paths.petspot)' '\(all.last!)' '\(all[all.count - 2])'
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try runProgram("/bin/bash", ["-c", program])
            return Set(result.stdout.split(separator: "\n").map(String.init))
        }
        #expect(try complete(["rep"]) == ["report", "reports"])
        #expect(try complete(["reports", "export", "--format", ""]) == ["ndjson", "csv"])
        #expect(try complete(["report", "--locale", ""]) == ["en", "pl"])
        #expect(try complete(["reports", "show", "--socket", daemon.socketPath, ""]) == [reportID])
        for command in ["found", "withdraw", "renew", "amend", "erase"] {
            #expect(try complete(["reports", command, "--socket", daemon.socketPath, ""]) == [reportID], "\(command)")
        }
        #expect(try complete(["reports", "w"]) == ["withdraw"])
        #expect(try complete(["reports", "amend", "--clear", ""])
            == ["chip", "photo", "date", "species", "race", "gender", "age", "latitude", "longitude", "description", "phone", "email"])
        #expect(try complete(["reports", "amend", "--gender", ""]) == ["female", "male"])
        #expect(try complete(["reports", "amend", "--socket", daemon.socketPath, "--species", "ca"]) == ["cat"])
    }

    @Test("help a newcomer understands: abstracts, the plain mode's line protocol, examples")
    func help() throws {
        let top = try runProgram(Paths.petspot, ["--help"])
        #expect(top.status == 0)
        for text in ["report", "File a missing-pet report, guided step by step.", "reports", "animals", "poster", "location", "status",
                     "Examples:", "--generate-completion-script"] {
            #expect(top.stdout.contains(text), "\(text)")
        }
        let report = try runProgram(Paths.petspot, ["report", "--help"])
        // Help is wrapped to the terminal's width: compare words, not line breaks.
        let words = report.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in [":back", ":cancel", ":gps", ":photo PATH", ":continue", ":submit", ":help", "NO_COLOR",
                     "line protocol", "Report submitted: ID", "printf", "--locale <locale>"] {
            #expect(words.contains(text), "\(text)")
        }
        for command in [["reports", "list"], ["reports", "show"], ["reports", "export"], ["reports", "found"], ["reports", "withdraw"],
                        ["reports", "renew"], ["reports", "amend"], ["reports", "erase"], ["animals", "list"], ["animals", "show"],
                        ["animals", "lookup"], ["animals", "poster"], ["poster"], ["location"], ["status"], ["call"]] {
            let help = try runProgram(Paths.petspot, command + ["--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("Example"), "\(command)")
            if command.count == 2, !["list", "export"].contains(command[1]) {
                #expect(help.stdout.contains("petspot \(command[0]) \(command[1]) "), "\(command): an example of its own")
            }
        }
        let amend = try runProgram(Paths.petspot, ["reports", "amend", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in ["--clear <field>", "--phone <number>", "--photo <file>", "--species <id>", "names the flag and the field", "exits 1"] {
            #expect(amend.contains(text), "\(text)")
        }
        let erase = try runProgram(Paths.petspot, ["reports", "erase", "--help"]).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in ["--yes", "first 8 characters of its id", "exits 64", "cannot be undone"] {
            #expect(erase.contains(text), "\(text)")
        }
    }
}
