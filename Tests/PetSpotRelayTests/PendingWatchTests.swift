import Logging
@testable import PetSpotRelay
import Testing

/// The relay's watch of relay.pending, without a daemon: its waits and its stop.
@Suite("Waiting for filed reports")
struct PendingWatchTests {
    /// Fails the test rather than hang it when `body` does not finish in `limit`.
    func finishes(within limit: Duration, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await body(); return true }
            group.addTask { try? await Task.sleep(for: limit); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    @Test("with no daemon to watch, a stop does not wait out the pause before the next try")
    func stopCutsTheRetryShort() async {
        let watch = PendingWatch(socketPath: "/nonexistent/petspotd.sock", logger: Logger(label: "test"))
        watch.start(retry: .seconds(3_600))
        // The first try fails at once; the watch then pauses for an hour unless stopped.
        #expect(await finishes(within: .seconds(20)) { await watch.stop() })
    }

    @Test("a wait ends after its time when nothing is filed, and at once when the watch stopped")
    func waitEnds() async {
        let watch = PendingWatch(socketPath: "/nonexistent/petspotd.sock", logger: Logger(label: "test"))
        #expect(await finishes(within: .seconds(20)) { await watch.waitForFiled(atMost: .milliseconds(10)) })
        await watch.stop()
        #expect(await finishes(within: .seconds(20)) { await watch.waitForFiled(atMost: .seconds(3_600)) })
    }
}
