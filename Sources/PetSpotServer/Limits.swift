import PetSpotProtocol
import PetSpotSettings

extension DaemonConfiguration {
    /// The daemon's limits as the code reads them. Each is set from `Limits.table`, the one list
    /// of them (key, default, range, reloadability, flag and what it bounds): a property left
    /// out of the table would stay 0, which a test refuses.
    public struct Limits: Sendable, Equatable {
        public var flowIdleTimeoutSeconds = 0
        public var maxLineBytes = 0
        public var maxFlowsPerUser = 0
        public var maxFlows = 0
        /// Completed flows kept for a repeated `flow.submit` or `flow.get` (see FlowRegistry).
        public var maxCompletedFlows = 0
        public var maxConnections = 0
        /// Connections one peer uid may hold, so that one user cannot take every place.
        public var maxConnectionsPerUser = 0
        public var maxPendingOutputBytes = 0
        /// What the daemon holds for all clients together (see ClientMemoryBudget): lines being
        /// read, waiting or answered, answers not yet sent and notifications waiting. At least
        /// `maxLineBytes` in effect, so that a valid line always fits.
        public var maxBufferedBytes = 0
        /// The same for one peer uid.
        public var maxBufferedBytesPerUser = 0
        /// A connection whose answers wait unsent takes no new request; one that takes none of
        /// them for this long is closed.
        public var stalledReaderTimeoutSeconds = 0
        public var maxQueuedRequests = 0
        public var maxBatchSize = 0
        public var maxJSONDepth = 0
        public var maxPhotoBytes = 0
        /// Photos of open flows, kept in the spool on disk until submit: all users together,
        /// and one user's.
        public var maxSpooledPhotoBytes = 0
        public var maxSpooledPhotoBytesPerUser = 0
        /// A photo is refused when writing it to the spool would leave the file system with
        /// less free than this, so that submits (which copy it into the database) keep working.
        public var minFreeDiskBytes = 0
        /// Flow views kept for `flow.get`, all together (see FlowRegistry).
        public var maxKeptViewBytes = 0
        public var maxReportsPage = 0
        /// Watches one connection may hold at once (0: no watches).
        public var maxSubscriptionsPerConnection = 0
        /// On SIGTERM, how long stopping may take: connections answer what they have in hand
        /// meanwhile; those still open after it are closed.
        public var drainTimeoutSeconds = 0

        /// Every limit at its default.
        public init() {
            for limit in Self.table { self[keyPath: limit.keyPath] = limit.defaultValue }
        }

        /// The memory budget in effect: each figure at least `maxLineBytes`.
        var bufferBudget: ClientMemoryBudget.Limits {
            .init(total: max(maxBufferedBytes, maxLineBytes), perUser: max(maxBufferedBytesPerUser, maxLineBytes))
        }

        /// How long an untouched flow lives.
        var flowIdleTimeout: Duration { .seconds(flowIdleTimeoutSeconds) }

        /// The value of `limit` in force, as `daemon.info` shows it: a budget never below `maxLineBytes`.
        func effective(_ limit: LimitSetting) -> Int {
            switch limit.name {
            case "maxBufferedBytes": bufferBudget.total
            case "maxBufferedBytesPerUser": bufferBudget.perUser
            default: self[keyPath: limit.keyPath]
            }
        }

        /// Every limit, in the order `daemon.info` and docs/OPERATIONS.md list them: what the
        /// configuration file's `limits.*` keys and `--limit NAME=N` read, with their defaults
        /// and ranges, what `daemon.info` shows, and OPERATIONS.md's table of limits.
        public static let table: [LimitSetting] = [
        .init(\.flowIdleTimeoutSeconds, "flowIdleTimeoutSeconds", 1_800, 1...604_800, flag: "flow-idle-timeout SECONDS",
              "an untouched flow expires after this"),
        .init(\.maxLineBytes, "maxLineBytes", 16 * 1024 * 1024, 1_024...1_073_741_824, flag: "max-line-bytes N",
              "longest request line; longer: `lineTooLong`, skipped"),
        .init(\.maxFlowsPerUser, "maxFlowsPerUser", 50, 1...10_000_000,
              "active flows one Unix user may hold"),
        .init(\.maxFlows, "maxFlows", 100_000, 1...10_000_000,
              "active flows of all users together; completed flows do not count"),
        .init(\.maxCompletedFlows, "maxCompletedFlows", 10_000, 0...10_000_000, inDaemonInfo: false,
              "0 to 10000000: completed flows kept (a few hundred bytes each, no values) so that a repeated `flow.submit` or `flow.get` answers with the report's id until the flow's idle expiry; past it the oldest goes first, and its id then answers `flowNotFound` (the report stays in `reports.list`)"),
        .init(\.maxConnections, "maxConnections", 1_024, 1...1_000_000,
              "open connections; one more is told `limitExceeded` and closed"),
        .init(\.maxConnectionsPerUser, "maxConnectionsPerUser", 128, 1...1_000_000,
              "1 to 1000000: open connections of one peer uid (root too), so that one user cannot take every place; one more is told `limitExceeded` naming this setting, and closed. Members of `relay.group` have `relay.maxConnectionsPerUser` instead"),
        .init(\.maxPendingOutputBytes, "maxPendingOutputBytes", 4 * 1024 * 1024, 65_536...1_073_741_824,
              "unsent answers past which a connection takes no new request (nor reads) until its client has read half of them; a larger single answer is still sent whole"),
        .init(\.maxBufferedBytes, "maxBufferedBytes", 256 * 1024 * 1024, 1_048_576...1_099_511_627_776,
              "1048576 to 1099511627776: memory held for all clients together: request lines still arriving, waiting or being answered, answers not yet sent and notifications waiting to be written. A line that would pass it is answered `limitExceeded` naming this setting and skipped up to its newline; a batch that reaches it runs none of its remaining requests (each answered `limitExceeded`), and a report notification that would pass it becomes its watch's `overflow`. Each connection's first 64 KiB do not count: a client sending one request of under 64 KiB at a time never meets it. Never less than `limits.maxLineBytes` in effect"),
        .init(\.maxBufferedBytesPerUser, "maxBufferedBytesPerUser", 64 * 1024 * 1024, 1_048_576...1_099_511_627_776,
              "1048576 to 1099511627776: the same for one peer uid; checked before `limits.maxBufferedBytes`. Never less than `limits.maxLineBytes` in effect, so a line of the limit (a photo) always fits when the user holds nothing else"),
        .init(\.stalledReaderTimeoutSeconds, "stalledReaderTimeoutSeconds", 30, 1...86_400,
              "a connection held back by unsent answers whose client reads none of them for this long is closed (one warning line)"),
        .init(\.maxQueuedRequests, "maxQueuedRequests", 1_024, 1...1_000_000,
              "unanswered requests on a connection before the daemon stops reading it"),
        .init(\.maxBatchSize, "maxBatchSize", 100, 1...100_000,
              "requests in one batch"),
        .init(\.maxJSONDepth, "maxJSONDepth", 64, 4...1_000,
              "nesting depth of a request"),
        .init(\.maxPhotoBytes, "maxPhotoBytes", 10 * 1024 * 1024, 1...268_435_456,
              "decoded size of a photo"),
        .init(\.maxSpooledPhotoBytes, "maxSpooledPhotoBytes", 512 * 1024 * 1024, 1...1_099_511_627_776,
              "photos held by all open flows together, in the spool on disk (below); a photo past it is answered `limitExceeded` naming this setting, and the flow keeps the photo it had. `limits.maxPhotoBytesInMemory`, its name from when photos stayed in memory, is still read as this setting"),
        .init(\.maxSpooledPhotoBytesPerUser, "maxSpooledPhotoBytesPerUser", 128 * 1024 * 1024, 1...1_099_511_627_776,
              "the same for the open flows of one peer uid; checked first"),
        .init(\.minFreeDiskBytes, "minFreeDiskBytes", 64 * 1024 * 1024, 0...1_099_511_627_776,
              "0 to 1099511627776: a photo that would leave the spool's file system with less free space than this (for an unprivileged user, `statvfs`'s `f_bavail`) is answered `limitExceeded` naming this setting before it is written, so that submits, which copy photos into the database on the same disk, keep working"),
        .init(\.maxKeptViewBytes, "maxKeptViewBytes", 1024 * 1024, 0...1_073_741_824, inDaemonInfo: false,
              "0 to 1073741824: flow views kept, all together, so that a `flow.get` of an unchanged flow sends the bytes written for the last one; past it a view is written for each `flow.get`, which costs time, not answers. A view is 1–3 KiB; the default keeps those of some 500 flows. A lowered budget applies to views kept from then on"),
        .init(\.maxReportsPage, "maxReportsPage", 100, 1...ParamBounds.widest.maxReportsPage,
              "largest `limit` of `reports.list`"),
        .init(\.maxSubscriptionsPerConnection, "maxSubscriptionsPerConnection", 16, 0...1_000,
              "0 to 1000: watches (`location.watch`, `flow.watch`, `reports.watch`, `relay.watch`) one connection may hold at once; one more is `limitExceeded`, and 0 allows none. A reload applies it at once to every connection; watches already held stay"),
        .init(\.drainTimeoutSeconds, "drainTimeoutSeconds", 10, 1...3_600, reloadable: false, inDaemonInfo: false,
              "1 to 3600: on SIGTERM or SIGINT, how long the daemon waits for connections to answer what they have in hand before it closes them; keep it under systemd's `TimeoutStopSec=` (20 s in the shipped unit)"),
        ]
    }
}

/// One limit: its name under `limits`, where `Limits` keeps it, its default and range, whether
/// a reload applies it, whether `daemon.info` shows it, its own flag if it has one besides
/// `--limit NAME=N`, and what it bounds (OPERATIONS.md's words).
public struct LimitSetting: Sendable {
    public let name: String
    let keyPath: WritableKeyPath<DaemonConfiguration.Limits, Int> & Sendable
    public let defaultValue: Int
    public let range: ClosedRange<Int>
    public let reloadable: Bool
    public let inDaemonInfo: Bool
    /// A flag of its own, as its usage reads (`max-line-bytes N`).
    public let flag: String?
    public let summary: String

    init(_ keyPath: WritableKeyPath<DaemonConfiguration.Limits, Int> & Sendable, _ name: String, _ defaultValue: Int, _ range: ClosedRange<Int>,
         reloadable: Bool = true, inDaemonInfo: Bool = true, flag: String? = nil, _ summary: String)
    {
        self.keyPath = keyPath
        self.name = name
        self.defaultValue = defaultValue
        self.range = range
        self.reloadable = reloadable
        self.inDaemonInfo = inDaemonInfo
        self.flag = flag
        self.summary = summary
    }

    /// How the configuration file and `--limit` read it: an integer within its range.
    var setting: Setting<DaemonConfiguration> {
        let keyPath = self.keyPath, range = self.range
        let read: Setting<DaemonConfiguration>.Read = { c, v, r throws(ConfigurationError) in c.limits[keyPath: keyPath] = try r.int(v, range) }
        return reloadable ? .reloaded(key, read) : .restartOnly(key, differs: { $0.limits[keyPath: keyPath] != $1.limits[keyPath: keyPath] }, read)
    }

    /// Its key in the configuration file.
    public var key: String { "limits." + name }

    /// Its row in docs/OPERATIONS.md's table of settings.
    public var documentationRow: String {
        "| `\(key)` | `\(defaultValue)` | `--\(flag ?? "limit \(name)=N")` | \(reloadable ? "yes" : "no") | \(summary) |"
    }
}
