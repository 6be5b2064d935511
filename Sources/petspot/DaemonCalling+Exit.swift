import PetSpotClient
import PetSpotJSON
import PetSpotProtocol

extension DaemonCalling {
    /// A call whose error answer ends the command with one line and exit code 1, and whose
    /// lost connection (or an answer that does not fit the contract) ends it with exit code 69.
    func callOrExit<M: RPCMethodSpec>(_ method: M.Type, _ params: M.Params) -> M.Result {
        do {
            switch try call(method, params) {
            case .success(let result): return result
            case .failure(let error): fail("petspot: \(M.method.rawValue): \(error.message) [\(error.kind.rawValue)]", code: ExitStatus.failure)
            }
        } catch {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }

    func callOrExit<M: RPCMethodSpec>(_ method: M.Type) -> M.Result where M.Params == NoParams {
        callOrExit(method, NoParams())
    }
}
