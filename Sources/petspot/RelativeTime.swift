import FoundationEssentials

/// How far a moment is from now, as a person says it: "in 12 days", "3 days ago". Counted in
/// elapsed time, not calendar days, so no time zone is needed and none can be wrong; each
/// unit rounded to the nearest, and the next unit taken once the count reaches its end (59.5
/// minutes is "1 hour", not "60 minutes"). Days up to 59, then months up to 23, then years.
enum RelativeTime {
    private static let minute = 60.0
    private static let hour = 3_600.0
    private static let day = 86_400.0
    /// A Gregorian year's average month and year, so that a count of them never drifts.
    private static let month = 30.436875 * day
    private static let year = 365.2425 * day

    /// "in …" when `moment` is after `now`, "… ago" when it is not.
    static func text(_ moment: Date, from now: Date) -> String {
        let seconds = moment.timeIntervalSince(now)
        let span = distance(abs(seconds))
        return seconds > 0 ? "in \(span)" : "\(span) ago"
    }

    /// A span of time in its largest fitting unit.
    static func distance(_ seconds: Double) -> String {
        guard seconds >= minute else { return "less than a minute" }
        let minutes = count(seconds, minute)
        if minutes < 60 { return plural(minutes, "minute") }
        let hours = count(seconds, hour)
        if hours < 24 { return plural(hours, "hour") }
        let days = count(seconds, day)
        if days < 60 { return plural(days, "day") }
        let months = count(seconds, month)
        if months < 24 { return plural(months, "month") }
        return plural(count(seconds, year), "year")
    }

    private static func count(_ seconds: Double, _ unit: Double) -> Int {
        // A moment ages of years away (a hostile or broken answer) is still a number to print.
        Int(min((seconds / unit).rounded(.toNearestOrAwayFromZero), 1e15))
    }

    private static func plural(_ count: Int, _ unit: String) -> String {
        count == 1 ? "1 \(unit)" : "\(count) \(unit)s"
    }
}
