// The animal list over a board of many reports, in process: how long a page takes, per kind of
// query, from the store's reads and PetSpotBoard's rules, as the daemon makes one.
//   petspot-board-load DATABASE [reports] [queries per kind]
// Last, it erases as many reports as it asks pages of a kind, each timed: erasure's cost.
// A DATABASE that does not hold the reports yet is filled first: reports spread over Poland,
// one in 30 without a position, of three species, submitted over 90 days. FLEET=n also puts n
// other boxes' reports on the board (as the relay brings them, 1,000 to a call), spread the same
// way, so that the pages are read over the box's own reports and the fleet's together.
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Synchronization
import PetSpotBoard
import PetSpotJSON
import PetSpotStore
import PetSpotViews

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: petspot-board-load DATABASE [reports] [queries per kind]")
    exit(64)
}
let path = arguments[1]
let reportCount = arguments.count > 2 ? Int(arguments[2]) ?? 100_000 : 100_000
let queries = arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200
let pageSize = 20

/// Poland's bounding box, degrees × 100 000.
let latitudes = 4_900_200...5_483_500, longitudes = 1_412_300...2_414_600
let species = ["dog", "cat", "rabbit"]

let store = try await ReportStore(path: path, now: Date(), box: "petspot-board-load")

// MARK: - Filling

let already = try await store.boardCount()
if already < reportCount {
    let clock = ContinuousClock()
    let began = clock.now
    let start = Date(timeIntervalSince1970: 1_788_000_000)
    try await withThrowingTaskGroup(of: Void.self) { group in
        // 64 writers: the store groups their submits, 64 to a transaction.
        for writer in 0..<64 {
            group.addTask {
                var random = SystemRandomNumberGenerator()
                for number in stride(from: already + writer, to: reportCount, by: 64) {
                    let placed = number % 30 != 0
                    let latitude = placed ? Int.random(in: latitudes, using: &random) : nil
                    let longitude = placed ? Int.random(in: longitudes, using: &random) : nil
                    let kind = species[number % 3]
                    let chip = chipNumber(number)
                    let submittedAt = Date.ISO8601FormatStyle().format(start.addingTimeInterval(Double(Int.random(in: 0..<(90 * 86_400), using: &random))))
                    let values = #"{"chipNumber":"\#(chip)","photo":null,"disappearanceDate":"2026-11-20","species":"\#(kind)","#
                        + #""race":"Beagle","gender":"male","age":3,"latitude":\#(latitude.map(degrees) ?? "null"),"#
                        + #""longitude":\#(longitude.map(degrees) ?? "null"),"additionalDescription":"Red collar, answers to Rex, "#
                        + #"shy with strangers; last seen near the park","contactPhone":"+48123456789","contactEmail":"owner@example.org"}"#
                    _ = try await store.submit(NewReport(
                        id: "report-\(number)", flowID: "flow-\(number)", ownerUID: 1000, submittedAt: submittedAt,
                        valuesJSON: values, photo: nil,
                        board: BoardFields(latitude: latitude, longitude: longitude, chipDigits: chip, species: kind, publicPhoto: nil)))
                }
            }
        }
        try await group.waitForAll()
    }
    print("filled \(reportCount - already) reports in \(seconds(began.duration(to: clock.now))) s")
}
let fleetCount = Int(ProcessInfo.processInfo.environment["FLEET"] ?? "") ?? 0
let fleetAlready = try await store.fleetState().reports
if fleetAlready < fleetCount {
    let clock = ContinuousClock()
    let began = clock.now
    var random = SystemRandomNumberGenerator()
    let bounds = FleetBounds(maxReports: max(fleetCount, 100_000), maxPhotoBytes: 1 << 30, origin: nil)
    for first in stride(from: fleetAlready, to: fleetCount, by: 1_000) {
        var copies: [FleetChange] = []
        for number in first..<min(first + 1_000, fleetCount) {
            let placed = number % 30 != 0
            let latitude = placed ? Int.random(in: latitudes, using: &random) : nil
            let longitude = placed ? Int.random(in: longitudes, using: &random) : nil
            let kind = species[number % 3]
            let chip = chipNumber(1_000_000_000 + number)
            let submittedAt = Date.ISO8601FormatStyle().format(Date(timeIntervalSince1970: 1_788_000_000 + Double(Int.random(in: 0..<(90 * 86_400), using: &random))))
            let values = #"{"chipNumber":"\#(chip)","photo":null,"disappearanceDate":"2026-11-20","species":"\#(kind)","#
                + #""race":"Beagle","gender":"male","age":3,"latitude":\#(latitude.map(degrees) ?? "null"),"#
                + #""longitude":\#(longitude.map(degrees) ?? "null"),"additionalDescription":"Red collar","#
                + #""contactPhone":"+48123456789","contactEmail":"owner@example.org"}"#
            copies.append(.listed(FleetCopy(
                id: "fleet-\(number)", box: "kiosk-\(number % 40)", version: 1, submittedAt: submittedAt, updatedAt: Date(), valuesJSON: values,
                board: BoardFields(latitude: latitude, longitude: longitude, chipDigits: chip, species: kind, publicPhoto: nil), photo: nil)))
        }
        _ = try await store.applyFleet(copies, cursor: first + copies.count, bounds: bounds, now: Date())
    }
    print("brought \(fleetCount - fleetAlready) other boxes' reports in \(seconds(began.duration(to: clock.now))) s")
}
print("reports listed: \(try await store.boardCount()) (of other boxes: \(try await store.fleetState().reports))")

func degrees(_ scaled: Int) -> String { Coordinate(scaled: scaled).text }

/// 15 digits: a country code and the report's number.
func chipNumber(_ number: Int) -> String {
    let digits = String(number)
    return "61609" + String(repeating: "0", count: max(0, 10 - digits.count)) + digits
}

/// Two decimals.
func twoDecimals(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = String(hundredths % 100)
    return "\(hundredths / 100)." + (fraction.count < 2 ? "0" : "") + fraction
}

// MARK: - Pages

/// Fetches of the nearest-first searches and the reports they gave, since the last `measure` began.
let searchCost = Mutex((fetches: 0, fetched: 0))

/// The daemon's index of the board, counting what the nearest-first searches fetch.
struct CountingIndex: AnimalIndex {
    let board: BoardAnimalIndex

    func places(in boxes: [GeoBox], excluding: [GeoBox], species: String?, limit: Int)
        async throws(ReportStoreError) -> (reports: [PlacedReport], complete: Bool)
    {
        let found = try await board.places(in: boxes, excluding: excluding, species: species, limit: limit)
        searchCost.withLock { $0 = ($0.fetches + 1, $0.fetched + found.reports.count) }
        return found
    }

    func animals(ids: [String]) async throws(ReportStoreError) -> [StoredAnimal] {
        try await board.animals(ids: ids)
    }

    func newestFirst(after: (submittedAt: String, id: String)?, species: String?, withPosition: Bool?,
                     limit: Int) async throws(ReportStoreError) -> [StoredAnimal]
    {
        try await board.newestFirst(after: after, species: species, withPosition: withPosition, limit: limit)
    }
}

/// One page of `query` after `after`, as the daemon makes it.
func page(_ query: AnimalQuery, after: AnimalOrderKey?) async throws -> AnimalListPage {
    try await query.page(from: CountingIndex(board: BoardAnimalIndex(store: store)), after: after, limit: pageSize)
}

func randomPoint() -> GeoPoint {
    try! GeoPoint(latitude: Coordinate(scaled: Int.random(in: latitudes)), longitude: Coordinate(scaled: Int.random(in: longitudes)))
}

// MARK: - Measuring

func seconds(_ duration: Duration) -> String {
    let ms = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    return String(Int((ms / 1000).rounded()))
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Times `body` `queries` times (after a few untimed runs) and prints p50, p99 and the largest.
/// `counted`: what a timed call is and what it gives ("pages", "animals").
func measure(_ name: String, counted: (calls: String, items: String) = ("pages", "animals"), _ body: () async throws -> Int) async throws {
    let clock = ContinuousClock()
    for _ in 0..<5 { _ = try await body() }
    var times: [Double] = []
    var listed = 0
    searchCost.withLock { $0 = (0, 0) }
    for _ in 0..<queries {
        let began = clock.now
        listed += try await body()
        times.append(milliseconds(began.duration(to: clock.now)))
    }
    times.sort()
    func at(_ p: Double) -> String {
        let value = times[min(times.count - 1, Int(Double(times.count) * p))]
        return twoDecimals(value)
    }
    let cost = searchCost.withLock { $0 }
    let searched = cost.fetches == 0 ? "" : ", \(twoDecimals(Double(cost.fetches) / Double(queries))) fetches of "
        + "\(cost.fetched / queries) reports in all"
    print("\(name): p50 \(at(0.5)) ms, p99 \(at(0.99)) ms, max \(twoDecimals(times.last ?? 0)) ms"
        + " (\(queries) \(counted.calls), \(listed / max(queries, 1)) \(counted.items) each\(searched))")
}

/// The cursor of the page before page `number`, walked to untimed.
func cursor(_ query: AnimalQuery, beforePage number: Int) async throws -> AnimalOrderKey? {
    var after: AnimalOrderKey?
    for _ in 1..<number { after = try await page(query, after: after).cursor?.after }
    return after
}

try await measure("nearest first, no radius, page 1") {
    try await page(try AnimalQuery(origin: .near(randomPoint()), radiusKm: nil, species: nil, standing: .public), after: nil).animals.count
}
try await measure("nearest first, staff, page 1") {
    try await page(try AnimalQuery(origin: .near(randomPoint()), radiusKm: nil, species: nil, standing: .staff), after: nil).animals.count
}
try await measure("nearest first, radius 5 km, page 1") {
    try await page(try AnimalQuery(origin: .near(randomPoint()), radiusKm: 5, species: nil, standing: .public), after: nil).animals.count
}
try await measure("nearest first, cats, page 1") {
    try await page(try AnimalQuery(origin: .near(randomPoint()), radiusKm: nil, species: "cat", standing: .public), after: nil).animals.count
}
try await measure("newest first, page 1") {
    try await page(try AnimalQuery(origin: nil, radiusKm: nil, species: nil, standing: .public), after: nil).animals.count
}
try await measure("newest first, cats, page 1") {
    try await page(try AnimalQuery(origin: nil, radiusKm: nil, species: "cat", standing: .public), after: nil).animals.count
}

// Deep pages: the cursors of page 50 at a number of origins, then each page timed.
let deepOrigins = max(queries / 10, 5)
var deep: [(AnimalQuery, AnimalOrderKey?)] = []
for _ in 0..<deepOrigins {
    let query = try AnimalQuery(origin: .near(randomPoint()), radiusKm: nil, species: nil, standing: .public)
    deep.append((query, try await cursor(query, beforePage: 50)))
}
var next = 0
try await measure("nearest first, page 50") {
    defer { next += 1 }
    let (query, after) = deep[next % deep.count]
    return try await page(query, after: after).animals.count
}
let newest = try AnimalQuery(origin: nil, radiusKm: nil, species: nil, standing: .public)
let newestAfter = try await cursor(newest, beforePage: 50)
try await measure("newest first, page 50") { try await page(newest, after: newestAfter).animals.count }
try await measure("chip lookup") {
    try await store.boardEntries(chipDigits: chipNumber(Int.random(in: 0..<reportCount)), limit: 20).count
}
// Erasure on a board this size: each report's personal data out of the database file and its
// WAL (secure_delete, a checkpoint that truncates), one report at a time, as reports.erase does.
// The reports erased stay erased: run on a fresh DATABASE to measure again.
var erasable = Array((0..<reportCount).shuffled().prefix(queries + 5))
try await measure("reports.erase, one report", counted: ("erasures", "report")) {
    guard let number = erasable.popLast() else { return 0 }
    do {
        _ = try await store.erase(id: "report-\(number)", ownerUID: 1000, now: Date())
        return 1
    } catch {
        print("report-\(number): \(error)")
        return 0
    }
}
try await store.close()
