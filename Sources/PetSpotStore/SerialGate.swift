import NIOConcurrencyHelpers

/// Lets one operation at a time through, in the order they arrived.
///
/// The store has one SQLite connection, and most operations run each statement as its own work
/// item of the database thread: a statement of one operation issued while another operation's
/// transaction is open would run inside that transaction. Holding the gate for a whole operation keeps them apart.
///
/// An operation waits for its turn as a task (`withTurn`), or, when its whole turn is one work
/// item of the database thread, as a callback (`whenTurn`): a group of writes then needs no task
/// of its own, and no hop to one and back, between its callers and the database thread.
final class SerialGate: Sendable {
    private enum Waiter {
        case task(CheckedContinuation<Void, Never>)
        case callback(@Sendable () -> Void)
    }

    private struct State {
        var busy = false
        var waiting: [Waiter] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `body` once every operation that arrived before it has finished.
    func withTurn<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await waitForTurn()
        defer { passTurn() }
        return try await body()
    }

    /// Runs `body` holding the gate: at once on this thread when no operation holds it, else on
    /// the thread that passes the turn to it. The turn is `body`'s until it calls `passTurn()`,
    /// exactly once, from any thread.
    func whenTurn(_ body: @escaping @Sendable () -> Void) {
        if takeTurnOrQueue(.callback(body)) { body() }
    }

    /// Operations waiting for their turn, the one holding it not counted.
    var waitingCount: Int { state.withLockedValue { $0.waiting.count } }

    private func waitForTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if takeTurnOrQueue(.task(continuation)) { continuation.resume() }
        }
    }

    /// True when the gate was free and the turn is now the caller's; else `waiter` is queued.
    private func takeTurnOrQueue(_ waiter: Waiter) -> Bool {
        state.withLockedValue { state in
            if state.busy {
                state.waiting.append(waiter)
                return false
            }
            state.busy = true
            return true
        }
    }

    /// Ends the current turn and gives the gate to the operation that has waited longest.
    func passTurn() {
        let next = state.withLockedValue { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        switch next {
        case .task(let continuation): continuation.resume()
        case .callback(let body): body()
        case nil: break
        }
    }
}
