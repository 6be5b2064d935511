import Foundation
import Testing
@testable import PetSpotStore

/// Finding listed reports by boxes of positions, on a real SQLite file: the R*Tree's answer,
/// checked again on the board's exact positions.
@Suite("Searching the board by boxes")
struct ReportStoreBoardSearchTests {
    @Test("this SQLite has the R*Tree and the JSON functions the board is made with")
    func sqliteHasWhatTheBoardNeeds() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("probe.sqlite").path
            try await withPlainConnection(path: path) { db in
                let options = try db.rows("PRAGMA compile_options").compactMap { $0.column("compile_options")?.string }
                #expect(options.contains("ENABLE_RTREE"), "\(options)")
                let json = try db.rows(#"SELECT json_extract('{"a":52.22968}', '$.a') AS a, json_type('{"a":"x"}', '$.a') AS t, json_valid('{') AS v"#)
                #expect(json.first?.column("a")?.double == 52.22968)
                #expect(json.first?.column("t")?.string == "text")
                #expect(json.first?.column("v")?.integer == 0)
                _ = try db.rows("CREATE VIRTUAL TABLE probe USING rtree_i32(id, a, b)")
            }
        }
    }

    /// Places spread over the globe, at the edges of every range, across ±180° and at the poles.
    static let places: [(id: String, latitude: Int, longitude: Int)] = {
        var places: [(String, Int, Int)] = [
            ("north-pole", 9_000_000, 0), ("north-pole-east", 9_000_000, 18_000_000), ("south-pole", -9_000_000, -12_345_678),
            ("near-north-pole", 8_999_999, 9_000_000), ("near-south-pole", -8_999_950, 17_000_000),
            ("east-edge", 100_000, 18_000_000), ("west-edge", 100_000, -18_000_000),
            ("east-of-edge", 100_000, 17_999_999), ("west-of-edge", 100_000, -17_999_999),
            ("fiji", -1_781_000, 17_830_000), ("samoa", -1_383_000, -17_176_000),
            ("origin", 0, 0), ("warsaw", 5_222_968, 2_101_223),
        ]
        var generator = SystemRandomNumberGenerator()
        for number in 0..<400 {
            places.append(("random-\(number)", Int.random(in: -9_000_000...9_000_000, using: &generator),
                           Int.random(in: -18_000_000...18_000_000, using: &generator)))
        }
        return places
    }()

    static func fill(_ store: ReportStore) async throws {
        // At once: they are stored in groups, a transaction each.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (number, place) in places.enumerated() {
                group.addTask {
                    _ = try await store.submit(boardReport(number, latitude: place.latitude, longitude: place.longitude,
                                                           species: number % 3 == 0 ? "cat" : "dog", id: place.id))
                }
            }
            try await group.waitForAll()
        }
        // Listed without a position, and off the list with one: neither is in any box.
        _ = try await store.submit(boardReport(10_000, latitude: nil, longitude: nil, id: "nowhere"))
        _ = try await store.submit(boardReport(10_001, latitude: 0, longitude: 0, id: "found-at-origin"))
        _ = try await store.close(id: "found-at-origin", ownerUID: 1000, outcome: .found, now: storeNow)
    }

    /// What the boxes hold, reckoned without the store.
    static func expected(in boxes: [ScaledBox], species: String? = nil) -> [String] {
        places.enumerated().filter { number, place in
            boxes.contains { $0.contains(latitude: place.latitude, longitude: place.longitude) }
                && (species == nil || (number % 3 == 0 ? "cat" : "dog") == species)
        }.map(\.element.id).sorted()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let boxes: [ScaledBox]
        let testDescription: String
    }

    static func box(_ minLatitude: Int, _ maxLatitude: Int, _ minLongitude: Int, _ maxLongitude: Int) -> ScaledBox {
        ScaledBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: minLongitude, maxLongitude: maxLongitude)
    }

    static let cases: [Case] = [
        Case(boxes: [.world], testDescription: "the world"),
        Case(boxes: [box(4_900_000, 5_500_000, 1_400_000, 2_500_000)], testDescription: "Poland"),
        Case(boxes: [box(-2_000_000, -1_000_000, 17_000_000, 18_000_000), box(-2_000_000, -1_000_000, -18_000_000, -17_000_000)],
             testDescription: "split at ±180°: Fiji and Samoa, both sides"),
        Case(boxes: [box(0, 200_000, 17_999_999, 18_000_000), box(0, 200_000, -18_000_000, -17_999_999)],
             testDescription: "the last unit on each side of ±180°"),
        Case(boxes: [box(8_500_000, 9_000_000, -18_000_000, 18_000_000)], testDescription: "over the north pole: every longitude"),
        Case(boxes: [box(-9_000_000, -8_999_000, -18_000_000, 18_000_000)], testDescription: "the south pole"),
        Case(boxes: [box(-4_500_000, 4_500_000, -9_000_000, 9_000_000), box(0, 4_500_000, 0, 9_000_000)],
             testDescription: "two boxes that overlap: each report once"),
        Case(boxes: [box(1, 0, 0, 1)], testDescription: "an empty box"),
        Case(boxes: [], testDescription: "no box"),
        Case(boxes: [box(-10_000_000, 10_000_000, -20_000_000, 20_000_000)], testDescription: "past the ranges: clamped to the world"),
    ]

    @Test("the boxes give every listed report whose position lies in one, once, and nothing else", arguments: cases)
    func boxes(c: Case) async throws {
        try await withTemporaryStore { store in
            try await Self.fill(store)
            #expect(try await store.placeIDs(in: c.boxes) == Self.expected(in: c.boxes))
            #expect(try await store.placeIDs(in: c.boxes, species: "cat") == Self.expected(in: c.boxes, species: "cat"))
            let places = try await store.boardPlaces(in: c.boxes, species: nil, limit: 10_000).places
            for place in places {
                let known = try #require(Self.places.first { $0.id == place.id })
                #expect(place.latitude == known.latitude && place.longitude == known.longitude)
                #expect(place.version == 1 && place.submittedAt == "2026-11-21T12:00:00Z")
            }
        }
    }

    /// The R*Tree keeps its positions as 32-bit integers: exact. (An `rtree` of 32-bit floats
    /// would keep 17 999 999 as 18 000 000, and round a box around it outward.) Every answer is
    /// also checked on the board's own columns.
    @Test("a point exactly on a box's edge is in it; one unit past the edge is not, on every side and near ±180°")
    func edges() async throws {
        try await withTemporaryStore { store in
            let points: [(String, Int, Int)] = [
                ("warsaw", 5_222_968, 2_101_223), ("next-north", 5_222_969, 2_101_223), ("next-east", 5_222_968, 2_101_224),
                ("far-east", 100_000, 17_999_999), ("edge-east", 100_000, 18_000_000), ("below-far-east", 100_000, 17_999_998),
            ]
            for (number, point) in points.enumerated() {
                _ = try await store.submit(boardReport(number, latitude: point.1, longitude: point.2, id: point.0))
            }
            #expect(try await store.placeIDs(in: [Self.box(5_222_968, 5_222_968, 2_101_223, 2_101_223)]) == ["warsaw"])
            #expect(try await store.placeIDs(in: [Self.box(5_222_900, 5_222_968, 2_101_200, 2_101_223)]) == ["warsaw"])
            #expect(try await store.placeIDs(in: [Self.box(5_222_968, 5_222_969, 2_101_223, 2_101_223)]) == ["next-north", "warsaw"])
            #expect(try await store.placeIDs(in: [Self.box(5_222_969, 5_223_000, 2_101_000, 2_101_300)]) == ["next-north"])
            #expect(try await store.placeIDs(in: [Self.box(5_222_000, 5_222_968, 2_101_224, 2_101_300)]) == ["next-east"])
            // Where 32-bit floats have a step of 2 units.
            #expect(try await store.placeIDs(in: [Self.box(100_000, 100_000, 17_999_999, 17_999_999)]) == ["far-east"])
            #expect(try await store.placeIDs(in: [Self.box(100_000, 100_000, 17_999_998, 17_999_999)]) == ["below-far-east", "far-east"])
            #expect(try await store.placeIDs(in: [Self.box(100_000, 100_000, 18_000_000, 18_000_000)]) == ["edge-east"])
            #expect(try await store.placeIDs(in: [Self.box(100_000, 100_000, 17_999_990, 17_999_998)]) == ["below-far-east"])
        }
    }

    @Test("a box left out: what lies in it is not given, on its edges neither")
    func excluding() async throws {
        try await withTemporaryStore { store in
            try await Self.fill(store)
            let poland = Self.box(4_900_000, 5_500_000, 1_400_000, 2_500_000)
            let outside = Self.expected(in: [.world]).filter { !Self.expected(in: [poland]).contains($0) }
            #expect(try await store.boardPlaces(in: [.world], excluding: [poland], species: nil, limit: 10_000).places.map(\.id).sorted()
                == outside)
            let warsaw = Self.box(5_222_968, 5_222_968, 2_101_223, 2_101_223)
            #expect(try await store.boardPlaces(in: [poland], excluding: [warsaw], species: nil, limit: 10).places.map(\.id)
                .filter { $0 == "warsaw" } == [])
            // Two boxes left out: neither's reports are given.
            let west = Self.box(4_900_000, 5_500_000, 1_400_000, 1_900_000), east = Self.box(4_900_000, 5_500_000, 2_000_000, 2_500_000)
            #expect(try await store.boardPlaces(in: [poland], excluding: [west, east], species: nil, limit: 10_000).places.map(\.id).sorted()
                == Self.expected(in: [poland]).filter { !Self.expected(in: [west, east]).contains($0) })
            // An empty box leaves nothing out.
            #expect(try await store.boardPlaces(in: [poland], excluding: [Self.box(1, 0, 1, 0)], species: nil, limit: 10_000).places
                .map(\.id).sorted() == Self.expected(in: [poland]))
        }
    }

    @Test("a search takes at most its limit, and says whether that was all")
    func limit() async throws {
        try await withTemporaryStore { store in
            for number in 0..<10 {
                _ = try await store.submit(boardReport(number, latitude: 5_000_000 + number, longitude: 2_000_000))
            }
            let all = try await store.boardPlaces(in: [.world], species: nil, limit: 10)
            #expect(all.places.count == 10 && all.complete)
            let some = try await store.boardPlaces(in: [.world], species: nil, limit: 9)
            #expect(some.places.count == 9 && !some.complete)
            let error = await #expect(throws: ReportStoreError.self) { try await store.boardPlaces(in: [.world], species: nil, limit: 0) }
            #expect(error?.kind == .invalidLimit)
        }
    }
}
