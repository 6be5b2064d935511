import FoundationEssentials

/// UTC timestamps as the protocol writes them: "2026-11-21T13:07:27Z".
public enum ISO8601 {
    /// UTC, whole seconds (a fraction is dropped, not rounded), "Z"; a value type, safe to share.
    private static let style = Date.ISO8601FormatStyle()

    public static func string(_ date: Date) -> String {
        style.format(date)
    }
}
