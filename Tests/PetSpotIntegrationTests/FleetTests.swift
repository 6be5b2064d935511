import Foundation
import NIOConcurrencyHelpers
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem
import PetSpotTestSupport
import Testing

/// One list for the whole fleet: two boxes (real daemons, each with its real relay) and one
/// real PostgreSQL. A report filed on one box reaches the other's animal list through the
/// central feed, pushed by LISTEN/NOTIFY (the relays poll once an hour here), and leaves it,
/// and its disk, when it is found or erased.
@Suite("The fleet's list across two boxes", .serialized)
struct FleetTests {
    /// Both boxes' daemons see the whole list (staff: the tests run as root), so the photo and
    /// the chip can be compared with what was filed.
    static func box(_ name: String, settings: JSONObject = JSONObject()) throws -> DaemonProcess {
        var merged: JSONObject = ["board": ["staffGroup": "root"]]
        for member in settings { merged[member.key] = member.value }
        return try DaemonProcess.forRelay(box: name, settings: merged).start()
    }

    /// A box that never moves (`static`), in Warsaw: what radii and "farthest" are measured from.
    static let standingInWarsaw: JSONValue = [
        "providers": ["static"],
        "static": ["position": [.number(JSONNumber(validatedLiteral: "52.22968")), .number(JSONNumber(validatedLiteral: "21.01223"))]],
    ]

    /// A relay woken only by what it hears: a poll an hour apart.
    static func relay(_ daemon: DaemonProcess, _ postgres: PostgresServer, settings: JSONObject = JSONObject()) throws -> RelayProcess {
        var merged: JSONObject = ["pollIntervalSeconds": 3_600, "retryMaxDelaySeconds": 1]
        for member in settings { merged[member.key] = member.value }
        return try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: nil, settings: merged).start()
    }

    /// Every animal the box lists, by id, with the box it names.
    static func listed(_ conn: PetSpotConnection) throws -> [String: String] {
        var animals: [String: String] = [:]
        var cursor: JSONValue = .null
        repeat {
            var params: JSONObject = ["limit": 100]
            if cursor != .null { params["cursor"] = cursor }
            let page = try conn.result("animals.list", params)
            for animal in page["animals"]?.arrayValue ?? [] {
                animals[animal["id"]?.stringValue ?? "?"] = animal["box"]?.stringValue ?? "?"
            }
            cursor = page["cursor"] ?? .null
        } while cursor != .null
        return animals
    }

    /// The central database's `missing`, unerased reports of boxes other than `box`.
    static func centralMissing(_ postgres: PostgresServer, otherThan box: String) throws -> Set<String> {
        Set(try postgres.psql("SELECT id FROM reports WHERE status = 'missing' AND erased_at IS NULL AND box <> '\(box)'")
            .split(separator: "\n").map(String.init))
    }

    /// Whether the box's database file or its WAL holds `text`.
    static func diskHolds(_ daemon: DaemonProcess, _ text: String) -> Bool {
        [daemon.databasePath, daemon.databasePath + "-wal"].contains { path in
            ((try? FileDescriptorIO.readFile(path)).map { $0.firstRange(of: Array(text.utf8)) != nil }) ?? false
        }
    }

    /// Until the relay's --status says its box has the whole feed.
    static func waitForHead(_ relay: RelayProcess, _ postgres: PostgresServer) throws {
        // The last position a row holds (a write that stored nothing took one it did not keep).
        let head = try postgres.psql("SELECT coalesce(max(feed_position), 0) FROM reports")
        try waitUntil("the relay at the feed's head, \(head)\n\(relay.log)", seconds: 30) {
            try relay.status().stdout.contains("fleet: cursor \(head) of \(head) (0 behind)")
        }
    }

    static func file(_ conn: PetSpotConnection, description: String) throws -> String {
        try #require(try fileReport(conn, description: description).submit[path: "report", "id"]?.stringValue)
    }

    @Test("filed on A: listed on B with A's name, its photo and chip, no owner and nothing pending there; amended on A: changed on B; found on A: gone from B; erased on A: gone from B's disk")
    func filedFoundErased() throws {
        let postgres = try PostgresServer()
        let a = try Self.box("kiosk-a"), b = try Self.box("kiosk-b")
        let relayA = try Self.relay(a, postgres), relayB = try Self.relay(b, postgres)
        let connA = try a.connect(), connB = try b.connect()
        let described = "Fleet-\(UUID().uuidString.prefix(8))"
        let id = try Self.file(connA, description: described)

        try waitUntil("\(id) listed on B\n\(relayA.log)\n\(relayB.log)", seconds: 30) { try Self.listed(connB)[id] == "kiosk-a" }
        let animal = try #require(try connB.result("animals.get", ["animalId": .string(id)])["animal"])
        #expect(animal["box"] == "kiosk-a")
        #expect(animal["chipNumber"] == "61609123456789")
        #expect(animal[path: "contact", "email"] == "owner@example.org")
        #expect(animal["description"]?.stringValue?.contains(described) == true, "\(JSONWriter.string(animal))")
        let photo = try connB.result("animals.photo", ["animalId": .string(id)])
        #expect(photo["data"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map(Array.init) == pngBytes)
        // Never B's own: no owner, nothing to deliver, A keeps one copy of its own.
        #expect(try allReportIDs(connB).isEmpty)
        #expect(try b.relayPending() == 0)
        #expect(try Self.listed(connA).filter { $0.key == id }.count == 1)
        #expect(try postgres.psql("SELECT count(*) || ' ' || min(box) FROM reports") == "1 kiosk-a")

        let amended = "Amended-\(UUID().uuidString.prefix(8))"
        _ = try connA.result("reports.amend", ["reportId": .string(id), "values": ["additionalDescription": .string(amended)]])
        try waitUntil("the amendment on B", seconds: 30) {
            try connB.result("animals.get", ["animalId": .string(id)])[path: "animal", "description"]?.stringValue?.contains(amended) == true
        }
        #expect(try connB.result("animals.get", ["animalId": .string(id)])[path: "animal", "version"] == .int(2))

        _ = try connA.result("reports.close", ["reportId": .string(id), "outcome": "found"])
        try waitUntil("the found report gone from B", seconds: 30) { try Self.listed(connB)[id] == nil }
        #expect(try connB.failure("animals.get", ["animalId": .string(id)]).kind == .animalNotFound)

        // Erased on A: the values leave B's disk with its copy.
        let erasedText = "Erased-\(UUID().uuidString.prefix(8))"
        let second = try Self.file(connA, description: erasedText)
        try waitUntil("\(second) listed on B", seconds: 30) { try Self.listed(connB)[second] == "kiosk-a" }
        #expect(Self.diskHolds(b, erasedText), "the copy's values are not on B's disk to begin with")
        _ = try connA.result("reports.erase", ["reportId": .string(second)])
        try waitUntil("the erased report gone from B's list and disk\n\(b.log)", seconds: 30) {
            try Self.listed(connB)[second] == nil && !Self.diskHolds(b, erasedText)
        }
        #expect(try relayB.stop() == 0)
        #expect(try relayA.stop() == 0)
    }

    @Test("B away (its daemon and relay stopped) while A files, closes and erases: started again, B lists exactly the central database's missing reports, and --status names the cursor, 0 behind")
    func caughtUpAfterBeingAway() throws {
        let postgres = try PostgresServer()
        let a = try Self.box("kiosk-a"), b = try Self.box("kiosk-b")
        let relayA = try Self.relay(a, postgres), relayB = try Self.relay(b, postgres)
        let connA = try a.connect()
        let first = try Self.file(connA, description: "First")
        try waitUntil("the first report on B", seconds: 30) { try Self.listed(try b.connect())[first] == "kiosk-a" }
        #expect(try relayB.stop() == 0)
        #expect(try b.stop() == 0)

        let ids = try (0..<6).map { try Self.file(connA, description: "Away \($0)") }
        _ = try connA.result("reports.close", ["reportId": .string(first), "outcome": "found"])
        _ = try connA.result("reports.close", ["reportId": .string(ids[0]), "outcome": "withdrawn"])
        _ = try connA.result("reports.erase", ["reportId": .string(ids[1])])
        _ = try connA.result("reports.amend", ["reportId": .string(ids[2]), "values": ["contactEmail": "away@example.org"]])
        try waitUntil("A's reports and changes stored centrally\n\(relayA.log)", seconds: 30) { try a.relayPending() == 0 }
        let expected = try Self.centralMissing(postgres, otherThan: "kiosk-b")
        #expect(expected == Set(ids[2...]))

        try b.start()
        try relayB.start()
        let connB = try b.connect()
        try waitUntil("B caught up\n\(relayB.log)", seconds: 30) { Set(try Self.listed(connB).keys) == expected }
        #expect(try connB.result("animals.get", ["animalId": .string(ids[2])])[path: "animal", "contact", "email"] == "away@example.org")
        try Self.waitForHead(relayB, postgres)
        #expect(try relayB.status().status == 0)
        #expect(try relayB.stop() == 0)
        #expect(try relayA.stop() == 0)
    }

    @Test("A files, amends, closes and erases while each relay, each daemon and PostgreSQL is SIGKILLed in turn: B ends listing exactly the central database's missing reports of A, at their versions, no erased one comes back, and none of an erased one's values is on B's disk")
    func convergesThroughKills() throws {
        let postgres = try PostgresServer()
        let a = try Self.box("kiosk-a"), b = try Self.box("kiosk-b")
        let relayA = try Self.relay(a, postgres), relayB = try Self.relay(b, postgres)
        var ids: [String] = []
        var erased: [(id: String, text: String)] = []
        var victims: [String] = []
        for round in 0..<10 {
            let conn = try a.connect()
            for n in 0..<3 { ids.append(try Self.file(conn, description: "Round \(round) report \(n)")) }
            let gone = "Erased-\(round)-\(UUID().uuidString.prefix(8))"
            let doomed = try Self.file(conn, description: gone)
            _ = try conn.result("reports.amend", ["reportId": .string(ids[ids.count - 3]), "values": ["age": .int(round % 20 + 1)]])
            _ = try conn.result("reports.close", ["reportId": .string(ids[ids.count - 2]), "outcome": "found"])
            _ = try conn.result("reports.erase", ["reportId": .string(doomed)])
            erased.append((doomed, gone))
            switch round % 5 {
            case 0:
                victims.append("relay B")
                try relayB.kill()
                try relayB.start()
            case 1:
                victims.append("petspotd B")
                try b.kill()
                try b.start()
            case 2:
                victims.append("PostgreSQL")
                try postgres.kill()
                try postgres.start()
            case 3:
                victims.append("relay A")
                try relayA.kill()
                try relayA.start()
            default:
                victims.append("petspotd A")
                try a.kill()
                try a.start()
            }
        }
        try waitUntil("A's reports all stored centrally\n\(relayA.log)", seconds: 60) { try a.relayPending() == 0 }
        let expected = try Self.centralMissing(postgres, otherThan: "kiosk-b")
        #expect(expected.count == 20, "\(victims)")
        let connB = try b.connect()
        try waitUntil("B listing exactly the central database's missing reports\n\(relayB.log)", seconds: 60) {
            Set(try Self.listed(connB).keys) == expected
        }
        try Self.waitForHead(relayB, postgres)
        #expect(Set(try Self.listed(connB).keys) == expected)
        for id in expected {
            let central = try postgres.psql("SELECT version FROM reports WHERE id = '\(id)'")
            #expect(try connB.result("animals.get", ["animalId": .string(id)])[path: "animal", "version"] == .int(Int(central) ?? -1), "\(id)")
        }
        for (id, text) in erased {
            #expect(try connB.failure("animals.get", ["animalId": .string(id)]).kind == .animalNotFound)
            #expect(!Self.diskHolds(b, text), "\(text) is on B's disk after the kills of \(victims)")
        }
        #expect(try relayB.stop() == 0)
        #expect(try relayA.stop() == 0)
    }

    @Test("what a compromised box writes centrally is read by B's flow rules: values that break them, a box name that is not one, and B's own name are never listed, and a later refused version takes the listed one off")
    func hostileCentralRows() throws {
        let postgres = try PostgresServer()
        let b = try Self.box("kiosk-b")
        let relayB = try Self.relay(b, postgres)
        try waitUntil("the central schema\n\(relayB.log)") { try postgres.psql("SELECT to_regclass('petspot_fleet_feed') IS NOT NULL") == "t" }
        let good: JSONObject = [
            "chipNumber": "616091234567890", "photo": .null, "disappearanceDate": "2026-11-20", "species": "dog", "race": "Beagle",
            "gender": "male", "age": 4, "latitude": .number(JSONNumber(validatedLiteral: "52.22968")),
            "longitude": .number(JSONNumber(validatedLiteral: "21.01223")), "additionalDescription": "Brown collar",
            "contactPhone": "+48601234567", "contactEmail": "owner@example.org",
        ]
        func insert(_ id: String, box: String, version: Int = 1, _ change: (inout JSONObject) -> Void = { _ in }) throws {
            var values = good
            change(&values)
            let report = JSONWriter.string(["id": .string(id), "submittedAt": "2026-11-21T10:00:00Z", "values": .object(values),
                                            "status": "missing", "version": .int(version), "updatedAt": "2026-11-21T10:00:00Z"])
            try postgres.psql("""
                INSERT INTO reports (id, box, submitted_at, report) VALUES ('\(id)', '\(box)', '2026-11-21T10:00:00Z', $j$\(report)$j$::jsonb)
                ON CONFLICT (id) DO UPDATE SET report = excluded.report, version = \(version), status = 'missing'
                """)
        }
        try insert("good-1", box: "kiosk-x")
        try insert("escapes-1", box: "kiosk-x") { $0["contactEmail"] = "\u{1B}]0;pwned\u{07}@example.org" }
        try insert("species-1", box: "kiosk-x") { $0["species"] = "dragon" }
        try insert("nochip-1", box: "kiosk-x") { $0["chipNumber"] = .null; $0["disappearanceDate"] = .null }
        try insert("box-1", box: "kiosk x\u{1B}[2J")
        try insert("own-1", box: "kiosk-b")
        let connB = try b.connect()
        try waitUntil("the good report on B\n\(relayB.log)", seconds: 30) { try Self.listed(connB)["good-1"] == "kiosk-x" }
        try Self.waitForHead(relayB, postgres)
        #expect(try Self.listed(connB) == ["good-1": "kiosk-x"])
        let status = try relayB.status().stdout
        #expect(status.contains("4 refused"), "\(status)")
        #expect(b.log.contains("refused by this box's flow rules"))

        // A newer version that breaks a rule: the listed copy leaves.
        try insert("good-1", box: "kiosk-x", version: 2) { $0["contactPhone"] = "not a phone" }
        try waitUntil("the refused version takes the copy off B\n\(relayB.log)", seconds: 30) { try Self.listed(connB).isEmpty }
        #expect(try relayB.stop() == 0)
    }

    /// One report's values as a flow stores them, at `latitude`, `longitude`, as a JSON text.
    static func centralReport(_ id: String, latitude: String = "52.23", longitude: String = "21.01", version: Int = 1,
                              change: (inout JSONObject) -> Void = { _ in }) -> String {
        var values: JSONObject = [
            "species": "cat", "race": "Tabby", "gender": "female", "disappearanceDate": "2026-11-20", "chipNumber": "616091234567890",
            "latitude": .number(JSONNumber(validatedLiteral: latitude)), "longitude": .number(JSONNumber(validatedLiteral: longitude)),
            "contactPhone": "+48601234567",
        ]
        change(&values)
        return JSONWriter.string(["id": .string(id), "submittedAt": "2026-11-21T10:00:00Z", "status": "missing", "version": .int(version),
                                  "updatedAt": "2026-11-21T10:00:00Z", "values": .object(values)])
    }

    @Test("rows no box could have written hold up nothing, with a radius set: a version of 0, a latitude of 1e400, values nested 70 deep or of 100 kB, an id of 300 bytes, a photo larger than the box takes; the good report after them comes down")
    func malformedRowsHoldUpNothing() throws {
        let postgres = try PostgresServer()
        let b = try Self.box("kiosk-b", settings: [
            "board": ["staffGroup": "root"], "limits": ["maxPhotoBytes": 1_024],
            "location": Self.standingInWarsaw,
        ])
        let relayB = try Self.relay(b, postgres, settings: ["boardRadiusKm": 100])
        try waitUntil("the central schema\n\(relayB.log)") { try postgres.psql("SELECT to_regclass('petspot_fleet_feed') IS NOT NULL") == "t" }
        func insert(_ id: String, _ report: String, extra: String = "") throws {
            try postgres.psql("INSERT INTO reports (id, box, submitted_at, report\(extra.isEmpty ? "" : ", status, version, updated_at")) VALUES ('\(id)', 'kiosk-x', now(), $j$\(report)$j$::jsonb\(extra))")
        }
        try insert("zero", Self.centralReport("zero"), extra: ", 'missing', 0, now()")
        try insert("huge-latitude", Self.centralReport("huge-latitude", latitude: "1e400"))
        let deep = String(repeating: "[", count: 70) + String(repeating: "]", count: 70)
        try insert("deep", Self.centralReport("deep").replacingOccurrences(of: #""contactPhone""#, with: #""nested":\#(deep),"contactPhone""#))
        try insert("large", Self.centralReport("large") { $0["additionalDescription"] = .string(String(repeating: "x", count: 100_000)) })
        try insert(String(repeating: "i", count: 300), Self.centralReport("long"))
        try insert("big-photo", Self.centralReport("big-photo"))
        try postgres.psql("UPDATE reports SET photo = decode(repeat('89504e470d0a1a0a', 400), 'hex'), photo_media_type = 'image/png', version = 2 WHERE id = 'big-photo'")
        try insert("good", Self.centralReport("good"))
        let connB = try b.connect()
        try waitUntil("the good report on B\n\(relayB.log)", seconds: 30) { try Self.listed(connB)["good"] == "kiosk-x" }
        try Self.waitForHead(relayB, postgres)
        #expect(Set(try Self.listed(connB).keys) == ["good", "big-photo"])
        #expect(try connB.result("animals.get", ["animalId": "big-photo"])[path: "animal", "photo"] == .null)
        let status = try relayB.status().stdout
        #expect(status.contains("fleet: cursor") && !status.contains("; now: "), "\(status)")
        #expect(try relayB.stop() == 0)
    }

    @Test("the central database goes back (restored from a backup): B's relay sees the feed behind its copy, drops the copy and builds it again from the feed")
    func centralDatabaseWentBack() throws {
        let postgres = try PostgresServer()
        let b = try Self.box("kiosk-b")
        let relayB = try Self.relay(b, postgres)
        try waitUntil("the central schema\n\(relayB.log)") { try postgres.psql("SELECT to_regclass('petspot_fleet_feed') IS NOT NULL") == "t" }
        for id in ["before-1", "before-2", "before-3"] {
            try postgres.psql("INSERT INTO reports (id, box, submitted_at, report) VALUES ('\(id)', 'kiosk-x', now(), $j$\(Self.centralReport(id))$j$::jsonb)")
        }
        let connB = try b.connect()
        try waitUntil("three reports on B\n\(relayB.log)", seconds: 30) { try Self.listed(connB).count == 3 }
        // What a restore from an earlier backup leaves: fewer rows, and a counter behind B's cursor.
        try postgres.psql("DELETE FROM reports; UPDATE petspot_fleet_feed SET position = 0")
        try postgres.psql("INSERT INTO reports (id, box, submitted_at, report) VALUES ('after-1', 'kiosk-x', now(), $j$\(Self.centralReport("after-1"))$j$::jsonb)")
        try waitUntil("B holding only what the central database holds\n\(relayB.log)", seconds: 30) { try Self.listed(connB).keys.sorted() == ["after-1"] }
        #expect(relayB.log.contains("the central feed is behind this box's copy"))
        try Self.waitForHead(relayB, postgres)
        #expect(try relayB.stop() == 0)
    }

    @Test("a wider boardRadiusKm reads the feed again from its start: reports passed as out of reach come down, and a narrower one takes them off")
    func radiusChangedReadsAgain() throws {
        let postgres = try PostgresServer()
        let b = try Self.box("kiosk-b", settings: [
            "board": ["staffGroup": "root"],
            "location": Self.standingInWarsaw,
        ])
        let relayB = try Self.relay(b, postgres, settings: ["boardRadiusKm": 50])
        try waitUntil("the central schema\n\(relayB.log)") { try postgres.psql("SELECT to_regclass('petspot_fleet_feed') IS NOT NULL") == "t" }
        try postgres.psql("INSERT INTO reports (id, box, submitted_at, report) VALUES ('warsaw', 'kiosk-x', now(), $j$\(Self.centralReport("warsaw"))$j$::jsonb)")
        try postgres.psql("INSERT INTO reports (id, box, submitted_at, report) VALUES ('krakow', 'kiosk-x', now(), $j$\(Self.centralReport("krakow", latitude: "50.06", longitude: "19.94"))$j$::jsonb)")
        let connB = try b.connect()
        try Self.waitForHead(relayB, postgres)
        #expect(try Self.listed(connB).keys.sorted() == ["warsaw"])
        #expect(try relayB.stop() == 0)

        // The same relay, its state file kept, started again with a wider radius.
        try JSONWriter.string(["pollIntervalSeconds": 3_600, "retryMaxDelaySeconds": 1, "boardRadiusKm": 500])
            .write(toFile: relayB.directory.appendingPathComponent("relay.json").path, atomically: true, encoding: .utf8)
        try relayB.start()
        try waitUntil("Kraków within 500 km\n\(relayB.log)", seconds: 30) { try Self.listed(connB).keys.sorted() == ["krakow", "warsaw"] }
        #expect(relayB.log.contains("what comes down changed"))

        try JSONWriter.string(["pollIntervalSeconds": 3_600, "retryMaxDelaySeconds": 1, "boardRadiusKm": 50])
            .write(toFile: relayB.directory.appendingPathComponent("relay.json").path, atomically: true, encoding: .utf8)
        #expect(try relayB.stop() == 0)
        try relayB.start()
        try waitUntil("Kraków gone again within 50 km\n\(relayB.log)", seconds: 30) { try Self.listed(connB).keys.sorted() == ["warsaw"] }
        #expect(try relayB.stop() == 0)
    }

    @Test("a call petspotd refuses whole is sent again a report at a time, each completing nothing past the cursor before it: the report refused alone is passed and named, the others stored, then the cursor moves past them all")
    func refusedCallSentReportByReport() throws {
        let postgres = try PostgresServer()
        let base = HostileAnswers.script(.wellFormed, box: "kiosk-b")
        // A daemon that keeps the cursor and refuses any call of more than one report, and the report "bad".
        let cursor = NIOLockedValueBox(0)
        let puts = NIOLockedValueBox<[String]>([])
        let fake = try ScriptedDaemon { request in
            func line(_ member: String, _ value: JSONValue) -> [String] { [JSONWriter.string(["jsonrpc": "2.0", "id": request.id, .init(member): value])] }
            switch request.method {
            case "relay.fleet":
                return line("result", RelayFleet.Result(cursor: cursor.withLockedValue { $0 }, reports: 0, maxReports: 100, position: nil,
                                                        maxLineBytes: 1 << 24, maxPhotoBytes: 1 << 20).json)
            case "relay.fleetPut":
                let ids = request.params["reports"]?.arrayValue?.compactMap { $0["reportId"]?.stringValue } ?? []
                let at = request.params["cursor"].flatMap { if case .number(let n) = $0 { n.exactInt } else { nil } } ?? -1
                puts.withLockedValue { $0.append("\(at):\(ids.joined(separator: ","))") }
                if ids.count > 1 || ids.contains("bad") {
                    return line("error", ["code": -32602, "message": "reports: refused", "data": ["kind": "invalidParams", "parameter": "reports"]])
                }
                cursor.withLockedValue { $0 = at }
                return line("result", RelayFleetPut.Result(cursor: at, listed: ids.count, removed: 0, refused: []).json)
            default:
                return base(request)
            }
        }
        defer { fake.stop() }
        let relay = try RelayProcess(socket: fake.socketPath, postgresURL: postgres.url(), box: nil,
                                     settings: ["pollIntervalSeconds": 3_600, "retryMaxDelaySeconds": 1])
        try relay.start()
        try waitUntil("the central schema\n\(relay.log)") { try postgres.psql("SELECT to_regclass('petspot_fleet_feed') IS NOT NULL") == "t" }
        try postgres.psql("""
            BEGIN;
            INSERT INTO reports (id, box, submitted_at, report) VALUES ('good-1', 'kiosk-x', now(), $j$\(Self.centralReport("good-1"))$j$::jsonb);
            INSERT INTO reports (id, box, submitted_at, report) VALUES ('bad', 'kiosk-x', now(), $j$\(Self.centralReport("bad"))$j$::jsonb);
            INSERT INTO reports (id, box, submitted_at, report) VALUES ('good-2', 'kiosk-x', now(), $j$\(Self.centralReport("good-2"))$j$::jsonb);
            COMMIT;
            """)
        let head = try postgres.psql("SELECT max(feed_position) FROM reports")
        try waitUntil("the cursor past all three\n\(relay.log)\n\(puts.withLockedValue { $0 })", seconds: 30) { cursor.withLockedValue { $0 } == Int(head) }
        // The fake's own claim may have been stored centrally before (this box's: passed, an empty call).
        let first = try postgres.psql("SELECT min(feed_position) - 1 FROM reports WHERE box = 'kiosk-x'")
        let calls = puts.withLockedValue { $0 }.drop { !$0.contains("good-1") }
        #expect(Array(calls) == ["\(head):good-1,bad,good-2", "\(first):good-1", "\(first):bad", "\(first):good-2", "\(head):"])
        #expect(relay.log.contains("bad of box kiosk-x"), "\(relay.log)")
        #expect(try relay.stop() == 0)
    }

    @Test("board.maxFleetReports: past it the farthest from the box go first, and B keeps the nearest")
    func boundedFarthestFirst() throws {
        let postgres = try PostgresServer()
        let b = try Self.box("kiosk-b", settings: [
            "board": ["staffGroup": "root", "maxFleetReports": 2],
            "location": Self.standingInWarsaw,
        ])
        let relayB = try Self.relay(b, postgres)
        try waitUntil("the central schema\n\(relayB.log)") { try postgres.psql("SELECT to_regclass('petspot_fleet_feed') IS NOT NULL") == "t" }
        // Near (Warsaw), far (Kraków), farther (Gdańsk), filed in that order.
        for (id, latitude, longitude) in [("near", "52.23", "21.01"), ("far", "50.06", "19.94"), ("farther", "54.35", "18.65")] {
            let report = JSONWriter.string(["id": .string(id), "submittedAt": "2026-11-21T10:00:00Z", "status": "missing", "version": 1,
                                            "updatedAt": "2026-11-21T10:00:00Z", "values": [
                                                "species": "cat", "race": "Tabby", "gender": "female", "disappearanceDate": "2026-11-20", "chipNumber": "616091234567890",
                                                "latitude": .number(JSONNumber(validatedLiteral: latitude)),
                                                "longitude": .number(JSONNumber(validatedLiteral: longitude)), "contactPhone": "+48601234567"]])
            try postgres.psql("INSERT INTO reports (id, box, submitted_at, report) VALUES ('\(id)', 'kiosk-x', now(), $j$\(report)$j$::jsonb)")
        }
        let connB = try b.connect()
        try Self.waitForHead(relayB, postgres)
        #expect(Set(try Self.listed(connB).keys) == ["near", "far"])
        #expect(b.log.contains("the fleet's copy is at its bounds"))
        #expect(try relayB.stop() == 0)
    }
}
