import Foundation
import PetSpotJSON
import Testing

@Suite("socat, nc and petspot as clients", .serialized)
struct ClientToolsTests {
    @Test("socat gets every answer of what it sent before its input ended")
    func socat() throws {
        let daemon = try DaemonProcess().start()
        let input = #"{"id":1,"method":"daemon.info"}"# + "\n" + #"{"id":2,"method":"flow.start"}"# + "\n"
        let result = try runProgram("/usr/bin/socat", ["-t", "30", "-", "UNIX-CONNECT:\(daemon.socketPath)"], input: input)
        let lines = result.stdout.split(separator: "\n").map { try? JSONParser.parse(String($0)) }
        #expect(lines.count == 2, "\(result)")
        #expect(lines.first??["id"] == 1)
        #expect(lines.last??[path: "result", "flow", "step"] == "chip")
    }

    @Test("nc -N half-closes after its last line and still gets the answer, even a slow one")
    func netcat() throws {
        let daemon = try DaemonProcess(arguments: ["--simulated-mode", "no-fix"]).start()
        // No newline after the last request: it is still read.
        let input = #"{"id":1,"method":"daemon.info"}"# + "\n" + #"{"id":2,"method":"location.current","params":{"timeoutMs":300}}"#
        let result = try runProgram("/usr/bin/nc", ["-N", "-U", daemon.socketPath], input: input)
        let lines = result.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        #expect(lines.map { $0["id"] } == [1, 2], "\(result)")
        #expect(lines.last?[path: "result", "location", "status"] == "timeout")
    }

    @Test("petspot call prints the result, exits 1 on an error answer, 69 without a daemon")
    func petspotCall() throws {
        let daemon = try DaemonProcess().start()
        let ok = try runProgram(Paths.petspot, ["call", "--socket", daemon.socketPath, "flow.start", #"{"locale":"pl"}"#])
        #expect(ok.status == 0)
        #expect(try JSONParser.parse(ok.stdout)[path: "flow", "locale"] == "pl")
        let bad = try runProgram(Paths.petspot, ["call", "flow.get", #"{"flowId":"nope"}"#], environment: ["PETSPOT_SOCKET": daemon.socketPath])
        #expect(bad.status == 1)
        #expect(try JSONParser.parse(bad.stdout)[path: "data", "kind"] == "flowNotFound")
        let gone = try runProgram(Paths.petspot, ["call", "--socket", daemon.directory.appendingPathComponent("none.sock").path, "daemon.info"])
        #expect(gone.status == 69)
        #expect(gone.stderr.contains("cannot connect"))
    }

    @Test("petspot status, location and reports")
    func petspotCommands() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let (_, submit) = try fileReport(conn)
        let reportID = submit[path: "report", "id"]!.stringValue!
        let env = ["PETSPOT_SOCKET": daemon.socketPath]
        let status = try runProgram(Paths.petspot, ["status"], environment: env)
        #expect(status.status == 0)
        #expect(status.stdout.contains("simulated: ready"))
        let location = try runProgram(Paths.petspot, ["location"], environment: env)
        #expect(location.stdout.hasPrefix("52.22968, 21.01223 from simulated"))
        let list = try runProgram(Paths.petspot, ["reports", "list"], environment: env)
        #expect(list.stdout.contains(reportID))
        let show = try runProgram(Paths.petspot, ["reports", "show", "--json", reportID], environment: env)
        #expect(try JSONParser.parse(show.stdout)["id"] == .string(reportID))
    }
}
