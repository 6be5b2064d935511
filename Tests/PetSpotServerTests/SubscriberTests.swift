import NIOConcurrencyHelpers
import PetSpotJSON
import PetSpotProtocol
@testable import PetSpotServer
import PetSpotViews
import Testing

/// A connection's waiting notifications: what a client that stops reading can make the daemon
/// hold for it, by the daemon's own count (`queuedBytes`).
@Suite("Notifications waiting for a connection")
struct SubscriberTests {
    let wakes = NIOLockedValueBox(0)
    var subscriber: Subscriber {
        let wakes = self.wakes
        return Subscriber(peer: Peer(pid: 1, uid: 1000, gid: 1000)) { wakes.withLockedValue { $0 += 1 } }
    }

    static func location(_ latitude: Int, subscription: String) -> [UInt8] {
        LocationChanged.line(.init(subscription: subscription, location: LocationView(
            status: .ok, fix: .init(latitude: Coordinate(scaled: 5_210_000 + latitude), longitude: Coordinate(scaled: 2_100_000),
                                    source: "gpsd", time: "2026-11-26T12:00:00Z", accuracy: JSONNumber?.none),
            message: "Position found.")))
    }

    static func filed(_ n: Int, subscription: String) -> [UInt8] {
        ReportsChanged.line(.init(subscription: subscription, change: .filed, report: ReportView(
            id: "r-\(n)", flowID: "f-\(n)", submittedAt: "2026-11-26T12:00:00Z", status: .missing, version: 1, updatedAt: "2026-11-26T12:00:00Z",
            expiresAt: "2027-02-24T12:00:00Z", erased: false, values: [:], delivery: .pending)))
    }

    static func overflow(_ subscription: String) -> [UInt8] {
        ReportsChanged.line(.init(subscription: subscription, change: .overflow, report: nil))
    }

    @Test("a location watch whose client does not read holds one notification, the latest, however many fixes come")
    func locationCoalesces() throws {
        let subscriber = self.subscriber
        let id = try #require(subscriber.add(.location, max: 16))
        for n in 0..<10_000 {
            subscriber.post(id, Self.location(n, subscription: id), maxQueuedBytes: 65_536) { [] }
        }
        let last = Self.location(9_999, subscription: id)
        #expect(subscriber.queuedBytes == last.count)
        // The connection was woken once; the rest waited for it to take what was there.
        #expect(wakes.withLockedValue { $0 } == 1)
        let taken = subscriber.takeQueued()
        #expect(taken.map(\.line) == [last])
        #expect(subscriber.queuedBytes == 0)
    }

    @Test("waiting reports stay within maxQueuedBytes: past it the watch's reports become one overflow")
    func reportsOverflow() throws {
        let subscriber = self.subscriber
        let reports = try #require(subscriber.add(.reports(1000), max: 16))
        let location = try #require(subscriber.add(.location, max: 16))
        subscriber.post(location, Self.location(1, subscription: location), maxQueuedBytes: 4_096) { [] }
        let one = Self.filed(0, subscription: reports).count
        let fitting = (4_096 - Self.location(1, subscription: location).count) / one
        for n in 0..<fitting {
            subscriber.post(reports, Self.filed(n, subscription: reports), maxQueuedBytes: 4_096) { Self.overflow(reports) }
        }
        #expect(subscriber.queuedBytes <= 4_096)
        #expect(subscriber.takeQueued().count == fitting + 1)

        for n in 0..<1_000 {
            subscriber.post(reports, Self.filed(n, subscription: reports), maxQueuedBytes: 4_096) { Self.overflow(reports) }
        }
        #expect(subscriber.queuedBytes <= 4_096)
        // One overflow in place of them all: the client lists again, so none of them is news.
        #expect(subscriber.takeQueued().map(\.line) == [Self.overflow(reports)])
    }

    @Test("an ended watch drops what it had waiting and takes nothing more; a closed connection holds nothing")
    func endAndClose() throws {
        let subscriber = self.subscriber
        let id = try #require(subscriber.add(.reports(1000), max: 1))
        #expect(subscriber.add(.location, max: 1) == nil)
        subscriber.post(id, Self.filed(1, subscription: id), maxQueuedBytes: 65_536) { [] }
        #expect(subscriber.remove(id) == .reports(1000))
        #expect(subscriber.queuedBytes == 0)
        subscriber.post(id, Self.filed(2, subscription: id), maxQueuedBytes: 65_536) { [] }
        #expect(subscriber.takeQueued().isEmpty)

        let flow = try #require(subscriber.add(.flow("f-1"), max: 1))
        subscriber.post(flow, Self.filed(3, subscription: flow), last: true, maxQueuedBytes: 65_536) { [] }
        #expect(subscriber.watchCount == 0, "the last notification of a flow ends its watch")
        #expect(subscriber.takeQueued().count == 1)
        _ = subscriber.close()
        #expect(subscriber.add(.location, max: 16) == nil)
    }

    @Test("a flow view published late by another connection, older than one given, is skipped")
    func olderFlowViewSkipped() throws {
        let subscriber = self.subscriber
        let id = try #require(subscriber.add(.flow("f-1"), max: 16))
        subscriber.post(id, Self.filed(3, subscription: id), revision: 3, maxQueuedBytes: 65_536) { [] }
        subscriber.post(id, Self.filed(2, subscription: id), revision: 2, maxQueuedBytes: 65_536) { [] }
        #expect(subscriber.takeQueued().map(\.line) == [Self.filed(3, subscription: id)])
        subscriber.post(id, Self.filed(3, subscription: id), revision: 3, maxQueuedBytes: 65_536) { [] }
        #expect(subscriber.takeQueued().isEmpty, "revision 3 was given already")
        subscriber.post(id, Self.filed(4, subscription: id), revision: 4, maxQueuedBytes: 65_536) { [] }
        #expect(subscriber.takeQueued().count == 1)
    }

    @Test("a location watch is compared with what its answer told it, even when a look came between")
    func locationComparedWithAnswer() throws {
        let hub = SubscriptionHub(maxQueuedBytes: 65_536)
        let subscriber = self.subscriber
        let id = try #require(hub.watch(.location, by: subscriber, max: 16))
        let key = SubscriptionHub.WatchKey(connection: ObjectIdentifier(subscriber), id: id)
        let noFix = LocationView(status: .timeout, message: "No position came in time.")
        let fix = LocationView(status: .ok, fix: .init(latitude: Coordinate(scaled: 5_210_000), longitude: Coordinate(scaled: 2_110_000),
                                                      source: "gpsd", time: "2026-11-26T12:00:00Z", accuracy: JSONNumber?.none),
                               message: "Position found.")
        // A look while the watch's answer is being made: nothing is sent, nothing recorded.
        hub.sendLocations([key: .init(noFix)])
        // The answer said "fix"; the fix is then lost: that is news to this watch.
        hub.setFirstLocation(fix, for: id, of: subscriber)
        hub.sendLocations([key: .init(noFix)])
        let taken = subscriber.takeQueued()
        #expect(taken.count == 1)
        #expect(taken.first.map { String(decoding: $0.line, as: UTF8.self).contains("\"timeout\"") } == true)
        // The same again is no news.
        hub.sendLocations([key: .init(noFix)])
        #expect(subscriber.takeQueued().isEmpty)
    }

    @Test("a closed connection's watches leave the hub")
    func closedConnectionLeavesHub() throws {
        let hub = SubscriptionHub(maxQueuedBytes: 65_536)
        let subscriber = self.subscriber
        _ = try #require(hub.watch(.location, by: subscriber, max: 16))
        _ = try #require(hub.watch(.reports(1000), by: subscriber, max: 16))
        #expect(hub.count == 2 && hub.watchesReports)
        hub.connectionClosed(subscriber)
        #expect(hub.count == 0)
        #expect(!hub.watchesReports)
        #expect(!hub.isWatched(.location))
        #expect(hub.watch(.location, by: subscriber, max: 16) == nil)
    }

    @Test("waiting reports count in their user's share as they queue; past it, the user's watches on all its connections become one overflow each")
    func reportsWithinShare() throws {
        let share = 16 * 1024
        let budget = ClientMemoryBudget(limits: .init(total: 1 << 30, perUser: share))
        let wake: @Sendable () -> Void = {}
        let first = Subscriber(peer: Peer(pid: 1, uid: 1000, gid: 1000), budget: budget, wake: wake)
        let second = Subscriber(peer: Peer(pid: 2, uid: 1000, gid: 1000), budget: budget, wake: wake)
        let other = Subscriber(peer: Peer(pid: 3, uid: 1001, gid: 1001), budget: budget, wake: wake)
        let a = try #require(first.add(.reports(1000), max: 16))
        let b = try #require(second.add(.reports(1000), max: 16))
        let c = try #require(other.add(.reports(1001), max: 16))
        // Far under maxQueuedBytes: only the share stops them.
        let limit = 1 << 20
        for n in 0..<1_000 {
            first.post(a, Self.filed(n, subscription: a), maxQueuedBytes: limit) { Self.overflow(a) }
            second.post(b, Self.filed(n, subscription: b), maxQueuedBytes: limit) { Self.overflow(b) }
            other.post(c, Self.filed(n, subscription: c), maxQueuedBytes: limit) { Self.overflow(c) }
        }
        #expect(budget.used(by: 1000) == first.queuedBytes + second.queuedBytes, "counted as they queue")
        #expect(budget.used(by: 1000) <= share + Self.overflow(a).count + Self.overflow(b).count)
        let firstLines = first.takeQueued().map(\.line)
        let secondLines = second.takeQueued().map(\.line)
        #expect(firstLines.last == Self.overflow(a) && secondLines.last == Self.overflow(b), "each watch is told to list again")
        #expect(firstLines.count + secondLines.count < 100)
        #expect(budget.used(by: 1000) == 0, "taken, they count with the connection's output")
        #expect(budget.used(by: 1001) == other.queuedBytes && other.queuedBytes <= share, "another user has its own share")
        _ = other.close()
        #expect(budget.used == 0)
    }
}
