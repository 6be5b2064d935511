import NIOConcurrencyHelpers

/// The answer a queued write waits for: given once by the turn that commits (or fails) the
/// group holding it, which resumes the waiting caller directly, so that no member needs a turn
/// of the store of its own to learn it. Only the first answer counts.
final class OneAnswer<Value: Sendable>: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Value, Never>?)
        case answered(Value)
    }

    private let state = NIOLockedValueBox(State.waiting(nil))

    /// Sets the answer and resumes the caller if it is waiting.
    func answer(_ value: Value) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Value, Never>? in
            guard case .waiting(let waiter) = state else { return nil }
            state = .answered(value)
            return waiter
        }
        waiter?.resume(returning: value)
    }

    /// Waits for the answer. Not cancellable: once queued, a write is made or failed with its
    /// group, and the caller learns which.
    func value() async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let ready = state.withLockedValue { state -> Value? in
                switch state {
                case .answered(let value):
                    return value
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
