import Foundation
import Testing
@testable import PetSpotStore

@Suite("Submitting reports")
struct ReportStoreSubmitTests {
    @Test("a new report is stored and returned as it reads back")
    func storesNewReport() async throws {
        try await withTemporaryStore { store in
            let new = sampleReport(1)
            let result = try await store.submit(new)

            #expect(result.inserted)
            #expect(new.submittedAt == "2026-11-21T13:58:27Z")
            let submitted = Date(timeIntervalSince1970: 1_795_269_507)
            #expect(result.report == StoredReport(
                id: new.id, flowID: new.flowID, ownerUID: 1000, submittedAt: new.submittedAt,
                valuesJSON: new.valuesJSON, photoMediaType: nil, photoSHA256: nil, photoBytes: nil,
                life: ReportLife(status: .missing, version: 1, updatedAt: submitted, expiryBase: submitted,
                                 eraseBase: nil, erasedAt: nil)))
            #expect(try await store.get(id: new.id, ownerUID: 1000) == result.report)
            #expect(try await store.count() == 1)
        }
    }

    @Test("a submit time that is not ISO 8601 UTC is refused, naming it, and nothing is stored")
    func unreadableSubmitTime() async throws {
        try await withTemporaryStore { store async throws in
            for time in ["yesterday", "2026-11-21 13:58:27", ""] {
                let error = await #expect(throws: ReportStoreError.self) {
                    try await store.submit(sampleReport(1, submittedAt: time))
                }
                #expect(error?.kind == .invalidTime)
                #expect(error?.message.contains("\"\(time)\"") == true)
            }
            #expect(try await store.count() == 0)
        }
    }

    @Test("a retried submit of the same flow returns the first report unchanged")
    func resubmitReturnsFirstReport() async throws {
        try await withTemporaryStore { store in
            let first = try await store.submit(sampleReport(1, flowID: "flow-A"))
            let retry = try await store.submit(sampleReport(2, flowID: "flow-A", photo: samplePhoto))

            #expect(first.inserted)
            #expect(!retry.inserted)
            #expect(retry.report == first.report)
            #expect(try await store.count() == 1)
            #expect(try await store.get(id: "report-2", ownerUID: 1000) == nil)
            #expect(try await store.photo(reportID: "report-1", ownerUID: 1000) == nil)
        }
    }

    @Test("concurrent submits of one flow store exactly one report")
    func concurrentSubmitsOfOneFlow() async throws {
        try await withTemporaryStore { store in
            let results = try await withThrowingTaskGroup(of: (report: StoredReport, inserted: Bool).self) { group in
                for number in 0..<40 {
                    group.addTask { try await store.submit(sampleReport(number, flowID: "flow-shared")) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            #expect(results.count == 40)
            #expect(results.filter(\.inserted).count == 1)
            let inserted = results.first { $0.inserted }
            let winner = try #require(inserted).report
            #expect(results.allSatisfy { $0.report == winner })
            #expect(try await store.count() == 1)
            #expect(try await store.list(ownerUID: 1000, limit: 100, cursor: nil).reports == [winner])
        }
    }

    @Test("the photo is stored in the report's row and read back byte for byte")
    func photoRoundTrip() async throws {
        try await withTemporaryStore { store in
            let stored = try await store.submit(sampleReport(1, photo: samplePhoto)).report

            #expect(stored.photoMediaType == "image/jpeg")
            #expect(stored.photoSHA256 == samplePhoto.sha256)
            #expect(stored.photoBytes == 10_240)
            #expect(try await store.get(id: stored.id, ownerUID: 1000) == stored)
            #expect(try await store.photo(reportID: stored.id, ownerUID: 1000) == samplePhoto)
        }
    }

    @Test("a report without photo has no photo metadata and no photo")
    func reportWithoutPhoto() async throws {
        try await withTemporaryStore { store in
            let stored = try await store.submit(sampleReport(1)).report

            #expect(stored.photoMediaType == nil && stored.photoSHA256 == nil && stored.photoBytes == nil)
            #expect(try await store.photo(reportID: stored.id, ownerUID: 1000) == nil)
            #expect(try await store.photo(reportID: "no-such-report", ownerUID: 1000) == nil)
        }
    }

    @Test("a report id already used by another flow is a conflict, and nothing is written")
    func duplicateReportIDIsConflict() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, flowID: "flow-A"))
            let error = await #expect(throws: ReportStoreError.self) {
                try await store.submit(sampleReport(1, flowID: "flow-B"))
            }
            #expect(error?.kind == .conflict)
            #expect(try await store.count() == 1)
        }
    }

    @Test("a flow submitted by another user is a conflict, never that user's report")
    func flowOfAnotherOwnerIsConflict() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, owner: 1000, flowID: "flow-A"))
            let error = await #expect(throws: ReportStoreError.self) {
                try await store.submit(sampleReport(2, owner: 2000, flowID: "flow-A"))
            }
            #expect(error?.kind == .conflict)
            #expect(error?.description.contains("report-1") == false)
            #expect(try await store.list(ownerUID: 2000, limit: 10, cursor: nil).reports.isEmpty)
        }
    }

    @Test("a submit whose caller is cancelled stores its report and says so, or stores nothing and says cancelled")
    func cancelledCallers() async throws {
        try await withTemporaryStore { store in
            // Each submit is cancelled a little later than the one before, so the cancellations
            // land before, during and after its statements.
            var stored: [StoredReport] = []
            for number in 0..<300 {
                let submit = Task { try await store.submit(sampleReport(number)).report }
                for _ in 0..<(number % 60) { await Task.yield() }
                submit.cancel()
                do {
                    stored.append(try await submit.value)
                } catch let error as ReportStoreError {
                    #expect(error.kind == .cancelled, "\(error)")
                }
            }

            // What was answered as stored is stored, and nothing else; no transaction was left open.
            #expect(try await store.count() == stored.count)
            #expect(try await store.list(ownerUID: 1000, limit: 300, cursor: nil).reports == stored.reversed())
            #expect(try await store.submit(sampleReport(5000)).inserted)
        }
    }
}
