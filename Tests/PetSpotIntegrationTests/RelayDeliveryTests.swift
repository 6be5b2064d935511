import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// petspot-relay between real daemons and a real PostgreSQL: every acknowledged report ends up
/// centrally exactly once, whatever stops or dies on the way.
@Suite("Relaying reports into PostgreSQL", .serialized)
struct RelayDeliveryTests {
    static let fast: JSONObject = ["pollIntervalSeconds": .number(JSONNumber(validatedLiteral: "0.05")), "retryMaxDelaySeconds": 1]

    static func settings(batchSize: Int) -> JSONObject {
        var s = fast
        s["batchSize"] = .int(batchSize)
        return s
    }

    /// Files `count` reports (each with the test PNG) on one connection; returns their ids.
    @discardableResult
    static func file(_ count: Int, on daemon: DaemonProcess) throws -> [String] {
        let conn = try daemon.connect()
        return try (0..<count).map { _ in try fileReport(conn).submit["report"]!["id"]!.stringValue! }
    }

    /// Waits until the daemon has nothing pending, then checks that each of its reports is
    /// delivered and stored centrally exactly once, with its box, at the daemon's version and
    /// status; an erased one without its photo.
    static func expectAllDeliveredOnce(_ daemon: DaemonProcess, _ postgres: PostgresServer, box: String, relay: RelayProcess,
                                       seconds: Double = 90) throws {
        try waitUntil("the daemon's pending count to reach 0\n\(relay.log)", seconds: seconds) { try daemon.relayPending() == 0 }
        let conn = try daemon.connect()
        let ids = try allReportIDs(conn)
        let stored = try postgres.storedReports()
        let lives = try postgres.storedLives()
        for id in ids {
            let report = try conn.result("reports.get", ["reportId": .string(id)])
            #expect(report[path: "report", "delivery", "state"] == "delivered", "\(id): \(JSONWriter.string(report))")
            #expect(stored[id]?.count == 1, "\(id) stored \(stored[id]?.count ?? 0) times")
            #expect(stored[id]?.box == box)
            let life = try #require(report["report"]).lifeText
            #expect(lives[id] == life, "\(id): the daemon has \(life), PostgreSQL \(lives[id] ?? "nothing")")
        }
        #expect(try postgres.psql("SELECT count(*) - count(DISTINCT id) FROM reports") == "0")
    }

    @Test("with an hour between polls, a filed report still leaves at once: the relay wakes on relay.pending, and gives its pages back after each delivery")
    func wakesOnFiledReports() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(box: "kiosk-1").start()
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "kiosk-1",
                                     settings: ["pollIntervalSeconds": 3_600, "retryMaxDelaySeconds": 1])
        relay.arguments += ["--log-level", "debug"]
        try relay.start()
        try waitUntil("the first idle moment's release\n\(relay.log)") { relay.logLines(containing: "startup pages released") == 1 }
        // After each delivery the relay's next claim finds nothing, and it sleeps for an hour
        // unless relay.pending wakes it: rounds 2 and 3 arrive only through the watch. Each
        // time it goes idle after delivering, it releases its pages once.
        for round in 1...3 {
            let id = try Self.file(1, on: daemon)[0]
            try waitUntil("report \(round) in PostgreSQL\n\(relay.log)", seconds: 30) { try postgres.storedReports()[id]?.count == 1 }
            try waitUntil("release \(round) after delivering\n\(relay.log)") { relay.logLines(containing: "pages released after delivering") == round }
        }
        #expect(relay.logLines(containing: "startup pages released") == 1)
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "kiosk-1", relay: relay)
    }

    @Test("reports are stored under the daemon's box.name; a relay given another --box delivers nothing and says why until they agree")
    func boxFromTheDaemon() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(box: "shelter-north-1").start()
        try Self.file(2, on: daemon)
        let wrong = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "kiosk-9").start()
        try waitUntil("the relay to say the names differ\n\(wrong.log)") {
            wrong.logLines(containing: "petspotd refuses the relay") == 1 && wrong.log.contains("shelter-north-1") && wrong.log.contains("kiosk-9")
        }
        let status = try runProgram(Paths.petspotRelay, ["--status", "--socket", daemon.socketPath, "--state-file", wrong.statePath])
        #expect(status.stdout.contains("--box \"kiosk-9\": make them the same, or leave out --box"), "\(status.stdout)")
        #expect(try wrong.stop() == 0)
        #expect(try daemon.relayPending() == 2 && postgres.storedReports().isEmpty, "nothing claimed, nothing stored under a wrong name")

        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: nil).start()
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "shelter-north-1", relay: relay)
        let told = try runProgram(Paths.petspotRelay, ["--status", "--socket", daemon.socketPath, "--state-file", relay.statePath])
        #expect(told.stdout.contains("box: shelter-north-1;"), "\(told.stdout)")
    }

    @Test("a daemon restarted under another box.name: the relay asks again on its new connection, and the next report is stored under the new name")
    func boxAskedAgainAfterARestart() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(box: "kiosk-1").start()
        let first = try Self.file(1, on: daemon)[0]
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: nil).start()
        try waitUntil("the first report in PostgreSQL\n\(relay.log)") { try postgres.storedReports()[first]?.box == "kiosk-1" }

        #expect(try daemon.stop() == 0)
        try daemon.rewriteConfiguration(["box": ["name": "kiosk-2"]])
        try daemon.start()
        let second = try Self.file(1, on: daemon)[0]
        try waitUntil("the second report in PostgreSQL\n\(relay.log)", seconds: 30) { try postgres.storedReports()[second] != nil }
        #expect(try postgres.storedReports()[second]?.box == "kiosk-2", "stored under the restarted daemon's name")
        #expect(try postgres.storedReports()[first]?.box == "kiosk-1")
    }

    @Test("a whole report filed through the socket appears in PostgreSQL with its photo intact")
    func wholeReport() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(box: "kiosk-1").start()
        let id = try Self.file(1, on: daemon)[0]
        #expect(try daemon.relayPending() == 1)
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "kiosk-1").start()
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "kiosk-1", relay: relay)

        #expect(try postgres.psql("SELECT encode(sha256(photo), 'hex') || '|' || photo_media_type FROM reports WHERE id = '\(id)'")
            == "\(sha256Hex(pngBytes))|image/png")
        let given = try daemon.connect().result("reports.get", ["reportId": .string(id)])["report"]!
        let stored = try JSONParser.parse(Array(try postgres.psql("SELECT report::text FROM reports WHERE id = '\(id)'").utf8))
        #expect(stored["id"] == given["id"])
        #expect(stored["flowId"] == given["flowId"])
        #expect(stored["values"]?["species"] == given["values"]?["species"])
        #expect(stored["values"]?["chipNumber"] == given["values"]?["chipNumber"])
        #expect(try postgres.psql("SELECT submitted_at = '\(given["submittedAt"]!.stringValue!)'::timestamptz FROM reports WHERE id = '\(id)'") == "t")

        try waitUntil("the state file to show the delivery") { (try? relay.status())?.stdout.contains("last delivery (relay): 20") == true }
        let status = try relay.status()
        #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
        #expect(status.stdout.contains("pending: 0"))
        #expect(status.stdout.contains("last error: none"))
        #expect(try relay.stop() == 0)
        #expect(relay.logLines(containing: "relay stopped") == 1)
    }

    @Test("the password as systemd's credential (LoadCredential=): a role that needs one is reached; without it the relay says why; given twice or empty, it does not start")
    func passwordCredential() throws {
        let postgres = try PostgresServer()
        let password = "c2Vj/cmV0+Zm9v="
        try postgres.psql("CREATE ROLE relay LOGIN PASSWORD '\(password)'")
        try postgres.psql("GRANT CREATE ON SCHEMA public TO relay")
        // The role relay needs its password over TCP; the tests' own psql still does not.
        let hba = postgres.dataDirectory + "/pg_hba.conf"
        let rules = try String(contentsOfFile: hba, encoding: .utf8)
        try ("host all relay 127.0.0.1/32 scram-sha-256\n" + rules).write(toFile: hba, atomically: false, encoding: .utf8)
        try postgres.psql("SELECT pg_reload_conf()")
        let url = "postgres://relay@127.0.0.1:\(postgres.port)/postgres?sslmode=disable"
        let credentials = FileManager.default.temporaryDirectory.appendingPathComponent("credentials-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: credentials) }
        let credential = credentials.appendingPathComponent("postgres-password").path

        let daemon = try DaemonProcess.forRelay(box: "kiosk-1").start()
        _ = try Self.file(2, on: daemon)
        // No credential: PostgreSQL refuses the relay, which says so and delivers nothing.
        let relay = try RelayProcess(daemon: daemon, postgresURL: url, box: "kiosk-1").start()
        try waitUntil("the relay to report PostgreSQL's refusal\n\(relay.log)") { try relay.status().status == 1 }
        #expect(try daemon.relayPending() == 2)
        let refused = try relay.status().stdout
        #expect(refused.contains("asks for a password and none was given: put it in the connection string, in a password file (~/.pgpass, passfile) or in the credential postgres-password"), "\(refused)")
        try relay.stop()

        // The credential, as systemd passes it (an editor's line break at its end).
        try (password + "\n").write(toFile: credential, atomically: true, encoding: .utf8)
        relay.environment = ["CREDENTIALS_DIRECTORY": credentials.path]
        try relay.start()
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "kiosk-1", relay: relay)
        try relay.stop()
        #expect(!relay.log.contains(password))

        // A password in the connection string as well, or an empty credential: exit 78, the password unsaid.
        let twice = try runProgram(Paths.petspotRelay, ["--postgres", "postgres://relay:c2Vj%2FcmV0%2BZm9v%3D@127.0.0.1:\(postgres.port)/postgres", "--box", "a",
                                                        "--socket", daemon.socketPath],
                                   environment: ["PATH": "/usr/bin:/bin", "CREDENTIALS_DIRECTORY": credentials.path])
        #expect(twice.status == 78)
        #expect(twice.stderr.contains("the password is given twice, in the PostgreSQL connection string and in the credential postgres-password"), "\(twice.stderr)")
        #expect(!twice.stderr.contains(password) && !twice.stderr.contains("c2Vj"))
        try "".write(toFile: credential, atomically: true, encoding: .utf8)
        let empty = try runProgram(Paths.petspotRelay, ["--postgres", url, "--box", "a", "--socket", daemon.socketPath],
                                   environment: ["PATH": "/usr/bin:/bin", "CREDENTIALS_DIRECTORY": credentials.path])
        #expect(empty.status == 78)
        #expect(empty.stderr == "petspot-relay: the credential postgres-password (\(credential)) is empty\n")
    }

    @Test("PostgreSQL stopped during delivery and started again: each report once, one log line per change")
    func postgresStopped() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay().start()
        try Self.file(10, on: daemon)
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a", settings: Self.settings(batchSize: 5)).start()
        try waitUntil("the first reports stored") { try postgres.psql("SELECT count(*) FROM reports") == "10" }
        // A batch in flight when PostgreSQL stops: claimed, its write waiting on a lock.
        let holder = try postgres.lockReports()
        try Self.file(30, on: daemon)
        try postgres.waitForBlockedWrite()
        // The claim took what had been filed by then: 1 to 5 reports.
        let claimed = try daemon.relayClaimed()
        #expect((1...5).contains(claimed), "claimed \(claimed)")
        try postgres.stop()
        holder.waitUntilExit()
        try waitUntil("the relay to notice\n\(relay.log)") { relay.logLines(containing: "PostgreSQL unreachable") == 1 }
        // The lock ends with its session as PostgreSQL stops, and the batch that waited on it
        // may still commit in that moment and be acknowledged: the batch in flight, or none.
        let pending = try daemon.relayPending()
        #expect(pending == 30 || pending == 30 - claimed, "pending \(pending), claimed \(claimed)")
        let status = try relay.status()
        #expect(status.status == 1, "\(status.stdout)")
        #expect(status.stdout.contains("last error: PostgreSQL: "))
        try postgres.start()
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "a", relay: relay)
        #expect(relay.logLines(containing: "PostgreSQL unreachable") == 1, "\(relay.log)")
        // An outage is a warning (journald's priority under systemd): it mends by itself.
        #expect(relay.logLines(containing: "warning: PostgreSQL unreachable") == 1, "\(relay.log)")
        #expect(relay.logLines(containing: "PostgreSQL reachable") == 2, "\(relay.log)")
        #expect(try postgres.psql("SELECT count(*) FROM reports") == "40")
    }

    @Test("the relay SIGKILLed mid-batch and started again: each report once")
    func relayKilled() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay().start()
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a", settings: Self.settings(batchSize: 7)).start()
        // Killed between claim and commit: its write waits on a lock.
        let holder = try postgres.lockReports()
        try Self.file(30, on: daemon)
        try postgres.waitForBlockedWrite()
        // The first claim took what had been filed by then: 1 to 7 reports.
        let claimed = try daemon.relayClaimed()
        #expect((1...7).contains(claimed), "claimed \(claimed)")
        try relay.kill()
        try postgres.unlockReports(holder)
        // PostgreSQL finishes the statement of a client that is gone: the batch in flight may
        // be stored centrally, but it was never acknowledged, so the daemon still has it pending
        // and sends it again; the second copy is ignored.
        let stored = try postgres.psql("SELECT count(*) FROM reports")
        #expect(stored == "0" || stored == "\(claimed)", "stored \(stored) of \(claimed) claimed")
        #expect(try daemon.relayPending() == 30)
        // The killed relay's claims expire (claimTimeoutSeconds 5) and are handed out again.
        try relay.start()
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "a", relay: relay)
        #expect(try postgres.psql("SELECT count(*) FROM reports") == "30")
    }

    @Test("the daemon SIGKILLed mid-batch and started again: each report once")
    func daemonKilled() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay().start()
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a", settings: Self.settings(batchSize: 5)).start()
        let holder = try postgres.lockReports()
        try Self.file(20, on: daemon)
        try postgres.waitForBlockedWrite()
        // The batch commits centrally while the daemon is gone: its acknowledgement waits for
        // the daemon to come back, and the restarted daemon hands the batch out again.
        try daemon.kill()
        try postgres.unlockReports(holder)
        try waitUntil("the batch stored") { try postgres.psql("SELECT count(*) FROM reports") != "0" }
        try waitUntil("the relay to notice\n\(relay.log)") { relay.logLines(containing: "petspotd unreachable") == 1 }
        try daemon.start()
        try Self.file(3, on: daemon)
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "a", relay: relay)
        #expect(try postgres.psql("SELECT count(*) FROM reports") == "23")
        #expect(relay.logLines(containing: "petspotd unreachable") == 1, "\(relay.log)")
    }

    @Test("a batch the restarted daemon no longer knows (its database replaced) is let go; delivery goes on")
    func daemonForgotBatch() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay().start()
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a", settings: Self.settings(batchSize: 5)).start()
        let holder = try postgres.lockReports()
        try Self.file(3, on: daemon)
        try postgres.waitForBlockedWrite()
        try daemon.kill()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: daemon.databasePath + suffix) }
        try daemon.start()
        try postgres.unlockReports(holder)
        try waitUntil("the relay to let the batch go\n\(relay.log)") {
            relay.logLines(containing: "petspotd does not know a report of the batch") == 1
        }
        let fresh = try Self.file(2, on: daemon)
        try Self.expectAllDeliveredOnce(daemon, postgres, box: "a", relay: relay)
        #expect(Set(try postgres.storedReports().keys).isSuperset(of: fresh))
        #expect(relay.logLines(containing: "petspotd refuses the relay") == 0, "\(relay.log)")
    }

    @Test("two daemons, two relays, one PostgreSQL: all reports of both, each with its box")
    func twoBoxes() throws {
        let postgres = try PostgresServer()
        let daemonA = try DaemonProcess.forRelay().start()
        let daemonB = try DaemonProcess.forRelay(box: "b").start()
        let idsA = try Self.file(25, on: daemonA)
        let idsB = try Self.file(30, on: daemonB)
        let relayA = try RelayProcess(daemon: daemonA, postgresURL: postgres.url(), box: "a", settings: Self.settings(batchSize: 4)).start()
        let relayB = try RelayProcess(daemon: daemonB, postgresURL: postgres.url(), box: "b", settings: Self.settings(batchSize: 6)).start()
        try Self.expectAllDeliveredOnce(daemonA, postgres, box: "a", relay: relayA)
        try Self.expectAllDeliveredOnce(daemonB, postgres, box: "b", relay: relayB)
        #expect(try postgres.psql("SELECT box || ':' || count(*) FROM reports GROUP BY box ORDER BY box").split(separator: "\n") == ["a:25", "b:30"])
        let stored = try postgres.storedReports()
        #expect(Set(stored.keys) == Set(idsA + idsB))
    }

    @Test("TLS with the wrong CA: a clear error, nothing claimed or marked delivered")
    func tlsWrongCA() throws {
        let postgres = try PostgresServer(tls: true)
        let tls = try #require(postgres.tls)
        let daemon = try DaemonProcess.forRelay().start()
        try Self.file(3, on: daemon)
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(sslMode: "verify-full", rootCert: tls.otherCACertificate), box: "a").start()
        try waitUntil("the TLS refusal in the log\n\(relay.log)") { relay.logLines(containing: "PostgreSQL TLS refused") == 1 }
        #expect(relay.log.contains("did not verify against sslrootcert \(tls.otherCACertificate)"))
        let status = try daemon.connect().result("relay.status")
        #expect(status["pending"] == 3)
        #expect(status["claimed"] == 0)
        #expect(status["delivered"] == 0)
        let printed = try relay.status()
        #expect(printed.status == 1, "\(printed.stdout)")
        #expect(printed.stdout.contains("TLS refused"))
        #expect(try postgres.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'reports'") == "0")
        #expect(relay.logLines(containing: "PostgreSQL TLS refused") == 1)
        // A refusal is an error: it needs someone to act.
        #expect(relay.logLines(containing: "error: PostgreSQL TLS refused") == 1, "\(relay.log)")
        #expect(try relay.stop() == 0)
    }
}
