import ArgumentParser
import PetSpotClient
import PetSpotJSON

/// `petspot call`: one raw JSON-RPC request, for scripts and for exploring the protocol.
struct CallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Send one JSON-RPC request and print the answer.",
        discussion: """
            Prints the result as indented JSON and exits 0, or prints the error object and exits 1. \
            Every method is described in docs/PROTOCOL.md.

            Examples:
              petspot call daemon.info
              petspot call flow.start '{"locale":"pl"}'
              petspot call flow.update '{"flowId":"…","values":{"chipNumber":"123456"}}'
            """)

    @OptionGroup var connection: SocketOption
    @Argument(
        help: "The method, e.g. daemon.info or flow.start.",
        completion: .list([
            "daemon.info", "species.list", "flow.start", "flow.get", "flow.update", "flow.continue", "flow.back",
            "flow.cancel", "flow.dismissAlert", "flow.requestLocation", "flow.submit", "location.current",
            "location.status", "reports.list", "reports.get",
        ]))
    var method: String
    @Argument(help: "The parameters as a JSON object, e.g. '{\"flowId\":\"…\"}'.") var params: String?

    func run() throws {
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
}
