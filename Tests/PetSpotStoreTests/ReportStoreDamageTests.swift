import Foundation
import Testing
@testable import PetSpotStore

/// A damaged database file, on a real SQLite file: refused, never written.
@Suite("A damaged database file")
struct ReportStoreDamageTests {
    /// A file of `count` reports with photos, closed cleanly (everything in the main file).
    static func makeFile(_ path: String, count: Int) async throws {
        let photo = StoredPhoto(mediaType: "image/png", sha256: String(repeating: "ab", count: 32),
                                data: [UInt8](repeating: 0x42, count: 20_000))
        try await withStore(path: path) { store in
            for number in 0..<count { _ = try await store.submit(sampleReport(number, photo: photo)) }
        }
    }

    /// Overwrites the file's page `page` (1-based, 4096 bytes) with a pattern no b-tree page has,
    /// as a copy torn by a write or a bad sector leaves it.
    static func damagePage(_ path: String, page: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * 4096))
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// A page (1-based) past the middle of the file that holds nothing but a photo's bytes (an
    /// overflow page of `makeFile`'s photos, 0x42 after its 4-byte link): what reading that
    /// photo goes through, whatever else the file holds.
    static func photoPage(_ path: String) throws -> Int {
        let contents = try bytes(path)
        let count = contents.count / 4096
        let photoBytes = Data(repeating: 0x42, count: 4092)
        for page in (count / 2)...count where contents[((page - 1) * 4096 + 4)..<(page * 4096)] == photoBytes {
            return page
        }
        throw NoPhotoPage(path: path)
    }

    struct NoPhotoPage: Error, CustomStringConvertible {
        let path: String
        var description: String { "no page past the middle of \(path) holds only photo bytes" }
    }

    static func pages(_ path: String) throws -> Int {
        Int(try FileManager.default.attributesOfItem(atPath: path)[.size] as! UInt64) / 4096
    }

    @Test("a damaged file is refused at opening, named, with what to do, and left byte for byte")
    func refusedAtOpening() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await Self.makeFile(path, count: 40)
            try Self.damagePage(path, page: try Self.pages(path) / 2)
            let before = try Self.bytes(path)

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .damaged)
            #expect(error?.description.hasPrefix("report database \(path): the database file is damaged (") == true, "\(String(describing: error))")
            #expect(error?.message.contains("sqlite3's .recover") == true)
            #expect(try Self.bytes(path) == before)
        }
    }

    @Test("a damaged file with the WAL a crash left is refused at opening, and neither the file nor its WAL is written")
    func refusedAtOpeningWithWAL() async throws {
        try await withTemporaryDirectory { directory in
            let made = directory.appendingPathComponent("made.sqlite").path
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await Self.makeFile(made, count: 40)
            // A writer that stops with its last commit in the WAL only: the copy taken while it
            // still holds the file open is what a crash leaves behind.
            try await withPlainConnection(path: made) { db in
                try db.execute("PRAGMA wal_autocheckpoint = 0")
                try db.execute("CREATE TABLE crash_marker (x INTEGER)")
                try db.execute("INSERT INTO crash_marker VALUES (1)")
                try FileManager.default.copyItem(atPath: made, toPath: path)
                try FileManager.default.copyItem(atPath: made + "-wal", toPath: path + "-wal")
            }
            try Self.damagePage(path, page: try Self.pages(path) / 2)
            let before = try Self.bytes(path)
            let walBefore = try Self.bytes(path + "-wal")
            #expect(!walBefore.isEmpty)

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .damaged)
            #expect(try Self.bytes(path) == before)
            #expect(try Self.bytes(path + "-wal") == walBefore)
        }
    }

    @Test("a file over checkAtOpenMaxBytes opens, and the deferred check finds the damage; the store then refuses everything, says so once, and leaves the file as it was",
          arguments: [false, true])
    func deferredCheck(fileIsAtLimit: Bool) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await Self.makeFile(path, count: 40)
            try Self.damagePage(path, page: try Self.pages(path) / 2)
            let before = try Self.bytes(path)
            let size = Int64(before.count)
            // The edge: a file of exactly the limit is checked at opening, one byte more is not.
            let limit = fileIsAtLimit ? size : size - 1
            if fileIsAtLimit {
                let error = await #expect(throws: ReportStoreError.self) { _ = try await ReportStore(path: path, now: storeNow, box: testBox, checkAtOpenMaxBytes: limit) }
                #expect(error?.kind == .damaged)
                #expect(try Self.bytes(path) == before)
                return
            }
            let store = try await ReportStore(path: path, now: storeNow, box: testBox, checkAtOpenMaxBytes: limit)
            #expect(store.hasDeferredCheck)
            let error = await #expect(throws: ReportStoreError.self) { try await store.checkDeferred() }
            #expect(error?.kind == .damaged)
            var found = store.damageFound.makeAsyncIterator()
            #expect(await found.next()?.kind == .damaged)
            let read = await #expect(throws: ReportStoreError.self) { try await store.count() }
            #expect(read?.kind == .damaged)
            let submit = await #expect(throws: ReportStoreError.self) { try await store.submit(sampleReport(99)) }
            #expect(submit?.kind == .damaged)
            try await store.close()
            #expect(try Self.bytes(path) == before)
        }
    }

    @Test("damage SQLite reports during an operation: that call and every later one fail as damaged, the store says so, and its close writes nothing into the file")
    func damageFoundLater() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await Self.makeFile(path, count: 40)
            let store = try await ReportStore(path: path, now: storeNow, box: testBox)
            // A report in the WAL only, which a close would fold into the damaged file.
            _ = try await store.submit(sampleReport(100))
            try Self.damagePage(path, page: try Self.photoPage(path))
            // The pages SQLite holds in memory are dropped, so the next read goes to the file.
            try await store.execute("PRAGMA shrink_memory")
            let before = try Self.bytes(path)
            let walBefore = try Self.bytes(path + "-wal")

            var failure: ReportStoreError?
            do {
                for number in 0..<40 { _ = try await store.photo(reportID: sampleReport(number).id, ownerUID: 1000) }
            } catch let error as ReportStoreError {
                failure = error
            }
            try #require(failure?.kind == .damaged, "\(String(describing: failure))")
            var found = store.damageFound.makeAsyncIterator()
            #expect(await found.next()?.kind == .damaged)
            let later = await #expect(throws: ReportStoreError.self) { try await store.submit(sampleReport(101)) }
            #expect(later?.kind == .damaged)
            try await store.close()
            #expect(try Self.bytes(path) == before)
            #expect(try Self.bytes(path + "-wal") == walBefore)
        }
    }
}
