import Foundation
import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

/// Nearest first over an index of boxes, against the list's own order of every report.
@Suite("Nearest first by growing boxes")
struct NearestSearchTests {
    /// An index of exact positions answering boxes as the store does: the reports whose
    /// position (degrees × 100 000) lies in a box rounded outward, at most `limit`.
    final class BoxIndex: @unchecked Sendable {
        let reports: [PlacedReport]
        var fetches: [(boxes: [GeoBox], excluding: [GeoBox], given: Int)] = []

        init(_ reports: [PlacedReport]) { self.reports = reports }

        func fetch(_ boxes: [GeoBox], _ excluding: [GeoBox], _ limit: Int) -> (reports: [PlacedReport], complete: Bool) {
            func holds(_ box: (minLatitude: Int, maxLatitude: Int, minLongitude: Int, maxLongitude: Int), _ report: PlacedReport) -> Bool {
                let latitude = report.position.latitude.scaled, longitude = report.position.longitude.scaled
                return box.minLatitude <= latitude && latitude <= box.maxLatitude
                    && box.minLongitude <= longitude && longitude <= box.maxLongitude
            }
            let found = reports.filter { report in
                boxes.contains { holds($0.scaledOutward, report) } && !excluding.contains { holds($0.scaledInward, report) }
            }
            fetches.append((boxes, excluding, min(found.count, limit)))
            return (Array(found.prefix(limit)), found.count <= limit)
        }
    }

    /// The listing as `AnimalQuery` orders it, from every report at once.
    static func expected(_ reports: [PlacedReport], _ query: AnimalQuery, after: AnimalOrderKey?) -> [AnimalOrderKey] {
        var newest: [String: PlacedReport] = [:]
        for report in reports where (newest[report.id]?.version ?? .min) < report.version { newest[report.id] = report }
        let origin = query.origin!.point
        return newest.values.compactMap { report -> AnimalOrderKey? in
            let distance = GreatCircle.distanceKm(origin, report.position.rounded(toDecimals: query.standing.positionDecimals))
            if let area = query.area, !area.contains(distanceKm: distance) { return nil }
            let key = AnimalOrderKey(distanceKm: distance, submittedAt: report.submittedAt, id: report.id)
            return after.map { $0 < key } ?? true ? key : nil
        }.sorted()
    }

    static func placed(_ id: String, _ latitude: Int, _ longitude: Int, at submittedAt: String = "2026-11-21T12:00:00Z",
                       version: Int = 1) -> PlacedReport {
        PlacedReport(id: id, version: version, submittedAt: submittedAt,
                     position: try! GeoPoint(latitude: Coordinate(scaled: latitude), longitude: Coordinate(scaled: longitude)))
    }

    /// Reports scattered around a center (degrees × 100 000 within `spread`), some at one spot,
    /// some at one time, plus a few far away.
    static func scattered(around center: (Int, Int), spread: Int, count: Int, seed: UInt64) -> [PlacedReport] {
        var random = SeededRandom(seed: seed)
        var reports: [PlacedReport] = []
        for number in 0..<count {
            let latitude = max(-9_000_000, min(9_000_000, center.0 + Int.random(in: -spread...spread, using: &random)))
            var longitude = center.1 + Int.random(in: -spread...spread, using: &random)
            if longitude > 18_000_000 { longitude -= 36_000_000 }
            if longitude < -18_000_000 { longitude += 36_000_000 }
            let minute = Int.random(in: 0..<5, using: &random)
            reports.append(placed("r-\(number)", latitude, longitude, at: "2026-11-21T12:0\(minute):00Z"))
        }
        // Ties: three at one spot and one time.
        for tie in 0..<3 { reports.append(placed("tie-\(tie)", center.0, max(-18_000_000, center.1 - 1), at: "2026-11-21T12:00:00Z")) }
        reports.append(placed("far-1", -center.0, center.1 > 0 ? center.1 - 18_000_000 : center.1 + 18_000_000))
        reports.append(placed("far-2", 0, 0))
        return reports
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let center: (Int, Int)
        let spread: Int
        let radiusKm: Double?
        let standing: Standing
        let testDescription: String
    }

    static let cases: [Case] = [
        Case(center: (5_222_968, 2_101_223), spread: 50_000, radiusKm: nil, standing: .public, testDescription: "Warsaw, the public, no radius"),
        Case(center: (5_222_968, 2_101_223), spread: 50_000, radiusKm: nil, standing: .staff, testDescription: "Warsaw, staff"),
        Case(center: (5_222_968, 2_101_223), spread: 50_000, radiusKm: 5, standing: .public, testDescription: "Warsaw, 5 km"),
        Case(center: (5_222_968, 2_101_223), spread: 500, radiusKm: 0.2, standing: .public, testDescription: "a dense block, 200 m"),
        Case(center: (-1_781_000, 17_999_000), spread: 30_000, radiusKm: nil, standing: .public, testDescription: "Fiji, across ±180°"),
        Case(center: (100_000, -17_999_900), spread: 20_000, radiusKm: 10, standing: .staff, testDescription: "west of ±180°, 10 km"),
        Case(center: (8_995_000, 1_000_000), spread: 50_000, radiusKm: nil, standing: .public, testDescription: "by the north pole"),
        Case(center: (-9_000_000, 0), spread: 100_000, radiusKm: nil, standing: .staff, testDescription: "on the south pole"),
        Case(center: (0, 0), spread: 3_000_000, radiusKm: nil, standing: .public, testDescription: "sparse over a continent"),
    ]

    @Test("page by page, the same keys as ordering every report, whatever the page size", arguments: cases)
    func pages(c: Case) async throws {
        let reports = Self.scattered(around: c.center, spread: c.spread, count: 400, seed: UInt64(bitPattern: Int64(c.center.0 &+ c.center.1 &* 7)))
        let origin = try GeoPoint(latitude: Coordinate(scaled: c.center.0), longitude: Coordinate(scaled: c.center.1))
        let query = try AnimalQuery(origin: .near(origin), radiusKm: c.radiusKm, species: nil, standing: c.standing)
        for pageSize in [1, 7, 21] {
            let index = BoxIndex(reports)
            var after: AnimalOrderKey?
            var listed: [AnimalOrderKey] = []
            while true {
                let expected = Array(Self.expected(reports, query, after: after).prefix(pageSize))
                let outcome = await NearestSearch().next(in: query, after: after, count: pageSize) { boxes, excluding, limit in
                    index.fetch(boxes, excluding, limit)
                }
                #expect(outcome.keys == expected, "page after \(String(describing: after))")
                listed += outcome.keys
                guard outcome.keys.count == pageSize, let last = outcome.keys.last else { break }
                after = last
            }
            #expect(listed == Self.expected(reports, query, after: nil))
            // Bounded: no fetch gave more than the search takes.
            #expect(index.fetches.allSatisfy { $0.given <= NearestSearch().maxFetched })
        }
    }

    @Test("the first page takes a few fetches near the origin, not the whole index")
    func firstPageIsLocal() async throws {
        let center = (5_222_968, 2_101_223)
        let reports = Self.scattered(around: center, spread: 300_000, count: 5_000, seed: 42)
        let origin = try GeoPoint(latitude: Coordinate(scaled: center.0), longitude: Coordinate(scaled: center.1))
        let query = try AnimalQuery(origin: .near(origin), radiusKm: nil, species: nil, standing: .public)
        let index = BoxIndex(reports)
        let outcome = await NearestSearch().next(in: query, after: nil, count: 21) { boxes, excluding, limit in index.fetch(boxes, excluding, limit) }
        #expect(outcome.keys == Array(Self.expected(reports, query, after: nil).prefix(21)))
        #expect(outcome.fetches <= 4)
        #expect(outcome.fetched < 500, "\(outcome)")
    }

    /// Exactly 50.0 m past 1 km north of the origin, a public position rounds to 1.0008 km
    /// away: inside a radius of 1.001 km. Its exact position lies past the circle's own box.
    @Test("a report whose rounded position is within the radius is found, though its exact one lies outside the circle's box")
    func publicRounding() async throws {
        let origin = point("52.00000", "21.00000")
        let reports = [Self.placed("edge", 5_200_949, 2_100_000), Self.placed("out", 5_200_951, 2_100_000)]
        let query = try AnimalQuery(origin: .near(origin), radiusKm: 1.001, species: nil, standing: .public)
        let plainBox = try SearchArea(center: origin, radiusKm: 1.001).boundingBoxes()[0]
        #expect(!plainBox.contains(reports[0].position))
        let index = BoxIndex(reports)
        let outcome = await NearestSearch().next(in: query, after: nil, count: 5) { boxes, excluding, limit in index.fetch(boxes, excluding, limit) }
        #expect(outcome.keys.map(\.id) == ["edge"])
        // Staff measure from the exact position: it is outside.
        let staff = try AnimalQuery(origin: .near(origin), radiusKm: 1.001, species: nil, standing: .staff)
        #expect(await NearestSearch().next(in: staff, after: nil, count: 5) { boxes, excluding, limit in index.fetch(boxes, excluding, limit) }.keys == [])
    }

    @Test("a fetch that holds more than the search takes is narrowed; reports all at one spot are read without bound")
    func boundedFetches() async throws {
        let origin = point("52.00000", "21.00000")
        // A sparse ring, then a dense town 30 km away.
        var reports = (0..<4).map { Self.placed("near-\($0)", 5_200_000 + $0 * 2_000, 2_100_000) }
        reports += (0..<60).map { Self.placed("town-\($0)", 5_227_000 + $0 % 10 * 100, 2_100_000 + $0 / 10 * 100) }
        let query = try AnimalQuery(origin: .near(origin), radiusKm: nil, species: nil, standing: .staff)
        let search = NearestSearch(initialRadiusKm: 1, maxFetched: 20)
        let index = BoxIndex(reports)
        let outcome = await search.next(in: query, after: nil, count: 6) { boxes, excluding, limit in index.fetch(boxes, excluding, limit) }
        #expect(outcome.keys == Array(Self.expected(reports, query, after: nil).prefix(6)))
        #expect(index.fetches.allSatisfy { $0.given <= 20 })

        let spot = (0..<30).map { Self.placed("spot-\($0)", 5_210_000, 2_100_000) }
        let crowded = BoxIndex(spot)
        let all = await search.next(in: query, after: nil, count: 25) { boxes, excluding, limit in crowded.fetch(boxes, excluding, limit) }
        #expect(all.keys == Array(Self.expected(spot, query, after: nil).prefix(25)))
        #expect(crowded.fetches.last?.given == 30)
    }

    @Test("copies of a report count once, as their highest version")
    func copies() async throws {
        let origin = point("52.00000", "21.00000")
        let reports = [Self.placed("a", 5_200_100, 2_100_000, version: 1), Self.placed("a", 5_200_300, 2_100_000, version: 3),
                       Self.placed("b", 5_200_200, 2_100_000)]
        let query = try AnimalQuery(origin: .near(origin), radiusKm: nil, species: nil, standing: .staff)
        let index = BoxIndex(reports)
        let outcome = await NearestSearch().next(in: query, after: nil, count: 2) { boxes, excluding, limit in index.fetch(boxes, excluding, limit) }
        #expect(outcome.keys.map(\.id) == ["b", "a"])
        #expect(outcome.keys == Self.expected(reports, query, after: nil))
    }

    @Test("no origin, or a cursor past the reports with a position: nothing, and no fetch")
    func nothingToSearch() async throws {
        let index = BoxIndex([Self.placed("a", 0, 0)])
        let newest = try AnimalQuery(origin: nil, radiusKm: nil, species: nil, standing: .public)
        #expect(await NearestSearch().next(in: newest, after: nil, count: 5) { boxes, excluding, limit in index.fetch(boxes, excluding, limit) }.keys == [])
        let near = try AnimalQuery(origin: .near(point("0", "0")), radiusKm: nil, species: nil, standing: .public)
        let unplaced = AnimalOrderKey(distanceKm: nil, submittedAt: "2026-11-21T12:00:00Z", id: "x")
        #expect(await NearestSearch().next(in: near, after: unplaced, count: 5) { boxes, excluding, limit in index.fetch(boxes, excluding, limit) }.keys == [])
        #expect(index.fetches.isEmpty)
    }

    @Test("a deep page reads the ring past its cursor, not the pages before it again")
    func deepPage() async throws {
        let center = (5_222_968, 2_101_223)
        let reports = Self.scattered(around: center, spread: 300_000, count: 5_000, seed: 7)
        let origin = try GeoPoint(latitude: Coordinate(scaled: center.0), longitude: Coordinate(scaled: center.1))
        let query = try AnimalQuery(origin: .near(origin), radiusKm: nil, species: nil, standing: .public)
        let keys = Self.expected(reports, query, after: nil)
        let after = keys[999]
        let index = BoxIndex(reports)
        let outcome = await NearestSearch().next(in: query, after: after, count: 21) { boxes, excluding, limit in
            index.fetch(boxes, excluding, limit)
        }
        #expect(outcome.keys == Array(keys[1_000..<1_021]))
        #expect(index.fetches.allSatisfy { $0.excluding.count == 2 })
        // The same search given everything in its boxes reads half as much again, or more.
        let everything = BoxIndex(reports)
        let unexcluded = await NearestSearch().next(in: query, after: after, count: 21) { boxes, _, limit in
            everything.fetch(boxes, [], limit)
        }
        #expect(unexcluded.keys == outcome.keys)
        #expect(Double(outcome.fetched) * 2 < Double(unexcluded.fetched), "\(outcome) against \(unexcluded)")
    }

    @Test("the boxes left out past a cursor hold only positions nearer than it, as each standing measures them",
          arguments: [("52.22968", "21.01223"), ("-33.86882", "151.20930"), ("0", "0"), ("70.0", "-179.5"), ("88.9", "10")])
    func innerBox(latitude: String, longitude: String) throws {
        let origin = point(latitude, longitude)
        for km in [0.05, 0.3, 1, 7.5, 40, 300] {
            for standing in Standing.allCases {
                let reach = NearestSearch.roundingReach(decimals: standing.positionDecimals)
                let boxes = NearestSearch.innerBoxes(around: origin, nearerThanKm: km, reach: reach)
                #expect(boxes.count == 0 || boxes.count == 2)
                for box in boxes {
                    let scaled = box.scaledInward
                    #expect(scaled.minLatitude <= scaled.maxLatitude && scaled.minLongitude <= scaled.maxLongitude)
                    // Its edges, corners and a grid inside, on the 5-decimal grid.
                    for i in 0...20 {
                        for j in 0...20 {
                            let position = try GeoPoint(
                                latitude: Coordinate(scaled: scaled.minLatitude + (scaled.maxLatitude - scaled.minLatitude) * i / 20),
                                longitude: Coordinate(scaled: scaled.minLongitude + (scaled.maxLongitude - scaled.minLongitude) * j / 20))
                            let distance = GreatCircle.distanceKm(origin, position.rounded(toDecimals: standing.positionDecimals))
                            #expect(distance < km, "\(position) is \(distance) km from \(origin), not under \(km)")
                        }
                    }
                }
            }
        }
        // Near a pole or ±180°, none.
        #expect(NearestSearch.innerBoxes(around: point("89.5", "0"), nearerThanKm: 100, reach: 0) == [])
        #expect(NearestSearch.innerBoxes(around: point("0", "179.99"), nearerThanKm: 10, reach: 0) == [])
        #expect(NearestSearch.innerBoxes(around: point("0", "0"), nearerThanKm: 0.01, reach: 0.0005) == [])
        // Away from both, the cross is there, and covers more than a square in the circle would.
        let center = point("52.0", "21.0")
        let cross = NearestSearch.innerBoxes(around: center, nearerThanKm: 30, reach: 0.0005)
        #expect(cross.count == 2)
        var inCircle = 0, inCross = 0
        for i in -100...100 {
            for j in -100...100 {
                let position = try GeoPoint(latitude: Coordinate(scaled: 5_200_000 + i * 270), longitude: Coordinate(scaled: 2_100_000 + j * 440))
                guard GreatCircle.distanceKm(center, position) < 30 else { continue }
                inCircle += 1
                if cross.contains(where: { $0.contains(position) }) { inCross += 1 }
            }
        }
        #expect(Double(inCross) > Double(inCircle) * 0.7, "\(inCross) of \(inCircle)")
    }

    @Test("a box's bounds in degrees × 100 000, rounded outward or inward")
    func scaledBounds() {
        let box = GeoBox(minLatitude: 52.229685, maxLatitude: 52.2296801, minLongitude: -180.0000001, maxLongitude: 21.012225)
        let outward = box.scaledOutward
        #expect(outward.minLatitude == 5_222_968 && outward.maxLatitude == 5_222_969)
        #expect(outward.minLongitude == -18_000_001 && outward.maxLongitude == 2_101_223)
        let inward = box.scaledInward
        #expect(inward.minLatitude == 5_222_969 && inward.maxLatitude == 5_222_968)
        #expect(inward.minLongitude == -18_000_000 && inward.maxLongitude == 2_101_222)
    }
}

/// A reproducible random sequence (SplitMix64), so a failing case fails again.
struct SeededRandom: RandomNumberGenerator {
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
