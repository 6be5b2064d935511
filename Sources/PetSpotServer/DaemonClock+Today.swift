import PetSpotFlow
import PetSpotSystem

extension DaemonClock {
    /// Today's date in `calendar`'s zone.
    public func today(in calendar: LocalCalendar) -> CalendarDate {
        calendar.day(of: wallTime())
    }
}
