import NIOConcurrencyHelpers
import PetSpotFlow
import PetSpotLocation
import PetSpotProtocol
import PetSpotSystem
import PetSpotViews
import ServiceLifecycle

/// Keeps location watches told: looks at the location again whenever a provider says its
/// answer may have changed, and, while anyone watches, a few times per `location.maxAgeMs` so
/// that a fix going stale is seen. Each look asks the providers without waiting
/// (`LocationService.now`) once per caller, and the hub sends only what changed.
final class LocationNotifier: Service, Sendable {
    private let services: DaemonServices
    private let looks: AsyncStream<Void>
    private let lookAgain: AsyncStream<Void>.Continuation
    /// The providers in force, hooked: a reload that keeps a provider must not hook it twice.
    /// Held strongly, so that no provider's address is taken by a new one while listed; a
    /// reload replaces the list with its own providers, so dropped ones go.
    private let hooked = NIOLockedValueBox<[any LocationProvider]>([])

    init(services: DaemonServices) {
        self.services = services
        // One look waiting is enough: it sees every change before it.
        (looks, lookAgain) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        follow(services.location)
    }

    /// Hooks the providers of `location` (at start, and the service a reload puts in force).
    func follow(_ location: LocationService) {
        let new = hooked.withLockedValue { hooked in
            defer { hooked = location.providers }
            return location.providers.filter { provider in !hooked.contains { $0 === provider } }
        }
        for provider in new { provider.onChange { [lookAgain] in lookAgain.yield() } }
        lookAgain.yield()
    }

    /// Looks now, off the caller's path.
    func poke() {
        lookAgain.yield()
    }

    func run() async {
        let clock = services.clock
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { [services, lookAgain] in
                    while !Task.isCancelled {
                        let every = max(services.location.defaultMaxAge / 4, .milliseconds(50))
                        do { try await clock.sleep(for: every) } catch { return }
                        if services.subscriptions.isWatched(.location) { lookAgain.yield() }
                    }
                }
                for await _ in looks { look() }
                group.cancelAll()
            }
        } onGracefulShutdown: { [lookAgain] in
            lookAgain.finish()
        }
    }

    /// One look for every location watch.
    private func look() {
        let watches = services.subscriptions.locationWatches()
        guard !watches.isEmpty else { return }
        let location = services.location
        // Asked once per caller, and written once per caller and language: 1,000 watches of
        // one user cost one answer and one message.
        struct Shown: Hashable {
            let client: LocationClient
            let locale: FlowLocale
        }
        var outcomes: [LocationClient: LocationOutcome] = [:]
        var shown: [Shown: SubscriptionHub.LocationNews] = [:]
        var news: [SubscriptionHub.WatchKey: SubscriptionHub.LocationNews] = [:]
        for (key, watch) in watches {
            let client = LocationClient(uid: watch.subscriber.peer.uid, gid: watch.subscriber.peer.gid)
            let which = Shown(client: client, locale: watch.locale)
            if let made = shown[which] {
                news[key] = made
                continue
            }
            let outcome = outcomes[client] ?? location.now(for: client)
            outcomes[client] = outcome
            let made = SubscriptionHub.LocationNews(outcome.view(locale: watch.locale))
            shown[which] = made
            news[key] = made
        }
        services.subscriptions.sendLocations(news)
    }
}
