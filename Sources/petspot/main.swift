import ArgumentParser
import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol

/// EX_UNAVAILABLE from sysexits.h: the daemon could not be reached.
let exitUnavailable: Int32 = 69

struct SocketOption: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The daemon's socket (default: $PETSPOT_SOCKET, ./run/petspotd.sock, /run/petspotd/petspotd.sock).", valueName: "path"))
    var socket: String?

    func connect() throws -> PetSpotConnection {
        let path = socket ?? PetSpotConnection.defaultSocketPath()
        do {
            return try PetSpotConnection(socketPath: path)
        } catch {
            fail("petspot: \(error.description)", code: exitUnavailable)
        }
    }
}

func fail(_ line: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data((line + "\n").utf8))
    exit(code)
}

/// One call whose error answer ends the command with a message and exit code 1.
func callOrExit(_ connection: PetSpotConnection, _ method: String, _ params: JSONObject = JSONObject()) -> JSONValue {
    do {
        switch try connection.call(method, params) {
        case .success(let result): return result
        case .failure(let error): fail("petspot: \(method): \(error.message) [\(error.kind.rawValue)]", code: 1)
        }
    } catch {
        fail("petspot: \(error.description)", code: exitUnavailable)
    }
}

@main
struct PetSpotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot",
        abstract: "The command-line client of petspotd, the missing-pet report daemon.",
        subcommands: [Call.self, Status.self, Reports.self, Location.self])
}

struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sends one JSON-RPC request and prints the answer.",
        discussion: """
            Prints the result as JSON and exits 0, or prints the error object and exits 1.
            Example: petspot call flow.update '{"flowId":"…","values":{"chipNumber":"123456"}}'
            """)

    @OptionGroup var connection: SocketOption
    @Argument(help: "The method, e.g. daemon.info or flow.start.") var method: String
    @Argument(help: "The parameters as a JSON object.") var params: String?

    func run() throws {
        var object = JSONObject()
        if let params {
            guard let parsed = try? JSONParser.parse(params), case .object(let o) = parsed else {
                fail("petspot: the parameters must be a JSON object, e.g. '{\"flowId\":\"…\"}'", code: 64)
            }
            object = o
        }
        let conn = try connection.connect()
        do {
            switch try conn.call(method, object) {
            case .success(let result):
                print(JSONPrettyPrinter.string(result))
            case .failure(let error):
                print(JSONPrettyPrinter.string(error.json))
                throw ExitCode(1)
            }
        } catch let error as ClientError {
            fail("petspot: \(error.description)", code: exitUnavailable)
        }
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Shows the daemon's version, limits and location providers.")
    @OptionGroup var connection: SocketOption

    func run() throws {
        let conn = try connection.connect()
        let info = callOrExit(conn, "daemon.info")
        let location = callOrExit(conn, "location.status")
        print("petspotd \(info["version"]?.stringValue ?? "?") (protocol \(info["protocolVersion"].map(JSONWriter.string) ?? "?")) on \(conn.socketPath)")
        print("location: \(location["enabled"] == .bool(true) ? "enabled" : "disabled"), permission \(location["permission"]?.stringValue ?? "?")")
        for provider in location["providers"]?.arrayValue ?? [] {
            let name = provider["name"]?.stringValue ?? "?"
            let state = provider["state"]?.stringValue ?? "?"
            var line = "  \(name): \(state)"
            if case .number(let age)? = provider["lastFixAgeMs"] { line += ", last fix \(age) ms ago" }
            if let error = provider["lastError"]?.stringValue { line += ", \(error)" }
            print(line)
        }
    }
}

struct Reports: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Lists and shows your submitted reports.", subcommands: [List.self, Show.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Lists your reports, newest first.")
        @OptionGroup var connection: SocketOption
        @Option(help: "At most this many.") var limit: Int = 20
        @Flag(help: "Print JSON, one report per line.") var json = false

        func run() throws {
            let conn = try connection.connect()
            let page = callOrExit(conn, "reports.list", ["limit": .int(limit)])
            let reports = page["reports"]?.arrayValue ?? []
            if json {
                for report in reports { print(JSONWriter.string(report)) }
                return
            }
            if reports.isEmpty {
                print("No reports yet.")
                return
            }
            print("ID                                    SUBMITTED             SPECIES   CHIP")
            for report in reports {
                let values = report["values"]
                let id = report["id"]?.stringValue ?? "?"
                let when = report["submittedAt"]?.stringValue ?? "?"
                let species = values?["species"]?.stringValue ?? "-"
                let chip = values?["chipNumber"]?.stringValue ?? "-"
                print("\(id.padding(38))\(when.padding(22))\(species.padding(10))\(chip)")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Shows one of your reports.")
        @OptionGroup var connection: SocketOption
        @Argument(help: "The report id.") var id: String

        func run() throws {
            let conn = try connection.connect()
            let result = callOrExit(conn, "reports.get", ["reportId": .string(id)])
            print(JSONPrettyPrinter.string(result["report"] ?? .null))
        }
    }
}

struct Location: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Asks the daemon for the current position.")
    @OptionGroup var connection: SocketOption
    @Option(name: .customLong("timeout-ms"), help: "Wait at most this long.") var timeoutMs: Int?

    func run() throws {
        let conn = try connection.connect()
        var params = JSONObject()
        if let timeoutMs { params["timeoutMs"] = .int(timeoutMs) }
        let result = callOrExit(conn, "location.current", params)
        let location = result["location"] ?? .null
        if let fix = location["fix"] {
            print("\(fix["latitude"].map(JSONWriter.string) ?? "?"), \(fix["longitude"].map(JSONWriter.string) ?? "?") from \(fix["source"]?.stringValue ?? "?") at \(fix["time"]?.stringValue ?? "?")")
        } else {
            print("\(location["status"]?.stringValue ?? "?"): \(location["message"]?.stringValue ?? "")")
            throw ExitCode(1)
        }
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
