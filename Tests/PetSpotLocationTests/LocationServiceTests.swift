import Foundation
import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem
@testable import PetSpotLocation
import PetSpotViews
import Synchronization
import Testing

/// A provider that answers what the test scripts, and records the time it was given. With a
/// delay it takes that long on `clock` (at most its timeout, unless it `overstays`).
final class ScriptedProvider: LocationProvider {
    let name: String
    private let answer: ProviderAnswer
    private let delay: Duration
    private let overstays: Bool
    private let clock: DaemonClock
    let givenTimeouts = Mutex<[Duration]>([])

    init(name: String, answer: ProviderAnswer, delay: Duration = .zero, overstays: Bool = false, clock: DaemonClock = .manual(ManualTime())) {
        self.name = name
        self.answer = answer
        self.delay = delay
        self.overstays = overstays
        self.clock = clock
    }

    func currentFix(timeout: Duration, maxAge: Duration) async -> ProviderAnswer {
        givenTimeouts.withLock { $0.append(timeout) }
        if delay > .zero { try? await clock.sleep(for: overstays ? delay : min(delay, timeout)) }
        return answer
    }

    func answerNow(maxAge: Duration) -> ProviderAnswer { answer }

    func status() async -> ProviderStatus { ProviderStatus(name: name, state: .ready) }
}

/// Moves `time` to a nanosecond before `timeout`, when `request` must still be waiting, and
/// then onto it, when it must have answered `timeout`.
func expectTimeout(of request: Task<ProviderAnswer, Never>, exactlyAfter timeout: Duration, on time: ManualTime,
                   sourceLocation: SourceLocation = #_sourceLocation) async throws
{
    try await time.waitForSleepers(1)
    time.advance(by: timeout - .nanoseconds(1))
    #expect(time.sleepers == 1, "answered before its timeout", sourceLocation: sourceLocation)
    time.advance(by: .nanoseconds(1))
    #expect(await request.value == .timeout, sourceLocation: sourceLocation)
}

let warsaw = LocationFix(latitude: Coordinate(scaled: 5_222_968), longitude: Coordinate(scaled: 2_101_223),
                         source: "scripted", time: "2026-11-21T12:00:00Z", accuracy: nil)

@Suite("Location service")
struct LocationServiceTests {
    /// Time that stands still unless a test moves it: shares come out exact.
    let time = ManualTime()
    var clock: DaemonClock { .manual(time) }

    @Test("providers are asked in order; an unavailable one passes to the next")
    func fallback() async {
        let first = ScriptedProvider(name: "gpsd", answer: .unavailable(reason: "not connected"))
        let second = ScriptedProvider(name: "simulated", answer: .fix(warsaw))
        let service = LocationService(providers: [first, second], settingsFile: "/etc/petspotd.json", clock: clock)
        #expect(await service.current() == .fix(warsaw))
    }

    @Test("each provider gets an equal share of what is left of the timeout")
    func shares() async {
        let first = ScriptedProvider(name: "a", answer: .timeout)
        let second = ScriptedProvider(name: "b", answer: .timeout)
        let service = LocationService(providers: [first, second], settingsFile: "f", clock: clock, defaultTimeout: .seconds(10))
        #expect(await service.current(timeout: .milliseconds(400)) == .timeout)
        // No time passed: half of it for the first, all that is left for the second.
        #expect(first.givenTimeouts.withLock { $0 } == [.milliseconds(200)])
        #expect(second.givenTimeouts.withLock { $0 } == [.milliseconds(400)])
    }

    @Test("the time a slow first provider takes is gone: the fallback gets what is left")
    func slowFirst() async throws {
        let slow = ScriptedProvider(name: "a", answer: .timeout, delay: .milliseconds(300), clock: clock)
        let fallback = ScriptedProvider(name: "b", answer: .fix(warsaw))
        let service = LocationService(providers: [slow, fallback], settingsFile: "f", clock: clock, defaultTimeout: .seconds(10))
        let answer = Task { await service.current(timeout: .seconds(1)) }
        try await time.waitForSleepers(1)
        time.advance(by: .milliseconds(300))
        #expect(await answer.value == .fix(warsaw))
        #expect(slow.givenTimeouts.withLock { $0 } == [.milliseconds(500)])
        #expect(fallback.givenTimeouts.withLock { $0 } == [.milliseconds(700)])
    }

    @Test("a provider that overstays the whole timeout leaves none for the next: the answer is timeout")
    func overstayed() async throws {
        let stuck = ScriptedProvider(name: "a", answer: .unavailable(reason: "slow"), delay: .seconds(2), overstays: true, clock: clock)
        let never = ScriptedProvider(name: "b", answer: .fix(warsaw))
        let service = LocationService(providers: [stuck, never], settingsFile: "f", clock: clock, defaultTimeout: .seconds(1))
        let answer = Task { await service.current() }
        try await time.waitForSleepers(1)
        time.advance(by: .seconds(2))
        #expect(await answer.value == .timeout)
        #expect(never.givenTimeouts.withLock { $0 }.isEmpty)
    }

    @Test("a client may ask for less time than configured, never more")
    func timeoutCap() async {
        let only = ScriptedProvider(name: "a", answer: .timeout)
        let service = LocationService(providers: [only], settingsFile: "f", clock: clock, defaultTimeout: .seconds(1))
        _ = await service.current(timeout: .seconds(30))
        _ = await service.current(timeout: .milliseconds(250))
        #expect(only.givenTimeouts.withLock { $0 } == [.seconds(1), .milliseconds(250)])
    }

    @Test("permission denied and services disabled stop the chain and point at the setting")
    func definitiveAnswers() async {
        let denied = ScriptedProvider(name: "a", answer: .permissionDenied(settingsKey: "location.simulated.mode"))
        let never = ScriptedProvider(name: "b", answer: .fix(warsaw))
        let service = LocationService(providers: [denied, never], settingsFile: "/etc/p.json", clock: clock)
        #expect(await service.current() == .permissionDenied(SettingsLocation(file: "/etc/p.json", key: "location.simulated.mode")))
        #expect(never.givenTimeouts.withLock { $0 }.isEmpty)
    }

    @Test("location switched off answers servicesDisabled with the key that switches it on")
    func disabled() async {
        let service = LocationService(providers: [ScriptedProvider(name: "a", answer: .fix(warsaw))], settingsFile: "f", enabled: false, clock: clock)
        #expect(await service.current() == .servicesDisabled(SettingsLocation(file: "f", key: "location.enabled")))
    }

    @Test("no providers, or all unavailable: unavailable with the reasons")
    func unavailable() async {
        #expect(await LocationService(providers: [], settingsFile: "f", clock: clock).current() == .unavailable(reason: "no location provider is configured"))
        let service = LocationService(providers: [ScriptedProvider(name: "gpsd", answer: .unavailable(reason: "down"))], settingsFile: "f", clock: clock)
        #expect(await service.current() == .unavailable(reason: "gpsd: down"))
    }
}

@Suite("Static provider")
struct StaticProviderTests {
    @Test("the surveyed position, always current, as of the clock's now, with the operator's accuracy and source static")
    func surveyed() async throws {
        let time = ManualTime(wall: Date(timeIntervalSince1970: 1_795_000_000))
        let provider = StaticProvider(latitude: Coordinate(scaled: 5_222_968), longitude: Coordinate(scaled: 2_101_223), accuracyMetres: 3,
                                      clock: .manual(time))
        time.advance(by: .seconds(3_600))
        for answer in [await provider.currentFix(timeout: .seconds(1), maxAge: .zero), provider.answerNow(maxAge: .zero)] {
            guard case .fix(let fix) = answer else { Issue.record("\(answer)"); continue }
            #expect(fix.source == "static" && fix.latitude.text == "52.22968" && fix.longitude.text == "21.01223")
            #expect(fix.time == ISO8601.string(time.wallTime) && fix.accuracy?.literal == "3.0")
        }
        #expect(await provider.status().state == .ready)
        let unsaid = StaticProvider(latitude: Coordinate(scaled: 0), longitude: Coordinate(scaled: 0), accuracyMetres: nil, clock: .manual(time))
        guard case .fix(let fix) = unsaid.answerNow(maxAge: .zero) else { Issue.record("no fix"); return }
        #expect(fix.accuracy == nil)
    }
}

@Suite("Simulated provider")
struct SimulatedProviderTests {
    let time = ManualTime(wall: Date(timeIntervalSince1970: 1_795_000_000))

    func position(_ lat: Int, _ lon: Int) -> SimulatedProvider.Position {
        .init(latitude: Coordinate(scaled: lat), longitude: Coordinate(scaled: lon))
    }

    @Test("fix mode walks its track, one point per fix, and names itself as the source")
    func track() async {
        let provider = SimulatedProvider(mode: .fix, track: [position(1, 2), position(3, 4)], clock: .manual(time))
        var seen: [Int] = []
        for _ in 0..<3 {
            guard case .fix(let fix) = await provider.currentFix(timeout: .seconds(1), maxAge: .seconds(1)) else {
                Issue.record("expected a fix")
                return
            }
            #expect(fix.source == "simulated")
            #expect(fix.time == "2026-11-18T11:06:40Z")
            seen.append(fix.latitude.scaled)
        }
        #expect(seen == [1, 3, 1])
    }

    @Test("each mode answers as it should", arguments: [
        (SimulatedProvider.Mode.permissionDenied, ProviderAnswer.permissionDenied(settingsKey: "location.simulated.mode")),
        (.settingsPrompt, .servicesDisabled(settingsKey: "location.simulated.mode")),
    ])
    func modes(mode: SimulatedProvider.Mode, expected: ProviderAnswer) async {
        let provider = SimulatedProvider(mode: mode, track: [position(0, 0)], clock: .manual(time))
        #expect(await provider.currentFix(timeout: .milliseconds(20), maxAge: .seconds(1)) == expected)
    }

    @Test("no-fix mode answers timeout when its timeout has passed, not a moment before")
    func noFixTimesOut() async throws {
        let provider = SimulatedProvider(mode: .noFix, track: [position(0, 0)], clock: .manual(time))
        let answer = Task { await provider.currentFix(timeout: .seconds(10), maxAge: .seconds(1)) }
        try await expectTimeout(of: answer, exactlyAfter: .seconds(10), on: time)
    }

    @Test("a fix's time is wall time; the last fix's age is monotonic, unmoved by a wall-clock step")
    func fixTimeAndAge() async throws {
        let provider = SimulatedProvider(mode: .fix, track: [position(0, 0)], clock: .manual(time))
        #expect(await provider.status().lastFixAgeMs == nil)
        time.setWallTime(Date(timeIntervalSince1970: 1_800_000_000))
        guard case .fix(let fix) = await provider.currentFix(timeout: .seconds(1), maxAge: .seconds(1)) else {
            Issue.record("expected a fix")
            return
        }
        #expect(fix.time == "2027-01-15T08:00:00Z")
        time.advance(by: .milliseconds(1500))
        time.setWallTime(Date(timeIntervalSince1970: 1_700_000_000))
        #expect(await provider.status().lastFixAgeMs == 1500)
    }
}

@Suite("UTC timestamps")
struct ISO8601Tests {
    @Test("civil dates from seconds", arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),
        (1_709_251_199.9, "2024-02-29T23:59:59Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (4_102_444_800, "2100-01-01T00:00:00Z"),
        (1_795_000_047.999, "2026-11-18T11:07:27Z"),
    ])
    func civil(seconds: Double, text: String) {
        #expect(ISO8601.string(Date(timeIntervalSince1970: seconds)) == text)
    }
}
