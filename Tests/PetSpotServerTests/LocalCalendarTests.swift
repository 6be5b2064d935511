import Foundation
import PetSpotFlow
import PetSpotJSON
import Testing

@testable import PetSpotServer
import PetSpotSystem

@Suite("The day in a time zone")
struct LocalCalendarTests {
    @Test("one instant, the day of each zone", arguments: [
        // 2024-01-01T10:30:00Z: already the 2nd at UTC+14, still the 31st at UTC-11.
        (1_704_105_000, "Pacific/Kiritimati", "2024-01-02"),
        (1_704_105_000, "Pacific/Pago_Pago", "2023-12-31"),
        (1_704_105_000, "UTC", "2024-01-01"),
        // 2024-07-01T04:30:00Z: 00:30 in New York on summer time, 23:30 of the 30th on winter time.
        (1_719_808_200, "America/New_York", "2024-07-01"),
        // 2024-03-10T03:30:00Z: the 9th in New York, the 10th in UTC.
        (1_710_041_400, "America/New_York", "2024-03-09"),
        (1_710_041_400, "UTC", "2024-03-10"),
        // 2024-12-31T23:30:00Z: New Year in Warsaw.
        (1_735_687_800, "Europe/Warsaw", "2025-01-01"),
        // 2024-05-05T18:45:00Z: a half-hour zone, 00:15 of the 6th.
        (1_714_934_700, "Asia/Kolkata", "2024-05-06"),
    ])
    func dayInZone(seconds: Double, zone: String, day: String) throws {
        let calendar = try #require(LocalCalendar(zone: zone))
        #expect(calendar.day(of: Date(timeIntervalSince1970: seconds)).iso == day)
        let clock = DaemonClock.manual(ManualTime(wall: Date(timeIntervalSince1970: seconds)))
        #expect(clock.today(in: calendar).iso == day)
    }

    @Test("names the tz database does not hold are refused", arguments: [
        "Mars/Olympus", "", "Europe", "Europe/../UTC", "../zoneinfo/UTC", "/usr/share/zoneinfo/UTC",
        "zone.tab", "tzdata.zi", "UTC\u{0}", "europe/warsaw",
    ])
    func unknown(zone: String) {
        #expect(LocalCalendar(zone: zone) == nil)
        #expect(!LocalCalendar.isKnownZone(zone))
    }

    @Test("zones used in turn each give their own day; the system's zone comes back unchanged")
    func alternating() throws {
        let instant = Date(timeIntervalSince1970: 1_704_105_000)
        let east = try #require(LocalCalendar(zone: "Pacific/Kiritimati"))
        let west = try #require(LocalCalendar(zone: "Pacific/Pago_Pago"))
        let before = LocalCalendar.system.day(of: instant)
        for _ in 0..<3 {
            #expect(east.day(of: instant).iso == "2024-01-02")
            #expect(west.day(of: instant).iso == "2023-12-31")
            #expect(LocalCalendar.system.day(of: instant) == before)
        }
    }

    @Test("the configuration accepts a zone of the database", arguments: ["Europe/Warsaw", "UTC", "America/Argentina/Buenos_Aires"])
    func configuration(zone: String) throws {
        var c = DaemonConfiguration()
        try c.apply(["timeZone": .string(zone)], file: "f.json")
        #expect(c.timeZone == zone)
    }
}
