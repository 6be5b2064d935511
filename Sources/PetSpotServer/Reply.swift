import PetSpotProtocol

/// What a handler gives for a method whose result is `Result`: ready now, the same result
/// already written for the wire, or work that gives it later. A refusal is thrown, now or
/// from the work. What only touches memory is `now` and is written on the event loop without a
/// task hop; what waits (location, disk, a photo) is `later` and runs in a task.
public enum Reply<Result: RPCResultCoding>: Sendable {
    case now(Result)
    /// The result's JSON, written once and kept: `flow.get`'s view of an unchanged flow,
    /// `daemon.info` of unchanged settings.
    case written([UInt8])
    case later(@Sendable () async throws(RPCError) -> Result)

    /// The same reply, with `body` run on its result once there is one (not on a refusal).
    func onResult(_ body: @escaping @Sendable (Result) -> Void) -> Reply {
        switch self {
        case .now(let result):
            body(result)
            return self
        case .written:
            return self
        case .later(let work):
            return .later { () async throws(RPCError) -> Result in
                let result = try await work()
                body(result)
                return result
            }
        }
    }
}
