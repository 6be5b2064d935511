import Foundation
import Testing
@testable import PetSpotStore

/// The list without an origin, newest first and paged by key; chip lookups; a listed report's
/// photo; photos still to describe. On a real SQLite file.
@Suite("The board newest first, by chip, and its photos")
struct ReportStoreBoardListTests {
    /// The list's order without an origin: newest first, then id, text compared bytewise.
    static func listOrder(_ a: BoardEntry, _ b: BoardEntry) -> Bool {
        if a.submittedAt != b.submittedAt { return b.submittedAt.utf8.lexicographicallyPrecedes(a.submittedAt.utf8) }
        return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
    }

    /// Ids that sort differently bytewise than by a locale: upper before lower case, "é" after "z".
    static let ids = ["report-B", "report-a", "report-é", "report-z", "report-Z", "report-10", "report-9", "report-é2"]

    @Test("pages of the list newest first, after a key, hold each report that stays listed once and in order, while others come and go")
    func keysetPaging() async throws {
        try await withTemporaryStore { store in
            var number = 0
            func submit(_ id: String, at submittedAt: String, position: Bool = true, species: String = "dog") async throws {
                number += 1
                _ = try await store.submit(boardReport(number, latitude: position ? 5_000_000 + number : nil,
                                                       longitude: position ? 2_000_000 : nil, species: species,
                                                       submittedAt: submittedAt, id: id))
            }
            // Three submit times, every id at each: ties broken by id.
            for (hour, time) in ["2026-11-21T10:00:00Z", "2026-11-21T11:00:00Z", "2026-11-21T12:00:00Z"].enumerated() {
                for id in Self.ids { try await submit("\(hour)-\(id)", at: time, position: id.count % 2 == 0) }
            }
            let before = try await store.boardNewestFirst(after: nil, species: nil, position: .any, limit: 1_000)
            #expect(before.count == 24)
            #expect(before == before.sorted(by: Self.listOrder))

            var seen: [String] = []
            var after: (submittedAt: String, id: String)?
            var closed: Set<String> = []
            var page = 0
            while true {
                let entries = try await store.boardNewestFirst(after: after, species: nil, position: .any, limit: 5)
                seen += entries.map(\.id)
                guard let last = entries.last else { break }
                after = (last.submittedAt, last.id)
                page += 1
                // Between pages: new reports before and after the key, one already shown and one
                // still to come leave the list.
                try await submit("new-\(page)", at: "2026-11-22T00:00:00Z")
                try await submit("old-\(page)", at: "2026-11-20T00:00:00Z")
                try await submit("tie-\(page)", at: last.submittedAt)
                let shown = try #require(seen.first { !closed.contains($0) })
                let toCome = before.map(\.id).first { !seen.contains($0) && !closed.contains($0) }
                for id in [shown] + (toCome.map { [$0] } ?? []) {
                    _ = try await store.close(id: id, ownerUID: 1000, outcome: .found, now: storeNow)
                    closed.insert(id)
                }
            }
            #expect(Set(seen).count == seen.count, "a report listed twice: \(seen)")
            // Every report listed before that stayed listed, in its order.
            let stayed = before.map(\.id).filter { !closed.contains($0) || seen.contains($0) }
            #expect(seen.filter { stayed.contains($0) } == stayed)
            // New ones after the key were listed; ones before it were not.
            #expect(seen.contains { $0.hasPrefix("old-") })
            #expect(!seen.contains { $0.hasPrefix("new-") })
            // One of the key's own time with a greater id comes after it.
            #expect(seen.contains { $0.hasPrefix("tie-") })
        }
    }

    @Test("newest first by species, and with or without a position")
    func filters() async throws {
        try await withTemporaryStore { store in
            for number in 0..<12 {
                _ = try await store.submit(boardReport(
                    number, latitude: number % 2 == 0 ? 5_000_000 : nil, longitude: number % 2 == 0 ? 2_000_000 : nil,
                    species: number % 3 == 0 ? "cat" : "dog", submittedAt: "2026-11-21T10:\(String(format: "%02d", number)):00Z"))
            }
            let ids = { (numbers: [Int]) in numbers.sorted(by: >).map { "report-\($0)" } }
            #expect(try await store.newestIDs() == ids(Array(0..<12)))
            #expect(try await store.newestIDs(species: "cat") == ids([0, 3, 6, 9]))
            #expect(try await store.newestIDs(position: .with) == ids([0, 2, 4, 6, 8, 10]))
            #expect(try await store.newestIDs(position: .without) == ids([1, 3, 5, 7, 9, 11]))
            #expect(try await store.newestIDs(species: "cat", position: .without) == ids([3, 9]))
            // After a key, under a filter.
            let page = try await store.boardNewestFirst(after: ("2026-11-21T10:09:00Z", "report-9"), species: "cat",
                                                        position: .without, limit: 10)
            #expect(page.map(\.id) == ["report-3"])
            #expect(try await store.boardNewestFirst(after: nil, species: "hamster", position: .any, limit: 5) == [])
            let error = await #expect(throws: ReportStoreError.self) {
                try await store.boardNewestFirst(after: nil, species: nil, position: .any, limit: 0)
            }
            #expect(error?.kind == .invalidLimit)
        }
    }

    @Test("a chip lookup finds the listed reports with those digits, newest first, within its limit")
    func chipLookup() async throws {
        try await withTemporaryStore { store in
            let chip = "616093900012345"
            for number in 0..<4 {
                _ = try await store.submit(boardReport(number, chip: chip, submittedAt: "2026-11-21T1\(number):00:00Z"))
            }
            _ = try await store.submit(boardReport(9, chip: "616093900012346"))
            _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: storeNow)
            #expect(try await store.boardEntries(chipDigits: chip, limit: 10).map(\.id) == ["report-3", "report-2", "report-0"])
            #expect(try await store.boardEntries(chipDigits: chip, limit: 2).map(\.id) == ["report-3", "report-2"])
            #expect(try await store.boardEntries(chipDigits: "61609390001234", limit: 10) == [])
            _ = try await store.submit(boardReport(5, chip: chip, submittedAt: "2026-11-21T09:00:00Z"))
            #expect(try await store.boardEntries(chipDigits: chip, limit: 10).map(\.id) == ["report-3", "report-2", "report-0", "report-5"])
        }
    }

    @Test("a listed report's photo is given with its bytes as stored; not once it leaves the list")
    func photo() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(boardReport(1, photo: sampleBoardPhoto, publicPhoto: sampleBoardPublicPhoto))
            _ = try await store.submit(boardReport(2))
            #expect(try await store.boardPhoto(id: "report-1") == sampleBoardPhoto)
            #expect(try await store.boardPhoto(id: "report-2") == nil)
            #expect(try await store.boardPhoto(id: "report-3") == nil)
            #expect(try await store.boardEntry(id: "report-1")?.publicPhoto == .cleaned(sampleBoardPublicPhoto))
            // A photo whose public copy could not be made: the report has a photo, the public none.
            _ = try await store.submit(boardReport(4, photo: sampleBoardPhoto, publicPhoto: nil))
            #expect(try await store.boardEntry(id: "report-4")?.publicPhoto == .withheld)
            #expect(try await store.boardEntry(id: "report-4")?.photo == sampleBoardPhoto.described)
            // A public copy without a photo is none.
            _ = try await store.submit(boardReport(5, photo: nil, publicPhoto: sampleBoardPublicPhoto))
            #expect(try await store.boardEntry(id: "report-5")?.publicPhoto == .withheld)

            _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: .withdrawn, now: storeNow)
            #expect(try await store.boardPhoto(id: "report-1") == nil)
            #expect(try await store.boardEntry(id: "report-1")?.status == .withdrawn)
        }
    }
}

/// Another box's copy of a report, written as the relay will bring one: no `report` row.
@Suite("Copies of a report from other boxes")
struct ReportStoreBoardCopiesTests {
    static func insertCopy(path: String, id: String, box: String, status: String, version: Int, latitude: Int?) async throws {
        try await withPlainConnection(path: path) { db in
            _ = try db.rows("""
                INSERT INTO board (id, box, status, version, submitted_at, updated_at_ms, latitude, longitude, chip_digits,
                                   species, public_photo, values_json)
                VALUES (?, ?, ?, ?, '2026-11-21T12:00:00Z', 0, ?, ?, '616093900012345', 'dog', 'withheld', '{}')
                """, [.text(id), .text(box), .text(status), .integer(version),
                      latitude.map { .integer($0) } ?? .null, latitude.map { _ in .integer(2_100_000) } ?? .null])
        }
    }

    @Test("a report held twice counts once, as its highest version, the box's own on a tie; a newer found copy keeps an older missing one off the list")
    func countsOnce() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await withStore(path: path) { store in
                _ = try await store.submit(boardReport(1, latitude: 5_200_000, longitude: 2_100_000, chip: "616093900012345"))
                // The same version from the fleet: the box's own counts.
                try await Self.insertCopy(path: path, id: "report-1", box: "kiosk-2", status: "missing", version: 1, latitude: 5_300_000)
                // Only another box's, in two versions: the newer counts; then one found in a newer version.
                try await Self.insertCopy(path: path, id: "other", box: "kiosk-2", status: "missing", version: 1, latitude: 5_100_000)
                try await Self.insertCopy(path: path, id: "other", box: "kiosk-3", status: "missing", version: 2, latitude: 5_150_000)
                try await Self.insertCopy(path: path, id: "gone", box: "kiosk-2", status: "missing", version: 1, latitude: 5_000_000)
                try await Self.insertCopy(path: path, id: "gone", box: "kiosk-3", status: "found", version: 2, latitude: 5_000_000)

                #expect(try await store.boardCount() == 2)
                #expect(try await store.newestIDs().sorted() == ["other", "report-1"])
                let places = try await store.boardPlaces(in: [.world], species: nil, limit: 10).places
                #expect(places.map(\.latitude).sorted() == [5_150_000, 5_200_000])
                #expect(try await store.boardEntries(chipDigits: "616093900012345", limit: 10).map(\.box).sorted() == ["box-test", "kiosk-3"])
                let own = try #require(try await store.boardEntry(id: "report-1"))
                #expect(own.isOwn && own.box == testBox)
                #expect(try await store.boardEntry(id: "gone")?.status == .found)
                #expect(try await store.boardEntries(ids: ["report-1", "other", "gone"]).count == 6)
                // Another box's report has no photo here.
                #expect(try await store.boardPhoto(id: "other") == nil)
                // The box's own report changes as before; the copy stays as brought.
                _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: storeNow)
                #expect(try await store.boardEntry(id: "report-1")?.status == .found)
                #expect(try await store.newestIDs() == ["other"])
            }
        }
    }
}
