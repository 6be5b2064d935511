import Testing

@testable import PetSpotFlow

@Suite("Calendar dates")
struct CalendarDateTests {
    @Test(
        "real days only, with Gregorian leap years",
        arguments: [
            (2024, 2, 29, true),
            (2023, 2, 29, false),
            (2000, 2, 29, true),
            (1900, 2, 29, false),
            (2024, 4, 30, true),
            (2024, 4, 31, false),
            (2024, 12, 31, true),
            (2024, 13, 1, false),
            (2024, 0, 1, false),
            (2024, 1, 0, false),
            (0, 1, 1, false),
            (9999, 12, 31, true),
        ])
    func validity(year: Int, month: Int, day: Int, valid: Bool) {
        #expect((CalendarDate(year: year, month: month, day: day) != nil) == valid)
    }

    @Test(
        "ISO text is exactly YYYY-MM-DD",
        arguments: [
            ("2024-06-01", true),
            ("0999-01-05", true),
            ("2024-6-1", false),
            ("24-06-01", false),
            ("2024/06/01", false),
            ("2024-06-01T00:00:00Z", false),
            ("20240601", false),
            ("2024-06-1 ", false),
            ("+024-06-01", false),
            ("٢٠٢٤-٠٦-٠١", false),
            ("", false),
        ])
    func isoParsing(text: String, valid: Bool) {
        let date = CalendarDate(iso: text)
        #expect((date != nil) == valid)
        if let date { #expect(date.iso == text) }
    }

    @Test("dates order by year, then month, then day")
    func ordering() throws {
        let dates = try ["2023-12-31", "2024-01-01", "2024-01-02", "2024-02-01"].map { try #require(CalendarDate(iso: $0)) }
        #expect(dates == dates.sorted())
        #expect(dates.shuffled().sorted() == dates)
    }
}
