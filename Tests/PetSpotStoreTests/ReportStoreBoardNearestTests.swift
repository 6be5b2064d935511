import Foundation
import PetSpotBoard
import PetSpotJSON
import PetSpotViews
import Testing
@testable import PetSpotStore

/// The animal list's pages made from the store's reads and PetSpotBoard's rules, as the daemon
/// makes them, against the list's rules applied to every report at once: nearest first (by
/// growing boxes), then those without a position newest first; newest first without an origin.
@Suite("The animal list from the board")
struct ReportStoreBoardNearestTests {
    /// One page of `query` after `after`: the store's reads, PetSpotBoard's rules.
    static func page(_ store: ReportStore, _ query: AnimalQuery, after: AnimalOrderKey?, limit: Int) async throws -> AnimalListPage {
        try await query.page(from: BoardAnimalIndex(store: store), after: after, limit: limit)
    }

    /// Every page of the listing, following its cursors.
    static func listing(_ store: ReportStore, _ query: AnimalQuery, limit: Int) async throws -> [[Animal]] {
        var pages: [[Animal]] = []
        var after: AnimalOrderKey?
        repeat {
            let page = try await Self.page(store, query, after: after, limit: limit)
            pages.append(page.animals)
            after = page.cursor?.after
        } while after != nil && pages.count < 1_000
        return pages
    }

    /// Reports around Warsaw, around Fiji (across ±180°) and by the north pole, some without a
    /// position, some at one spot and time, of two species.
    static func fill(_ store: ReportStore) async throws {
        var random = SystemRandomNumberGenerator()
        var reports: [NewReport] = []
        // Centers and how far around them (degrees × 100 000): Warsaw's reports within some 10 km.
        let centers = [(5_222_968, 2_101_223, 10_000), (-1_781_000, 17_999_000, 100_000), (8_990_000, 0, 100_000)]
        for number in 0..<600 {
            let (centerLatitude, centerLongitude, spread) = centers[number % 3]
            var longitude = centerLongitude + Int.random(in: -spread...spread, using: &random) * 3 / 2
            if longitude > 18_000_000 { longitude -= 36_000_000 }
            let latitude = min(9_000_000, centerLatitude + Int.random(in: -spread...spread, using: &random))
            let minute = String(format: "%02d", Int.random(in: 0..<60, using: &random))
            let placed = number % 10 != 0
            reports.append(boardReport(number, latitude: placed ? latitude : nil, longitude: placed ? longitude : nil,
                                       species: number % 4 == 0 ? "cat" : "dog", submittedAt: "2026-11-21T12:\(minute):00Z"))
        }
        for tie in 0..<5 {
            reports.append(boardReport(1_000 + tie, latitude: 5_222_968, longitude: 2_101_223, submittedAt: "2026-11-21T12:00:00Z"))
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for report in reports { group.addTask { _ = try await store.submit(report) } }
            try await group.waitForAll()
        }
        // Off the list: found, and erased.
        _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: storeNow)
        _ = try await store.erase(id: "report-2", ownerUID: 1000, now: storeNow)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let near: (String, String)?
        let radiusKm: Double?
        let species: String?
        let standing: Standing
        let limit: Int
        let testDescription: String
    }

    static let cases: [Case] = [
        Case(near: ("52.22968", "21.01223"), radiusKm: nil, species: nil, standing: .public, limit: 20, testDescription: "Warsaw, the public"),
        Case(near: ("52.22968", "21.01223"), radiusKm: 5, species: nil, standing: .public, limit: 20, testDescription: "Warsaw, 5 km"),
        Case(near: ("52.25", "21.05"), radiusKm: 8, species: "cat", standing: .staff, limit: 7, testDescription: "cats within 8 km, staff"),
        Case(near: ("-17.81", "-179.99"), radiusKm: nil, species: nil, standing: .staff, limit: 33, testDescription: "Fiji, across ±180°"),
        Case(near: ("90", "0"), radiusKm: 200, species: nil, standing: .public, limit: 20, testDescription: "the north pole, 200 km"),
        Case(near: nil, radiusKm: nil, species: nil, standing: .public, limit: 25, testDescription: "newest first"),
        Case(near: nil, radiusKm: nil, species: "cat", standing: .staff, limit: 9, testDescription: "newest cats first"),
    ]

    @Test("every page is the page the list's rules make of every report", arguments: cases)
    func listing(c: Case) async throws {
        try await withTemporaryStore { store in
            try await Self.fill(store)
            let near = try c.near.map { try GeoPoint(latitude: DecimalLiteral(parsing: $0.0)!, longitude: DecimalLiteral(parsing: $0.1)!) }
            let query = try AnimalQuery(origin: near.map { .near($0) }, radiusKm: c.radiusKm, species: c.species, standing: c.standing)
            let everything = try await store.boardEntries(ids: (0..<1_005).map { "report-\($0)" }).map { try StoredAnimal($0) }
            var expected: [[Animal]] = []
            var after: AnimalOrderKey?
            repeat {
                let page = query.page(of: everything, after: after, limit: c.limit)
                expected.append(page.animals)
                after = page.cursor?.after
            } while after != nil
            let pages = try await Self.listing(store, query, limit: c.limit)
            #expect(pages.count == expected.count)
            for (index, (page, wanted)) in zip(pages, expected).enumerated() {
                #expect(page == wanted, "page \(index + 1)")
            }
            #expect(expected.joined().count > c.limit)
        }
    }
}
