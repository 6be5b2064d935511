import PetSpotJSON
import PetSpotProtocol

/// Something ready now, or work that gives it later: the one shape of "answer now or later"
/// from a method's handler to the line written back. What only touches memory is `now` and is
/// written on the event loop without a task hop; what waits (location, disk, a photo, a large
/// line) is `later` and runs in a task.
public enum Reply<Value: Sendable>: Sendable {
    case now(Value)
    case later(@Sendable () async -> Value)

    /// The value, waiting for it if it comes later.
    public var value: Value {
        get async {
            switch self {
            case .now(let value): value
            case .later(let work): await work()
            }
        }
    }
}

/// A method's result: a JSON value, or one already written for the wire (`flow.get` keeps its
/// written answer with the flow; `daemon.info` with the settings).
public enum MethodResult: Sendable, Equatable {
    case json(JSONValue)
    case written([UInt8])
}

/// What a method answers: its result or the error the client sees.
public typealias MethodOutcome = Result<MethodResult, RPCError>

extension Reply where Value == MethodOutcome {
    /// A result ready now.
    static func result(_ value: JSONValue) -> Reply { .now(.success(.json(value))) }

    /// Work whose result comes later; a thrown error is the answer.
    static func work(_ body: @escaping @Sendable () async throws(RPCError) -> JSONValue) -> Reply {
        .later {
            do throws(RPCError) {
                return .success(.json(try await body()))
            } catch {
                return .failure(error)
            }
        }
    }
}
