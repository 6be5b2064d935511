import Foundation

/// UTC timestamps as the protocol writes them: "2026-11-21T13:07:27Z".
public enum ISO8601 {
    public static func string(_ date: Date) -> String {
        // Fixed-format arithmetic: Date formatters are neither cheap nor thread-safe to share.
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        var days = seconds.floorDiv(86_400)
        let secondOfDay = seconds - days * 86_400
        // Civil-from-days (Howard Hinnant), valid for the whole proleptic Gregorian calendar.
        days += 719_468
        let era = days.floorDiv(146_097)
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}

extension Int {
    fileprivate func floorDiv(_ d: Int) -> Int {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
