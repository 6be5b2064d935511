#if canImport(Glibc)
import Glibc
#endif
import PetSpotJSON

/// What the running relay tells `--status` through its state file.
public struct RelayState: Sendable, Equatable {
    /// The box the reports are stored under: the daemon's `box.name`; nil until the daemon told it.
    public var box: String?
    public var pid: Int32
    public var startedAt: String
    public var updatedAt: String
    public var daemon: LinkState = .unknown
    public var postgres: LinkState = .unknown
    /// When the last batch was acknowledged (ISO 8601 UTC).
    public var lastDeliveryAt: String?
    public var lastError: String?
    public var lastErrorAt: String?
    /// Since the start: reports acknowledged, of which PostgreSQL stored now (new, or a newer
    /// version) / had already (at that version or a newer one).
    public var delivered = 0
    public var storedNew = 0
    public var alreadyStored = 0
    /// The daemon's pending count after the last claim.
    public var pending: Int?
    /// Reports PostgreSQL did not keep although their statement succeeded (a trigger or rule of
    /// the central table dropped them): not acknowledged, retried with backoff.
    public var notStored = 0
    /// The fleet's list coming down; nil until the first page (or when it is off).
    public var fleet: FleetProgress?

    public init(box: String?, pid: Int32, startedAt: String) {
        self.box = box
        self.pid = pid
        self.startedAt = startedAt
        self.updatedAt = startedAt
    }

    /// The error in force now, if any: an outage not yet over.
    public var currentError: String? {
        if case .unreachable(let reason, _) = daemon { return "petspotd: \(reason)" }
        if case .unreachable(let reason, _) = postgres { return "PostgreSQL: \(reason)" }
        if notStored > 0 { return "PostgreSQL: \(Self.notStoredText(notStored))" }
        return nil
    }

    /// What an operator reads about reports PostgreSQL did not keep.
    public static func notStoredText(_ count: Int) -> String {
        "\(count) report\(count == 1 ? " was" : "s were") not kept by table reports although the statement succeeded "
            + "(a trigger or rule drops them?); not acknowledged, retried with backoff"
    }

    public var json: JSONValue {
        func link(_ state: LinkState) -> JSONValue {
            if case .unreachable(let reason, let kind) = state { return ["state": "unreachable", "reason": .string(reason), "kind": .string(kind)] }
            return ["state": .string(state.name)]
        }
        return [
            "box": .optional(box),
            "pid": .int(pid),
            "startedAt": .string(startedAt),
            "updatedAt": .string(updatedAt),
            "daemon": link(daemon),
            "postgres": link(postgres),
            "lastDeliveryAt": .optional(lastDeliveryAt),
            "lastError": .optional(lastError),
            "lastErrorAt": .optional(lastErrorAt),
            "delivered": .int(delivered),
            "storedNew": .int(storedNew),
            "alreadyStored": .int(alreadyStored),
            "pending": .optional(pending),
            "notStored": .int(notStored),
            "fleet": fleet?.json ?? .null,
        ]
    }

    public init(json: JSONValue) throws(DaemonAnswerError) {
        func string(_ key: String) throws(DaemonAnswerError) -> String {
            guard let s = json[key]?.stringValue else { throw DaemonAnswerError("the state file has no \"\(key)\"") }
            return s
        }
        func count(_ key: String) -> Int { if case .number(let n)? = json[key] { n.exactInt ?? 0 } else { 0 } }
        func link(_ key: String) -> LinkState {
            switch json[key]?["state"]?.stringValue {
            case "reachable": .reachable
            case "unreachable": .unreachable(reason: json[key]?["reason"]?.stringValue ?? "", kind: json[key]?["kind"]?.stringValue ?? "unreachable")
            default: .unknown
            }
        }
        let pid: Int32 = if case .number(let n)? = json["pid"], let i = n.exactInt { Int32(truncatingIfNeeded: i) } else { 0 }
        self.init(box: json["box"]?.stringValue, pid: pid, startedAt: try string("startedAt"))
        updatedAt = try string("updatedAt")
        daemon = link("daemon")
        postgres = link("postgres")
        lastDeliveryAt = json["lastDeliveryAt"]?.stringValue
        lastError = json["lastError"]?.stringValue
        lastErrorAt = json["lastErrorAt"]?.stringValue
        delivered = count("delivered")
        storedNew = count("storedNew")
        notStored = count("notStored")
        alreadyStored = count("alreadyStored")
        if case .number(let n)? = json["pending"] { pending = n.exactInt }
        if let fleet = json["fleet"], case .object = fleet { self.fleet = FleetProgress(json: fleet) }
    }
}

/// How far the box's copy of the fleet's list is: the central feed position it holds up to
/// (the cursor, kept by petspotd with the copy) and the feed's last position when last read.
public struct FleetProgress: Sendable, Equatable {
    public var cursor = 0
    public var head = 0
    /// Other boxes' reports on the box after the last call.
    public var reports = 0
    /// Since the relay started.
    public var listed = 0
    public var removed = 0
    public var refused = 0
    /// When a page last came down (ISO 8601 UTC).
    public var lastPageAt: String?
    /// What the copy was built with: the feed is read again from its start when it changes.
    public var scan: Scan?
    /// Why the list does not come down now, if it does not (an outage, a daemon too old):
    /// shown by `--status`, not an error of the delivery (its exit status stays the delivery's).
    public var problem: String?

    public init() {}

    /// What comes down: every box's, or those within a radius of the box's position.
    public struct Scan: Sendable, Equatable, CustomStringConvertible {
        public var radiusKm: Double?
        public var origin: (latitude: Double, longitude: Double)?

        public init(radiusKm: Double?, origin: (latitude: Double, longitude: Double)?) {
            self.radiusKm = radiusKm
            self.origin = origin
        }

        public static func == (a: Scan, b: Scan) -> Bool {
            a.radiusKm == b.radiusKm && a.origin?.latitude == b.origin?.latitude && a.origin?.longitude == b.origin?.longitude
        }

        /// Whether the reports in reach may differ: another radius, a position gained or lost,
        /// or a box that moved more than a tenth of the radius.
        public func differs(from other: Scan) -> Bool {
            guard radiusKm == other.radiusKm else { return true }
            guard let radius = radiusKm else { return false }
            switch (origin, other.origin) {
            case (nil, nil): return false
            case (let a?, let b?): return Self.kilometres(a, b) > radius / 10
            default: return true
            }
        }

        /// The great circle on the mean Earth radius.
        static func kilometres(_ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)) -> Double {
            let radians = Double.pi / 180
            let dLat = (b.latitude - a.latitude) * radians, dLon = (b.longitude - a.longitude) * radians
            let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
            return 2 * 6371.0088 * asin(min(1, h.squareRoot()))
        }

        public var description: String {
            guard let radiusKm else { return "every box's" }
            guard let origin else { return "within \(radiusKm) km of a box without a position (every box's)" }
            return "within \(radiusKm) km of \(origin.latitude),\(origin.longitude)"
        }

        var json: JSONValue {
            ["radiusKm": radiusKm.map { .number(JSONNumber(validatedLiteral: "\($0)")) } ?? .null,
             "latitude": origin.map { .number(JSONNumber(validatedLiteral: "\($0.latitude)")) } ?? .null,
             "longitude": origin.map { .number(JSONNumber(validatedLiteral: "\($0.longitude)")) } ?? .null]
        }

        init?(json: JSONValue?) {
            guard case .object? = json else { return nil }
            func number(_ key: String) -> Double? { if case .number(let n)? = json?[key] { Double(n.literal) } else { nil } }
            radiusKm = number("radiusKm")
            origin = number("latitude").flatMap { lat in number("longitude").map { (lat, $0) } }
        }
    }

    /// Feed positions not yet brought (other boxes' writes, and this box's own, which pass).
    public var behind: Int { max(0, head - cursor) }

    var json: JSONValue {
        ["cursor": .int(cursor), "head": .int(head), "behind": .int(behind), "reports": .int(reports), "listed": .int(listed),
         "removed": .int(removed), "refused": .int(refused), "lastPageAt": .optional(lastPageAt), "problem": .optional(problem),
         "scan": scan?.json ?? .null]
    }

    init(json: JSONValue) {
        func count(_ key: String) -> Int { if case .number(let n)? = json[key] { n.exactInt ?? 0 } else { 0 } }
        cursor = count("cursor")
        head = count("head")
        reports = count("reports")
        listed = count("listed")
        removed = count("removed")
        refused = count("refused")
        lastPageAt = json["lastPageAt"]?.stringValue
        problem = json["problem"]?.stringValue
        scan = Scan(json: json["scan"])
    }
}
