import PetSpotClient
import PetSpotJSON
import PetSpotProtocol

/// What a command needs of the daemon: one request and its answer at a time.
/// `PetSpotConnection` is the real one; a test can pass a scripted daemon instead.
protocol DaemonCalling: AnyObject {
    func call(_ method: String, _ params: JSONObject) throws(ClientError) -> Result<JSONValue, RPCError>
}

extension PetSpotConnection: DaemonCalling {}

extension DaemonCalling {
    func call(_ method: RPCMethod, _ params: JSONObject = JSONObject()) throws(ClientError) -> Result<JSONValue, RPCError> {
        try call(method.rawValue, params)
    }

    /// A call whose error answer ends the command with one line and exit code 1, and whose
    /// lost connection ends it with exit code 69.
    func callOrExit(_ method: RPCMethod, _ params: JSONObject = JSONObject()) -> JSONValue {
        do {
            switch try call(method, params) {
            case .success(let result): return result
            case .failure(let error): fail("petspot: \(method.rawValue): \(error.message) [\(error.kind.rawValue)]", code: ExitStatus.failure)
            }
        } catch {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }
}
