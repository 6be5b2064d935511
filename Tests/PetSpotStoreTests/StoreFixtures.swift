import Foundation
import PetSpotSQLite
@testable import PetSpotStore

/// The wall time the tests hand a store when they open it: what reports stored before a
/// report had a life count their retention from. Later than every sample report's submit.
let storeNow = Date(timeIntervalSince1970: 1_796_083_200)  // 2026-12-01T00:00:00Z

/// The box name the tests' stores list their own reports under.
let testBox = "box-test"

/// Version 1 of each report: what every report had at submit.
func firstVersions(_ ids: String...) -> [DeliveredVersion] {
    ids.map { DeliveredVersion(reportID: $0, version: 1) }
}

extension StoredReport {
    /// The report as it reads back after submitting `report`: missing, version 1, pending.
    init(_ report: NewReport) {
        self.init(report, life: .submitted(at: SubmitTime.date(report.submittedAt)!))
    }
}

/// Runs `body` with a fresh directory under the system temp directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("petspotstore-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Runs `body` with a store opened on a new file in a temporary directory, closed afterwards.
func withTemporaryStore<T>(_ body: (ReportStore) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        try await withStore(path: directory.appendingPathComponent("reports.sqlite").path, body)
    }
}

/// Runs `body` with a store opened on `path`, closed afterwards whatever `body` does.
func withStore<T>(path: String, _ body: (ReportStore) async throws -> T) async throws -> T {
    let store = try await ReportStore(path: path, now: storeNow, box: testBox)
    do {
        let result = try await body(store)
        try? await store.close()
        return result
    } catch {
        try? await store.close()
        throw error
    }
}

/// Opens a store on `path` and closes it again: for tests that expect the opening to fail.
func openAndClose(path: String) async throws(ReportStoreError) {
    let store = try await ReportStore(path: path, now: storeNow, box: testBox)
    try await store.close()
}

/// Runs `body` on a plain SQLite connection to `path`, without any of the store's rules, closed
/// afterwards: for building files the store must refuse or take over, and for looking into them.
func withPlainConnection<T>(path: String, _ body: (SQLiteDatabase) async throws -> T) async throws -> T {
    let connection = try SQLiteDatabase(path: path)
    // Waits for the store's locks, as a tool beside it would.
    try connection.execute("PRAGMA busy_timeout = 5000")
    do {
        let result = try await body(connection)
        try connection.close()
        return result
    } catch {
        try? connection.close()
        throw error
    }
}

/// A report whose fields are derived from `number`, so tests can tell reports apart.
func sampleReport(
    _ number: Int,
    owner: UInt32 = 1000,
    flowID: String? = nil,
    submittedAt: String? = nil,
    photo: StoredPhoto? = nil,
    board: BoardFields? = nil
) -> NewReport {
    NewReport(
        id: "report-\(number)",
        flowID: flowID ?? "flow-\(number)",
        ownerUID: owner,
        // Minutes count down as numbers go up: clock text order is the reverse of insertion order.
        submittedAt: submittedAt ?? String(format: "2026-11-21T13:%02d:27Z", 59 - number % 60),
        valuesJSON: #"{"chipNumber":"\#(number)","petName":"Rex «ünïcødé» 🐕","note":"a \"quoted\" word"}"#,
        photo: photo,
        board: board ?? BoardFields(latitude: nil, longitude: nil, chipDigits: String(number), species: nil, publicPhoto: nil))
}

/// A photo holding every byte value, so any truncation or text conversion would show.
let samplePhoto = StoredPhoto(
    mediaType: "image/jpeg",
    sha256: String(repeating: "ab", count: 32),
    data: (0..<40).flatMap { _ in (0...255).map(UInt8.init) })

/// POSIX permission bits of a file or directory.
func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
