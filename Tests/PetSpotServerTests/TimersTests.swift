import Logging
import PetSpotSystem
@testable import PetSpotServer
import Synchronization
import Testing

/// Log lines kept in memory, to see what the fault log writes.
final class CapturedLog: Sendable {
    let lines = Mutex<[(message: String, metadata: Logger.Metadata)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(log: self) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            log.lines.withLock { $0.append((event.message.description, metadata.merging(event.metadata ?? [:]) { $1 })) }
        }
    }
}

/// The daemon's timers and rate limits read the injected clock: moving a manual one reaches
/// every interval at once, with no waiting.
@Suite("Timers on the daemon clock")
struct TimersTests {
    @Test("a fault flood: the first line at once, the count when the interval is over on the clock, not before")
    func faultLogInterval() {
        let time = ManualTime()
        let captured = CapturedLog()
        let faults = FaultLog(logger: captured.logger, interval: .seconds(10), clock: .manual(time))
        for _ in 0..<3 {
            faults.record("storage", .error, "storage failed")
            time.advance(by: .seconds(1))
        }
        #expect(captured.lines.withLock { $0.count } == 1)
        time.advance(by: .seconds(7) - .nanoseconds(1))
        faults.flush()
        #expect(captured.lines.withLock { $0.count } == 1)
        time.advance(by: .nanoseconds(1))
        faults.flush()
        let lines = captured.lines.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.last?.metadata["repeated"] == "2")
        #expect(lines.last?.metadata["interval"] == "10s")
    }

    @Test("periodic work runs each time its interval passes on the clock, and its stop work at the end")
    func periodicService() async throws {
        let time = ManualTime()
        let (ticks, tick) = AsyncStream.makeStream(of: Int.self)
        let count = Mutex(0)
        let stopped = Mutex(false)
        let service = PeriodicService(interval: .seconds(30), clock: .manual(time),
                                      work: { tick.yield(count.withLock { $0 += 1; return $0 }) },
                                      atStop: { stopped.withLock { $0 = true } })
        let running = Task { await service.run() }
        var seen = ticks.makeAsyncIterator()
        for expected in 1...3 {
            try await time.waitForSleepers(1)
            time.advance(by: .seconds(30))
            #expect(await seen.next() == expected)
        }
        running.cancel()
        await running.value
        #expect(count.withLock { $0 } == 3)
        #expect(stopped.withLock { $0 })
    }

    @Test("startup pages are released once, when their delay has passed on the clock, not before")
    func startupPagesDelay() async throws {
        let time = ManualTime()
        let captured = CapturedLog()
        let service = StartupPagesService(after: .seconds(10), clock: .manual(time), logger: captured.logger)
        let running = Task { await service.run() }
        try await time.waitForSleepers(1)
        time.advance(by: .seconds(10) - .nanoseconds(1))
        try await time.waitForSleepers(1)
        #expect(captured.lines.withLock { $0.isEmpty })
        time.advance(by: .nanoseconds(1))
        await running.value
        let messages = captured.lines.withLock { $0.map(\.message) }
        #expect(messages == ["startup pages released"])
    }
}
