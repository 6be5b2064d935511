#if canImport(Glibc)
import Glibc
#endif
import Logging
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotSettings
import PetSpotSystem

// The settings a reload may replace, made from a configuration: at start and on SIGHUP.
extension RuntimeSettings {
    /// Everything a reload may replace, built and checked before anything is put in force.
    static func make(_ c: DaemonConfiguration, clock: DaemonClock, logger: Logger,
                     reusing previous: LocationService?) throws(ConfigurationError) -> RuntimeSettings
    {
        let calendar: LocalCalendar
        if let name = c.timeZone {
            guard let known = LocalCalendar(zone: name) else { throw ConfigurationError("timeZone: unknown time zone \"\(name)\"") }
            calendar = known
        } else {
            calendar = .system
        }
        // Without any configuration file there is no species file beside it either.
        let species = c.configFile.isEmpty ? SpeciesCatalog.builtIn : try loadSpecies(c.resolvedSpeciesFile)
        let location = try makeLocationService(c, clock: clock, logger: logger, reusing: previous)
        // Said in the log once the settings are in force (`warnIfNoRelayGroup`): a refused start stays one line.
        let accounts = SystemAccounts()
        return RuntimeSettings(configuration: c, location: location, species: species, calendar: calendar,
                               relayGroupID: accounts.groupID(named: c.relay.group), staffGroupID: accounts.groupID(named: c.staffGroup),
                               boxName: c.boxName ?? hostName())
    }

    /// The host's name (`gethostname`), what a box is called unless `box.name` says otherwise;
    /// never /etc/machine-id, which systemd says must not be shown.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "petspotd" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "petspotd" : name
    }

    private static func loadSpecies(_ file: String) throws(ConfigurationError) -> SpeciesCatalog {
        let data: [UInt8]
        do {
            data = try FileDescriptorIO.readFile(file)
        } catch {
            throw ConfigurationError("species.file: cannot read \(file): \(SystemError.reason(error))")
        }
        do {
            return try SpeciesCatalog(json: try JSONParser.parse(data))
        } catch let error as JSONParseError {
            throw ConfigurationError("species.file: \(file) is not valid JSON: \(error)")
        } catch {
            throw ConfigurationError("species.file: \(file): \(error)")
        }
    }

    /// The location service of `c`, its providers made by `LocationProviderFactory`.
    static func makeLocationService(_ c: DaemonConfiguration, clock: DaemonClock, logger: Logger,
                                    reusing previous: LocationService? = nil) throws(ConfigurationError) -> LocationService
    {
        let context = LocationProviderFactory.Context(clock: clock, logger: logger, previous: previous)
        var providers: [any LocationProvider] = []
        for name in c.locationProviders {
            guard let factory = LocationProviderFactory.named(name) else {
                throw ConfigurationError("location.providers: unknown provider \"\(name)\"")
            }
            providers.append(try factory.make(c, context))
        }
        let permission: LocationPermission = switch c.permissionAllow {
        case .everyone: .everyone
        case .nobody: .nobody
        case .listed: .listed(users: c.permissionUsers, groups: c.permissionGroups)
        }
        return LocationService(providers: providers, settingsFile: c.configFile.isEmpty ? "(built-in defaults)" : c.configFile,
                               enabled: c.locationEnabled, permission: permission, clock: clock,
                               defaultTimeout: .milliseconds(c.locationTimeoutMs), defaultMaxAge: .milliseconds(c.locationMaxAgeMs))
    }
}
