import Foundation
import PetSpotTestSupport
import Testing
@testable import PetSpotStore

/// The board follows each report's life in the transaction that changes it: what each change
/// leaves on the board, read back by every read the list has, on a real SQLite file.
@Suite("The board through a report's life")
struct ReportStoreBoardLifeTests {
    static let submittedAt = "2026-11-21T12:00:00Z"
    static let submitted = Date(timeIntervalSince1970: 1_795_262_400)  // 2026-11-21T12:00:00Z
    static let t1 = Date(timeIntervalSince1970: 1_796_100_000)
    static let t2 = Date(timeIntervalSince1970: 1_796_200_000)
    static let t3 = Date(timeIntervalSince1970: 1_796_300_000)

    /// The report every case starts from: with a position, chip, species and a photo whose
    /// public copy is described.
    static let report = boardReport(1, chip: "616093900012345", submittedAt: submittedAt,
                                    photo: sampleBoardPhoto, publicPhoto: sampleBoardPublicPhoto)

    static let newPhoto = StoredPhoto(mediaType: "image/png", sha256: String(repeating: "3c", count: 32), data: [1, 2, 3, 4, 5])
    static let newPublicPhoto = PhotoDescription(mediaType: "image/png", bytes: 4, sha256: String(repeating: "4d", count: 32))
    /// Moved from Warsaw to Kraków, chip and species changed.
    static let amendedValues = boardValues(latitude: 5_006_147, longitude: 1_993_659, species: "cat", chip: "900123456789012",
                                           photo: newPhoto.described, email: "new@example.org")
    static let amendedFields = BoardFields(latitude: 5_006_147, longitude: 1_993_659, chipDigits: "900123456789012",
                                           species: "cat", publicPhoto: newPublicPhoto)

    /// The entry as submit puts it on the board.
    static func entry(status: ReportStatus = .missing, version: Int = 1, updatedAt: Date = submitted,
                      values: String = report.valuesJSON, latitude: Int? = 5_222_968, longitude: Int? = 2_101_223,
                      chip: String? = "616093900012345", species: String? = "dog",
                      photo: PhotoDescription? = sampleBoardPhoto.described,
                      publicPhoto: PublicPhoto = .cleaned(sampleBoardPublicPhoto)) -> BoardEntry {
        BoardEntry(id: "report-1", box: testBox, isOwn: true, status: status, version: version, submittedAt: submittedAt,
                   updatedAt: updatedAt, valuesJSON: values, latitude: latitude, longitude: longitude, chipDigits: chip,
                   species: species, photo: photo, publicPhoto: publicPhoto)
    }

    enum Step: Sendable, CustomStringConvertible {
        case close(ReportChange.Closing, Date)
        case renew(Date)
        case expire(Date)
        case eraseByRetention(Date)
        case erase(Date)
        case amend(values: String, photo: PhotoAmendment, board: BoardFields, Date)

        var description: String {
            switch self {
            case .close(let outcome, _): "close \(outcome)"
            case .renew: "renew"
            case .expire: "expire"
            case .eraseByRetention: "erase by retention"
            case .erase: "erase"
            case .amend(_, let photo, _, _): "amend (photo \(photo))"
            }
        }

        func apply(to store: ReportStore) async throws {
            switch self {
            case .close(let outcome, let now):
                _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: outcome, now: now)
            case .renew(let now):
                _ = try await store.renew(id: "report-1", ownerUID: 1000, now: now)
            case .expire(let now):
                #expect(try await store.expireByRetention(now: now, expireAfter: .zero, maxReports: 10).count == 1)
            case .eraseByRetention(let now):
                #expect(try await store.eraseByRetention(now: now, eraseAfter: .zero, maxReports: 10).count == 1)
            case .erase(let now):
                _ = try await store.erase(id: "report-1", ownerUID: 1000, now: now)
            case .amend(let values, let photo, let board, let now):
                _ = try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: values, photo: photo, board: board, now: now)
            }
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let steps: [Step]
        /// The board's entry after them; nil: gone.
        let expected: BoardEntry?
        var testDescription: String { steps.isEmpty ? "submit" : "submit, " + steps.map(\.description).joined(separator: ", ") }
    }

    static let cases: [Case] = [
        Case(steps: [], expected: entry()),
        Case(steps: [.close(.found, t1)], expected: entry(status: .found, version: 2, updatedAt: t1)),
        Case(steps: [.close(.withdrawn, t1)], expected: entry(status: .withdrawn, version: 2, updatedAt: t1)),
        Case(steps: [.expire(t1)], expected: entry(status: .expired, version: 2, updatedAt: t1)),
        Case(steps: [.renew(t1)], expected: entry(version: 2, updatedAt: t1)),
        Case(steps: [.expire(t1), .renew(t2)], expected: entry(version: 3, updatedAt: t2)),
        Case(steps: [.expire(t1), .close(.found, t2)], expected: entry(status: .found, version: 3, updatedAt: t2)),
        Case(steps: [.amend(values: amendedValues, photo: .replace(newPhoto), board: amendedFields, t1)],
             expected: entry(version: 2, updatedAt: t1, values: amendedValues, latitude: 5_006_147, longitude: 1_993_659,
                             chip: "900123456789012", species: "cat", photo: newPhoto.described, publicPhoto: .cleaned(newPublicPhoto))),
        // Keeping the photo keeps its public copy, whatever the fields say of one.
        Case(steps: [.amend(values: amendedValues, photo: .keep, board: amendedFields, t1)],
             expected: entry(version: 2, updatedAt: t1, values: amendedValues, latitude: 5_006_147, longitude: 1_993_659,
                             chip: "900123456789012", species: "cat")),
        // A photo that cannot be cleaned: the public is shown none.
        Case(steps: [.amend(values: report.valuesJSON, photo: .replace(newPhoto), board: report.board.withoutPublicPhoto, t1)],
             expected: entry(version: 2, updatedAt: t1, photo: newPhoto.described, publicPhoto: .withheld)),
        Case(steps: [.amend(values: report.valuesJSON, photo: .remove, board: report.board, t1)],
             expected: entry(version: 2, updatedAt: t1, photo: nil, publicPhoto: .withheld)),
        // The position gone: listed still, found by no box.
        Case(steps: [.amend(values: boardValues(latitude: nil, longitude: nil, species: "dog", chip: nil, photo: sampleBoardPhoto.described),
                            photo: .keep, board: BoardFields(latitude: nil, longitude: nil, chipDigits: nil, species: "dog", publicPhoto: nil), t1)],
             expected: entry(version: 2, updatedAt: t1,
                             values: boardValues(latitude: nil, longitude: nil, species: "dog", chip: nil, photo: sampleBoardPhoto.described),
                             latitude: nil, longitude: nil, chip: nil)),
        // Closed, then amended: refused, the board as the close left it.
        Case(steps: [.close(.found, t1), .amend(values: amendedValues, photo: .keep, board: amendedFields, t2)],
             expected: entry(status: .found, version: 2, updatedAt: t1)),
        Case(steps: [.erase(t1)], expected: nil),
        Case(steps: [.close(.found, t1), .erase(t2)], expected: nil),
        Case(steps: [.close(.withdrawn, t1), .eraseByRetention(t2)], expected: nil),
        Case(steps: [.expire(t1), .eraseByRetention(t2)], expected: nil),
        Case(steps: [.amend(values: amendedValues, photo: .replace(newPhoto), board: amendedFields, t1), .expire(t2), .renew(t3)],
             expected: entry(version: 4, updatedAt: t3, values: amendedValues, latitude: 5_006_147, longitude: 1_993_659,
                             chip: "900123456789012", species: "cat", photo: newPhoto.described, publicPhoto: .cleaned(newPublicPhoto))),
    ]

    @Test("each change leaves the board as the report now is, on every read of the list", arguments: cases)
    func change(c: Case) async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await withStore(path: path) { store in
                // A neighbour that no change touches: submitted after every change, so no sweep takes it.
                _ = try await store.submit(boardReport(2, latitude: 5_222_000, longitude: 2_101_000, chip: "616093900099999",
                                                       submittedAt: "2026-12-31T00:00:00Z"))
                _ = try await store.submit(Self.report)
                for step in c.steps {
                    do {
                        try await step.apply(to: store)
                    } catch ReportChangeError.refused {
                        // Refused changes are part of some cases: nothing is written.
                    }
                }
                try await Self.check(store, path: path, expected: c.expected)
                // The neighbour is as it was.
                #expect(try await store.boardEntry(id: "report-2")?.version == 1)
            }
            // And so it reads after opening again.
            try await withStore(path: path) { store async throws in
                #expect(try await store.boardEntry(id: "report-1") == c.expected)
            }
        }
    }

    /// Every read of the board agrees with `expected` (report-1) beside report-2, which stays listed.
    static func check(_ store: ReportStore, path: String, expected: BoardEntry?) async throws {
        #expect(try await store.boardEntry(id: "report-1") == expected)
        #expect(try await store.boardEntries(ids: ["report-1", "report-2"]).count == (expected == nil ? 1 : 2))
        let listed = expected?.status == .missing
        let placed = listed && expected?.latitude != nil
        #expect(try await store.boardCount() == (listed ? 2 : 1))
        #expect(try await store.newestIDs() == (listed ? ["report-2", "report-1"] : ["report-2"]))
        #expect(try await store.newestIDs(position: .without) == (listed && !placed ? ["report-1"] : []))
        #expect(try await store.placeIDs(in: [.world]) == (placed ? ["report-1", "report-2"] : ["report-2"]))
        if placed, let expected, let latitude = expected.latitude, let longitude = expected.longitude {
            // Found at its own position, by its species; not where it was.
            let here = ScaledBox(minLatitude: latitude, maxLatitude: latitude, minLongitude: longitude, maxLongitude: longitude)
            #expect(try await store.placeIDs(in: [here], species: expected.species) == ["report-1"])
            #expect(try await store.placeIDs(in: [here], species: "hamster") == [])
        }
        for chip in ["616093900012345", "900123456789012"] {
            let found = try await store.boardEntries(chipDigits: chip, limit: 10).map(\.id)
            #expect(found == (listed && expected?.chipDigits == chip ? ["report-1"] : []), "chip \(chip)")
        }
        let photo = try await store.boardPhoto(id: "report-1")
        #expect(photo?.described == (listed ? expected?.photo : nil))
        let rows = try await boardRowCounts(path: path)
        #expect(rows.board == (expected == nil ? 1 : 2))
        #expect(rows.positions == (placed ? 2 : 1))
    }

    @Test("board fields the store cannot keep are refused by name: nothing is stored or changed")
    func invalidFields() async throws {
        try await withTemporaryStore { store in
            let bad: [(BoardFields, String)] = [
                (BoardFields(latitude: 9_000_001, longitude: 0, chipDigits: nil, species: nil, publicPhoto: nil), "latitude 9000001"),
                (BoardFields(latitude: 0, longitude: -18_000_001, chipDigits: nil, species: nil, publicPhoto: nil), "longitude -18000001"),
                (BoardFields(latitude: 5_000_000, longitude: nil, chipDigits: nil, species: nil, publicPhoto: nil), "both latitude and longitude"),
                (BoardFields(latitude: nil, longitude: nil, chipDigits: "616-093", species: nil, publicPhoto: nil), "chipDigits \"616-093\""),
            ]
            for (fields, named) in bad {
                var report = boardReport(1)
                report.board = fields
                let error = await #expect(throws: ReportStoreError.self) { try await store.submit(report) }
                #expect(error?.kind == .invalidBoardFields)
                #expect(error?.message.contains(named) == true, "\(String(describing: error))")
            }
            #expect(try await store.count() == 0)

            _ = try await store.submit(boardReport(1))
            for (fields, named) in bad {
                do throws(ReportChangeError) {
                    _ = try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: "{}", photo: .keep, board: fields, now: Self.t1)
                    Issue.record("amended with \(fields)")
                } catch {
                    guard case .rejected(let rejection as ReportStoreError) = error else { throw error }
                    #expect(rejection.kind == .invalidBoardFields)
                    #expect(rejection.message.contains(named))
                }
            }
            #expect(try await store.boardEntry(id: "report-1")?.version == 1)
        }
    }

    @Test("a group of submits puts each on the board in its transaction; a member refused is not on it")
    func groupOnBoard() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(boardReport(1, id: "taken"))
            let reports = (2...9).map { boardReport($0, latitude: 5_000_000 + $0, longitude: 2_000_000 + $0) }
                + [boardReport(10, id: "taken")]
            try await store.holdingTurn {
                for report in reports { Task { _ = try? await store.submit(report) } }
                try await waitUntil("the submits are queued") { () async in store.queuedSubmits == reports.count }
            }
            try await waitUntil("the group is stored") { try await store.boardCount() == 9 }
            #expect(try await store.placeIDs(in: [.world]) == (["taken"] + (2...9).map { "report-\($0)" }).sorted())
            #expect(try await store.boardEntry(id: "taken")?.chipDigits == boardReport(1).board.chipDigits)
        }
    }
}

extension BoardFields {
    var withoutPublicPhoto: BoardFields {
        var fields = self
        fields.publicPhoto = nil
        return fields
    }
}
