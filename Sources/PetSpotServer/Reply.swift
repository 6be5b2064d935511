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

/// A handler's answer: its typed result, or the same result already written for the wire.
public enum Answer<Value: RPCResultCoding>: Sendable {
    case value(Value)
    case written([UInt8])

    var methodResult: MethodResult {
        switch self {
        case .value(let value): .json(value.json)
        case .written(let bytes): .written(bytes)
        }
    }
}

/// What a handler of a method with result `R` gives: its answer or an error, now or later.
public typealias MethodReply<R: RPCResultCoding> = Reply<Result<Answer<R>, RPCError>>

extension Reply {
    /// A result ready now.
    static func result<R>(_ value: R) -> Reply where Value == Result<Answer<R>, RPCError> {
        .now(.success(.value(value)))
    }

    /// Work whose result comes later; a thrown error is the answer.
    static func work<R>(_ body: @escaping @Sendable () async throws(RPCError) -> R) -> Reply where Value == Result<Answer<R>, RPCError> {
        .later {
            do throws(RPCError) {
                return .success(.value(try await body()))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The reply as the envelope writer takes it.
    func outcome<R>() -> Reply<MethodOutcome> where Value == Result<Answer<R>, RPCError> {
        switch self {
        case .now(let value): .now(value.map(\.methodResult))
        case .later(let work): .later { await work().map(\.methodResult) }
        }
    }
}
