import NIOConcurrencyHelpers

/// Lets one operation at a time through, in the order they arrived.
///
/// The store has one SQLite connection, and most operations run each statement as its own work
/// item of the database thread: a statement of one operation issued while another operation's
/// transaction is open would run inside that transaction. Holding the gate for a whole operation keeps them apart.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    /// Runs `body` once every operation that arrived before it has finished.
    func withTurn<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await waitForTurn()
        defer { passTurn() }
        return try await body()
    }

    private func waitForTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let mine = state.withLockedValue { state in
                if state.busy {
                    state.waiting.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if mine { continuation.resume() }
        }
    }

    private func passTurn() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
