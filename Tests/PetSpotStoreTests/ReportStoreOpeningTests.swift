import Foundation
import PetSpotSQLite
import Testing
@testable import PetSpotStore

@Suite("Opening and closing the report database")
struct ReportStoreOpeningTests {
    @Test("creates missing parent directories and the file, owner-only")
    func createsParentDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let parent = directory.appendingPathComponent("var/lib/petspotd", isDirectory: true)
            let path = parent.appendingPathComponent("reports.sqlite").path
            try await withStore(path: path) { store async throws in
                #expect(FileManager.default.fileExists(atPath: path))
                #expect(try permissions(of: parent.path) == 0o700)
                #expect(try permissions(of: path) == 0o600)
                #expect(try await store.count() == 0)
            }
        }
    }

    @Test("reports survive close and reopen")
    func dataSurvivesReopen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let store = try await ReportStore(path: path, now: storeNow, box: testBox)
            let first = try await store.submit(sampleReport(1, photo: samplePhoto)).report
            let second = try await store.submit(sampleReport(2)).report
            try await store.close()

            try await withStore(path: path) { reopened async throws in
                #expect(try await reopened.count() == 2)
                #expect(try await reopened.get(id: first.id, ownerUID: 1000) == first)
                #expect(try await reopened.get(id: second.id, ownerUID: 1000) == second)
                #expect(try await reopened.photo(reportID: first.id, ownerUID: 1000) == samplePhoto)
                #expect(try await reopened.list(ownerUID: 1000, limit: 10, cursor: nil).reports == [second, first])
                // Insertion order continues after a reopen.
                let third = try await reopened.submit(sampleReport(3)).report
                #expect(try await reopened.list(ownerUID: 1000, limit: 1, cursor: nil).reports == [third])
            }
        }
    }

    @Test("the writer connection is in WAL mode with synchronous=FULL, so a returned commit survives a crash, and waits for other writers")
    func commitsAreDurable() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            for round in 0..<2 {  // new file, then existing file
                let store = try await ReportStore(path: path, now: storeNow, box: testBox)
                let settings = try await store.durabilitySettings()
                #expect(settings.journalMode == "wal")
                #expect(settings.synchronous == 2)  // FULL
                // The WAL folded in at opening and after an erasure waits for no one; what
                // follows waits again, however often it ran.
                #expect(settings.busyTimeoutMilliseconds == ReportStore.busyTimeoutMilliseconds)
                let report = try await store.submit(sampleReport(1 + round)).report
                _ = try await store.erase(id: report.id, ownerUID: report.ownerUID, now: storeNow)
                #expect(try await store.durabilitySettings().busyTimeoutMilliseconds == ReportStore.busyTimeoutMilliseconds)
                try await store.close()
            }
        }
    }

    @Test("an opening whose caller is cancelled part-way leaves no connection open behind it")
    func cancelledOpening() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            // Each opening is cancelled a little later than the one before, so the cancellations
            // land before, during and after its statements.
            for attempt in 0..<100 {
                let opening = Task { try await ReportStore(path: path, now: storeNow, box: testBox) }
                for _ in 0..<(attempt * 20) { await Task.yield() }
                opening.cancel()
                do {
                    let store = try await opening.value
                    _ = try await store.submit(sampleReport(attempt))
                    try await store.close()
                } catch let error as ReportStoreError {
                    #expect(error.kind == .cancelled, "\(error)")
                }
            }
            // A connection left open keeps the WAL file: the last one to close removes it.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test("close checkpoints the WAL, is idempotent, and later calls fail with .closed")
    func closeIsClean() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let store = try await ReportStore(path: path, now: storeNow, box: testBox)
            _ = try await store.submit(sampleReport(1, photo: samplePhoto))
            try await store.close()
            try await store.close()

            let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? NSNumber)?.intValue ?? 0
            #expect(walSize == 0)
            let submitError = await #expect(throws: ReportStoreError.self) {
                try await store.submit(sampleReport(2))
            }
            #expect(submitError?.kind == .closed)
            let listError = await #expect(throws: ReportStoreError.self) {
                try await store.list(ownerUID: 1000, limit: 1, cursor: nil)
            }
            #expect(listError?.kind == .closed)
        }
    }

    @Test("close says so when another connection keeps the WAL checkpoint from finishing, and loses nothing")
    func closeReportsBusyCheckpoint() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let store = try await ReportStore(path: path, now: storeNow, box: testBox)
            _ = try await store.submit(sampleReport(1))
            // A reader holding its snapshot, as a backup does (the checkpoint waits out the busy timeout).
            let error = try await withPlainConnection(path: path) { reader in
                _ = try reader.rows("BEGIN")
                _ = try reader.rows("SELECT COUNT(*) FROM report")
                let error = await #expect(throws: ReportStoreError.self) { try await store.close() }
                _ = try reader.rows("COMMIT")
                return error
            }
            #expect(error?.kind == .io)
            #expect(error?.message.contains("WAL checkpoint") == true)
            try await withStore(path: path) { reopened async throws in
                #expect(try await reopened.get(id: "report-1", ownerUID: 1000) != nil)
            }
        }
    }

    @Test("a file that is not a database is refused with a clear error and left unchanged")
    func refusesNonDatabaseFile() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let content = Data(String(repeating: "these are my notes, not a database\n", count: 100).utf8)
            try content.write(to: URL(fileURLWithPath: path))

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .notADatabase)
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("not a petspotd database") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == content)
        }
    }

    @Test("an empty file this start did not create is refused and left as it is, not started over")
    func refusesEmptyFile() async throws {
        try await withTemporaryDirectory { directory async throws in
            let path = directory.appendingPathComponent("reports.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]))

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            // A petspotd file cut to nothing: damage, for the operator to restore.
            #expect(error?.kind == .damaged)
            #expect(error?.description.contains(path) == true)
            #expect(error?.message.contains("the file is empty") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test("another application's SQLite database is refused and not modified")
    func refusesForeignDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("contacts.sqlite").path
            try await withPlainConnection(path: path) { foreign in
                _ = try foreign.rows("CREATE TABLE contact (name TEXT)")
                _ = try foreign.rows("INSERT INTO contact VALUES ('Alice')")
            }

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .notADatabase)
            #expect(error?.description.contains(path) == true)

            let state = try await withPlainConnection(path: path) { check in
                (tables: try check.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                    .map { $0.column("name")?.string },
                 journalMode: try check.rows("PRAGMA journal_mode").first?.column("journal_mode")?.string)
            }
            #expect(state.tables == ["contact"])
            #expect(state.journalMode == "delete")
        }
    }

    @Test("a database marked by another application is refused")
    func refusesOtherApplicationID() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("other.sqlite").path
            try await withPlainConnection(path: path) { foreign in
                _ = try foreign.rows("PRAGMA application_id = 42")
            }

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .notADatabase)
        }
    }

    @Test("a database migrated by a newer petspotd is refused and left as it is")
    func refusesNewerSchema() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await withStore(path: path) { store async throws in
                _ = try await store.submit(sampleReport(1))
            }

            try await withPlainConnection(path: path) { newer in
                _ = try newer.rows("INSERT INTO grdb_migrations (identifier) VALUES ('v2-from-the-future')")
            }

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .schemaTooNew)
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("v2-from-the-future") == true)

            let count = try await withPlainConnection(path: path) { check in
                try check.rows("SELECT COUNT(*) AS count FROM report").first?.column("count")?.integer
            }
            #expect(count == 1)
        }
    }

    @Test("a path whose parent cannot be created fails with .open")
    func reportsUncreatableDirectory() async throws {
        try await withTemporaryDirectory { directory in
            let blocker = directory.appendingPathComponent("a-file")
            try Data("x".utf8).write(to: blocker)
            let path = blocker.appendingPathComponent("reports.sqlite").path

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .open)
            #expect(error?.description.contains(path) == true)
            #expect(error?.description.contains("File exists") == true)
            #expect(error?.description.contains("\n") == false)
        }
    }
}
