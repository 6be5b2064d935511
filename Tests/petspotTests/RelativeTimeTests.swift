import Foundation
import Testing

@testable import petspot

/// How far a moment is from now, in words: a fixed "now", no clock.
@Suite("RelativeTime: how soon, or how long ago")
struct RelativeTimeTests {
    static let now = Date(timeIntervalSince1970: 1_795_266_447)  // 2026-11-21T13:07:27Z
    static let minute = 60.0, hour = 3_600.0, day = 86_400.0, month = 30.436875 * 86_400.0

    /// Seconds from now to the moment, and the words for it.
    static let table: [(seconds: Double, text: String)] = [
        (0, "less than a minute ago"),
        (1, "in less than a minute"),
        (59, "in less than a minute"),
        (-59.9, "less than a minute ago"),
        (60, "in 1 minute"),
        (89, "in 1 minute"),
        (90, "in 2 minutes"),
        (-5 * minute, "5 minutes ago"),
        // Each unit ends where its count would round to the next unit's first.
        (59 * minute + 29, "in 59 minutes"),
        (59 * minute + 30, "in 1 hour"),
        (-hour, "1 hour ago"),
        // Later today is told in hours: no time zone to get wrong.
        (5 * hour, "in 5 hours"),
        (-5 * hour, "5 hours ago"),
        (23 * hour + 29 * minute + 59, "in 23 hours"),
        (23 * hour + 30 * minute, "in 1 day"),
        (day, "in 1 day"),
        (-day, "1 day ago"),
        (1.5 * day - 1, "in 1 day"),
        (1.5 * day, "in 2 days"),
        // Twelve days from a report filed a few seconds ago.
        (12 * day - 5, "in 12 days"),
        (12 * day, "in 12 days"),
        (-3 * day, "3 days ago"),
        (-3 * day - 11 * hour, "3 days ago"),
        (59.5 * day - 1, "in 59 days"),
        (59.5 * day, "in 2 months"),
        (90 * day, "in 3 months"),
        (-90 * day, "3 months ago"),
        (-365 * day, "12 months ago"),
        (23.5 * month - 1, "in 23 months"),
        (23.5 * month, "in 2 years"),
        (-100 * 365.2425 * day, "100 years ago"),
    ]

    @Test("from less than a minute to years, at each unit's edges", arguments: table)
    func words(_ row: (seconds: Double, text: String)) {
        #expect(RelativeTime.text(Self.now.addingTimeInterval(row.seconds), from: Self.now) == row.text, "\(row.seconds) s")
    }

    @Test("a moment absurdly far away is still words")
    func farAway() {
        let text = RelativeTime.text(Date.distantFuture, from: Date.distantPast)
        #expect(text.hasPrefix("in ") && text.hasSuffix(" years"), "\(text)")
    }
}
