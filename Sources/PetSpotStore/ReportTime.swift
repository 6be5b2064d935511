import FoundationEssentials

// The store keeps the times of a report's life as whole milliseconds since 1970 (UTC), in
// INTEGER columns: a deadline is a base plus a setting of decimal days, and integers add and
// compare exactly, in SQL as in Swift, with no text to format or parse on the way.

extension Date {
    /// Whole milliseconds since 1970, to the nearest.
    var milliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The date at whole milliseconds, as it reads back from the store.
    var inWholeMilliseconds: Date { Date(milliseconds: milliseconds) }

    /// `duration` later, to the millisecond.
    func adding(_ duration: Duration) -> Date {
        Date(milliseconds: milliseconds + duration.wholeMilliseconds)
    }
}

extension Duration {
    /// Whole milliseconds, rounded toward zero; clamped rather than overflowing.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min / 2 : .max / 2 }
        return product + attoseconds / 1_000_000_000_000_000
    }
}

/// The submit time a `NewReport` carries as text ("2026-11-21T13:07:27Z").
enum SubmitTime {
    /// The text read as ISO 8601 UTC with whole seconds, or nil.
    static func date(_ text: String) -> Date? {
        try? Date.ISO8601FormatStyle().parse(text)
    }
}
