#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotJSON
import PetSpotProtocol
import PetSpotSettings
import PetSpotSystem

/// Every setting of the daemon, with its default. Read from a JSON file whose keys are the
/// dotted names below (nested objects: `{"limits": {"maxFlows": 100000}}`), then overridden by
/// command-line flags.
public struct DaemonConfiguration: Sendable, Equatable {
    /// The file the settings came from; "Go to Settings" points a person here.
    public var configFile: String = ""

    public var socketPath = "run/petspotd.sock"
    public var socketMode: UInt16 = 0o660
    public var databasePath = "var/reports.sqlite"
    /// A database file up to this size is checked for damage before the daemon serves; a larger
    /// one right after (the check reads the whole file: about 25 ms for 70 MB from the page
    /// cache, far longer from an SD card after a boot).
    public var databaseCheckAtStartMaxBytes: Int64 = 16 * 1024 * 1024
    /// Relative paths are read from the configuration file's folder.
    public var speciesFile = "species.json"
    /// nil: the system's zone.
    public var timeZone: String? = nil
    public var logLevel: LogLevel = .info
    /// A flood of one fault is written as one line per this many seconds, with its count.
    public var logFaultIntervalSeconds = 10

    public var locationEnabled = true
    public var locationProviders: [String] = ["gpsd", "simulated"]
    public var gpsdHost = "127.0.0.1"
    public var gpsdPort = 2947
    public var simulatedMode = "fix"
    public var simulatedPosition = SimulatedPositionSetting(latitude: "52.22968", longitude: "21.01223")
    public var simulatedTrack: [SimulatedPositionSetting] = []
    public var gpsdReconnectMaxMs = 10_000
    /// The surveyed position of a box that never moves (`static` provider); nil: none.
    public var staticPosition: SimulatedPositionSetting? = nil
    /// How far off the surveyed position may be, in metres; nil: not said.
    public var staticAccuracyMetres: Double? = nil
    public var permissionAllow: PermissionAllow = .everyone
    public var permissionUsers: [String] = []
    public var permissionGroups: [String] = []
    public var locationTimeoutMs = 10_000
    public var locationMaxAgeMs = 2_000

    /// This long after the start, the pages of the program file and its libraries that only the start ran go back to
    /// the kernel (`StartupPages`).
    public var releaseStartupPages = true
    public var releaseStartupPagesAfterSeconds = 10

    /// Threads that serve the connections (NIO event loops); 0: one per core. One loop on a box
    /// whose cores the daemon shares with busy clients trades throughput for a shorter tail of
    /// latency (docs/PERFORMANCE.md).
    public var eventLoopThreads = 0

    /// The event loops to start: `eventLoopThreads`, or one per core of `cores`.
    public func eventLoops(cores: Int) -> Int { eventLoopThreads == 0 ? max(1, cores) : eventLoopThreads }

    public var limits = Limits()
    public var relay = Relay()
    public var retention = Retention()
    /// The box's name, which every report filed here carries (`animal.box`); nil: the host's name.
    public var boxName: String? = nil
    /// Members of this Unix group see the animal list whole (chip, exact position, contact).
    public var staffGroup = "petspot-staff"
    /// Other boxes' reports the box keeps for its list (the relay brings them); past it the
    /// farthest go first, then the oldest.
    public var maxFleetReports = 100_000
    /// Their photos' bytes together; past it the farthest lose their photo first, then the oldest.
    public var maxFleetPhotoBytes = 268_435_456

    /// How long a report lives after submit (`reports.*`): decimal days, reloadable.
    public struct Retention: Sendable, Equatable {
        /// A `missing` report becomes `expired` this long after its submit or last renewal.
        public var expireAfter: Duration = .seconds(90 * 86_400)
        /// A `found`, `withdrawn` or `expired` report is erased this long after it became so; zero: at once.
        public var eraseAfter: Duration = .seconds(365 * 86_400)
    }

    /// The relay program that forwards finished reports to the central database (`relay.*` methods).
    public struct Relay: Sendable, Equatable {
        /// Only members of this Unix group may call `relay.*`; a group that does not exist means nobody.
        public var group = "petspot-relay"
        /// A claimed report not acknowledged in this time is handed out again.
        public var claimTimeoutSeconds = 60
        public var maxClaimReports = 100
        /// What `maxClaimReports` may be set to; a claim's `limit` and an acknowledgement's ids are bounded by it.
        public static let maxClaimReportsRange = RelayClaim.maxReportsRange
        /// Photo bytes per claim; the first report of a claim goes in whatever its size.
        public var maxClaimBytes = 8 * 1024 * 1024
        /// Connections one uid of the relay group may hold, instead of `limits.maxConnectionsPerUser`.
        public var maxConnectionsPerUser = 16
    }

    public struct SimulatedPositionSetting: Sendable, Equatable {
        public var latitude: String
        public var longitude: String

        public init(latitude: String, longitude: String) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// Who may have a location: everyone, nobody, or the users and groups listed.
    public enum PermissionAllow: String, Sendable, CaseIterable {
        case everyone, nobody, listed
    }

    public enum LogLevel: String, Sendable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }

    public init() {}
}


extension DaemonConfiguration {
    /// The keys a file may hold, how each is read and whether a reload applies it: the one
    /// list of settings. A key not listed here is refused, so a typo never silently leaves a
    /// default in place.
    private static let readers: [Setting<DaemonConfiguration>] = [
        .restartOnly("socket.path", \.socketPath, { c, v, r throws(ConfigurationError) in c.socketPath = try r.path(v) }),
        .restartOnly("socket.mode", \.socketMode, { c, v, r throws(ConfigurationError) in c.socketMode = try r.fileMode(v) }),
        .restartOnly("database.path", \.databasePath, { c, v, r throws(ConfigurationError) in c.databasePath = try r.path(v) }),
        .restartOnly("database.checkAtStartMaxBytes", \.databaseCheckAtStartMaxBytes, { c, v, r throws(ConfigurationError) in c.databaseCheckAtStartMaxBytes = Int64(try r.int(v, 0...Int(Int64.max))) }),
        .reloaded("species.file", { c, v, r throws(ConfigurationError) in c.speciesFile = try r.path(v) }),
        .reloaded("timeZone", { c, v, r throws(ConfigurationError) in c.timeZone = try r.timeZone(v) }),
        .restartOnly("log.level", \.logLevel, { c, v, r throws(ConfigurationError) in c.logLevel = try r.choice(v, LogLevel.self) }),
        .restartOnly("log.faultIntervalSeconds", \.logFaultIntervalSeconds, { c, v, r throws(ConfigurationError) in c.logFaultIntervalSeconds = try r.int(v, 1...86_400) }),
        .reloaded("location.enabled", { c, v, r throws(ConfigurationError) in c.locationEnabled = try r.bool(v) }),
        .reloaded("location.providers", { c, v, r throws(ConfigurationError) in c.locationProviders = try r.providers(v) }),
        .reloaded("location.gpsd.host", { c, v, r throws(ConfigurationError) in c.gpsdHost = try r.nonEmptyString(v) }),
        .reloaded("location.gpsd.port", { c, v, r throws(ConfigurationError) in c.gpsdPort = try r.int(v, 1...65_535) }),
        .reloaded("location.gpsd.reconnectMaxMs", { c, v, r throws(ConfigurationError) in c.gpsdReconnectMaxMs = try r.int(v, 100...3_600_000) }),
        .reloaded("location.permission.allow", { c, v, r throws(ConfigurationError) in c.permissionAllow = try r.choice(v, PermissionAllow.self) }),
        .reloaded("location.permission.users", { c, v, r throws(ConfigurationError) in c.permissionUsers = try r.names(v) }),
        .reloaded("location.permission.groups", { c, v, r throws(ConfigurationError) in c.permissionGroups = try r.names(v) }),
        .reloaded("location.simulated.mode", { c, v, r throws(ConfigurationError) in c.simulatedMode = try r.simulatedMode(v) }),
        .reloaded("location.simulated.position", { c, v, r throws(ConfigurationError) in c.simulatedPosition = try r.position(v) }),
        .reloaded("location.simulated.track", { c, v, r throws(ConfigurationError) in c.simulatedTrack = try r.track(v) }),
        .reloaded("location.static.position", { c, v, r throws(ConfigurationError) in c.staticPosition = v.isNull ? nil : try r.position(v) }),
        .reloaded("location.static.accuracyMetres", { c, v, r throws(ConfigurationError) in c.staticAccuracyMetres = v.isNull ? nil : try r.metres(v) }),
        .reloaded("location.timeoutMs", { c, v, r throws(ConfigurationError) in c.locationTimeoutMs = try r.int(v, 1...600_000) }),
        .reloaded("location.maxAgeMs", { c, v, r throws(ConfigurationError) in c.locationMaxAgeMs = try r.int(v, 0...3_600_000) }),
        .restartOnly("server.eventLoopThreads", \.eventLoopThreads, { c, v, r throws(ConfigurationError) in c.eventLoopThreads = try r.int(v, 0...256) }),
        .restartOnly("memory.releaseStartupPages", \.releaseStartupPages, { c, v, r throws(ConfigurationError) in c.releaseStartupPages = try r.bool(v) }),
        .restartOnly("memory.releaseStartupPagesAfterSeconds", \.releaseStartupPagesAfterSeconds, { c, v, r throws(ConfigurationError) in c.releaseStartupPagesAfterSeconds = try r.int(v, 1...3_600) }),
    ] + Limits.table.map(\.setting) + [
        .reloaded("reports.expireAfterDays", { c, v, r throws(ConfigurationError) in c.retention.expireAfter = try r.days(v, 0...36_500, allowingZero: false) }),
        .reloaded("reports.eraseAfterDays", { c, v, r throws(ConfigurationError) in c.retention.eraseAfter = try r.days(v, 0...36_500, allowingZero: true) }),
        .restartOnly("box.name", \.boxName, { c, v, r throws(ConfigurationError) in c.boxName = v.isNull ? nil : try r.boxName(v) }),
        .reloaded("board.staffGroup", { c, v, r throws(ConfigurationError) in c.staffGroup = try r.groupName(v) }),
        .reloaded("board.maxFleetReports", { c, v, r throws(ConfigurationError) in c.maxFleetReports = try r.int(v, 0...10_000_000) }),
        .reloaded("board.maxFleetPhotoBytes", { c, v, r throws(ConfigurationError) in c.maxFleetPhotoBytes = try r.int(v, 0...1_099_511_627_776) }),
        .reloaded("relay.group", { c, v, r throws(ConfigurationError) in c.relay.group = try r.groupName(v) }),
        .reloaded("relay.claimTimeoutSeconds", { c, v, r throws(ConfigurationError) in c.relay.claimTimeoutSeconds = try r.int(v, 1...86_400) }),
        .reloaded("relay.maxClaimReports", { c, v, r throws(ConfigurationError) in c.relay.maxClaimReports = try r.int(v, Relay.maxClaimReportsRange) }),
        .reloaded("relay.maxClaimBytes", { c, v, r throws(ConfigurationError) in c.relay.maxClaimBytes = try r.int(v, 1_048_576...268_435_456) }),
        .reloaded("relay.maxConnectionsPerUser", { c, v, r throws(ConfigurationError) in c.relay.maxConnectionsPerUser = try r.int(v, 1...1_000_000) }),
    ]

    public static var knownKeys: [String] { readers.map(\.key) }

    /// What keeps `name` from being a box's name, or nil: 1 to 64 letters, digits, '.', '-' and
    /// '_', as a host name is written, so that it can be shown anywhere as it is.
    static func boxNameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.count <= 64,
              name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) })
        else { return "\"\(name)\" is not a box name: 1 to 64 letters, digits, '.', '-' and '_'" }
        return nil
    }

    /// Old names still read, so that configuration files that say them keep working:
    /// photos of open flows stayed in memory before they were spooled.
    static let formerNames = ["limits.maxPhotoBytesInMemory": "limits.maxSpooledPhotoBytes"]

    /// The keys a reload cannot apply.
    public static var restartOnlyKeys: [String] { readers.filter { $0.differs != nil }.map(\.key) }

    /// The keys only a restart applies, of those that differ between `old` and `new`, in the
    /// order of the list.
    public static func restartOnlyChanges(from old: DaemonConfiguration, to new: DaemonConfiguration) -> [String] {
        readers.compactMap { setting in (setting.differs?(old, new) ?? false) ? setting.key : nil }
    }


    /// Reads a configuration file on top of the defaults.
    public static func load(file: String) throws(ConfigurationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        configuration.configFile = file
        try configuration.apply(try SettingsFile.read(file), file: file)
        return configuration
    }

    /// Applies the members of a parsed file (or of a test's JSON) to these settings.
    public mutating func apply(_ json: JSONValue, file: String) throws(ConfigurationError) {
        try SettingsFile.apply(json, to: &self, settings: Self.readers, formerNames: Self.formerNames, file: file)
    }

    /// The species file as a path to open: relative names are read beside the configuration file.
    public var resolvedSpeciesFile: String {
        if speciesFile.hasPrefix("/") || configFile.isEmpty { return speciesFile }
        return URL(fileURLWithPath: configFile).deletingLastPathComponent().appendingPathComponent(speciesFile).path
    }
}

// The daemon's own kinds of value.
extension SettingReader {
    func fileMode(_ v: JSONValue) throws(ConfigurationError) -> UInt16 {
        let s = try string(v)
        guard let mode = SettingParsers.fileMode(s) else { throw fail("\"\(s)\" is not an octal file mode such as \"0660\"") }
        return mode
    }

    func timeZone(_ v: JSONValue) throws(ConfigurationError) -> String? {
        if v.isNull { return nil }
        let s = try string(v)
        guard LocalCalendar.isKnownZone(s) else { throw fail("unknown time zone \"\(s)\"") }
        return s
    }

    func providers(_ v: JSONValue) throws(ConfigurationError) -> [String] {
        guard case .array(let items) = v else { throw fail("expected an array of provider names, found \(v.typeName)") }
        var names: [String] = []
        for item in items { names.append(try string(item)) }
        if let problem = SettingParsers.providersProblem(names) { throw fail(problem) }
        return names
    }

    func names(_ v: JSONValue) throws(ConfigurationError) -> [String] {
        guard case .array(let items) = v else { throw fail("expected an array of user or group names, found \(v.typeName)") }
        var names: [String] = []
        for item in items { names.append(try nonEmptyString(item)) }
        return names
    }

    /// A distance in metres: a number from 0 to 100 km.
    func metres(_ v: JSONValue) throws(ConfigurationError) -> Double {
        guard case .number(let n) = v, let metres = Double(n.literal), metres.isFinite, metres >= 0, metres <= 100_000 else {
            throw fail("expected a number of metres from 0 to 100000")
        }
        return metres
    }

    /// A box's name: 1 to 64 characters of letters, digits, '.', '-' and '_', as a host name is
    /// written, so that it can be shown anywhere as it is.
    func boxName(_ v: JSONValue) throws(ConfigurationError) -> String {
        let s = try nonEmptyString(v)
        if let problem = DaemonConfiguration.boxNameProblem(s) { throw fail(problem) }
        return s
    }

    func simulatedMode(_ v: JSONValue) throws(ConfigurationError) -> String {
        let s = try string(v)
        guard SettingParsers.simulatedModes.contains(s) else {
            throw fail("\"\(s)\" is not one of \(SettingParsers.simulatedModes.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        return s
    }

    func position(_ v: JSONValue) throws(ConfigurationError) -> DaemonConfiguration.SimulatedPositionSetting {
        guard case .array(let pair) = v, pair.count == 2, case .number(let lat) = pair[0], case .number(let lon) = pair[1] else {
            throw fail("expected [latitude, longitude] as two numbers")
        }
        if let problem = SettingParsers.positionProblem(latitude: lat.literal, longitude: lon.literal) { throw fail(problem) }
        return .init(latitude: lat.literal, longitude: lon.literal)
    }

    func track(_ v: JSONValue) throws(ConfigurationError) -> [DaemonConfiguration.SimulatedPositionSetting] {
        guard case .array(let items) = v else { throw fail("expected an array of [latitude, longitude] pairs") }
        var track: [DaemonConfiguration.SimulatedPositionSetting] = []
        for item in items { track.append(try position(item)) }
        return track
    }
}

/// Parsing rules shared by the file and the command line.
public enum SettingParsers {
    public static var providerNames: [String] { LocationProviderFactory.all.map(\.name) }
    public static let simulatedModes = ["fix", "permission-denied", "settings-prompt", "no-fix"]

    public static func fileMode(_ text: String) -> UInt16? {
        guard !text.isEmpty, text.count <= 4, let mode = UInt16(text, radix: 8), mode <= 0o777 else { return nil }
        return mode
    }

    public static func providersProblem(_ names: [String]) -> String? {
        for name in names where !providerNames.contains(name) {
            return "unknown location provider \"\(name)\"; known: \(providerNames.joined(separator: ", "))"
        }
        if Set(names).count != names.count { return "a provider is listed twice" }
        return nil
    }

    public static func positionProblem(latitude: String, longitude: String) -> String? {
        guard let lat = DecimalLiteral(parsing: latitude, lenient: true), lat.compare(to: -90) >= 0, lat.compare(to: 90) <= 0 else {
            return "latitude \(latitude) is not a number from -90 to 90"
        }
        guard let lon = DecimalLiteral(parsing: longitude, lenient: true), lon.compare(to: -180) >= 0, lon.compare(to: 180) <= 0 else {
            return "longitude \(longitude) is not a number from -180 to 180"
        }
        return nil
    }
}
