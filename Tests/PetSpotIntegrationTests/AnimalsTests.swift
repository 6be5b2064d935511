import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotTestSupport
import Testing

/// The animal list over a real socket, for the reports' owner (root), another user of the box
/// (the public: `nobody`) and a member of the staff group (`nobody` in the group `daemon`):
/// what each sees, the order, the radius, the cursor, leaving the list, the chip lookup, the
/// photo without metadata, the watch, and every refusal.
@Suite("The animal list", .serialized)
struct AnimalsTests {
    static let staffGroup = "daemon"

    /// A PNG of one pixel with a text chunk that says where the phone was and its serial.
    static let photoWithMetadata = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAANXRFWHRDb21tZW50AEdQUyA1Mi4xMDAwMCwyMS4wMDAwMCBjYW1lcmEgc2VyaWFsIENBTS0zMTMzNxQhIN8AAAANSURBVHjaY2T4z1APAAOGAYBaNH1rAAAAAElFTkSuQmCC"
    static let photoWithoutMetadata = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

    /// Another user of the box, through `petspot call`.
    struct Caller {
        let daemon: DaemonProcess
        let identity: [String]

        static func publicUser(_ daemon: DaemonProcess) -> Caller {
            Caller(daemon: daemon, identity: ["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        }

        static func staff(_ daemon: DaemonProcess) throws -> Caller {
            let gid = try #require(getgrnam(AnimalsTests.staffGroup).map { $0.pointee.gr_gid })
            return Caller(daemon: daemon, identity: ["--reuid", "65534", "--regid", "65534", "--groups", "\(gid)"])
        }

        func call(_ method: String, _ params: JSONObject = [:]) throws -> (ok: Bool, value: JSONValue) {
            let run = try runProgram("/usr/bin/setpriv", identity + [Paths.petspot, "call", "--socket", daemon.socketPath, method,
                                                                   JSONWriter.string(.object(params))])
            guard run.status == 0 || run.status == 1 else { throw TimedOut(description: "petspot call \(method): \(run)") }
            return (run.status == 0, try JSONParser.parse(run.stdout))
        }

        func result(_ method: String, _ params: JSONObject = [:]) throws -> JSONValue {
            let (ok, value) = try call(method, params)
            guard ok else { throw TimedOut(description: "\(method) failed: \(JSONWriter.string(value))") }
            return value
        }
    }

    static func daemon(_ more: [String] = []) throws -> DaemonProcess {
        try DaemonProcess(arguments: ["--staff-group", staffGroup, "--box-name", "kiosk-7"] + more).start()
    }

    /// A report filed by the connection's user; its id.
    @discardableResult
    static func file(_ conn: PetSpotConnection, latitude: String?, longitude: String?, species: String = "dog", race: String = "Beagle",
                     chip: String = "616 09 1234 5678 9", photo: String? = nil, email: String = "owner@example.org") throws -> String {
        let flowID = try prepareReport(conn, chip: chip)
        let flow = JSONValue.string(flowID)
        for _ in 0..<2 { _ = try conn.result("flow.back", ["flowId": flow]) }
        _ = try conn.result("flow.update", ["flowId": flow, "values": [
            "species": .string(species), "race": .string(race),
            "latitude": latitude.map(JSONValue.string) ?? .null, "longitude": longitude.map(JSONValue.string) ?? .null,
        ]])
        if let photo {
            _ = try conn.result("flow.back", ["flowId": flow])
            _ = try conn.result("flow.update", ["flowId": flow, "values": ["photo": ["data": .string(photo)]]])
            try expectAccepted(conn.result("flow.continue", ["flowId": flow]))
        }
        try expectAccepted(conn.result("flow.continue", ["flowId": flow]))
        _ = try conn.result("flow.update", ["flowId": flow, "values": ["contactEmail": .string(email)]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flow]))
        return try #require(conn.result("flow.submit", ["flowId": flow])[path: "report", "id"]?.stringValue)
    }

    static func ids(_ result: JSONValue) -> [String] {
        result["animals"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test("the public sees no chip, 3 decimals, a masked contact and a photo without metadata; staff and the owner's staff see it whole",
          .enabled(if: getuid() == 0 && getgrnam(staffGroup) != nil, "needs root and the group daemon to call as other users"))
    func whoSeesWhat() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let id = try Self.file(conn, latitude: "52.2296756", longitude: "21.0122287", photo: Self.photoWithMetadata, email: "jan.kowalski@example.pl")
        let near: JSONObject = ["near": ["latitude": .number(JSONNumber(validatedLiteral: "52.2297")), "longitude": .number(JSONNumber(validatedLiteral: "21.0122"))]]

        let listed = try Caller.publicUser(daemon).result("animals.list", near)
        let seen = try #require(listed["animals"]?.arrayValue?.first)
        #expect(seen["id"] == .string(id) && seen["box"] == "kiosk-7" && seen["status"] == "missing")
        #expect(seen["chipNumber"] == .null)
        #expect(seen[path: "lastSeen", "latitude"] == .number(JSONNumber(validatedLiteral: "52.230")))
        #expect(seen[path: "lastSeen", "longitude"] == .number(JSONNumber(validatedLiteral: "21.012")))
        #expect(seen["distanceKm"] == .number(JSONNumber(validatedLiteral: "0.036")), "measured from the rounded position")
        #expect(seen[path: "contact", "email"] == "j•••@example.pl")
        #expect(seen[path: "contact", "phone"] == "+••••••••789")
        #expect(seen[path: "photo", "bytes"] == 70)
        let photo = try Caller.publicUser(daemon).result("animals.photo", ["animalId": .string(id)])
        #expect(photo["data"] == .string(Self.photoWithoutMetadata), "the public's photo kept its metadata")
        let encoded = try #require(photo["data"]?.stringValue)
        let served = try #require(Data(base64Encoded: encoded))
        #expect(!String(decoding: served, as: UTF8.self).contains("CAM-31337"))

        let staffView = try Caller.staff(daemon).result("animals.get", ["animalId": .string(id)])
        let whole = try #require(staffView["animal"])
        #expect(whole["chipNumber"] == "61609123456789")
        #expect(whole[path: "lastSeen", "latitude"] == .number(JSONNumber(validatedLiteral: "52.22968")))
        #expect(whole[path: "contact", "email"] == "jan.kowalski@example.pl" && whole[path: "contact", "phone"] == "+48123456789")
        #expect(whole[path: "photo", "bytes"] == 135)
        #expect(try Caller.staff(daemon).result("animals.photo", ["animalId": .string(id)])["data"] == .string(Self.photoWithMetadata))
        // The owner is no one special on the list: root is not in the staff group here.
        #expect(try conn.result("animals.get", ["animalId": .string(id)])[path: "animal", "chipNumber"] == .null)
    }

    @Test("nearest first from near, then those without a position; a radius leaves those out; species filters; without near, newest first from the box")
    func order() throws {
        let daemon = try Self.daemon(["--location-providers", "static", "--static-position", "52.40000,16.90000"])
        let conn = try daemon.connect()
        let far = try Self.file(conn, latitude: "52.40000", longitude: "16.93000")       // Poznań, 2 km from the box
        let near = try Self.file(conn, latitude: "52.23000", longitude: "21.01300")      // Warsaw
        let nowhere = try Self.file(conn, latitude: nil, longitude: nil)
        let cat = try Self.file(conn, latitude: "52.23100", longitude: "21.01400", species: "cat", race: "Persian")
        let warsaw: JSONObject = ["latitude": .number(JSONNumber(validatedLiteral: "52.2297")), "longitude": .number(JSONNumber(validatedLiteral: "21.0122"))]

        let listed = try conn.result("animals.list", ["near": .object(warsaw)])
        #expect(Self.ids(listed) == [near, cat, far, nowhere])
        #expect(listed[path: "near", "latitude"] == .number(JSONNumber(validatedLiteral: "52.22970"))
                && listed[path: "near", "longitude"] == .number(JSONNumber(validatedLiteral: "21.01220")), "near as used: 5 decimals")
        let distances = listed["animals"]?.arrayValue?.map { $0["distanceKm"] } ?? []
        #expect(distances.last == .null && distances.first != .null)
        #expect(Self.ids(try conn.result("animals.list", ["near": .object(warsaw), "radiusKm": 5])) == [near, cat])
        #expect(Self.ids(try conn.result("animals.list", ["near": .object(warsaw), "species": "cat"])) == [cat])
        // No near: from the box's own (static) position in Poznań.
        let fromBox = try conn.result("animals.list")
        #expect(Self.ids(fromBox).first == far)
        #expect(fromBox["near"] == ["latitude": .number(JSONNumber(validatedLiteral: "52.40000")), "longitude": .number(JSONNumber(validatedLiteral: "16.90000"))])

        // A box that does not know where it is: newest first, near null.
        let unplaced = try Self.daemon(["--location-providers", "simulated", "--simulated-mode", "no-fix"])
        let other = try unplaced.connect()
        let first = try Self.file(other, latitude: "52.1", longitude: "21.1")
        let second = try Self.file(other, latitude: nil, longitude: nil)
        let newest = try other.result("animals.list")
        #expect(Self.ids(newest).sorted() == [first, second].sorted() && newest["near"] == .null)
        #expect(try other.failure("animals.list", ["radiusKm": 5]).parameter == "radiusKm")
    }

    @Test("a cursor pages through the list without skipping or repeating what stays, while reports come and leave; it pins its params")
    func cursor() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        var filed: [String] = []
        for n in 0..<7 { filed.append(try Self.file(conn, latitude: "52.2\(n)", longitude: "21.0")) }
        let near: JSONObject = ["latitude": .number(JSONNumber(validatedLiteral: "52.2")), "longitude": .number(JSONNumber(validatedLiteral: "21.0"))]
        let first = try conn.result("animals.list", ["near": .object(near), "limit": 3])
        #expect(Self.ids(first) == Array(filed.prefix(3)))
        let cursor = try #require(first["cursor"])
        // Between pages: one listed later is found, a nearer one comes.
        _ = try conn.result("reports.close", ["reportId": .string(filed[4]), "outcome": "found"])
        _ = try Self.file(conn, latitude: "52.20", longitude: "21.0")
        var seen = Self.ids(first)
        var next = cursor
        while next != .null {
            let page = try conn.result("animals.list", ["near": .object(near), "limit": 3, "cursor": next])
            seen += Self.ids(page)
            next = page["cursor"] ?? .null
        }
        #expect(seen == filed.prefix(4) + filed.suffix(2))
        let changed = try conn.failure("animals.list", ["near": ["latitude": .number(JSONNumber(validatedLiteral: "50.0")), "longitude": .number(JSONNumber(validatedLiteral: "20.0"))], "cursor": cursor])
        #expect(changed.kind == .invalidParams && changed.parameter == "cursor", "\(changed.message)")
    }

    @Test("a photo stored before the board had public copies: the public sees none, then, once the next start has cleaned it, the clean copy")
    func photoOfAnEarlierRelease() throws {
        let daemon = try Self.daemon()
        let id = try Self.file(try daemon.connect(), latitude: "52.22968", longitude: "21.01223", photo: Self.photoWithMetadata)
        try daemon.stop()
        // As the upgrade from the release before the board leaves it: the photo's public copy not yet described.
        try runProgram("/usr/bin/sqlite3", [daemon.databasePath, """
            UPDATE board SET public_photo = 'undescribed', public_photo_media_type = NULL, public_photo_bytes = NULL, public_photo_sha256 = NULL
            WHERE report_seq = (SELECT seq FROM report WHERE id = '\(id)');
            """])
        #expect(try runProgram("/usr/bin/sqlite3", [daemon.databasePath, "SELECT count(*) FROM board WHERE public_photo = 'undescribed';"]).stdout == "1\n")

        try daemon.start()
        let conn = try daemon.connect()
        try waitUntil("the public to see the photo's clean copy") {
            try conn.result("animals.get", ["animalId": .string(id)])[path: "animal", "photo", "bytes"] == 70
        }
        #expect(try conn.result("animals.photo", ["animalId": .string(id)])["data"] == .string(Self.photoWithoutMetadata))
        #expect(try runProgram("/usr/bin/sqlite3", [daemon.databasePath, "SELECT count(*) FROM board WHERE public_photo = 'undescribed';"]).stdout == "0\n")
    }

    @Test("a report leaves the list when it is found, withdrawn, expired or erased, and its id then answers animalNotFound")
    func leaving() throws {
        let days = JSONValue.number(JSONNumber(validatedLiteral: "0.00003"))
        let daemon = try DaemonProcess(settings: ["reports": ["expireAfterDays": days]], arguments: ["--box-name", "kiosk-7"]).start()
        let conn = try daemon.connect()
        let found = try Self.file(conn, latitude: "52.1", longitude: "21.0")
        let withdrawn = try Self.file(conn, latitude: "52.1", longitude: "21.0")
        let erased = try Self.file(conn, latitude: "52.1", longitude: "21.0")
        _ = try conn.result("reports.close", ["reportId": .string(found), "outcome": "found"])
        _ = try conn.result("reports.close", ["reportId": .string(withdrawn), "outcome": "withdrawn"])
        _ = try conn.result("reports.erase", ["reportId": .string(erased)])
        for id in [found, withdrawn, erased] {
            #expect(try conn.failure("animals.get", ["animalId": .string(id)]).kind == .animalNotFound)
            #expect(try conn.failure("animals.photo", ["animalId": .string(id)]).kind == .animalNotFound)
        }
        let expiring = try Self.file(conn, latitude: "52.1", longitude: "21.0")
        try waitUntil("the report to expire and leave the list", seconds: 30) {
            try conn.call("animals.get", ["animalId": .string(expiring)]).isFailure
        }
        #expect(Self.ids(try conn.result("animals.list")).isEmpty)
    }

    @Test("a chip number in any formatting finds its missing animals; none is an empty list; no digits at all is refused")
    func lookup() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        let id = try Self.file(conn, latitude: nil, longitude: nil, chip: "616091234567890")
        for written in ["616091234567890", "616-0912-3456-7890", "616 09 1234 5678 90", "６１６０９１２３４５６７８９０"] {
            #expect(Self.ids(try conn.result("animals.lookup", ["chipNumber": .string(written)])) == [id], "\(written)")
        }
        #expect(Self.ids(try conn.result("animals.lookup", ["chipNumber": "900000000000001"])).isEmpty)
        let refused = try conn.failure("animals.lookup", ["chipNumber": "abc"])
        #expect(refused.kind == .invalidParams && refused.parameter == "chipNumber")
    }

    @Test("bad input: a latitude of 200, a negative radius, an unknown species, a malformed cursor, an unknown animal, an unknown param")
    func refusals() throws {
        let daemon = try Self.daemon()
        let conn = try daemon.connect()
        for (params, parameter) in [
            (["near": ["latitude": 200, "longitude": 21]], "near.latitude"),
            (["near": ["latitude": 52]], "near.longitude"),
            (["near": ["latitude": 52, "longitude": 21, "altitude": 3]], "near.altitude"),
            (["near": ["latitude": 52, "longitude": 21], "radiusKm": -1], "radiusKm"),
            (["species": "unicorn"], "species"),
            (["cursor": "not a cursor"], "cursor"),
            (["limit": 0], "limit"),
            (["colour": "brown"], "colour"),
        ] as [(JSONObject, String)] {
            let error = try conn.failure("animals.list", params)
            #expect(error.kind == .invalidParams && error.parameter == parameter, "\(params): \(error)")
        }
        let unknown = try conn.failure("animals.get", ["animalId": "no-such-animal"])
        #expect(unknown.kind == .animalNotFound && unknown.parameter == "animalId")
    }

    @Test("animals.watch: the list now, then added on a submit, updated on an amendment, removed on a close and when a move leaves its radius")
    func watch() throws {
        let daemon = try Self.daemon()
        let (conn, watcher) = (try daemon.connect(), try daemon.connect())
        let before = try Self.file(conn, latitude: "52.2300", longitude: "21.0100")
        let watch = try watcher.result("animals.watch", ["near": ["latitude": .number(JSONNumber(validatedLiteral: "52.23")), "longitude": .number(JSONNumber(validatedLiteral: "21.01"))], "radiusKm": 10])
        #expect(Self.ids(watch) == [before])
        func next() throws -> AnimalsChanged.Params {
            let next = try watcher.nextNotification(timeout: .seconds(20))
            let notification = try #require(next)
            let change = try notification.reading(AnimalsChanged.self)
            return try #require(change)
        }
        let added = try Self.file(conn, latitude: "52.2400", longitude: "21.0200")
        let first = try next()
        #expect(first.change == .added && first.animal?.id == added && first.animal?.chipNumber == nil)
        _ = try conn.result("reports.amend", ["reportId": .string(added), "values": ["race": "Basset"]])
        let amended = try next()
        #expect(amended.change == .updated && amended.animal?.race == "Basset")
        _ = try conn.result("reports.amend", ["reportId": .string(added), "values": ["latitude": .number(JSONNumber(validatedLiteral: "54.35")), "longitude": .number(JSONNumber(validatedLiteral: "18.65"))]])
        let moved = try next()
        #expect(moved.change == .removed && moved.animal?.id == added)
        _ = try conn.result("reports.close", ["reportId": .string(before), "outcome": "found"])
        let closed = try next()
        #expect(closed.change == .removed && closed.animal?.status == .found)
        // Outside the radius from the start: no news.
        _ = try Self.file(conn, latitude: "50.0", longitude: "19.9")
        #expect(try watcher.result("daemon.info")["name"] == "petspotd")
        #expect(try watcher.notificationIfReady() == nil)
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
