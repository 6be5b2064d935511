import Foundation
import PetSpotSystem
import Testing
@testable import PetSpotStore

/// The fleet's copy: other boxes' reports on this box's board, without an owner, replaced only
/// by a higher version, gone (from the disk too) when the feed says so, within its bounds.
@Suite("Other boxes' reports on the board")
struct ReportStoreFleetTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    static func copy(_ id: String, box: String = "kiosk-x", version: Int = 1, latitude: Int? = 5_222_968, longitude: Int? = 2_101_223,
                     submittedAt: String = "2026-11-21T12:00:00Z", email: String = "owner@example.org", photo: StoredPhoto? = nil) -> FleetCopy {
        FleetCopy(id: id, box: box, version: version, submittedAt: submittedAt, updatedAt: now,
                  valuesJSON: boardValues(latitude: latitude, longitude: longitude, species: "dog", chip: "616091234567890",
                                          photo: photo?.described, email: email),
                  board: BoardFields(latitude: latitude, longitude: longitude, chipDigits: "616091234567890", species: "dog",
                                     publicPhoto: photo == nil ? nil : sampleBoardPublicPhoto),
                  photo: photo)
    }

    static let unbounded = FleetBounds(maxReports: 100_000, maxPhotoBytes: 1 << 30, origin: nil)

    static func apply(_ store: ReportStore, _ changes: [FleetChange], cursor: Int, bounds: FleetBounds = unbounded) async throws -> FleetOutcome {
        try await store.applyFleet(changes, cursor: cursor, bounds: bounds, now: now)
    }

    @Test("a copy is listed with its box, never as the box's own: no owner's list, no claim; the cursor and count follow")
    func listedApart() async throws {
        try await withTemporaryStore { store in
            let initial = try await store.fleetState()
            #expect(initial == (0, 0))
            let outcome = try await Self.apply(store, [.listed(Self.copy("f-1", photo: sampleBoardPhoto))], cursor: 7)
            #expect(outcome.listed == ["f-1"] && outcome.removed.isEmpty)
            #expect(try await store.fleetState().cursor == 7)
            #expect(try await store.fleetState().reports == 1)
            let entry = try #require(try await store.boardEntry(id: "f-1"))
            #expect(entry.box == "kiosk-x" && !entry.isOwn && entry.status == .missing)
            #expect(try await store.newestIDs() == ["f-1"])
            #expect(try await store.fleetPhoto(id: "f-1", box: "kiosk-x") == sampleBoardPhoto)
            #expect(try await store.boardPhoto(id: "f-1") == nil)
            #expect(try await store.list(ownerUID: 1000, limit: 10, cursor: nil).reports.isEmpty)
            #expect(try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1 << 20).isEmpty)
            #expect(try await store.deliveryCounts().pending == 0)
        }
    }

    @Test("a higher version replaces the copy; the same or a lower one changes nothing; gone at the copy's version or higher deletes it, lower leaves it", arguments: [
        // (held, brought, listed again?)
        (2, FleetChange.listed(copy("f-1", version: 3, email: "new@example.org")), true, "new@example.org"),
        (2, .listed(copy("f-1", version: 2, email: "new@example.org")), false, "owner@example.org"),
        (2, .listed(copy("f-1", version: 1, email: "new@example.org")), false, "owner@example.org"),
        (2, .gone(id: "f-1", box: "kiosk-x", version: 2), false, nil),
        (2, .gone(id: "f-1", box: "kiosk-x", version: 5), false, nil),
        (2, .gone(id: "f-1", box: "kiosk-x", version: 1), false, "owner@example.org"),
        // Known by its id alone, as the central table knows it: gone under another box name removes it.
        (2, .gone(id: "f-1", box: "kiosk-y", version: 9), false, nil),
        (2, .listed(copy("f-1", box: "kiosk-y", version: 3, email: "new@example.org")), true, "new@example.org"),
    ] as [(Int, FleetChange, Bool, String?)])
    func versions(held: Int, brought: FleetChange, relisted: Bool, email: String?) async throws {
        try await withTemporaryStore { store in
            _ = try await Self.apply(store, [.listed(Self.copy("f-1", version: held))], cursor: 1)
            let outcome = try await Self.apply(store, [brought], cursor: 2)
            #expect(outcome.listed == (relisted ? ["f-1"] : []))
            let entry = try await store.boardEntry(id: "f-1")
            #expect(entry.flatMap { e in e.valuesJSON.contains("new@example.org") ? "new@example.org" : "owner@example.org" } == email)
            if case .listed(let copy) = brought, relisted { #expect(entry?.box == copy.box) }
            #expect(try await store.fleetState().reports == (email == nil ? 0 : 1))
            #expect(try await store.fleetState().cursor == 2)
        }
    }

    @Test("a copy gone leaves no trace of its values or photo in the database file or its WAL")
    func goneFromTheDisk() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let marker = "fleet-\(UUID().uuidString.prefix(8).lowercased())@example.org"
            let photo = StoredPhoto(mediaType: "image/jpeg", sha256: String(repeating: "3c", count: 32), data: Array("PHOTO-\(marker)".utf8))
            func onDisk(_ text: String) -> Bool {
                [path, path + "-wal"].contains { ((try? FileDescriptorIO.readFile($0)).map { $0.firstRange(of: Array(text.utf8)) != nil }) ?? false }
            }
            try await withStore(path: path) { store in
                _ = try await Self.apply(store, [.listed(Self.copy("f-1", email: marker, photo: photo))], cursor: 1)
                #expect(onDisk(marker))
                let outcome = try await Self.apply(store, [.gone(id: "f-1", box: "kiosk-x", version: 2)], cursor: 2)
                #expect(outcome.removed == ["f-1"])
                #expect(!onDisk(marker))
                #expect(!onDisk("PHOTO-"))
                #expect(try await store.fleetState().cursor == 2)
            #expect(try await store.fleetState().reports == 0)
            }
        }
    }

    @Test("past maxReports the farthest from the box go first (those without a position before any), then the oldest; without a position of the box, the oldest")
    func boundedReports() async throws {
        try await withTemporaryStore { store in
            let copies: [FleetChange] = [
                .listed(Self.copy("near-old", latitude: 5_223_000, longitude: 2_101_000, submittedAt: "2026-11-01T00:00:00Z")),
                .listed(Self.copy("far", latitude: 5_006_000, longitude: 1_994_000, submittedAt: "2026-11-21T00:00:00Z")),
                .listed(Self.copy("unplaced", latitude: nil, longitude: nil, submittedAt: "2026-11-22T00:00:00Z")),
                .listed(Self.copy("near-new", latitude: 5_223_100, longitude: 2_101_100, submittedAt: "2026-11-20T00:00:00Z")),
                // Across the antimeridian from the origin below: near the short way round.
                .listed(Self.copy("dateline", latitude: 5_223_000, longitude: -17_999_000, submittedAt: "2026-11-23T00:00:00Z")),
            ]
            let origin = FleetBounds(maxReports: 3, maxPhotoBytes: 1 << 30, origin: (5_222_968, 2_101_223))
            let outcome = try await Self.apply(store, copies, cursor: 5, bounds: origin)
            #expect(Set(outcome.removed) == ["unplaced", "dateline"] && outcome.evicted == 2)
            #expect(Set(try await store.newestIDs()) == ["near-old", "far", "near-new"])
            let tighter = FleetBounds(maxReports: 2, maxPhotoBytes: 1 << 30, origin: (5_222_968, 2_101_223))
            #expect(try await Self.apply(store, [], cursor: 6, bounds: tighter).removed == ["far"])
            let dateline = FleetBounds(maxReports: 1, maxPhotoBytes: 1 << 30, origin: (5_223_000, 17_999_000))
            _ = try await Self.apply(store, [.listed(Self.copy("dateline", latitude: 5_223_000, longitude: -17_999_000))], cursor: 7, bounds: dateline)
            #expect(try await store.newestIDs() == ["dateline"])
            _ = try await Self.apply(store, [.listed(Self.copy("older", submittedAt: "2026-01-01T00:00:00Z"))], cursor: 8,
                                     bounds: FleetBounds(maxReports: 1, maxPhotoBytes: 1 << 30, origin: nil))
            #expect(try await store.newestIDs() == ["dateline"])
            #expect(try await store.fleetState().cursor == 8)
            #expect(try await store.fleetState().reports == 1)
        }
    }

    @Test("past maxPhotoBytes the farthest lose their photo first; the reports stay listed, without one")
    func boundedPhotos() async throws {
        try await withTemporaryStore { store in
            let bounds = FleetBounds(maxReports: 100, maxPhotoBytes: 2 * sampleBoardPhoto.data.count, origin: (5_222_968, 2_101_223))
            let outcome = try await Self.apply(store, [
                .listed(Self.copy("near", latitude: 5_223_000, longitude: 2_101_000, photo: sampleBoardPhoto)),
                .listed(Self.copy("far", latitude: 5_006_000, longitude: 1_994_000, photo: sampleBoardPhoto)),
                .listed(Self.copy("middle", latitude: 5_100_000, longitude: 2_000_000, photo: sampleBoardPhoto)),
            ], cursor: 3, bounds: bounds)
            #expect(outcome.photosDropped == 1 && outcome.removed.isEmpty)
            #expect(try await store.fleetPhoto(id: "far", box: "kiosk-x") == nil)
            #expect(try await store.boardEntry(id: "far")?.photo == nil)
            #expect(try await store.boardEntry(id: "far")?.publicPhoto == .withheld)
            #expect(try await store.boardEntry(id: "far")?.valuesJSON.contains(#""photo":null"#) == true)
            #expect(try await store.boardEntry(id: "near")?.valuesJSON.contains(#""photo":null"#) == false)
            #expect(try await store.fleetPhoto(id: "near", box: "kiosk-x") == sampleBoardPhoto)
            #expect(try await store.fleetPhoto(id: "middle", box: "kiosk-x") == sampleBoardPhoto)
            #expect(Set(try await store.newestIDs()) == ["near", "far", "middle"])
        }
    }

    @Test("a copy of a report the box has as its own is never stored: named in ownIDs, the own one listed as it was")
    func ownAndCopy() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(boardReport(1, id: "shared"))
            let outcome = try await Self.apply(store, [.listed(Self.copy("shared", version: 9, email: "hostile@example.org"))], cursor: 1)
            #expect(outcome.ownIDs == ["shared"] && outcome.listed.isEmpty)
            #expect(try await store.newestIDs() == ["shared"])
            #expect(try await store.boardEntry(id: "shared")?.isOwn == true)
            #expect(try await store.boardEntry(id: "shared")?.valuesJSON.contains("hostile@") == false)
            #expect(try await store.fleetState().reports == 0)
        }
    }

    @Test("restart drops every copy before the page is stored, and says so in removed")
    func restart() async throws {
        try await withTemporaryStore { store in
            _ = try await Self.apply(store, [.listed(Self.copy("old-1")), .listed(Self.copy("old-2"))], cursor: 40)
            let outcome = try await store.applyFleet([.listed(Self.copy("new-1"))], cursor: 1, bounds: Self.unbounded, now: Self.now, restart: true)
            #expect(Set(outcome.removed) == ["old-1", "old-2"] && outcome.listed == ["new-1"])
            #expect(try await store.newestIDs() == ["new-1"])
            #expect(try await store.fleetState().cursor == 1)
        }
    }

    @Test("a negative cursor is refused and nothing changes")
    func negativeCursor() async throws {
        try await withTemporaryStore { store in
            await #expect(throws: ReportStoreError.self) { _ = try await Self.apply(store, [.listed(Self.copy("f-1"))], cursor: -1) }
            let state = try await store.fleetState()
            #expect(state == (0, 0))
        }
    }
}
