import Logging
import PetSpotJSON
import PetSpotProtocol

/// The central database's feed of every box's reports, read from a cursor (CentralSchema, step
/// 3: each write takes the next feed position, committed in order), on a session and a thread
/// of its own: the session LISTENs on `CentralSchema.fleetChannel` and waits in libpq, which
/// blocks, so neither the delivery's session nor the cooperative pool waits with it. A
/// notification only wakes the reader; the cursor says what it has.
public actor FleetFeed {
    private let target: PostgresConnectionString
    private let logger: Logger
    private let thread = PostgresThread()
    private var session: PostgresSession?

    public init(target: PostgresConnectionString, logger: Logger) {
        self.target = target
        self.logger = logger
    }

    public func shutdown() async {
        if let session {
            self.session = nil
            await thread.close(session)
        }
        await thread.shutdown()
    }

    /// A row of the feed: another box's report as the central database holds it now, or only
    /// its position (this box's own, which never comes down).
    public struct Row: Sendable, Equatable {
        public let position: Int
        /// Nil for this box's own reports: the cursor passes them.
        public let item: RelayFleetPut.Item?
    }

    /// What the relay asks of the feed: whose reports are its own, and which it brings down.
    public struct Selection: Sendable, Equatable {
        public let ownBox: String
        /// Reports farther than `radiusKm` from `origin` leave (or never reach) the box; nil
        /// origin or radius: every box's. A report without a position is always brought.
        public let origin: (latitude: Double, longitude: Double)?
        public let radiusKm: Double?
        /// Rows at most, and bytes of values and photos at most (past the first row).
        public let maxRows: Int
        public let maxPageBytes: Int
        /// The largest photo the daemon takes: a larger one stays central (its report comes
        /// without it).
        public let maxPhotoBytes: Int

        public init(ownBox: String, origin: (latitude: Double, longitude: Double)?, radiusKm: Double?, maxRows: Int, maxPageBytes: Int,
                    maxPhotoBytes: Int) {
            self.ownBox = ownBox
            self.origin = origin
            self.radiusKm = radiusKm
            self.maxRows = maxRows
            self.maxPageBytes = maxPageBytes
            self.maxPhotoBytes = maxPhotoBytes
        }

        public static func == (a: Selection, b: Selection) -> Bool {
            a.ownBox == b.ownBox && a.origin?.latitude == b.origin?.latitude && a.origin?.longitude == b.origin?.longitude
                && a.radiusKm == b.radiusKm && a.maxRows == b.maxRows && a.maxPageBytes == b.maxPageBytes && a.maxPhotoBytes == b.maxPhotoBytes
        }
    }

    /// What a box's values may take on the wire: a report's values are a few hundred bytes; more
    /// is no report a flow wrote.
    static let maxValuesBytes = 65_536
    /// How deep a report's values may nest: the flow writes two levels (the photo's description).
    static let maxValuesDepth = 8
    /// Report ids and box names longer than this are no box's (a box name is at most 64
    /// characters, an id 64 bytes): such a row is passed, never handed on.
    static let maxNameBytes = 256

    /// The rows after `cursor`, in feed order, and the feed's head (its last position).
    public func read(after cursor: Int, _ selection: Selection) async throws(CentralDatabaseError) -> (rows: [Row], head: Int) {
        let (sql, parameters) = Self.page(after: cursor, selection)
        return try await withSession { session throws(CentralDatabaseError) in
            // The last position a row holds: a write that stored nothing took a number it did not keep.
            let head = Int(try session.execute("SELECT coalesce(max(feed_position), 0) FROM reports").firstColumn.first ?? "") ?? 0
            let table = try session.table(sql, parameters)
            var rows: [Row] = []
            rows.reserveCapacity(table.count)
            for columns in table {
                rows.append(try Self.row(columns))
            }
            return (rows, head)
        }
    }

    /// Waits up to `timeoutMs` for a notification of a write; true when one came. Connects
    /// (and listens) first when there is no session, which counts as a notification: what was
    /// written while away is to be read.
    public func waitForChange(timeoutMs: Int32) async throws(CentralDatabaseError) -> Bool {
        if session == nil {
            try await withSession { _ in }
            return true
        }
        return try await withSession { session throws(CentralDatabaseError) in try session.waitForNotification(timeoutMs: timeoutMs) }
    }

    /// The page's statement. The newest state of each report is its row; the feed position
    /// orders them. A row is brought as a listing (values and photo) when it is another box's,
    /// `missing`, not erased, with values a flow could have written (an object of at most
    /// `maxValuesBytes`) and within the radius; any other of another box's rows as gone
    /// (status and version only: nothing personal travels for it); this box's own, and a row no
    /// box could have written (a version below 1, an id or box name past `maxNameBytes`), as its
    /// position alone: the cursor passes it, and nothing of it can hold up the feed. A photo
    /// larger than the daemon takes stays behind. Values and photos count against
    /// `maxPageBytes` in feed order (the first row always comes). The photo travels as base64
    /// without line breaks. Every cast is guarded: no value of any row can make the statement fail.
    static func page(after cursor: Int, _ selection: Selection) -> (sql: String, parameters: PostgresParameters) {
        var parameters = PostgresParameters()
        let after = parameters.append(String(cursor))
        let limit = parameters.append(String(selection.maxRows))
        let ownBox = parameters.append(selection.ownBox)
        let maxBytes = parameters.append(String(selection.maxPageBytes))
        let maxPhoto = parameters.append(String(selection.maxPhotoBytes))
        var within = "true"
        if let origin = selection.origin, let radius = selection.radiusKm {
            let latitude = parameters.append(String(origin.latitude))
            let longitude = parameters.append(String(origin.longitude))
            let km = parameters.append(String(radius))
            // The great circle on the mean Earth radius, as the animal list measures. A value
            // that is no number, or no coordinate (numeric never overflows; float8 would, for
            // 1e400), is no position.
            within = """
                CASE WHEN jsonb_typeof(report->'values'->'latitude') = 'number' AND jsonb_typeof(report->'values'->'longitude') = 'number'
                          AND (report->'values'->>'latitude')::numeric BETWEEN -90 AND 90
                          AND (report->'values'->>'longitude')::numeric BETWEEN -180 AND 180
                     THEN 2 * 6371.0088 * asin(least(1, sqrt(greatest(0,
                         power(sin(radians((report->'values'->>'latitude')::float8 - \(latitude)::float8) / 2), 2)
                         + cos(radians(\(latitude)::float8)) * cos(radians((report->'values'->>'latitude')::float8))
                           * power(sin(radians((report->'values'->>'longitude')::float8 - \(longitude)::float8) / 2), 2))))) <= \(km)::float8
                     ELSE true END
                """
        }
        let sql = """
            SELECT feed_position, passed, id, box, status, version, submitted, updated,
                   CASE WHEN listed THEN report->'values' END,
                   CASE WHEN listed AND photo_sent THEN photo_media_type END,
                   CASE WHEN listed AND photo_sent THEN translate(encode(photo, 'base64'), E'\\n', '') END
            FROM (
                SELECT *, sum(CASE WHEN listed THEN values_bytes + CASE WHEN photo_sent THEN octet_length(photo) ELSE 0 END ELSE 0 END)
                              OVER (ORDER BY feed_position) AS running,
                          row_number() OVER (ORDER BY feed_position) AS n
                FROM (
                    SELECT *, NOT passed AND status = 'missing' AND erased_at IS NULL AND jsonb_typeof(report->'values') = 'object'
                                  AND values_bytes <= \(Self.maxValuesBytes) AND \(within) AS listed,
                              photo IS NOT NULL AND photo_media_type IS NOT NULL AND octet_length(photo) <= \(maxPhoto)::bigint
                                  AND octet_length(photo_media_type) <= 255 AS photo_sent
                    FROM (
                        SELECT feed_position, box = \(ownBox) OR version < 1 OR octet_length(id) > \(Self.maxNameBytes)
                                   OR octet_length(box) > \(Self.maxNameBytes) AS passed,
                               id, box, status, version, report, photo, photo_media_type, erased_at,
                               octet_length((report->'values')::text) AS values_bytes,
                               to_char(submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS submitted,
                               to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS updated
                        FROM reports WHERE feed_position > \(after)::bigint ORDER BY feed_position LIMIT \(limit)::bigint
                    ) AS rows
                ) AS page
            ) AS counted
            WHERE n = 1 OR running <= \(maxBytes)::bigint
            ORDER BY feed_position
            """
        return (sql, parameters)
    }

    /// A row of `page` as the relay hands it on (nil: passed): without values it is gone from this box
    /// whatever its status; a status of another word (the central table should never hold one)
    /// makes it gone too, never a listing.
    static func row(_ columns: [String?]) throws(CentralDatabaseError) -> Row {
        guard columns.count == 11, let positionText = columns[0], let position = Int(positionText) else {
            throw CentralDatabaseError(kind: .server, "the fleet's feed gave a row without its position")
        }
        if columns[1] == "t" { return Row(position: position, item: nil) }
        let id = columns[2] ?? "", box = columns[3] ?? ""
        let version = columns[5].flatMap { Int($0) } ?? 1
        let known = columns[4].flatMap(RelayFleetPut.Status.init(rawValue:))
        let status = known ?? .withdrawn
        let submitted = columns[6] ?? "", updated = columns[7] ?? ""
        var values: JSONObject?
        if known != nil, let text = columns[8], case .object(let object)? = try? JSONParser.parse(text, maxDepth: Self.maxValuesDepth) {
            values = object
        }
        let photo = columns[9].flatMap { mediaType in columns[10].map { RelayFleetPut.Photo(mediaType: mediaType, base64: $0) } }
        return Row(position: position, item: RelayFleetPut.Item(
            reportId: id, box: box, status: status, version: version,
            submittedAt: submitted, updatedAt: updated, values: values, photo: values == nil ? nil : photo))
    }

    /// Runs `body` on the feed's thread with a session that listens, connecting first when
    /// there is none; a session that broke is dropped, so the next call connects again.
    private func withSession<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws(CentralDatabaseError) -> T) async throws(CentralDatabaseError) -> T {
        let target = target, logger = logger
        do {
            let (kept, value) = try await thread.run(current: session, connect: { () throws(CentralDatabaseError) in
                let session = try CentralDatabase.connected(target, logger: logger)
                do throws(CentralDatabaseError) {
                    // A page waits on no lock and no server for long: a stop, or the next
                    // attempt, comes first.
                    try session.execute("SET statement_timeout = '60s'")
                    try session.execute("SET lock_timeout = '30s'")
                    try session.listen(CentralSchema.fleetChannel)
                    return session
                } catch {
                    session.close()
                    throw error
                }
            }, body)
            session = kept
            return value
        } catch {
            session = nil
            throw error
        }
    }
}
