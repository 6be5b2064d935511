import Foundation
import Testing
@testable import PetSpotStore

/// The database files changed under an open store, on a real SQLite file.
@Suite("A database file changed under the store")
struct ReportStoreFileLostTests {
    enum Change: String, CaseIterable, Sendable {
        case deleteAll, deleteFile, deleteWAL, replace, truncate, overwriteHeader
    }

    static func apply(_ change: Change, to path: String, directory: URL) async throws {
        let files = FileManager.default
        switch change {
        case .deleteAll:
            for suffix in ["", "-wal", "-shm"] { try files.removeItem(atPath: path + suffix) }
        case .deleteFile:
            try files.removeItem(atPath: path)
        case .deleteWAL:
            try files.removeItem(atPath: path + "-wal")
        case .replace:
            // Another valid petspotd database, moved over this one as a restore would.
            let other = directory.appendingPathComponent("other.sqlite").path
            let store = try await ReportStore(path: other, now: storeNow, box: testBox)
            try await store.close()
            #expect(rename(other, path) == 0)
        case .truncate:
            #expect(truncate(path, 0) == 0)
        case .overwriteHeader:
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(contentsOf: Data(repeating: 0, count: 100))
            try handle.close()
        }
    }

    @Test("after the change no submit succeeds, reads fail too, and the error names no path to clients", arguments: Change.allCases)
    func submitRefused(_ change: Change) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await withStore(path: path) { store async throws in
                _ = try await store.submit(sampleReport(1))
                try await Self.apply(change, to: path, directory: directory)

                let error = await #expect(throws: ReportStoreError.self) { try await store.submit(sampleReport(2)) }
                #expect(error?.kind == .fileLost)
                #expect(error?.message.contains("/") == false)
                #expect(error?.description.contains(path) == true)
                // It stays lost: a read and a retry fail the same way.
                let read = await #expect(throws: ReportStoreError.self) { try await store.count() }
                #expect(read?.kind == .fileLost)
                let retry = await #expect(throws: ReportStoreError.self) { try await store.submit(sampleReport(2)) }
                #expect(retry?.kind == .fileLost)
            }
        }
    }

    @Test("a file truncated to nothing under the store is refused at the next opening, not started over")
    func truncatedFileRefusedAtReopen() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await withStore(path: path) { store in _ = try await store.submit(sampleReport(1)) }
            try await withStore(path: path) { store async throws in
                #expect(try await store.count() == 1)
                try await Self.apply(.truncate, to: path, directory: directory)
                let error = await #expect(throws: ReportStoreError.self) { try await store.submit(sampleReport(2)) }
                #expect(error?.kind == .fileLost)
            }

            let error = await #expect(throws: ReportStoreError.self) { try await openAndClose(path: path) }
            #expect(error?.kind == .damaged)
            #expect(error?.message.contains("malformed") == true)
        }
    }

    @Test("closing a store whose file left its path saves that file, WAL included, beside the path and names it; nothing of it stays to be replayed into the file now there",
          arguments: [Change.deleteAll, .deleteFile, .replace])
    func closeSavesTheFileThatLeft(_ change: Change) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let store = try await ReportStore(path: path, now: storeNow, box: testBox)
            let acknowledged = [try await store.submit(sampleReport(1, photo: samplePhoto)).report,
                                try await store.submit(sampleReport(2)).report]
            var info = stat()
            #expect(stat(path, &info) == 0)
            try await Self.apply(change, to: path, directory: directory)

            let error = await #expect(throws: ReportStoreError.self) { try await store.close() }
            let saved = ReportStore.savedCopyPath(of: path, inode: UInt64(info.st_ino))
            #expect(error?.kind == .fileLost)
            #expect(error?.message.contains("every report it held is saved in \(saved);") == true, "\(String(describing: error))")
            #expect(try permissions(of: saved) == 0o600)
            try await withStore(path: saved) { copy async throws in
                #expect(try await copy.list(ownerUID: 1000, limit: 10, cursor: nil).reports == acknowledged.reversed())
                #expect(try await copy.photo(reportID: acknowledged[0].id, ownerUID: 1000) == samplePhoto)
            }
            // The old WAL was folded into the file that left and removed: none waits beside the path.
            #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        }
    }

    @Test("a -wal file deleted under the store: the file is still at its path, and the close folds every report into it")
    func closeAfterWALDeletedKeepsEverything() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let store = try await ReportStore(path: path, now: storeNow, box: testBox)
            let acknowledged = try await store.submit(sampleReport(1)).report
            try await Self.apply(.deleteWAL, to: path, directory: directory)
            try await store.close()
            try await withStore(path: path) { reopened async throws in
                #expect(try await reopened.list(ownerUID: 1000, limit: 10, cursor: nil).reports == [acknowledged])
            }
            #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".saved-") }) == [])
        }
    }

    @Test("a store left alone keeps working: checkpoints grow the file, never trip the check")
    func checkpointsAreNotFaults() async throws {
        try await withTemporaryStore { store in
            // Enough photo pages to pass SQLite's automatic checkpoint (1000 pages) more than once.
            let photo = StoredPhoto(mediaType: "image/jpeg", sha256: String(repeating: "cd", count: 32),
                                    data: [UInt8](repeating: 0x5A, count: 1_500_000))
            for number in 0..<6 { _ = try await store.submit(sampleReport(number, photo: photo)) }
            #expect(try await store.count() == 6)
        }
    }
}
