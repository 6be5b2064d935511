import Foundation

struct TimedOut: Error, CustomStringConvertible {
    let description: String
}

/// Polls `condition` until it holds or `seconds` pass; never a fixed sleep.
func waitUntil(_ what: String, seconds: Double = 15, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if (try? condition()) == true { return }
        usleep(20_000)
    }
    if try condition() { return }
    throw TimedOut(description: "timed out after \(seconds) s waiting for \(what)")
}
