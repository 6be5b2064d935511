import Foundation
@testable import PetSpotStore
import Testing

/// The words a store error adds when the file system refuses writes. The full and read-only
/// cases need mounts: DiskFullTests and ReadOnlyDatabaseTests drive them with the daemon.
@Suite("Why the database's file system refuses writes")
struct FileSystemConditionTests {
    @Test("the folder of a database path", arguments: [
        ("/var/lib/petspotd/reports.sqlite", "/var/lib/petspotd"),
        ("/reports.sqlite", "/"),
        ("var/reports.sqlite", "var"),
        ("reports.sqlite", "."),
    ])
    func directory(path: String, folder: String) {
        #expect(FileSystemCondition.directory(of: path) == folder)
    }

    @Test("a writable file system with room says nothing, and the probe leaves no file behind")
    func writable() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-fscondition-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(FileSystemCondition.problem(holding: dir.appendingPathComponent("reports.sqlite").path) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [])
    }

    @Test("a folder that does not exist says nothing: the error itself tells")
    func missingFolder() {
        #expect(FileSystemCondition.problem(holding: "/nonexistent-\(UUID().uuidString)/reports.sqlite") == nil)
    }
}
