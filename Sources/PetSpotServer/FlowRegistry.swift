import PetSpotFlow
import PetSpotSystem
import NIOConcurrencyHelpers
import NIOCore

/// All flows in memory, keyed by id, each owned by the Unix user that started it.
///
/// One lock guards the table. Flow rules are pure and take microseconds, so they run inside
/// the lock and a flow is never seen half-changed; nothing that waits (location, disk) ever
/// runs while it is held. Views for `flow.get` are written outside it, from a copy of the flow,
/// and kept with the flow until it changes, as long as all kept views fit their budget.
public final class FlowRegistry: Sendable {
    /// The registry reads `maxFlowsPerUser`, `maxFlows` (active flows: completed ones do not
    /// count, or one user filing reports in a loop would keep everyone from starting a flow),
    /// `maxCompletedFlows` (kept so that a repeated `flow.submit` or `flow.get` still answers
    /// with the report's id; past it the oldest goes first), `flowIdleTimeoutSeconds`, the
    /// spool's `maxSpooledPhotoBytes` and `maxSpooledPhotoBytesPerUser`, and
    /// `maxKeptViewBytes` (written views kept with their flows, all together: a view past it is
    /// written for each `flow.get` instead, so many open flows cost no more than the flows).
    public typealias Limits = DaemonConfiguration.Limits

    private struct Entry {
        var flow: Flow
        let owner: UInt32
        var lastUsed: DaemonInstant
        /// Counts the calls that may have changed the flow: a view rendered from an older copy is not kept.
        var revision: UInt64 = 0
        /// The flow's view as written for the wire, while neither the flow nor the settings changed.
        var view: RenderedView?

        /// For `flow.get`: the kept view if it is of `generation`, or else a copy of the flow to
        /// write one from; marks the entry used.
        mutating func touch(owner: UInt32, now: DaemonInstant, generation: UInt64, idleTimeout: Duration) throws(Unseen) -> Found {
            guard self.owner == owner else { throw .otherOwner }
            guard now.elapsed(since: lastUsed) <= idleTimeout else { throw .expired }
            if now > lastUsed { lastUsed = now }
            if let view, view.generation == generation { return .written(view.bytes) }
            return .copy(flow, revision: revision)
        }
    }

    /// What `flow.get` finds of a flow.
    private enum Found {
        case written([UInt8])
        case copy(Flow, revision: UInt64)
    }

    /// Why a flow `flow.get` looked up is not the caller's to see.
    private enum Unseen: Error {
        case otherOwner
        case expired
    }

    private struct RenderedView {
        let generation: UInt64
        let bytes: [UInt8]
    }

    private struct Table {
        var entries: [String: Entry] = [:]
        /// Active flows per owner; completed flows do not count against a user.
        var activeByOwner: [UInt32: Int] = [:]
        var activeCount = 0
        var completedCount = 0
        /// Ids of completed flows, oldest first; ids of flows gone since (expired) are skipped
        /// when met, and cleared by each sweep.
        var completedOrder = CircularBuffer<String>()
        var limits: Limits
        /// When a full sweep last ran; a full table is swept at most once a second.
        var lastSweep: DaemonInstant?
        /// Bytes of the photos the flows hold, in all and per owner.
        var photoBytes = 0
        var photoBytesByOwner: [UInt32: Int] = [:]
        /// Bytes of the views kept with the flows.
        var keptViewBytes = 0
        /// Told of each active flow that expires (a watch's last word), under the lock.
        let expired: @Sendable (String) -> Void

        mutating func photoBytesChanged(_ owner: UInt32, by delta: Int) {
            guard delta != 0 else { return }
            photoBytes += delta
            let held = photoBytesByOwner[owner, default: 0] + delta
            photoBytesByOwner[owner] = held > 0 ? held : nil
        }

        /// Refuses a change of `owner`'s photos from `before` to `after` bytes that would take
        /// them past their share, or all photos past the daemon's budget.
        func checkPhotoGrowth(_ owner: UInt32, from before: Int, to after: Int) throws(FlowRegistryError) {
            guard after > before else { return }
            if photoBytesByOwner[owner, default: 0] - before + after > limits.maxSpooledPhotoBytesPerUser {
                throw .limitReached(setting: "limits.maxSpooledPhotoBytesPerUser", max: limits.maxSpooledPhotoBytesPerUser,
                                    message: "your open flows hold as many photo bytes as one user may; submit or cancel a flow with a photo first")
            }
            if photoBytes - before + after > limits.maxSpooledPhotoBytes {
                throw .limitReached(setting: "limits.maxSpooledPhotoBytes", max: limits.maxSpooledPhotoBytes,
                                    message: "the daemon holds as many photos in open flows as it may; submit or cancel a flow with a photo, or try again later")
            }
        }

        mutating func activeEnded(_ owner: UInt32) {
            activeByOwner.decrement(owner)
            activeCount -= 1
        }

        /// Drops the oldest completed flows while more are kept than the limit allows.
        mutating func dropOldestCompleted() {
            while completedCount > limits.maxCompletedFlows, let id = completedOrder.popFirst() {
                guard let entry = entries[id], entry.flow.state == .completed else { continue }
                FlowRegistry.remove(id, entry: entry, from: &self)
            }
        }

        /// Drops the view kept with `id`'s flow, if any.
        mutating func dropView(of id: String) {
            if let view = entries[id]?.view {
                keptViewBytes -= view.bytes.count
                entries[id]?.view = nil
            }
        }
    }

    private let table: NIOLockedValueBox<Table>
    private let clock: DaemonClock

    /// `expired` hears of each active flow that goes for being idle; it is called with the
    /// table locked, so it must only hand the news on (it may not call the registry).
    public init(limits: Limits, clock: DaemonClock, expired: @escaping @Sendable (String) -> Void = { _ in }) {
        self.table = NIOLockedValueBox(Table(limits: limits, expired: expired))
        self.clock = clock
    }

    /// Limits can change at run time (configuration reload); existing flows stay.
    public func update(limits: Limits) {
        table.withLockedValue { table in
            table.limits = limits
            table.dropOldestCompleted()
        }
    }

    /// Flows held: active and completed.
    public var count: Int { table.withLockedValue { $0.entries.count } }

    /// Active flows, the ones `limits.maxFlows` counts.
    public var activeCount: Int { table.withLockedValue { $0.activeCount } }

    /// Completed flows kept for a repeated `flow.submit` or `flow.get`.
    public var completedCount: Int { table.withLockedValue { $0.completedCount } }

    /// Bytes of photos held by open flows.
    public var photoBytes: Int { table.withLockedValue { $0.photoBytes } }

    /// Bytes of the views kept with open flows.
    public var keptViewBytes: Int { table.withLockedValue { $0.keptViewBytes } }

    /// Registers a new flow for `owner`, or refuses with `limitReached` naming the limit.
    public func start(_ flow: Flow, owner: UInt32) throws(FlowRegistryError) -> Flow {
        // Result keeps the error's type: NIO's withLockedValue rethrows it as `any Error`.
        try table.withLockedValue { table in Result { () throws(FlowRegistryError) -> Flow in
            // The clock is read under the lock, so times in the table only move forward.
            let now = clock.now
            if table.activeCount >= table.limits.maxFlows, table.lastSweep.map({ now.elapsed(since: $0) >= .seconds(1) }) ?? true {
                Self.sweep(&table, now: now)
            }
            guard table.activeCount < table.limits.maxFlows else {
                throw .limitReached(setting: "limits.maxFlows", max: table.limits.maxFlows,
                                    message: "the daemon holds its maximum of \(table.limits.maxFlows) open flows; try again later")
            }
            let active = table.activeByOwner[owner, default: 0]
            guard active < table.limits.maxFlowsPerUser else {
                throw .limitReached(setting: "limits.maxFlowsPerUser", max: table.limits.maxFlowsPerUser,
                                    message: "you have \(active) open flows, the most one user may have; finish or cancel one first")
            }
            table.entries[flow.id] = Entry(flow: flow, owner: owner, lastUsed: now)
            table.activeByOwner[owner] = active + 1
            table.activeCount += 1
            return flow
        } }.get()
    }

    /// Runs `body` on the caller's flow. A flow that is missing, expired, cancelled or owned by
    /// another user answers `flowNotFound`: to that caller it does not exist. A flow that
    /// becomes cancelled is removed.
    ///
    /// `taking` is a photo's reservation (`reservePhoto`), given back here whatever happens,
    /// before the photo the body stores is counted like any other.
    public func withFlow<R>(_ id: String, owner: UInt32, taking reservation: PhotoReservation? = nil,
                            _ body: (inout Flow) throws(FlowError) -> R) throws(FlowRegistryError) -> R {
        // Result keeps the error's type: NIO's withLockedValue rethrows it as `any Error`.
        try table.withLockedValue { table in Result { () throws(FlowRegistryError) -> R in
            if let reservation { table.photoBytesChanged(reservation.owner, by: -reservation.bytes) }
            let now = clock.now
            var entry = try Self.live(id, owner: owner, now: now, in: &table)
            let wasActive = entry.flow.state == .active
            let photoBefore = entry.flow.photoBytes
            let result: R
            do throws(FlowError) {
                result = try body(&entry.flow)
            } catch {
                throw .flow(error)
            }
            // The change is kept only within the photo budget; otherwise the flow stays as it was.
            let photoAfter = entry.flow.photoBytes
            try table.checkPhotoGrowth(owner, from: photoBefore, to: photoAfter)
            table.photoBytesChanged(owner, by: photoAfter - photoBefore)
            entry.lastUsed = now
            entry.revision &+= 1
            if let view = entry.view {
                table.keptViewBytes -= view.bytes.count
                entry.view = nil
            }
            switch entry.flow.state {
            case .cancelled:
                table.entries[id] = nil
                table.photoBytesChanged(owner, by: -photoAfter)
                if wasActive { table.activeEnded(owner) }
            case .completed:
                table.entries[id] = entry
                if wasActive {
                    table.activeEnded(owner)
                    table.completedCount += 1
                    table.completedOrder.append(id)
                    table.dropOldestCompleted()
                }
            case .active:
                table.entries[id] = entry
            }
            return result
        } }.get()
    }

    /// Room for a photo of `bytes` in the caller's flow `id`, taken before the photo is written
    /// to the spool, so that a photo the update would refuse costs no disk: the flow must be
    /// there (as `withFlow` finds it), pass `check` (the update's state, step and names), and
    /// the photo must fit the caller's share and the daemon's budget. Until `withFlow(taking:)`
    /// takes them or `giveBack(_:)` returns them, the bytes count as held, so that photos on
    /// their way to the spool at the same time cannot each fit alone.
    public func reservePhoto(_ id: String, owner: UInt32, bytes: Int,
                             check: (Flow) throws(FlowError) -> Void) throws(FlowRegistryError) -> PhotoReservation
    {
        try table.withLockedValue { table in Result { () throws(FlowRegistryError) -> PhotoReservation in
            let entry = try Self.live(id, owner: owner, now: clock.now, in: &table)
            do throws(FlowError) {
                try check(entry.flow)
            } catch {
                throw .flow(error)
            }
            // The photo replaces the flow's own: the share is checked for what the flow will hold.
            try table.checkPhotoGrowth(owner, from: entry.flow.photoBytes, to: bytes)
            table.photoBytesChanged(owner, by: bytes)
            return PhotoReservation(owner: owner, bytes: bytes)
        } }.get()
    }

    /// Returns a reservation whose photo never reached the flow (the spool refused it).
    public func giveBack(_ reservation: PhotoReservation) {
        table.withLockedValue { $0.photoBytesChanged(reservation.owner, by: -reservation.bytes) }
    }

    /// A copy of the caller's flow, as `withFlow` finds it (owner, idle time), unchanged, and
    /// its revision, which grows with every call that may have changed it.
    public func flow(_ id: String, owner: UInt32) throws(FlowRegistryError) -> (flow: Flow, revision: UInt64) {
        try table.withLockedValue { table in Result { () throws(FlowRegistryError) -> (flow: Flow, revision: UInt64) in
            let now = clock.now
            let entry = try Self.live(id, owner: owner, now: now, in: &table)
            table.entries[id]?.lastUsed = now
            return (entry.flow, entry.revision)
        } }.get()
    }

    /// The caller's flow as `render` writes it, as `withFlow` finds it (owner, idle time). The
    /// written view is kept with the flow and given again while the flow is unchanged and the
    /// settings are of `generation`; otherwise `render` writes it from a copy of the flow, outside
    /// the lock, and says which settings generation it used.
    public func renderedView(_ id: String, owner: UInt32, generation: UInt64,
                             render: (Flow) -> (bytes: [UInt8], generation: UInt64)) throws(FlowRegistryError) -> [UInt8]
    {
        // Read before the lock, which then guards no more than a lookup and a few fields: both
        // event loops ask for views all the time. A time read before another call's is never
        // stored over it (`Entry.touch`).
        let now = clock.now
        let found = try table.withLockedValue { table in Result { () throws(FlowRegistryError) -> Found in
            guard let index = table.entries.index(forKey: id) else { throw Self.notFound(id) }
            // In place (`values[index]` yields the entry to `touch`): the entry, the whole flow, is
            // neither copied out nor stored back, as `live` does for `withFlow`, which must be
            // able to undo a change.
            do throws(Unseen) {
                return try table.entries.values[index].touch(owner: owner, now: now, generation: generation,
                                                             idleTimeout: table.limits.flowIdleTimeout)
            } catch {
                if error == .expired { Self.expire(id, entry: table.entries.values[index], from: &table) }
                throw Self.notFound(id)
            }
        } }.get()
        switch found {
        case .written(let bytes):
            return bytes
        case .copy(let flow, let revision):
            let view = render(flow)
            table.withLockedValue { table in
                // Kept only if nothing changed the flow meanwhile, and within the budget.
                guard table.entries[id]?.revision == revision else { return }
                table.dropView(of: id)
                guard table.keptViewBytes + view.bytes.count <= table.limits.maxKeptViewBytes else { return }
                table.entries[id]?.view = RenderedView(generation: view.generation, bytes: view.bytes)
                table.keptViewBytes += view.bytes.count
            }
            return view.bytes
        }
    }

    /// Drops every flow idle for longer than the timeout; returns how many.
    @discardableResult
    public func expireIdle() -> Int {
        table.withLockedValue { Self.sweep(&$0, now: clock.now) }
    }

    @discardableResult
    private static func sweep(_ table: inout Table, now: DaemonInstant) -> Int {
        table.lastSweep = now
        let timeout = table.limits.flowIdleTimeout
        let expired = table.entries.filter { now.elapsed(since: $0.value.lastUsed) > timeout }
        for (id, entry) in expired { expire(id, entry: entry, from: &table) }
        if !expired.isEmpty {
            let entries = table.entries
            table.completedOrder.removeAll { entries[$0]?.flow.state != .completed }
        }
        return expired.count
    }

    /// The caller's entry; a missing one, another user's, or one idle past the timeout (which
    /// goes) is `flowNotFound`.
    private static func live(_ id: String, owner: UInt32, now: DaemonInstant, in table: inout Table) throws(FlowRegistryError) -> Entry {
        guard let entry = table.entries[id], entry.owner == owner else {
            throw notFound(id)
        }
        if now.elapsed(since: entry.lastUsed) > table.limits.flowIdleTimeout {
            expire(id, entry: entry, from: &table)
            throw notFound(id)
        }
        return entry
    }

    /// Removes a flow idle past the timeout; an active one's end is told.
    private static func expire(_ id: String, entry: Entry, from table: inout Table) {
        remove(id, entry: entry, from: &table)
        if entry.flow.state == .active { table.expired(id) }
    }

    private static func remove(_ id: String, entry: Entry, from table: inout Table) {
        table.dropView(of: id)
        table.entries[id] = nil
        table.photoBytesChanged(entry.owner, by: -entry.flow.photoBytes)
        switch entry.flow.state {
        case .active: table.activeEnded(entry.owner)
        case .completed: table.completedCount -= 1
        case .cancelled: break
        }
    }

    static func notFound(_ id: String) -> FlowRegistryError {
        .flowNotFound(id: id)
    }
}

/// Photo bytes counted as held for a photo on its way to the spool (`FlowRegistry.reservePhoto`).
public struct PhotoReservation: Sendable {
    let owner: UInt32
    let bytes: Int
}

extension Flow {
    fileprivate var photoBytes: Int { values.photo?.byteCount ?? 0 }
}

extension Dictionary where Value == Int {
    fileprivate mutating func decrement(_ key: Key) {
        if let n = self[key], n > 1 { self[key] = n - 1 } else { self[key] = nil }
    }
}
