import PetSpotJSON
import PetSpotProtocol

/// A notification of one of the connection's watches: a line with `method` and no `id`.
public struct DaemonNotification: Sendable, Equatable {
    public let method: String
    public let params: JSONValue

    /// Nil when `value` is not a notification (an answer has an `id`).
    init?(_ value: JSONValue) {
        guard case .object(let object) = value, object["id"] == nil, let method = object["method"]?.stringValue else { return nil }
        self.method = method
        self.params = object["params"] ?? .null
    }

    /// Its params as `N` reads them; nil when it is another notification.
    public func reading<N: RPCNotificationSpec>(_ type: N.Type) throws(ClientError) -> N.Params? {
        guard method == N.notification.rawValue else { return nil }
        do throws(FlowViewError) {
            return try N.Params(json: params)
        } catch {
            throw ClientError("petspotd's \(method) does not fit the protocol: \(error)")
        }
    }
}
