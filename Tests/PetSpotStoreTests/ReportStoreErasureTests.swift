import Foundation
import PetSpotSQLite
import PetSpotTestSupport
import Testing
@testable import PetSpotStore

/// "Gone for good": after an erasure the personal data is in neither the database file nor its
/// WAL, read as raw bytes, as an operator would grep them.
@Suite("Erased data leaves the disk")
struct ReportStoreErasureTests {
    /// A report whose personal values and photo are unique to this run: finding their bytes in a
    /// file can only mean they are still there.
    struct MarkedReport {
        let report: NewReport
        let secrets: [(name: String, bytes: Data)]
    }

    static func markedReport(_ number: Int) -> MarkedReport {
        let tag = UUID().uuidString.prefix(8).lowercased()
        let digits = String(UInt64.random(in: 100_000_000_000_000...999_999_999_999_999))
        let email = "erase-me-\(tag)@example.org"
        let phone = "+48" + digits.prefix(9)
        let description = "white patch over the left eye \(tag)"
        // 40 KiB of one 16-byte mark: every overflow page of the photo holds it many times over.
        let mark = Array("PSPHOTO-\(tag)".utf8)
        let photo = StoredPhoto(mediaType: "image/jpeg", sha256: String(repeating: "ef", count: 32),
                                data: Array((0..<2_560).map { _ in mark }.joined()))
        let values = #"{"chipNumber":"\#(digits)","photo":{"mediaType":"image/jpeg","bytes":40960,"sha256":"\#(photo.sha256)"},"#
            + #""disappearanceDate":"2026-11-20","species":"dog","race":"Beagle","gender":"male","age":3,"#
            + #""latitude":52.22968,"longitude":21.01223,"additionalDescription":"\#(description)","#
            + #""contactPhone":"\#(phone)","contactEmail":"\#(email)"}"#
        // The board's copy of the values holds the same secrets; its public photo's hash only it holds.
        let publicCopy = PhotoDescription(mediaType: "image/jpeg", bytes: 40_000,
                                          sha256: (0..<8).map { _ in String(UInt32.random(in: .min ... .max), radix: 16) }.joined())
        let board = BoardFields(latitude: 5_222_968, longitude: 2_101_223, chipDigits: digits, species: "dog", publicPhoto: publicCopy)
        let report = NewReport(id: "report-\(number)", flowID: "flow-\(number)", ownerUID: 1000,
                               submittedAt: "2026-11-21T12:00:00Z", valuesJSON: values, photo: photo, board: board)
        return MarkedReport(report: report, secrets: [
            ("e-mail", Data(email.utf8)), ("photo", Data(mark)), ("chip number", Data(digits.utf8)),
            ("phone", Data(phone.utf8)), ("description", Data(description.utf8)),
            ("public photo's hash", Data(publicCopy.sha256.utf8)),
        ])
    }

    /// Reports around the marked one, with photos of their own: pages split and fill as in use.
    static func submitFillers(_ store: ReportStore, _ numbers: some Sequence<Int>) async throws {
        for number in numbers {
            let photo = StoredPhoto(mediaType: "image/png", sha256: String(repeating: "01", count: 32),
                                    data: (0..<(3_000 + number * 37)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ number) })
            _ = try await store.submit(sampleReport(number, photo: number % 3 == 0 ? photo : nil))
        }
    }

    /// Which secrets are in the database file or its WAL, as "name in file".
    static func found(_ secrets: [(name: String, bytes: Data)], path: String) -> [String] {
        var found: [String] = []
        for suffix in ["", "-wal"] {
            guard let contents = FileManager.default.contents(atPath: path + suffix) else { continue }
            for secret in secrets where contents.range(of: secret.bytes) != nil {
                found.append("\(secret.name) in \((path + suffix).split(separator: "/").last ?? "")")
            }
        }
        return found
    }

    static func storePath(_ directory: URL) -> String { directory.appendingPathComponent("reports.sqlite").path }

    /// The ids of the listed reports with a position (the fillers have none).
    static func listedPositions(_ store: ReportStore) async throws -> [String] {
        try await store.boardPlaces(in: [.world], species: nil, limit: 1_000).places.map(\.id)
    }

    /// Rows of the board's R*Tree, read past the store.
    static func positionRows(path: String) async throws -> Int? {
        try await withPlainConnection(path: path) { db in
            try db.rows("SELECT COUNT(*) AS count FROM board_position").first?.column("count")?.integer
        }
    }

    @Test("after erase returns, no personal value and no photo byte is in the database file or its WAL")
    func eraseLeavesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let path = Self.storePath(directory)
            let marked = Self.markedReport(100)
            try await withStore(path: path) { store in
                try await Self.submitFillers(store, 1...40)
                _ = try await store.submit(marked.report)
                try await Self.submitFillers(store, 41...80)
                // What the test looks for is there to be found: each secret, in one file or the other.
                let before = Self.found(marked.secrets, path: path)
                for secret in marked.secrets { #expect(before.contains { $0.hasPrefix(secret.name + " in") }, "\(secret.name)") }
                // The board holds a copy of the values, and the position.
                #expect(try await store.boardEntry(id: "report-100")?.valuesJSON == marked.report.valuesJSON)
                #expect(try await Self.listedPositions(store) == ["report-100"])

                let erased = try await store.erase(id: "report-100", ownerUID: 1000, now: storeNow)
                #expect(erased.changed)
                #expect(store.pendingDiskCleanup == nil)
                #expect(Self.found(marked.secrets, path: path) == [])
                #expect(try await store.boardEntry(id: "report-100") == nil)
                #expect(try await Self.listedPositions(store) == [])
                #expect(try await Self.positionRows(path: path) == 0)
                // The other reports are whole.
                #expect(try await store.photo(reportID: "report-3", ownerUID: 1000)?.data.count == 3_000 + 3 * 37)
            }
        }
    }

    @Test("an erasure by retention leaves nothing on the disk either")
    func retentionErasureLeavesNothing() async throws {
        try await withTemporaryDirectory { directory in
            let path = Self.storePath(directory)
            let marked = Self.markedReport(100)
            try await withStore(path: path) { store in
                try await Self.submitFillers(store, 1...10)
                _ = try await store.submit(marked.report)
                _ = try await store.close(id: "report-100", ownerUID: 1000, outcome: .found, now: storeNow)
                #expect(!Self.found(marked.secrets, path: path).isEmpty)
                let erased = try await store.eraseByRetention(now: storeNow, eraseAfter: .zero, maxReports: 10)
                #expect(erased.map(\.id) == ["report-100"])
                #expect(store.pendingDiskCleanup == nil)
                #expect(Self.found(marked.secrets, path: path) == [])
                #expect(try await store.boardEntry(id: "report-100") == nil)
                #expect(try await Self.positionRows(path: path) == 0)
            }
        }
    }

    /// Runs `body` while another connection holds a read snapshot of the database, as a
    /// `sqlite3 .backup` does while it copies.
    static func withReaderHoldingSnapshot<T>(path: String, _ body: () async throws -> T) async throws -> T {
        try await withPlainConnection(path: path) { reader in
            _ = try reader.rows("BEGIN")
            _ = try reader.rows("SELECT COUNT(*) FROM report")
            let result = try await body()
            _ = try reader.rows("COMMIT")
            return result
        }
    }

    @Test("a reader holding a snapshot: the erasure returns, durable; the data stays while it reads, and goes after")
    func readerHoldingSnapshot() async throws {
        try await withTemporaryDirectory { directory in
            let path = Self.storePath(directory)
            let marked = Self.markedReport(100)
            try await withStore(path: path) { store in
                try await Self.submitFillers(store, 1...20)
                _ = try await store.submit(marked.report)
                try await Self.withReaderHoldingSnapshot(path: path) {
                    let erased = try await store.erase(id: "report-100", ownerUID: 1000, now: storeNow)
                    #expect(erased.changed)
                    #expect(erased.report.isErased)
                    let pending = try #require(store.pendingDiskCleanup)
                    #expect(pending.since == storeNow)
                    #expect(pending.reason.contains("another connection"))
                    #expect(!Self.found(marked.secrets, path: path).isEmpty)
                    // Still held: a retry cannot finish.
                    #expect(try await !store.retryDiskCleanup())
                    #expect(store.pendingDiskCleanup?.attempts == 2)
                }
                try await waitUntil("the disk is clean") { try await store.retryDiskCleanup() }
                #expect(store.pendingDiskCleanup == nil)
                #expect(Self.found(marked.secrets, path: path) == [])
                #expect(try await store.get(id: "report-100", ownerUID: 1000)?.isErased == true)
            }
        }
    }

    @Test("a cleanup left pending is done by the next write, or the next sweep, without being asked")
    func pendingCleanupAtNextWrite() async throws {
        for next in ["submit", "sweep"] {
            try await withTemporaryDirectory { directory in
                let path = Self.storePath(directory)
                let marked = Self.markedReport(100)
                try await withStore(path: path) { store in
                    try await Self.submitFillers(store, 1...5)
                    _ = try await store.submit(marked.report)
                    try await Self.withReaderHoldingSnapshot(path: path) {
                        _ = try await store.erase(id: "report-100", ownerUID: 1000, now: storeNow)
                        #expect(store.pendingDiskCleanup != nil)
                    }
                    #expect(!Self.found(marked.secrets, path: path).isEmpty, "\(next)")
                    if next == "submit" {
                        _ = try await store.submit(sampleReport(6))
                    } else {
                        #expect(try await store.expireByRetention(now: storeNow, expireAfter: .seconds(86_400 * 90),
                                                                  maxReports: 10).isEmpty)
                    }
                    #expect(store.pendingDiskCleanup == nil, "\(next)")
                    #expect(Self.found(marked.secrets, path: path) == [], "\(next)")
                }
            }
        }
    }
}
