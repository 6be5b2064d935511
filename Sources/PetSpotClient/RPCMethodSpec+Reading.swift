import PetSpotJSON
import PetSpotProtocol

extension RPCMethodSpec {
    /// Reads an answer's result as the contract says; one that does not fit is the daemon's
    /// fault, named with the method and the member at fault.
    public static func reading(_ result: JSONValue) throws(ClientError) -> Result {
        do throws(FlowViewError) {
            return try Result(json: result)
        } catch {
            throw ClientError("petspotd's answer to \(name) does not fit the protocol: \(error)")
        }
    }
}
