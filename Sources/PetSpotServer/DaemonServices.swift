import Foundation
import PetSpotFlow
import PetSpotLocation
import PetSpotStore

/// What the request handlers work with: the domain, the edges, and the time, all handed in.
public final class DaemonServices: Sendable {
    public let configuration: DaemonConfiguration
    public let registry: FlowRegistry
    public let store: ReportStore
    public let location: LocationService
    public let species: SpeciesCatalog
    public let clock: DaemonClock
    public let timeZone: TimeZone
    public let makeID: @Sendable () -> String

    public init(configuration: DaemonConfiguration, registry: FlowRegistry, store: ReportStore,
                location: LocationService, species: SpeciesCatalog, clock: DaemonClock, timeZone: TimeZone,
                makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() })
    {
        self.configuration = configuration
        self.registry = registry
        self.store = store
        self.location = location
        self.species = species
        self.clock = clock
        self.timeZone = timeZone
        self.makeID = makeID
    }

    /// The flow rules' view of the world at this moment.
    public func flowEnvironment() -> FlowEnvironment {
        FlowEnvironment(today: clock.today(in: timeZone), species: species,
                        maxPhotoBytes: configuration.limits.maxPhotoBytes)
    }
}

/// The daemon's version, as `daemon.info` reports it.
public let petspotdVersion = "0.1.0"
