import PetSpotJSON
import PetSpotProtocol

/// What a client needs of the daemon: one request and its answer at a time.
/// `PetSpotConnection` is the real one; a test can pass a scripted daemon instead.
public protocol DaemonCalling: AnyObject {
    /// A call by name: the result, or the daemon's error.
    func call(_ method: String, _ params: JSONObject) throws(ClientError) -> Result<JSONValue, RPCError>
}

extension DaemonCalling {
    /// One request and its answer: the result, or the daemon's error.
    public func call(_ method: String) throws(ClientError) -> Result<JSONValue, RPCError> {
        try call(method, JSONObject())
    }

    /// A call of `M`: its params written and its result read by the contract's types.
    public func call<M: RPCMethodSpec>(_ method: M.Type, _ params: M.Params) throws(ClientError) -> Result<M.Result, RPCError> {
        switch try call(M.name, params.json) {
        case .success(let result): .success(try M.reading(result))
        case .failure(let error): .failure(error)
        }
    }

    public func call<M: RPCMethodSpec>(_ method: M.Type) throws(ClientError) -> Result<M.Result, RPCError> where M.Params == NoParams {
        try call(method, NoParams())
    }
}
