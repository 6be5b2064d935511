import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText

/// `petspot call`: one raw JSON-RPC request, for scripts and for exploring the protocol.
struct CallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Send one JSON-RPC request and print the answer.",
        discussion: """
            Prints the result as indented JSON and exits 0, or prints the error object and exits 1. \
            --list asks the daemon which methods it offers you (rpc.discover); every method is \
            described in docs/PROTOCOL.md.

            Examples:
              petspot call --list
              petspot call daemon.info
              petspot call flow.start '{"locale":"pl"}'
              petspot call flow.update '{"flowId":"…","values":{"chipNumber":"123456"}}'
            """)

    @OptionGroup var connection: SocketOption
    @Flag(help: "List the methods the daemon offers you, with what each does, and exit.")
    var list = false
    // Completion knows the methods this build was made with; --list asks the daemon itself.
    @Argument(help: "The method, e.g. daemon.info or flow.start.",
              completion: .list(ProtocolMethods.offered(toRelay: false).map { $0.name }))
    var method: String?
    @Argument(help: "The parameters as a JSON object, e.g. '{\"flowId\":\"…\"}'.") var params: String?

    func validate() throws {
        if list, method != nil { throw ValidationError("--list takes no method.") }
        if !list, method == nil { throw ValidationError("Name a method, e.g. petspot call daemon.info, or list them with petspot call --list.") }
    }

    func run() throws {
        if list { return try printMethods() }
        let method = method ?? ""
        var object = JSONObject()
        if let params {
            guard let parsed = try? JSONParser.parse(params), case .object(let o) = parsed else {
                fail("petspot: the parameters must be a JSON object, e.g. '{\"flowId\":\"…\"}'", code: ExitStatus.usage)
            }
            object = o
        }
        let conn = connection.connect()
        do {
            switch try conn.call(method, object) {
            case .success(let result):
                print(JSONPrettyPrinter.string(result))
            case .failure(let error):
                print(JSONPrettyPrinter.string(error.json))
                throw ExitCode(ExitStatus.failure)
            }
        } catch let error as ClientError {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }

    /// One line a method: its name, its params (optional ones in brackets) and its summary.
    private func printMethods() throws {
        let document = connection.connect().callOrExit(RPCDiscover.self).json
        var table = TextTable(headers: ["METHOD", "PARAMS", "SUMMARY"])
        for method in document["methods"]?.arrayValue ?? [] {
            let params = (method["params"]?.arrayValue ?? []).map { param in
                let name = param["name"]?.stringValue ?? "?"
                return param["required"] == .bool(true) ? name : "[\(name)]"
            }
            table.append([method["name"]?.stringValue ?? "?", params.isEmpty ? "-" : params.joined(separator: " "),
                          method["summary"]?.stringValue ?? ""].map(VisibleText.line))
        }
        for line in table.lines { print(line) }
    }
}
