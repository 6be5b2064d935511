import Foundation
import Testing
@testable import PetSpotStore

/// An owner's changes to stored reports, on a real SQLite file.
@Suite("Changing a stored report")
struct ReportStoreLifeTests {
    static let later = Date(timeIntervalSince1970: 1_796_100_000)
    static let evenLater = Date(timeIntervalSince1970: 1_796_200_000)

    /// The refusal a change was met with; fails the test on any other outcome.
    static func refusal(_ body: () async throws(ReportChangeError) -> ReportChangeResult) async -> ReportRefusal? {
        do {
            let result = try await body()
            Issue.record("expected a refusal, got \(result)")
            return nil
        } catch {
            guard case .refused(let refusal) = error else {
                Issue.record("expected a refusal, got \(error)")
                return nil
            }
            return refusal
        }
    }

    @Test("close: a missing report is found, version 2, erase base from now; the same close again changes nothing")
    func close() async throws {
        try await withTemporaryStore { store in
            let submitted = try await store.submit(sampleReport(1)).report
            let closed = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: Self.later)
            #expect(closed.changed)
            #expect(closed.report.life == ReportLife(status: .found, version: 2, updatedAt: Self.later, expiryBase: nil,
                                                     eraseBase: Self.later, erasedAt: nil))
            #expect(closed.report.valuesJSON == submitted.valuesJSON)
            #expect(try await store.get(id: "report-1", ownerUID: 1000) == closed.report)
            #expect(try await store.list(ownerUID: 1000, limit: 5, cursor: nil).reports == [closed.report])
            #expect(try await store.reports(ids: ["report-1"]) == [closed.report])

            let again = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: Self.evenLater)
            #expect(!again.changed)
            #expect(again.report == closed.report)
        }
    }

    @Test("an expired report closes; a closed one refuses the other outcome, renewal and amendment, changing nothing")
    func closedRefusals() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1))
            _ = try await store.expireByRetention(now: Self.later, expireAfter: .zero, maxReports: 10)
            let closed = try await store.close(id: "report-1", ownerUID: 1000, outcome: .withdrawn, now: Self.evenLater)
            #expect(closed.changed)
            #expect(closed.report.life == ReportLife(status: .withdrawn, version: 3, updatedAt: Self.evenLater,
                                                     expiryBase: nil, eraseBase: Self.evenLater, erasedAt: nil))
            let countsBefore = try await store.deliveryCounts()

            #expect(await Self.refusal { () async throws(ReportChangeError) in
                try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: Self.evenLater)
            } == .reportClosed(.withdrawn))
            #expect(await Self.refusal { () async throws(ReportChangeError) in
                try await store.renew(id: "report-1", ownerUID: 1000, now: Self.evenLater)
            } == .reportClosed(.withdrawn))
            #expect(await Self.refusal { () async throws(ReportChangeError) in
                try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: "{}", photo: .remove, board: .none, now: Self.evenLater)
            } == .reportClosed(.withdrawn))
            #expect(try await store.get(id: "report-1", ownerUID: 1000) == closed.report)
            #expect(try await store.deliveryCounts() == countsBefore)
        }
    }

    @Test("another user's report, or no report, is not found, for every change, and is left as it was")
    func notFound() async throws {
        try await withTemporaryStore { store in
            let stored = try await store.submit(sampleReport(1, owner: 2000)).report
            for (id, owner) in [("report-1", UInt32(1000)), ("no-such-report", UInt32(2000))] {
                #expect(await Self.refusal { () async throws(ReportChangeError) in
                    try await store.close(id: id, ownerUID: owner, outcome: .found, now: Self.later)
                } == .reportNotFound)
                #expect(await Self.refusal { () async throws(ReportChangeError) in
                    try await store.renew(id: id, ownerUID: owner, now: Self.later)
                } == .reportNotFound)
                #expect(await Self.refusal { () async throws(ReportChangeError) in
                    try await store.amend(id: id, ownerUID: owner, valuesJSON: "{}", photo: .keep, board: .none, now: Self.later)
                } == .reportNotFound)
                #expect(await Self.refusal { () async throws(ReportChangeError) in
                    try await store.erase(id: id, ownerUID: owner, now: Self.later)
                } == .reportNotFound)
            }
            #expect(try await store.get(id: "report-1", ownerUID: 2000) == stored)
        }
    }

    @Test("renew: missing again, expiring from now, a new version each time; an expired report comes back")
    func renew() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1))
            let renewed = try await store.renew(id: "report-1", ownerUID: 1000, now: Self.later)
            #expect(renewed.changed)
            #expect(renewed.report.life == ReportLife(status: .missing, version: 2, updatedAt: Self.later,
                                                      expiryBase: Self.later, eraseBase: nil, erasedAt: nil))
            _ = try await store.expireByRetention(now: Self.evenLater, expireAfter: .zero, maxReports: 10)
            let back = try await store.renew(id: "report-1", ownerUID: 1000, now: Self.evenLater)
            #expect(back.report.life == ReportLife(status: .missing, version: 4, updatedAt: Self.evenLater,
                                                   expiryBase: Self.evenLater, eraseBase: nil, erasedAt: nil))
        }
    }

    @Test("amend: values and photo as given, status kept; the same values and photo change nothing")
    func amend() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, photo: samplePhoto))
            let newPhoto = StoredPhoto(mediaType: "image/png", sha256: String(repeating: "cd", count: 32), data: [1, 2, 3, 4])
            let values = #"{"species":"cat","contactEmail":"new@example.org"}"#
            let amended = try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: values,
                                                photo: .replace(newPhoto), board: .none, now: Self.later)
            #expect(amended.changed)
            #expect(amended.report.valuesJSON == values)
            #expect(amended.report.life == ReportLife(status: .missing, version: 2, updatedAt: Self.later,
                                                      expiryBase: SubmitTime.date(sampleReport(1).submittedAt),
                                                      eraseBase: nil, erasedAt: nil))
            #expect(amended.report.photoMediaType == "image/png")
            #expect(amended.report.photoBytes == 4)
            #expect(try await store.photo(reportID: "report-1", ownerUID: 1000) == newPhoto)

            for photo in [PhotoAmendment.keep, .replace(newPhoto)] {
                let same = try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: values, photo: photo, board: .none,
                                                 now: Self.evenLater)
                #expect(!same.changed)
                #expect(same.report == amended.report)
            }

            let removed = try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: values, photo: .remove, board: .none,
                                                now: Self.evenLater)
            #expect(removed.changed)
            #expect(removed.report.version == 3)
            #expect(removed.report.photoSHA256 == nil && removed.report.photoBytes == nil)
            #expect(try await store.photo(reportID: "report-1", ownerUID: 1000) == nil)
            #expect(!(try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: values, photo: .remove, board: .none,
                                            now: Self.evenLater)).changed)

            // An expired report is amended and stays expired.
            _ = try await store.expireByRetention(now: Self.evenLater, expireAfter: .zero, maxReports: 10)
            let expired = try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: "{}", photo: .keep, board: .none, now: Self.evenLater)
            #expect(expired.report.status == .expired)
            #expect(expired.report.version == 5)
        }
    }

    @Test("erase: personal values null and the photo gone; a missing report is withdrawn; again, unchanged; nothing else")
    func erase() async throws {
        try await withTemporaryStore { store in
            let values = #"{"chipNumber":"616091234567890","photo":{"mediaType":"image/jpeg","bytes":10240,"sha256":"ab"},"#
                + #""disappearanceDate":"2026-11-20","species":"dog","race":"Beagle","contactEmail":"owner@example.org"}"#
            let report = NewReport(id: "report-1", flowID: "flow-1", ownerUID: 1000, submittedAt: "2026-11-21T13:00:00Z",
                                   valuesJSON: values, photo: samplePhoto, board: .none)
            _ = try await store.submit(report)
            let erased = try await store.erase(id: "report-1", ownerUID: 1000, now: Self.later)
            #expect(erased.changed)
            #expect(erased.report.life == ReportLife(status: .withdrawn, version: 2, updatedAt: Self.later, expiryBase: nil,
                                                     eraseBase: nil, erasedAt: Self.later))
            #expect(erased.report.valuesJSON == #"{"chipNumber":null,"photo":null,"disappearanceDate":"2026-11-20","#
                + #""species":"dog","race":null,"contactEmail":null}"#)
            #expect(erased.report.photoMediaType == nil && erased.report.photoSHA256 == nil && erased.report.photoBytes == nil)
            #expect(erased.report.id == "report-1" && erased.report.flowID == "flow-1")
            #expect(erased.report.submittedAt == "2026-11-21T13:00:00Z")
            #expect(try await store.photo(reportID: "report-1", ownerUID: 1000) == nil)
            #expect(try await store.get(id: "report-1", ownerUID: 1000) == erased.report)

            let again = try await store.erase(id: "report-1", ownerUID: 1000, now: Self.evenLater)
            #expect(!again.changed)
            #expect(again.report == erased.report)
            #expect(await Self.refusal { () async throws(ReportChangeError) in
                try await store.close(id: "report-1", ownerUID: 1000, outcome: .withdrawn, now: Self.evenLater)
            } == .reportErased)
            #expect(await Self.refusal { () async throws(ReportChangeError) in
                try await store.renew(id: "report-1", ownerUID: 1000, now: Self.evenLater)
            } == .reportErased)
            #expect(await Self.refusal { () async throws(ReportChangeError) in
                try await store.amend(id: "report-1", ownerUID: 1000, valuesJSON: values, photo: .keep, board: .none, now: Self.evenLater)
            } == .reportErased)
            #expect(try await store.get(id: "report-1", ownerUID: 1000) == erased.report)
        }
    }

    @Test("an erased found report stays found")
    func eraseKeepsClosedStatus() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1))
            _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: Self.later)
            let erased = try await store.erase(id: "report-1", ownerUID: 1000, now: Self.evenLater)
            #expect(erased.report.life == ReportLife(status: .found, version: 3, updatedAt: Self.evenLater, expiryBase: nil,
                                                     eraseBase: nil, erasedAt: Self.evenLater))
        }
    }

    @Test("a store opened again reads every change")
    func changesAreDurable() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let changed = try await withStore(path: path) { store in
                for number in 1...4 { _ = try await store.submit(sampleReport(number, photo: samplePhoto)) }
                return [
                    try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: Self.later).report,
                    try await store.renew(id: "report-2", ownerUID: 1000, now: Self.later).report,
                    try await store.amend(id: "report-3", ownerUID: 1000, valuesJSON: "{}", photo: .remove, board: .none, now: Self.later).report,
                    try await store.erase(id: "report-4", ownerUID: 1000, now: Self.later).report,
                ]
            }
            try await withStore(path: path) { store async throws in
                #expect(try await store.reports(ids: changed.map(\.id)).sorted { $0.id < $1.id } == changed)
            }
        }
    }
}
