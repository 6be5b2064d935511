import Foundation
import Testing
@testable import PetSpotStore

/// Retention's sweeps and the next deadline, on a real SQLite file.
@Suite("Retention of reports")
struct ReportStoreRetentionTests {
    static let day = Duration.seconds(86_400)
    /// Submit times of reports 1, 2, 3: a day apart.
    static let submits = ["2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z"]
    static func date(_ text: String) -> Date { SubmitTime.date(text)! }

    static func submitThree(_ store: ReportStore) async throws {
        for (index, time) in submits.enumerated() {
            _ = try await store.submit(sampleReport(index + 1, submittedAt: time))
        }
    }

    @Test("missing reports expire at base + expireAfter, to the millisecond, oldest first; others are not touched")
    func expiryCutoff() async throws {
        try await withTemporaryStore { store in
            try await Self.submitThree(store)
            let after = Self.day * 10
            // One millisecond before report 2 is due: report 1 only.
            // Times read back in whole milliseconds.
            let beforeSecond = Self.date(Self.submits[1]).addingTimeInterval(10 * 86_400 - 0.001).inWholeMilliseconds
            let first = try await store.expireByRetention(now: beforeSecond, expireAfter: after, maxReports: 100)
            #expect(first.map(\.id) == ["report-1"])
            #expect(first[0].life == ReportLife(status: .expired, version: 2, updatedAt: beforeSecond, expiryBase: nil,
                                                eraseBase: beforeSecond, erasedAt: nil))
            // At the instant report 2 is due.
            let second = try await store.expireByRetention(now: beforeSecond.addingTimeInterval(0.001), expireAfter: after,
                                                           maxReports: 100)
            #expect(second.map(\.id) == ["report-2"])
            #expect(try await store.get(id: "report-3", ownerUID: 1000)?.status == .missing)
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.version == 2)
        }
    }

    @Test("a sweep changes at most maxReports, oldest base first; fewer means none is left")
    func boundedBatches() async throws {
        try await withTemporaryStore { store in
            for number in 1...5 {
                _ = try await store.submit(sampleReport(number, submittedAt: "2026-11-0\(number)T00:00:00Z"))
            }
            let now = Self.date("2026-12-01T00:00:00Z")
            var batches: [[String]] = []
            while true {
                let batch = try await store.expireByRetention(now: now, expireAfter: Self.day, maxReports: 2)
                batches.append(batch.map(\.id))
                if batch.count < 2 { break }
            }
            #expect(batches == [["report-1", "report-2"], ["report-3", "report-4"], ["report-5"]])
            let error = await #expect(throws: ReportStoreError.self) {
                try await store.eraseByRetention(now: now, eraseAfter: .zero, maxReports: 0)
            }
            #expect(error?.kind == .invalidLimit)
        }
    }

    @Test("found, withdrawn and expired reports are erased eraseAfter from that change; missing ones never")
    func erasureCutoff() async throws {
        try await withTemporaryStore { store in
            try await Self.submitThree(store)
            _ = try await store.submit(sampleReport(4, submittedAt: "2026-11-04T00:00:00Z"))
            let t1 = Self.date("2026-11-10T00:00:00Z")
            let t2 = Self.date("2026-11-11T00:00:00Z")
            _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: t2)
            _ = try await store.close(id: "report-2", ownerUID: 1000, outcome: .withdrawn, now: t1)
            // Report 3 expires at t1 (expireAfter 0), report 4 is renewed and stays missing.
            _ = try await store.renew(id: "report-4", ownerUID: 1000, now: t1)
            #expect(try await store.expireByRetention(now: t1, expireAfter: Self.day * 7, maxReports: 100).map(\.id)
                == ["report-3"])

            let after = Self.day * 30
            #expect(try await store.eraseByRetention(now: t1.addingTimeInterval(30 * 86_400 - 1), eraseAfter: after,
                                                     maxReports: 100).isEmpty)
            let erased = try await store.eraseByRetention(now: t1.addingTimeInterval(30 * 86_400), eraseAfter: after,
                                                          maxReports: 100)
            #expect(Set(erased.map(\.id)) == ["report-2", "report-3"])
            #expect(erased.allSatisfy { $0.isErased && $0.photoBytes == nil })
            #expect(erased.first { $0.id == "report-3" }?.status == .expired)
            let last = try await store.eraseByRetention(now: Self.date("2027-06-01T00:00:00Z"), eraseAfter: after, maxReports: 100)
            #expect(last.map(\.id) == ["report-1"])
            #expect(last[0].status == .found)
            #expect(try await store.get(id: "report-4", ownerUID: 1000)?.isErased == false)
            // Erased ones are not swept again.
            #expect(try await store.eraseByRetention(now: Self.date("2030-01-01T00:00:00Z"), eraseAfter: .zero,
                                                     maxReports: 100).isEmpty)
        }
    }

    @Test("eraseAfter 0 erases at once: a report expired by a sweep is erased by the next one at the same instant")
    func eraseAtOnce() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, submittedAt: "2026-11-01T00:00:00Z"))
            let now = Self.date("2026-12-01T00:00:00Z")
            #expect(try await store.expireByRetention(now: now, expireAfter: Self.day, maxReports: 10).count == 1)
            #expect(try await store.eraseByRetention(now: now, eraseAfter: .zero, maxReports: 10).map(\.id) == ["report-1"])
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.version == 3)
        }
    }

    @Test("nextDue: the earliest base plus its setting, as the settings are now; nil when nothing will be due")
    func nextDue() async throws {
        try await withTemporaryStore { store in
            #expect(try await store.nextDue(expireAfter: Self.day, eraseAfter: Self.day) == nil)
            try await Self.submitThree(store)
            let expireAfter = Self.day * 90
            let eraseAfter = Self.day * 365
            #expect(try await store.nextDue(expireAfter: expireAfter, eraseAfter: eraseAfter)
                == Self.date(Self.submits[0]).addingTimeInterval(90 * 86_400))
            // A reloaded setting moves it; decimal days count (1.5 days).
            #expect(try await store.nextDue(expireAfter: .seconds(129_600), eraseAfter: eraseAfter)
                == Self.date(Self.submits[0]).addingTimeInterval(129_600))

            let closedAt = Self.date("2026-11-05T00:00:00Z")
            _ = try await store.close(id: "report-1", ownerUID: 1000, outcome: .found, now: closedAt)
            #expect(try await store.nextDue(expireAfter: expireAfter, eraseAfter: eraseAfter)
                == Self.date(Self.submits[1]).addingTimeInterval(90 * 86_400))
            #expect(try await store.nextDue(expireAfter: expireAfter, eraseAfter: .zero) == closedAt)

            for id in ["report-2", "report-3"] { _ = try await store.erase(id: id, ownerUID: 1000, now: closedAt) }
            _ = try await store.erase(id: "report-1", ownerUID: 1000, now: closedAt)
            #expect(try await store.nextDue(expireAfter: expireAfter, eraseAfter: eraseAfter) == nil)
        }
    }
}
