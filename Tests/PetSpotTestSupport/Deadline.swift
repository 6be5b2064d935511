#if canImport(Glibc)
import Glibc
#endif

/// A wait that ran out: what it waited for, and for how long.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass; never a fixed sleep. A
/// condition that throws counts as not holding until the last look, whose error is thrown.
public func waitUntil(_ what: String, seconds: Double = 15, _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if (try? condition()) == true { return }
        usleep(20_000)
    }
    if try condition() { return }
    throw TimedOut(description: "timed out after \(seconds) s waiting for \(what)")
}

/// The same for a condition that awaits.
public func waitUntil(_ what: String, seconds: Double = 15, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    if try await condition() { return }
    throw TimedOut(description: "timed out after \(seconds) s waiting for \(what)")
}
