import FoundationEssentials
import PetSpotBoard
import PetSpotFlow
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotSystem
import NIOConcurrencyHelpers
import Synchronization

/// The settings a reload (SIGHUP) may replace while flows and connections stay.
public struct RuntimeSettings: Sendable {
    public let configuration: DaemonConfiguration
    public let location: LocationService
    public let species: SpeciesCatalog
    /// The configured zone's calendar, for "today".
    public let calendar: LocalCalendar
    /// `relay.group` resolved at start or reload; nil: no such group, nobody is a relay.
    public let relayGroupID: UInt32?
    /// `board.staffGroup` resolved at start or reload; nil: no such group, nobody is staff.
    public let staffGroupID: UInt32?
    /// `box.name`, or the host's name: where this box's reports were filed.
    public let boxName: String

    public init(configuration: DaemonConfiguration, location: LocationService, species: SpeciesCatalog, calendar: LocalCalendar,
                relayGroupID: UInt32? = nil, staffGroupID: UInt32? = nil, boxName: String = "petspotd")
    {
        self.configuration = configuration
        self.location = location
        self.species = species
        self.calendar = calendar
        self.relayGroupID = relayGroupID
        self.staffGroupID = staffGroupID
        self.boxName = boxName
    }
}

/// What the request handlers work with: the domain, the edges, and the time, all handed in.
public final class DaemonServices: Sendable {
    public let registry: FlowRegistry
    public let store: ReportStore
    /// Where the photos of open flows wait for their submit.
    public let photoSpool: PhotoSpool
    public let clock: DaemonClock
    /// Reports handed to a relay and not yet acknowledged.
    public let relayClaims: RelayClaims
    public let makeID: @Sendable () -> String
    /// Every connection's watches.
    let subscriptions: SubscriptionHub
    /// Tells relay watches how many reports wait once some are filed.
    let pendingCount: PendingCountNotifier
    private let runtime: NIOLockedValueBox<RuntimeSettings>
    /// Counts reloads: a flow view written under older settings is not given again. Changed
    /// under `runtime`'s lock with the settings, so a reader of both there sees one or the
    /// other; read without a lock where the number alone is asked, by every request.
    private let generation = Atomic<UInt64>(0)
    /// `daemon.info`'s result as written for the wire, and the generation of the settings it shows.
    private let writtenInfo = NIOLockedValueBox<(generation: UInt64, bytes: [UInt8])?>(nil)

    /// `subscriptions` is made beforehand when the registry tells it of expired flows.
    init(settings: RuntimeSettings, registry: FlowRegistry, store: ReportStore, photoSpool: PhotoSpool, clock: DaemonClock,
         subscriptions: SubscriptionHub? = nil, makeID: @escaping @Sendable () -> String = RandomID.make)
    {
        let subscriptions = subscriptions ?? SubscriptionHub(maxQueuedBytes: settings.configuration.limits.maxPendingOutputBytes)
        self.subscriptions = subscriptions
        self.pendingCount = PendingCountNotifier(store: store, subscriptions: subscriptions)
        self.runtime = NIOLockedValueBox(settings)
        self.registry = registry
        self.store = store
        self.photoSpool = photoSpool
        self.clock = clock
        self.relayClaims = RelayClaims(clock: clock)
        self.makeID = makeID
    }

    /// The settings in force now; a request reads them once and works with that snapshot.
    public var settings: RuntimeSettings { runtime.withLockedValue { $0 } }
    public var configuration: DaemonConfiguration { settings.configuration }
    public var location: LocationService { runtime.withLockedValue { $0.location } }
    public var limits: DaemonConfiguration.Limits { runtime.withLockedValue { $0.configuration.limits } }

    /// What a request needs of the settings before its handler runs: whether `peer` is a relay,
    /// the limits in force and the bounds its params are read with. `kept` is what the same peer
    /// was given before, given again until a reload: a connection reads no lock and copies no
    /// limits for each of its requests.
    func requestSettings(for peer: Peer, kept: RequestSettings?) -> RequestSettings {
        if let kept, kept.generation == generation.load(ordering: .acquiring) { return kept }
        return runtime.withLockedValue { settings in
            RequestSettings(generation: generation.load(ordering: .relaxed),
                            isRelay: settings.relayGroupID.map { peer.isMember(of: $0) } ?? false,
                            isStaff: settings.staffGroupID.map { peer.isMember(of: $0) } ?? false,
                            limits: settings.configuration.limits,
                            bounds: ParamBounds(locationTimeoutMs: settings.configuration.locationTimeoutMs,
                                                maxReportsPage: settings.configuration.limits.maxReportsPage))
        }
    }

    /// Puts reloaded settings in force; returns the ones they replace.
    @discardableResult
    func replace(with settings: RuntimeSettings) -> RuntimeSettings {
        // Settings and their generation change together: a reader of both sees one or the other.
        subscriptions.update(maxQueuedBytes: settings.configuration.limits.maxPendingOutputBytes)
        return runtime.withLockedValue { current in
            defer {
                current = settings
                generation.add(1, ordering: .releasing)
            }
            return current
        }
    }

    /// Which settings are in force: it changes with each reload.
    public var settingsGeneration: UInt64 { generation.load(ordering: .acquiring) }

    /// What `write` makes of the settings in force (`daemon.info`'s result, which depends on
    /// nothing else), written once per generation of the settings and given again until a reload.
    public func writtenInfo(_ write: (RuntimeSettings) -> [UInt8]) -> [UInt8] {
        let (settings, current) = runtime.withLockedValue { settings in (settings, generation.load(ordering: .relaxed)) }
        if let kept = writtenInfo.withLockedValue({ $0 }), kept.generation == current { return kept.bytes }
        let bytes = write(settings)
        writtenInfo.withLockedValue { kept in
            // A request that read older settings does not replace what a newer one wrote.
            if kept.map({ $0.generation < current }) ?? true { kept = (current, bytes) }
        }
        return bytes
    }

    /// The flow environment and the generation of the settings it comes from.
    public func flowEnvironmentAndGeneration() -> (FlowEnvironment, UInt64) {
        let (parts, current) = runtime.withLockedValue { settings in (FlowEnvironmentParts(settings), generation.load(ordering: .relaxed)) }
        return (parts.environment(today: clock.today(in: parts.calendar)), current)
    }

    /// A stored report as the protocol shows it, its expiry reckoned with the settings in force.
    func reportView(_ report: StoredReport) throws(RPCError) -> ReportView {
        try ReportView(report, expireAfter: configuration.retention.expireAfter)
    }

    /// The board's entry of a report as the animal list's rules read it, when anyone watches
    /// the list: what a change is compared with. Nil when nobody watches, or it is not there.
    func watchedAnimal(_ id: String) async -> StoredAnimal? {
        guard subscriptions.isWatched(.animals), let entry = try? await store.boardEntry(id: id) else { return nil }
        return try? StoredAnimal(entry)
    }

    /// A report of the board changed from `before`: the animal list's watches are told.
    func animalChanged(_ id: String, before: StoredAnimal?) async {
        guard subscriptions.isWatched(.animals) else { return }
        subscriptions.animalChanged(before: before, after: await watchedAnimal(id))
    }

    /// The flow rules' view of the world at this moment.
    public func flowEnvironment() -> FlowEnvironment {
        flowEnvironmentAndGeneration().0
    }
}

/// What the flow environment takes from the settings: copied under their lock, not the whole.
private struct FlowEnvironmentParts {
    let species: SpeciesCatalog
    let calendar: LocalCalendar
    let maxPhotoBytes: Int

    init(_ settings: RuntimeSettings) {
        (species, calendar, maxPhotoBytes) = (settings.species, settings.calendar, settings.configuration.limits.maxPhotoBytes)
    }

    func environment(today: CalendarDate) -> FlowEnvironment {
        FlowEnvironment(today: today, species: species, maxPhotoBytes: maxPhotoBytes)
    }
}
