import NIOConcurrencyHelpers
import Testing
@testable import PetSpotStore

@Suite("The store's gate: one operation at a time, in arrival order")
struct SerialGateTests {
    struct NotQueued: Error { let waiting: Int }

    /// Waits, with a deadline, until `count` operations wait for the gate.
    private func waitUntil(_ gate: SerialGate, hasWaiting count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while gate.waitingCount < count {
            guard ContinuousClock.now < deadline else { throw NotQueued(waiting: gate.waitingCount) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("a turn given to a callback runs at once on a free gate and holds it until passed; tasks and callbacks take turns in arrival order")
    func callbacksAndTasksInOrder() async throws {
        let gate = SerialGate()
        let log = NIOLockedValueBox<[String]>([])
        gate.whenTurn { log.withLockedValue { $0.append("first") } }
        #expect(log.withLockedValue { $0 } == ["first"])

        gate.whenTurn { log.withLockedValue { $0.append("second") } }
        try await waitUntil(gate, hasWaiting: 1)
        let third = Task { await gate.withTurn { log.withLockedValue { $0.append("third") } } }
        try await waitUntil(gate, hasWaiting: 2)
        #expect(log.withLockedValue { $0 } == ["first"])

        // The callback runs on the thread that passes the turn, before the pass returns.
        gate.passTurn()
        #expect(log.withLockedValue { $0 } == ["first", "second"])
        #expect(gate.waitingCount == 1)

        gate.passTurn()
        await third.value
        #expect(log.withLockedValue { $0 } == ["first", "second", "third"])

        // Free again once the task's turn ended.
        gate.whenTurn { log.withLockedValue { $0.append("fourth") } }
        #expect(log.withLockedValue { $0 } == ["first", "second", "third", "fourth"])
        gate.passTurn()
        #expect(gate.waitingCount == 0)
    }

    @Test("a task that queued before a callback has its turn first")
    func taskBeforeCallback() async throws {
        let gate = SerialGate()
        let log = NIOLockedValueBox<[String]>([])
        gate.whenTurn { log.withLockedValue { $0.append("holder") } }
        let task = Task { await gate.withTurn { log.withLockedValue { $0.append("task") } } }
        try await waitUntil(gate, hasWaiting: 1)
        gate.whenTurn { log.withLockedValue { $0.append("callback") } }
        try await waitUntil(gate, hasWaiting: 2)

        gate.passTurn()
        await task.value
        // The task's turn ended and passed the gate on: the callback ran then, on the task's thread.
        #expect(log.withLockedValue { $0 } == ["holder", "task", "callback"])
        gate.passTurn()
        #expect(gate.waitingCount == 0)
    }

    @Test("a callback waits behind a task's turn, and runs when that turn ends")
    func callbackBehindTask() async throws {
        let gate = SerialGate()
        let log = NIOLockedValueBox<[String]>([])
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let holder = Task {
            await gate.withTurn {
                enteredContinuation.yield()
                for await _ in release { break }
                log.withLockedValue { $0.append("task") }
            }
        }
        for await _ in entered { break }
        gate.whenTurn { log.withLockedValue { $0.append("callback") } }
        try await waitUntil(gate, hasWaiting: 1)
        #expect(log.withLockedValue { $0 }.isEmpty)

        releaseContinuation.yield()
        await holder.value
        #expect(log.withLockedValue { $0 } == ["task", "callback"])
        gate.passTurn()
    }
}
