// Hand-written on purpose: FoundationEssentials has no time zone database (TimeZone(identifier:)
// is nil for every named zone and TimeZone.current is GMT), and FoundationInternationalization,
// which has one, brings ICU: some 30 MB more on disk and 12 MiB more resident. The daemon needs
// only "which calendar day is it" in one zone, which the C library answers from the system's
// tz database (the tzdata package) once the process's TZ names that zone.
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotFlow
import NIOConcurrencyHelpers

/// The calendar day of an instant in one IANA time zone ("Europe/Warsaw"), or in the system's.
public struct LocalCalendar: Sendable, Hashable {
    /// The zone's IANA name; nil for the system's zone (TZ as the process found it, else
    /// /etc/localtime).
    public let zone: String?

    /// The system's zone.
    public static let system = LocalCalendar(validZone: nil)

    /// The calendar of `zone`, or nil when the tz database has no such zone.
    public init?(zone: String) {
        guard Self.isKnownZone(zone) else { return nil }
        self.init(validZone: zone)
    }

    private init(validZone zone: String?) {
        self.zone = zone
    }

    /// The day `instant` falls on in this zone.
    public func day(of instant: Date) -> CalendarDate {
        var seconds = time_t(instant.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        Self.processZone.withLockedValue { applied in
            if applied != .some(zone) {
                Self.apply(zone)
                applied = .some(zone)
            }
            _ = localtime_r(&seconds, &parts)
        }
        return CalendarDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))!
    }

    /// Whether the tz database holds `name`: a relative path without "..", naming a TZif file.
    public static func isKnownZone(_ name: String) -> Bool {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."), !name.contains("\0") else { return false }
        let path = databaseFolder + "/" + name
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var magic = [UInt8](repeating: 0, count: 4)
        return read(fd, &magic, 4) == 4 && magic == Array("TZif".utf8)
    }

    /// Where the C library reads zones from: TZDIR when set, as glibc does.
    private static var databaseFolder: String {
        getenv("TZDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
    }

    /// The process has one TZ; this lock owns it. The value is the zone last put in force
    /// (outer nil: none yet), so a daemon with one zone sets TZ once.
    private static let processZone = NIOLockedValueBox<String??>(nil)

    /// TZ as the process was started with it: what "the system's zone" means.
    private static let startingTZ: String? = getenv("TZ").map { String(cString: $0) }

    /// Puts `zone` in force for localtime_r. Called with `processZone` held. TZ is replaced,
    /// never removed: after its first setting, glibc changes it in place, so a thread reading the
    /// environment meanwhile never sees a freed array. ":/etc/localtime" is what an unset TZ means.
    private static func apply(_ zone: String?) {
        setenv("TZ", zone.map { ":" + $0 } ?? startingTZ ?? ":/etc/localtime", 1)
        tzset()
    }
}
