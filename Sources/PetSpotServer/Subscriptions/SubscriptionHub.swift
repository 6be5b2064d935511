import NIOConcurrencyHelpers
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import PetSpotBoard

/// Every watch of every connection, by what it follows: a change publishes here and reaches
/// the watches of its topic. One lock guards the index; notifications are written and queued
/// on their connections outside it. A connection's own `Subscriber` holds its side (its ids,
/// its queue); the two never lock one inside the other.
final class SubscriptionHub: Sendable {
    /// One watch: its connection and its id there.
    struct WatchKey: Hashable, Sendable {
        let connection: ObjectIdentifier
        let id: String
    }

    struct Watch: Sendable {
        let subscriber: Subscriber
        let id: String
        /// `location.watch`: the language of its messages and the `changeKey` of what it was last told.
        var locale: FlowLocale = .en
        var lastLocation: [UInt8]?
        /// `animals.watch`: the listing it follows (origin, radius, the watcher's standing).
        var animals: AnimalQuery?
    }

    private struct Index {
        var topics: [WatchTopic: [WatchKey: Watch]] = [:]
        var reportWatches = 0
    }

    private let index = NIOLockedValueBox(Index())
    /// `limits.maxPendingOutputBytes` now: what a connection's waiting reports may take.
    private let queueLimit: NIOLockedValueBox<Int>

    init(maxQueuedBytes: Int) {
        self.queueLimit = NIOLockedValueBox(maxQueuedBytes)
    }

    /// A reload changed `limits.maxPendingOutputBytes`.
    func update(maxQueuedBytes: Int) {
        queueLimit.withLockedValue { $0 = maxQueuedBytes }
    }

    private func maxQueuedBytes() -> Int { queueLimit.withLockedValue { $0 } }

    // MARK: watches

    /// A new watch of `topic` for `subscriber`'s connection; nil when it has `max` already.
    func watch(_ topic: WatchTopic, by subscriber: Subscriber, max: Int, locale: FlowLocale = .en, animals: AnimalQuery? = nil) -> String? {
        guard let id = subscriber.add(topic, max: max) else { return nil }
        let key = WatchKey(connection: ObjectIdentifier(subscriber), id: id)
        index.withLockedValue { index in
            index.topics[topic, default: [:]][key] = Watch(subscriber: subscriber, id: id, locale: locale, animals: animals)
            if case .reports = topic { index.reportWatches += 1 }
        }
        // The connection may have closed between the two steps, and found nothing to forget.
        if subscriber.isClosed { forget([(topic, key)]) }
        return id
    }

    /// Ends one watch of `subscriber`'s connection; false when it has no such watch.
    func unwatch(_ id: String, by subscriber: Subscriber) -> Bool {
        guard let topic = subscriber.remove(id) else { return false }
        forget([(topic, WatchKey(connection: ObjectIdentifier(subscriber), id: id))])
        return true
    }

    /// The connection closed: all its watches end.
    func connectionClosed(_ subscriber: Subscriber) {
        let connection = ObjectIdentifier(subscriber)
        forget(subscriber.close().map { ($0.value, WatchKey(connection: connection, id: $0.key)) })
    }

    private func forget(_ watches: [(WatchTopic, WatchKey)]) {
        guard !watches.isEmpty else { return }
        index.withLockedValue { index in
            for (topic, key) in watches {
                guard index.topics[topic]?.removeValue(forKey: key) != nil else { continue }
                if index.topics[topic]?.isEmpty == true { index.topics[topic] = nil }
                if case .reports = topic { index.reportWatches -= 1 }
            }
        }
    }

    /// A report of the animal list changed, from `before` to `after` (nil: not on the board):
    /// each animals watch is told whether it came into its listing (`added`), changed in it
    /// (`updated`) or left it (`removed`: found, withdrawn, expired, erased, out of its radius),
    /// as that watcher may see it.
    func animalChanged(before: StoredAnimal?, after: StoredAnimal?) {
        let watches = index.withLockedValue { Array(($0.topics[.animals] ?? [:]).values) }
        guard !watches.isEmpty else { return }
        let limit = maxQueuedBytes()
        for watch in watches {
            guard let query = watch.animals else { continue }
            let (was, isIn) = (before.map(query.admits) ?? false, after.map(query.admits) ?? false)
            let change: AnimalsChanged.Change
            switch (was, isIn) {
            case (false, true): change = .added
            case (true, true): change = .updated
            case (true, false): change = .removed
            case (false, false): continue
            }
            guard let shown = isIn ? after : (after ?? before) else { continue }
            let animal = shown.animal(for: query.standing, near: query.origin?.point)
            watch.subscriber.post(watch.id, AnimalsChanged.line(.init(subscription: watch.id, change: change, animal: animal)),
                                  maxQueuedBytes: limit) {
                AnimalsChanged.line(.init(subscription: watch.id, change: .overflow, animal: nil))
            }
        }
    }

    /// Ends every watch of `topic` whose connection's peer is no longer `allowed` to have it,
    /// telling each with `watch.ended`: a reload took away the permission that made it.
    /// Answers how many ended.
    @discardableResult
    func revoke(_ topic: WatchTopic, unless allowed: (Watch) -> Bool, message: String) -> Int {
        let revoked = index.withLockedValue { index -> [Watch] in
            guard let watches = index.topics[topic] else { return [] }
            let ended = watches.filter { !allowed($0.value) }
            for key in ended.keys { index.topics[topic]?[key] = nil }
            if index.topics[topic]?.isEmpty == true { index.topics[topic] = nil }
            if case .reports = topic { index.reportWatches -= ended.count }
            return Array(ended.values)
        }
        let limit = maxQueuedBytes()
        for watch in revoked {
            let line = WatchEnded.line(.init(subscription: watch.id, reason: .permissionRevoked, message: message))
            watch.subscriber.post(watch.id, line, last: true, maxQueuedBytes: limit) { line }
        }
        return revoked.count
    }

    /// Whether anything watches `topic`: a publisher asks before it does work for nobody.
    func isWatched(_ topic: WatchTopic) -> Bool {
        index.withLockedValue { $0.topics[topic] != nil }
    }

    /// Whether anyone watches reports at all.
    var watchesReports: Bool { index.withLockedValue { $0.reportWatches > 0 } }

    /// Watches in total, of all connections.
    var count: Int { index.withLockedValue { $0.topics.values.reduce(0) { $0 + $1.count } } }

    // MARK: publishing

    /// Sends `N` with the params `make` gives for each watch id to every watch of `topic`.
    /// `last`: the topic ends with it (a flow that ended), and so do its watches.
    /// `revision`: how new the news is; a watch already told newer news skips it.
    func publish<N: RPCNotificationSpec>(_ notification: N.Type, to topic: WatchTopic, last: Bool = false, revision: UInt64? = nil,
                                         overflow: ((String) -> N.Params)? = nil, _ make: (String) -> N.Params)
    {
        let watches = index.withLockedValue { index -> [Watch] in
            guard let watches = index.topics[topic] else { return [] }
            if last { index.topics[topic] = nil }
            return Array(watches.values)
        }
        guard !watches.isEmpty else { return }
        let limit = maxQueuedBytes()
        for watch in watches {
            watch.subscriber.post(watch.id, N.line(make(watch.id)), last: last, revision: revision, maxQueuedBytes: limit) {
                N.line(overflow?(watch.id) ?? make(watch.id))
            }
        }
    }

    /// The flow after a change: its watches are told; an ended flow ends them. `revision`
    /// orders views of one flow published from several connections at once.
    func flowChanged(_ flow: FlowView, revision: UInt64? = nil) {
        let ended: Bool = if case .active = flow.state { false } else { true }
        publish(FlowChanged.self, to: .flow(flow.id), last: ended, revision: ended ? nil : revision) {
            FlowChanged.Params(subscription: $0, flow: flow)
        }
    }

    /// One of `owner`'s reports was filed or delivered.
    func reportChanged(_ change: ReportsChanged.Change, _ report: ReportView, owner: UInt32) {
        publish(ReportsChanged.self, to: .reports(owner),
                overflow: { ReportsChanged.Params(subscription: $0, change: .overflow, report: nil) }) {
            ReportsChanged.Params(subscription: $0, change: change, report: report)
        }
    }

    /// The location watches, to be looked at again.
    func locationWatches() -> [(key: WatchKey, watch: Watch)] {
        index.withLockedValue { index in (index.topics[.location] ?? [:]).map { ($0.key, $0.value) } }
    }

    /// A location view with its `changeKey`, made once for every watch that is shown it.
    struct LocationNews: Sendable {
        let view: LocationView
        let key: [UInt8]

        init(_ view: LocationView) {
            self.view = view
            self.key = view.changeKey
        }
    }

    /// Sends each location watch its new view if it differs from the last one it was told
    /// (a new fix time alone is no difference).
    func sendLocations(_ news: [WatchKey: LocationNews]) {
        let changed = index.withLockedValue { index -> [(Watch, LocationNews)] in
            var changed: [(Watch, LocationNews)] = []
            for (key, news) in news {
                // A watch not yet answered is compared once its answer says what it was told.
                guard let watch = index.topics[.location]?[key], let last = watch.lastLocation, last != news.key else { continue }
                index.topics[.location]?[key]?.lastLocation = news.key
                changed.append((watch, news))
            }
            return changed
        }
        let limit = maxQueuedBytes()
        for (watch, news) in changed {
            watch.subscriber.post(watch.id, LocationChanged.line(.init(subscription: watch.id, location: news.view)), key: news.key,
                                  maxQueuedBytes: limit) { [] }
        }
    }

    /// Records what a new location watch was told in its answer: the next look compares with it.
    func setFirstLocation(_ view: LocationView, for id: String, of subscriber: Subscriber) {
        let key = view.changeKey
        index.withLockedValue { index in
            index.topics[.location]?[WatchKey(connection: ObjectIdentifier(subscriber), id: id)]?.lastLocation = key
        }
        subscriber.given(key, for: id)
    }
}

extension LocationView {
    /// What a watch is told news of: status, message, settings and position (after rounding)
    /// with its provider. A new fix time or accuracy alone is no news.
    var changeKey: [UInt8] {
        JSONWriter.bytes([.string(status.rawValue), .string(message), settings.map { .string($0.file + "#" + $0.key) } ?? .null,
                          fix.map { .array([$0.latitude.json, $0.longitude.json, .string($0.source)]) } ?? .null])
    }
}
