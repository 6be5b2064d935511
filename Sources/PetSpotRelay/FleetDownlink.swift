import FoundationEssentials
import Logging
import PetSpotProtocol
import PetSpotSystem
import ServiceLifecycle

/// The fleet's list coming down: the other boxes' reports, from the central feed into this
/// box's daemon (`relay.fleetPut`), from the cursor the daemon keeps with its copy, so that a
/// relay or daemon that was away (or a daemon restored from a backup) goes on exactly where the
/// copy stands. A page is read when the feed's session hears a write (LISTEN), when the daemon
/// was away, and at least every poll interval; each page is handed on in calls that fit the
/// daemon's line limit, each carrying the position it completes the copy to.
struct FleetDownlink: Sendable {
    struct Settings: Sendable {
        /// Reports farther than this from the box's position stay central; nil: every box's.
        var radiusKm: Double?
        /// Rows of the feed per page.
        var batchSize: Int
        /// Photo bytes per page (the first row comes whatever its size): what the relay holds
        /// of the fleet at once, twice over while it is written to the daemon.
        var maxPagePhotoBytes: Int
        var pollInterval: Duration
        var retryMaxDelay: Duration
    }

    let settings: Settings
    let daemon: DaemonLink
    let feed: FleetFeed
    let recorder: StateRecorder
    let logger: Logger
    /// The box the daemon must name (`--box`), as the delivery checks it.
    let expectedBox: String?
    /// What the copy was built with, as the state file of the relay's last run says; nil: unknown.
    let previousScan: FleetProgress.Scan?

    /// How long one wait on the feed's session lasts before a stop is looked for.
    static let waitSliceMs: Int32 = 500

    func run() async {
        var backoff = RetryBackoff(maximum: settings.retryMaxDelay)
        var scanned = previousScan
        var knownBox: (name: String, connection: Int)?
        while !Task.isShuttingDownGracefully {
            do {
                let brought = try await bringPage(scanned: &scanned, knownBox: &knownBox)
                backoff.succeeded()
                if !brought { await waitForWrites() }
            } catch let refused as DaemonRefused where refused.error.kind == .methodNotFound {
                if Task.isShuttingDownGracefully { break }
                await recorder.fleet { $0.problem = "petspotd does not offer relay.fleet (protocol revision 6): upgrade petspotd, or it is not this user's relay.group" }
                await pause(settings.retryMaxDelay)
            } catch {
                // A stop cuts a call short: that is no problem of the fleet's.
                if Task.isShuttingDownGracefully { break }
                let reason = (error as? CentralDatabaseError).map { "PostgreSQL: \($0.reason)" } ?? "petspotd: \(error)"
                await recorder.fleet { $0.problem = reason }
                await pause(backoff.failed())
            }
        }
        await feed.shutdown()
        await daemon.shutdown()
    }

    /// Reads the page after the daemon's cursor and hands it on; false when there was nothing.
    /// `knownBox` keeps the daemon's box name for as long as the connection it was asked on.
    ///
    /// The feed is read again from its start, keeping the copy, when what the relay selects
    /// changed since the copy was built (`scanned`: another radius, or a box that moved a tenth
    /// of it): rows the cursor passed as out of reach may be in reach now, and the other way
    /// round. When the feed's head is behind the daemon's cursor, the central database went
    /// back (restored, or a standby that lagged): the copy is dropped and built again from 0.
    private func bringPage(scanned: inout FleetProgress.Scan?, knownBox: inout (name: String, connection: Int)?) async throws -> Bool {
        let state = try await cancelWhenGracefulShutdown { [daemon] in try await daemon.call(RelayFleet.self, NoParams()) }
        // The box's name, asked again only on a new connection (a restarted daemon may have
        // another), as the delivery asks it.
        let box: String
        if let knownBox, knownBox.connection == daemon.connectionsMade {
            box = knownBox.name
        } else {
            box = try await RelayService.daemonBox(daemon, expected: expectedBox)
            knownBox = (box, daemon.connectionsMade)
        }
        let origin = state.position.flatMap { p in Double(p.latitude.literal).flatMap { lat in Double(p.longitude.literal).map { (lat, $0) } } }
        let selection = FleetFeed.Selection(ownBox: box, origin: origin, radiusKm: settings.radiusKm, maxRows: settings.batchSize,
                                            maxPageBytes: settings.maxPagePhotoBytes, maxPhotoBytes: state.maxPhotoBytes)
        let current = FleetProgress.Scan(radiusKm: settings.radiusKm, origin: settings.radiusKm == nil ? nil : origin)
        var from = state.cursor
        if scanned.map({ $0.differs(from: current) }) ?? (state.cursor > 0) {
            logger.notice("what comes down changed (radius or the box's position): the fleet's feed is read again from its start", metadata: [
                "before": "\(scanned?.description ?? "unknown")", "now": "\(current.description)",
            ])
            from = 0
        }
        if scanned != current {
            scanned = current
            await recorder.fleet(now: true) { $0.scan = current }
        }
        var (rows, head) = try await feed.read(after: from, selection)
        var restart = false
        if head < from {
            logger.warning("the central feed is behind this box's copy (the database restored, or a standby that lagged): the copy is built again from its start",
                           metadata: ["cursor": "\(from)", "head": "\(head)"])
            restart = true
            from = 0
            (rows, head) = try await feed.read(after: 0, selection)
        }
        guard !rows.isEmpty || restart || from != state.cursor else {
            await recorder.fleet { progress in
                progress.cursor = state.cursor
                progress.head = head
                progress.reports = state.reports
                progress.problem = nil
            }
            // Idle until the next write: what a throttled save left goes to the state file now.
            await recorder.settle()
            return false
        }
        var listed = 0, removed = 0
        var refused: [RelayFleetPut.Refusal] = []
        var cursor = from
        let calls = rows.isEmpty ? [Call(cursor: from, items: [])] : Self.calls(rows, maxLineBytes: state.maxLineBytes)
        for call in calls {
            let result = try await put(call, after: cursor, restart: restart)
            restart = false
            cursor = result.cursor
            listed += result.listed
            removed += result.removed
            refused += result.refused
        }
        if let first = refused.first {
            logger.warning("petspotd refused reports of other boxes (their values break its flow's rules); they are not listed there", metadata: [
                "count": "\(refused.count)", "first": "\(first.reportId) of box \(first.box): \(first.reason)",
            ])
        }
        let wallClock = StateRecorder.iso(Date())
        await recorder.fleet { [listed, removed, refused, cursor] progress in
            progress.cursor = cursor
            progress.head = head
            progress.listed += listed
            progress.removed += removed
            progress.refused += refused.count
            progress.lastPageAt = wallClock
            progress.problem = nil
        }
        return !rows.isEmpty
    }

    /// Kinds of refusal that name what a call carried, not the daemon's state: retried a report
    /// at a time, so that one report no call can carry holds up no other.
    static let itemRefusals: Set<RPCErrorKind> = [.invalidParams, .parseError, .lineTooLong, .limitExceeded, .invalidRequest]

    /// Hands one call to the daemon. Refused whole for what it carries, its reports go one at a
    /// time (each completing nothing past `after`, so that a stop in between loses none), a
    /// report refused alone is passed (named in `refused`), and then the cursor moves to the
    /// call's end.
    private func put(_ call: Call, after: Int, restart: Bool) async throws -> RelayFleetPut.Result {
        do {
            return try await cancelWhenGracefulShutdown { [daemon] in
                try await daemon.call(RelayFleetPut.self, RelayFleetPut.Params(cursor: call.cursor, reports: call.items, restart: restart))
            }
        } catch let whole as DaemonRefused where Self.itemRefusals.contains(whole.error.kind) && !call.items.isEmpty {
            var listed = 0, removed = 0
            var refused: [RelayFleetPut.Refusal] = []
            var restart = restart
            for item in call.items {
                do {
                    let one = try await cancelWhenGracefulShutdown { [daemon, restart] in
                        try await daemon.call(RelayFleetPut.self, RelayFleetPut.Params(cursor: after, reports: [item], restart: restart))
                    }
                    restart = false
                    listed += one.listed
                    removed += one.removed
                    refused += one.refused
                } catch let alone as DaemonRefused where Self.itemRefusals.contains(alone.error.kind) {
                    refused.append(RelayFleetPut.Refusal(reportId: item.reportId, box: item.box, reason: alone.error.message))
                }
            }
            let end = try await cancelWhenGracefulShutdown { [daemon, restart] in
                try await daemon.call(RelayFleetPut.self, RelayFleetPut.Params(cursor: call.cursor, reports: [], restart: restart))
            }
            return RelayFleetPut.Result(cursor: end.cursor, listed: listed, removed: removed + end.removed, refused: refused)
        }
    }

    /// One call to the daemon: the items of a run of the feed, and the position it ends at.
    struct Call: Equatable {
        let cursor: Int
        let items: [RelayFleetPut.Item]
    }

    /// A page cut into calls that fit `maxLineBytes` (with room for the envelope); an item that
    /// alone would not fit comes without its photo, and is listed without one.
    static func calls(_ rows: [FleetFeed.Row], maxLineBytes: Int) -> [Call] {
        let budget = max(1_024, maxLineBytes - 4_096)
        var calls: [Call] = []
        var items: [RelayFleetPut.Item] = []
        var bytes = 0
        var position = 0
        for row in rows {
            if var item = row.item {
                var size = item.wireBytes + 1
                if size > budget, item.photo != nil {
                    item = RelayFleetPut.Item(reportId: item.reportId, box: item.box, status: item.status, version: item.version,
                                              submittedAt: item.submittedAt, updatedAt: item.updatedAt, values: item.values, photo: nil)
                    size = item.wireBytes + 1
                }
                if !items.isEmpty, bytes + size > budget || items.count == RelayFleetPut.maxReportsRange.upperBound {
                    calls.append(Call(cursor: position, items: items))
                    items = []
                    bytes = 0
                }
                items.append(item)
                bytes += size
            }
            position = row.position
        }
        calls.append(Call(cursor: position, items: items))
        return calls
    }

    /// Until the feed's session hears a write, the poll interval passes, or a stop comes.
    private func waitForWrites() async {
        let deadline = ContinuousClock.now + settings.pollInterval
        while !Task.isShuttingDownGracefully, ContinuousClock.now < deadline {
            let left = ContinuousClock.now.duration(to: deadline)
            let sliceMs = Int32(clamping: min(Int64(Self.waitSliceMs), max(1, left.wholeMilliseconds)))
            do {
                if try await feed.waitForChange(timeoutMs: sliceMs) { return }
            } catch {
                await recorder.fleet { $0.problem = "PostgreSQL: \(error.reason)" }
                return
            }
        }
    }

    private func pause(_ delay: Duration) async {
        try? await cancelWhenGracefulShutdown {
            try await Task.sleep(for: delay)
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded toward zero.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
