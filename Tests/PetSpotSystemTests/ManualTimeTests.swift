import FoundationEssentials
import PetSpotSystem
import Testing

@Suite("Manual time")
struct ManualTimeTests {
    @Test("a sleep ends when the time reaches its deadline, not a nanosecond before; sleeps end earliest first")
    func sleepsEndAtTheirDeadline() async throws {
        let time = ManualTime()
        let clock = DaemonClock.manual(time)
        let (ended, end) = AsyncStream.makeStream(of: String.self)
        let short = Task { try await clock.sleep(for: .seconds(1)); end.yield("short") }
        let long = Task { try await clock.sleep(for: .seconds(2)); end.yield("long") }
        try await time.waitForSleepers(2)
        time.advance(by: .seconds(1) - .nanoseconds(1))
        #expect(time.sleepers == 2)
        time.advance(by: .seconds(1) + .nanoseconds(1))
        try await short.value
        try await long.value
        end.finish()
        var order: [String] = []
        for await name in ended { order.append(name) }
        #expect(Set(order) == ["short", "long"])
        #expect(time.sleepers == 0)
    }

    @Test("a deadline already passed returns at once")
    func pastDeadline() async throws {
        let time = ManualTime()
        let clock = DaemonClock.manual(time)
        try await clock.sleep(until: clock.now)
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-5)))
    }

    @Test("a cancelled sleep ends with CancellationError, asleep or not yet")
    func cancellation() async throws {
        let time = ManualTime()
        let clock = DaemonClock.manual(time)
        let asleep = Task { try await clock.sleep(for: .seconds(60)) }
        try await time.waitForSleepers(1)
        asleep.cancel()
        await #expect(throws: CancellationError.self) { try await asleep.value }
        #expect(time.sleepers == 0)
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(60))
        }
        await #expect(throws: CancellationError.self) { try await early.value }
    }

    @Test("wall time moves with the clock and can be stepped alone; instants measure monotonic time only")
    func wallTime() {
        let time = ManualTime(wall: Date(timeIntervalSince1970: 1_000))
        let clock = DaemonClock.manual(time)
        let start = clock.now
        time.advance(by: .milliseconds(1500))
        #expect(clock.wallTime() == Date(timeIntervalSince1970: 1_001.5))
        time.setWallTime(Date(timeIntervalSince1970: 0))
        #expect(clock.wallTime() == Date(timeIntervalSince1970: 0))
        #expect(clock.now.elapsed(since: start) == .milliseconds(1500))
        #expect(start.elapsed(since: clock.now) == .zero)
    }

    @Test("the system clock's instants are CLOCK_MONOTONIC's, in whole microseconds for systemd")
    func systemClock() {
        let a = DaemonClock.system.now
        let b = DaemonClock.system.now
        #expect(a <= b)
        #expect(DaemonInstant(sinceOrigin: .seconds(3) + .nanoseconds(4_567)).microsecondsSinceOrigin == 3_000_004)
    }
}
