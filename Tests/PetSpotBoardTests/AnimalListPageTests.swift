import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("Animal list order and pages")
struct AnimalListPageTests {
    static let origin = point("52.22968", "21.01223")

    static func animal(_ id: String, _ submittedAt: String, _ lat: String?, _ lon: String?, species: String = "dog",
                       status: Animal.Status = .missing, version: Int = 1) -> StoredAnimal {
        try! StoredAnimal(id: id, box: "b", status: status, submittedAt: submittedAt, updatedAt: submittedAt, version: version,
                          values: storedValues(species: species, latitude: lat, longitude: lon), metadataFreePhoto: nil)
    }

    static let animals: [StoredAnimal] = [
        animal("a", "2026-11-20T10:00:00Z", "52.23968", "21.01223"),  // ~1.1 km north
        animal("b", "2026-11-21T10:00:00Z", "52.23968", "21.01223"),  // as far, newer
        animal("c", "2026-11-21T10:00:00Z", "52.23968", "21.01223"),  // as far, as new: by id
        animal("d", "2026-11-19T10:00:00Z", "52.22968", "21.01223"),  // at the origin
        animal("e", "2026-11-22T10:00:00Z", nil, nil),                // nowhere: after every position
        animal("f", "2026-11-18T10:00:00Z", nil, nil),
        animal("g", "2026-11-23T10:00:00Z", "50.06143", "19.93658"),  // Kraków
        animal("h", "2026-11-23T10:00:00Z", "52.23", "21.01", species: "cat"),
        animal("i", "2026-11-24T10:00:00Z", "52.23", "21.01", status: .found),
    ]

    static func ids(_ page: AnimalListPage) -> [String] { page.animals.map(\.id) }

    @Test(
        "nearest first, ties by newest then id, reports without a position last (newest first)",
        arguments: [Standing.public, .staff])
    func nearestFirst(standing: Standing) throws {
        let query = try AnimalQuery(origin: .near(Self.origin), radiusKm: nil, species: nil, standing: standing)
        let page = query.page(of: Self.animals, after: nil, limit: 100)
        #expect(Self.ids(page) == ["d", "h", "b", "c", "a", "g", "e", "f"])
        #expect(page.cursor == nil)
        #expect(page.animals.first?.distanceKm?.literal == (standing == .staff ? "0.000" : "0.039"))
        #expect(page.animals.last?.distanceKm == nil)
    }

    @Test("without an origin: newest first, then by id, no distances")
    func newestFirst() throws {
        let query = try AnimalQuery(origin: nil, radiusKm: nil, species: nil, standing: .public)
        let page = query.page(of: Self.animals, after: nil, limit: 100)
        #expect(Self.ids(page) == ["g", "h", "e", "b", "c", "a", "d", "f"])
        #expect(page.animals.allSatisfy { $0.distanceKm == nil })
    }

    @Test(
        "species and radius filters; only missing reports",
        arguments: [
            (nil, "cat", ["h"]),
            (nil, "dog", ["d", "b", "c", "a", "g", "e", "f"]),
            (nil, "hamster", []),
            (0.0, nil, ["d"]),
            (1.2, nil, ["d", "h", "b", "c", "a"]),
            (1.2, "dog", ["d", "b", "c", "a"]),
            (300.0, nil, ["d", "h", "b", "c", "a", "g"]),
            (1e9, nil, ["d", "h", "b", "c", "a", "g"]),
        ] as [(Double?, String?, [String])])
    func filters(radiusKm: Double?, species: String?, ids: [String]) throws {
        let query = try AnimalQuery(origin: .near(Self.origin), radiusKm: radiusKm, species: species, standing: .staff)
        #expect(Self.ids(query.page(of: Self.animals, after: nil, limit: 100)) == ids)
    }

    /// The public's radius is measured to the 3-decimal position: a report exactly at the origin
    /// but rounded 40 m away is outside a 10 m circle for the public, inside for staff.
    @Test("the public's radius filter uses the rounded position")
    func publicRadius() throws {
        let origin = point("52.22968", "21.01223")
        let here = [Self.animal("x", "2026-11-20T10:00:00Z", "52.22968", "21.01223")]
        let publicQuery = try AnimalQuery(origin: .near(origin), radiusKm: 0.01, species: nil, standing: .public)
        let staffQuery = try AnimalQuery(origin: .near(origin), radiusKm: 0.01, species: nil, standing: .staff)
        #expect(publicQuery.page(of: here, after: nil, limit: 10).animals.isEmpty)
        #expect(Self.ids(staffQuery.page(of: here, after: nil, limit: 10)) == ["x"])
        let cellCorner = try AnimalQuery(origin: .near(point("52.23", "21.012")), radiusKm: 0, species: nil, standing: .public)
        #expect(Self.ids(cellCorner.page(of: here, after: nil, limit: 10)) == ["x"])
    }

    @Test("a radius needs an origin")
    func radiusWithoutOrigin() {
        #expect(throws: AnimalQuery.Problem.radiusWithoutOrigin) {
            try AnimalQuery(origin: nil, radiusKm: 5, species: nil, standing: .public)
        }
        #expect(throws: AnimalQuery.Problem.radius(.radiusNegative)) {
            try AnimalQuery(origin: .near(Self.origin), radiusKm: -1, species: nil, standing: .public)
        }
    }

    @Test("pages of 3 give the whole list once, with a cursor until the last", arguments: [1, 2, 3, 7, 8, 9])
    func pages(limit: Int) throws {
        for origin in [nil, AnimalQuery.Origin.near(Self.origin)] {
            let query = try AnimalQuery(origin: origin, radiusKm: nil, species: nil, standing: .public)
            let whole = Self.ids(query.page(of: Self.animals, after: nil, limit: 100))
            var seen: [String] = []
            var after: AnimalOrderKey?
            for _ in 0..<20 {
                let page = query.page(of: Self.animals, after: after, limit: limit)
                #expect(page.animals.count <= limit)
                seen += Self.ids(page)
                guard let cursor = page.cursor else { break }
                // Through its text, as a client hands it back.
                let back = try AnimalCursor(text: cursor.text)
                #expect(back.query == query)
                after = back.after
            }
            #expect(seen == whole)
        }
    }

    @Test("a limit below 1 gives one report per page, so the list still moves on")
    func tinyLimit() throws {
        let query = try AnimalQuery(origin: nil, radiusKm: nil, species: nil, standing: .public)
        let page = query.page(of: Self.animals, after: nil, limit: 0)
        #expect(Self.ids(page) == ["g"])
        #expect(page.cursor?.after.id == "g")
    }

    @Test("a report known twice is listed once, as its highest version says")
    func duplicates() throws {
        let query = try AnimalQuery(origin: nil, radiusKm: nil, species: nil, standing: .public)
        let older = Self.animal("z", "2026-11-20T10:00:00Z", nil, nil, version: 1)
        let newer = Self.animal("z", "2026-11-20T10:00:00Z", nil, nil, version: 2)
        let found = Self.animal("z", "2026-11-20T10:00:00Z", nil, nil, status: .found, version: 3)
        #expect(query.page(of: [older, newer, older], after: nil, limit: 10).animals.map(\.version) == [2])
        #expect(query.page(of: [older, found, newer], after: nil, limit: 10).animals.isEmpty)
    }

    /// Reports come and go between pages (the fleet's arrive, owners close theirs): every report
    /// there from the first page to the last is given exactly once, in order.
    @Test("keyset paging skips and repeats nothing that stays while others come and go", arguments: [UInt64(1), 2, 3, 4, 5])
    func churn(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        func randomAnimal(_ n: Int) -> StoredAnimal {
            let lat = String(52 + Double(random.next() % 20_000) / 100_000)
            let second = String(random.next() % 6)  // many ties of submittedAt
            return Self.animal("id-\(n)", "2026-11-2\(random.next() % 3)T10:00:0\(second)Z", lat, "21.01223")
        }
        for origin in [nil, AnimalQuery.Origin.near(Self.origin)] {
            let query = try AnimalQuery(origin: origin, radiusKm: nil, species: nil, standing: .public)
            var store = (0..<60).map(randomAnimal)
            var next = 60
            let stayers = Set(store.map(\.id))
            var leavers = Set<String>()
            var seen: [String] = []
            var after: AnimalOrderKey?
            for _ in 0..<200 {
                let page = query.page(of: store, after: after, limit: 4)
                seen += Self.ids(page)
                guard let cursor = page.cursor else { break }
                after = cursor.after
                // Two arrive anywhere in the order, one of the first ones leaves.
                store += [randomAnimal(next), randomAnimal(next + 1)]
                next += 2
                let leaving = store[Int(random.next() % UInt64(store.count))].id
                leavers.insert(leaving)
                store.removeAll { $0.id == leaving }
            }
            let stayed = stayers.subtracting(leavers)
            let seenStayers = seen.filter(stayed.contains)
            #expect(seenStayers.count == stayed.count, "each stayer once")
            #expect(Set(seenStayers) == stayed)
            #expect(Set(seen).count == seen.count, "nothing repeated")
            // The order given is the list's order.
            let keys = seen.compactMap { id in store.first { $0.id == id } }.map(query.orderKey)
            #expect(keys == keys.sorted())
        }
    }
}

/// A small deterministic generator for the tests' shuffles.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
