import Foundation
import PetSpotFlow
import PetSpotJSON
import PetSpotProtocol
@testable import PetSpotLocation
import Synchronization
import Testing

/// A provider that answers what the test scripts, and records the time it was given.
final class ScriptedProvider: LocationProvider {
    let name: String
    private let answer: ProviderAnswer
    private let delay: Duration
    let givenTimeouts = Mutex<[Duration]>([])

    init(name: String, answer: ProviderAnswer, delay: Duration = .zero) {
        self.name = name
        self.answer = answer
        self.delay = delay
    }

    func currentFix(timeout: Duration, maxAge: Duration) async -> ProviderAnswer {
        givenTimeouts.withLock { $0.append(timeout) }
        if delay > .zero { try? await Task.sleep(for: min(delay, timeout)) }
        return answer
    }

    func status() async -> ProviderStatus { ProviderStatus(name: name, state: .ready) }
}

let warsaw = LocationFix(latitude: Coordinate(scaled: 5_222_968), longitude: Coordinate(scaled: 2_101_223),
                         source: "scripted", time: "2026-11-21T12:00:00Z", accuracy: nil)

@Suite("Location service")
struct LocationServiceTests {
    @Test("providers are asked in order; an unavailable one passes to the next")
    func fallback() async {
        let first = ScriptedProvider(name: "gpsd", answer: .unavailable(reason: "not connected"))
        let second = ScriptedProvider(name: "simulated", answer: .fix(warsaw))
        let service = LocationService(providers: [first, second], settingsFile: "/etc/petspotd.json")
        #expect(await service.current() == .fix(warsaw))
    }

    @Test("each provider gets an equal share of what is left of the timeout")
    func shares() async {
        let first = ScriptedProvider(name: "a", answer: .timeout)
        let second = ScriptedProvider(name: "b", answer: .timeout)
        let service = LocationService(providers: [first, second], settingsFile: "f", defaultTimeout: .seconds(10))
        #expect(await service.current(timeout: .milliseconds(400)) == .timeout)
        // Half of what was left when the first was asked: a hair under 200 ms.
        let firstShare = first.givenTimeouts.withLock { $0 }
        #expect(firstShare.count == 1)
        #expect(firstShare[0] <= .milliseconds(200) && firstShare[0] > .milliseconds(100))
        let secondShare = second.givenTimeouts.withLock { $0 }
        #expect(secondShare.count == 1)
        #expect(secondShare[0] <= .milliseconds(400) && secondShare[0] > .zero)
    }

    @Test("a client may ask for less time than configured, never more")
    func timeoutCap() async {
        let only = ScriptedProvider(name: "a", answer: .timeout)
        let service = LocationService(providers: [only], settingsFile: "f", defaultTimeout: .seconds(1))
        _ = await service.current(timeout: .seconds(30))
        let given = only.givenTimeouts.withLock { $0 }
        #expect(given.count == 1)
        #expect(given[0] <= .seconds(1) && given[0] > .milliseconds(500))
    }

    @Test("permission denied and services disabled stop the chain and point at the setting")
    func definitiveAnswers() async {
        let denied = ScriptedProvider(name: "a", answer: .permissionDenied(settingsKey: "location.simulated.mode"))
        let never = ScriptedProvider(name: "b", answer: .fix(warsaw))
        let service = LocationService(providers: [denied, never], settingsFile: "/etc/p.json")
        #expect(await service.current() == .permissionDenied(SettingsLocation(file: "/etc/p.json", key: "location.simulated.mode")))
        #expect(never.givenTimeouts.withLock { $0 }.isEmpty)
    }

    @Test("location switched off answers servicesDisabled with the key that switches it on")
    func disabled() async {
        let service = LocationService(providers: [ScriptedProvider(name: "a", answer: .fix(warsaw))], settingsFile: "f", enabled: false)
        #expect(await service.current() == .servicesDisabled(SettingsLocation(file: "f", key: "location.enabled")))
    }

    @Test("no providers, or all unavailable: unavailable with the reasons")
    func unavailable() async {
        #expect(await LocationService(providers: [], settingsFile: "f").current() == .unavailable(reason: "no location provider is configured"))
        let service = LocationService(providers: [ScriptedProvider(name: "gpsd", answer: .unavailable(reason: "down"))], settingsFile: "f")
        #expect(await service.current() == .unavailable(reason: "gpsd: down"))
    }
}

@Suite("Simulated provider")
struct SimulatedProviderTests {
    let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    func position(_ lat: Int, _ lon: Int) -> SimulatedProvider.Position {
        .init(latitude: Coordinate(scaled: lat), longitude: Coordinate(scaled: lon))
    }

    @Test("fix mode walks its track, one point per fix, and names itself as the source")
    func track() async {
        let now = epoch
        let provider = SimulatedProvider(mode: .fix, track: [position(1, 2), position(3, 4)], now: { now })
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
        (.noFix, .timeout),
    ])
    func modes(mode: SimulatedProvider.Mode, expected: ProviderAnswer) async {
        let now = epoch
        let provider = SimulatedProvider(mode: mode, track: [position(0, 0)], now: { now })
        #expect(await provider.currentFix(timeout: .milliseconds(20), maxAge: .seconds(1)) == expected)
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
