import NIOConcurrencyHelpers

/// The room a batch's answers take in their user's share while they are made, before the
/// connection hands the batch to its channel and counts it there
/// (`ClientMemoryAccount.outputAdded`). A batch is made whole before any of it is written: 100
/// answers of 29 KiB each are 2.9 MiB, and counted only once written, one user's 128 connections
/// would each make one past its share. Each answer counts as it is made, and once the user holds
/// its share the batch runs none of its remaining requests (`RequestContext`).
///
/// One per connection, which makes one batch at a time, on its event loop or in a task; the
/// batch is handed over on the event loop.
final class BatchRoom: Sendable {
    let budget: ClientMemoryBudget
    let uid: UInt32

    private struct State {
        /// Bytes of the batch made so far.
        var made = 0
        /// Room taken from the budget for them: whole steps past the first, as a connection's.
        var taken = 0
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    init(budget: ClientMemoryBudget, uid: UInt32) {
        self.budget = budget
        self.uid = uid
    }

    /// Bytes of the batch made so far.
    var made: Int { state.withLockedValue { $0.made } }

    /// Why the batch should make no more answers, or nil: asked before each answer, so that a
    /// user at its share gets none made, whatever connection the batch came on.
    func noRoom() -> ClientMemoryBudget.Refusal? {
        budget.noRoom(for: uid)
    }

    /// `bytes` more of the batch are made: counted at once, whatever it costs, since they exist.
    func made(_ bytes: Int) {
        state.withLockedValue { state in
            guard !state.closed else { return }
            state.made += bytes
            let needed = ClientMemoryAccount.charge(state.made)
            guard needed > state.taken else { return }
            _ = budget.take(needed - state.taken, for: uid, force: true)
            state.taken = needed
        }
    }

    /// The batch is in the channel and counted there: its room here goes back.
    func handedOver() {
        state.withLockedValue { state in
            budget.giveBack(state.taken, for: uid)
            (state.made, state.taken) = (0, 0)
        }
    }

    /// The connection is gone: what a batch still being made takes from now on is not counted.
    func close() {
        state.withLockedValue { state in
            state.closed = true
            budget.giveBack(state.taken, for: uid)
            (state.made, state.taken) = (0, 0)
        }
    }
}
