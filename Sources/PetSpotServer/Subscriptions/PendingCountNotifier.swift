import NIOConcurrencyHelpers
import PetSpotProtocol
import PetSpotStore

/// Tells relay watches how many reports wait for delivery, after reports are filed. The count
/// is a read of the database, so it is taken in a task of its own, never in a submit's way;
/// a burst of submits while one count runs gives one more count after it, not one each.
final class PendingCountNotifier: Sendable {
    private struct State {
        var counting = false
        var again = false
    }

    private let store: ReportStore
    private let subscriptions: SubscriptionHub
    private let state = NIOLockedValueBox(State())

    init(store: ReportStore, subscriptions: SubscriptionHub) {
        self.store = store
        self.subscriptions = subscriptions
    }

    /// Reports were filed: relay watches hear the new count soon.
    func reportsFiled() {
        guard subscriptions.isWatched(.relay) else { return }
        let start = state.withLockedValue { s -> Bool in
            if s.counting {
                s.again = true
                return false
            }
            s.counting = true
            return true
        }
        guard start else { return }
        Task { [self] in
            repeat {
                // A database that fails here fails the relay's own claim too, which says why;
                // the relay's poll is the safety net for a count not sent.
                if let counts = try? await store.deliveryCounts() {
                    subscriptions.publish(RelayPending.self, to: .relay) { RelayPending.Params(subscription: $0, pending: counts.pending) }
                }
            } while state.withLockedValue { s in
                if s.again {
                    s.again = false
                    return true
                }
                s.counting = false
                return false
            }
        }
    }
}
