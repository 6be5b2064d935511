import Testing
@testable import PetSpotStore

@Suite("Delivery of reports to a relay")
struct ReportStoreDeliveryTests {
    @Test("a submitted report is pending; marked, it reads back delivered at the time given")
    func submitIsPendingThenDelivered() async throws {
        try await withTemporaryStore { store in
            let stored = try await store.submit(sampleReport(1)).report
            #expect(stored.delivery == .pending)
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.delivery == .pending)

            let marking = try await store.markDelivered(firstVersions("report-1"), at: "2026-11-23T10:00:00Z")
            #expect(marking == DeliveryMarking(delivered: 1, alreadyDelivered: 0, newlyDelivered: ["report-1"]))
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.delivery == .delivered(at: "2026-11-23T10:00:00Z"))
            #expect(try await store.list(ownerUID: 1000, limit: 5, cursor: nil).reports.map(\.delivery)
                == [.delivered(at: "2026-11-23T10:00:00Z")])
            // A retried submit of the flow answers the stored report, delivered.
            #expect(try await store.submit(sampleReport(1)).report.delivery == .delivered(at: "2026-11-23T10:00:00Z"))
        }
    }

    @Test("the delivery row is written in the submit's own group transaction")
    func groupCommitWritesDeliveryRows() async throws {
        try await withTemporaryStore { store in
            let commitsBefore = store.committedTransactions.withLockedValue { $0 }
            let outcomes = try await submitTogether(store, (0..<8).map { sampleReport($0) })
            #expect(store.committedTransactions.withLockedValue { $0 } == commitsBefore + 1)
            for outcome in outcomes { #expect(try outcome.get().report.delivery == .pending) }
            #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 8, delivered: 0, lastDeliveredAt: nil))
        }
    }

    @Test("marking again keeps the first time; an id listed twice counts once")
    func markingIsIdempotent() async throws {
        try await withTemporaryStore { store in
            for number in 1...3 { _ = try await store.submit(sampleReport(number)) }
            #expect(try await store.markDelivered(firstVersions("report-1"), at: "2026-11-23T10:00:00Z")
                == DeliveryMarking(delivered: 1, alreadyDelivered: 0, newlyDelivered: ["report-1"]))
            #expect(try await store.markDelivered(firstVersions("report-1", "report-2", "report-2"), at: "2026-11-23T11:00:00Z")
                == DeliveryMarking(delivered: 1, alreadyDelivered: 1, newlyDelivered: ["report-2"]))
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.delivery == .delivered(at: "2026-11-23T10:00:00Z"))
            #expect(try await store.deliveryCounts()
                == DeliveryCounts(pending: 1, delivered: 2, lastDeliveredAt: "2026-11-23T11:00:00Z"))
        }
    }

    @Test("an unknown id fails naming it, and none of the others is marked")
    func unknownIdMarksNothing() async throws {
        try await withTemporaryStore { store in
            for number in 1...2 { _ = try await store.submit(sampleReport(number)) }
            let error = await #expect(throws: ReportStoreError.self) {
                try await store.markDelivered(firstVersions("report-1", "no-such-report", "report-2"), at: "2026-11-23T10:00:00Z")
            }
            #expect(error?.kind == .reportNotFound)
            #expect(error?.message.contains("no-such-report") == true)
            #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 2, delivered: 0, lastDeliveredAt: nil))
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.delivery == .pending)
        }
    }

    @Test("claimable reports: oldest first, of every owner, delivered and excluded ones left out, with photos")
    func claimableOrderAndExclusion() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, photo: samplePhoto))
            _ = try await store.submit(sampleReport(2, owner: 2000))
            _ = try await store.submit(sampleReport(3))
            _ = try await store.submit(sampleReport(4))
            _ = try await store.markDelivered(firstVersions("report-3"), at: "2026-11-23T10:00:00Z")

            let all = try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1 << 20)
            #expect(all.map(\.report.id) == ["report-1", "report-2", "report-4"])
            #expect(all[0].photo == samplePhoto)
            #expect(all[1].photo == nil)
            #expect(all[1].report.ownerUID == 2000)
            #expect(all.allSatisfy { $0.report.delivery == .pending })

            let rest = try await store.claimable(excluding: ["report-1"], maxReports: 10, maxPhotoBytes: 1 << 20)
            #expect(rest.map(\.report.id) == ["report-2", "report-4"])
        }
    }

    struct BoundCase: Sendable, CustomTestStringConvertible {
        let maxReports: Int
        let maxPhotoBytes: Int
        let expected: [String]
        var testDescription: String { "at most \(maxReports) reports, \(maxPhotoBytes) photo bytes" }
    }

    static let photoBytes = samplePhoto.data.count

    @Test("a claim stops at the report count and before the photos exceed the byte bound; the first always goes in",
          arguments: [
              BoundCase(maxReports: 1, maxPhotoBytes: 1 << 30, expected: ["report-1"]),
              BoundCase(maxReports: 2, maxPhotoBytes: 1 << 30, expected: ["report-1", "report-2"]),
              BoundCase(maxReports: 10, maxPhotoBytes: 1, expected: ["report-1"]),
              BoundCase(maxReports: 10, maxPhotoBytes: photoBytes, expected: ["report-1", "report-2"]),
              BoundCase(maxReports: 10, maxPhotoBytes: 2 * photoBytes - 1, expected: ["report-1", "report-2"]),
              BoundCase(maxReports: 10, maxPhotoBytes: 2 * photoBytes, expected: ["report-1", "report-2", "report-3", "report-4"]),
          ])
    func claimBounds(_ bound: BoundCase) async throws {
        try await withTemporaryStore { store in
            // Photos on 1 and 3; 2 and 4 have none and cost nothing.
            _ = try await store.submit(sampleReport(1, photo: samplePhoto))
            _ = try await store.submit(sampleReport(2))
            _ = try await store.submit(sampleReport(3, photo: samplePhoto))
            _ = try await store.submit(sampleReport(4))
            let claimed = try await store.claimable(excluding: [], maxReports: bound.maxReports, maxPhotoBytes: bound.maxPhotoBytes)
            #expect(claimed.map(\.report.id) == bound.expected)
        }
    }

    @Test("claimable looks past a page of excluded reports")
    func claimablePastExcludedPage() async throws {
        try await withTemporaryStore { store in
            let reports = (0..<300).map { sampleReport($0) }
            _ = try await submitTogether(store, Array(reports.prefix(64)))
            for report in reports.dropFirst(64) { _ = try await store.submit(report) }
            let excluded = Set((0..<290).map { "report-\($0)" })
            let claimed = try await store.claimable(excluding: excluded, maxReports: 5, maxPhotoBytes: 1)
            #expect(claimed.map(\.report.id) == (290..<295).map { "report-\($0)" })
        }
    }

    @Test("a change makes a delivered report pending again; a claim hands out its current version")
    func changeAfterDelivery() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1))
            _ = try await store.submit(sampleReport(2))
            _ = try await store.markDelivered(firstVersions("report-1", "report-2"), at: "2026-11-23T10:00:00Z")
            #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 0, delivered: 2, lastDeliveredAt: "2026-11-23T10:00:00Z"))
            #expect(try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1).isEmpty)

            let closed = try await store.close(id: "report-2", ownerUID: 1000, outcome: .found, now: storeNow).report
            #expect(closed.delivery == .pending)
            #expect(closed.deliveredVersion == 1)
            #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 1, delivered: 1, lastDeliveredAt: "2026-11-23T10:00:00Z"))
            let claimed = try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1)
            #expect(claimed.map(\.report) == [closed])
            #expect(claimed[0].report.version == 2 && claimed[0].report.status == .found)

            let marking = try await store.markDelivered([DeliveredVersion(reportID: "report-2", version: 2)], at: "2026-11-24T10:00:00Z")
            #expect(marking == DeliveryMarking(delivered: 1, alreadyDelivered: 0, newlyDelivered: ["report-2"]))
            #expect(try await store.get(id: "report-2", ownerUID: 1000)?.delivery == .delivered(at: "2026-11-24T10:00:00Z"))
            #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 0, delivered: 2, lastDeliveredAt: "2026-11-24T10:00:00Z"))
        }
    }

    @Test("an older acknowledgement never lowers the delivered version, and leaves a newer version pending")
    func olderAckNeverLowers() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1))
            _ = try await store.renew(id: "report-1", ownerUID: 1000, now: storeNow)
            _ = try await store.renew(id: "report-1", ownerUID: 1000, now: storeNow.addingTimeInterval(1))
            // Version 3 now; version 1, claimed before the renewals, is acknowledged: still pending.
            #expect(try await store.markDelivered(firstVersions("report-1"), at: "2026-11-23T10:00:00Z")
                == DeliveryMarking(delivered: 1, alreadyDelivered: 0, newlyDelivered: ["report-1"]))
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.delivery == .pending)
            #expect(try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1).map(\.report.version) == [3])
            // Version 3 acknowledged, then version 2 late: 3 stays, and so does its time.
            _ = try await store.markDelivered([DeliveredVersion(reportID: "report-1", version: 3)], at: "2026-11-23T11:00:00Z")
            #expect(try await store.markDelivered([DeliveredVersion(reportID: "report-1", version: 2)], at: "2026-11-23T12:00:00Z")
                == DeliveryMarking(delivered: 0, alreadyDelivered: 1, newlyDelivered: []))
            let report = try await store.get(id: "report-1", ownerUID: 1000)
            #expect(report?.deliveredVersion == 3)
            #expect(report?.delivery == .delivered(at: "2026-11-23T11:00:00Z"))
            // Listed twice, the higher version counts.
            _ = try await store.erase(id: "report-1", ownerUID: 1000, now: storeNow.addingTimeInterval(2))
            #expect(try await store.markDelivered([DeliveredVersion(reportID: "report-1", version: 4),
                                                   DeliveredVersion(reportID: "report-1", version: 3)], at: "2026-11-23T13:00:00Z")
                == DeliveryMarking(delivered: 1, alreadyDelivered: 0, newlyDelivered: ["report-1"]))
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.deliveredVersion == 4)
        }
    }

    @Test("a version the report never had is refused, naming it, and nothing is marked")
    func unknownVersionMarksNothing() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1))
            _ = try await store.submit(sampleReport(2))
            for version in [0, 2] {
                let error = await #expect(throws: ReportStoreError.self) {
                    try await store.markDelivered([DeliveredVersion(reportID: "report-1", version: 1),
                                                   DeliveredVersion(reportID: "report-2", version: version)], at: "2026-11-23T10:00:00Z")
                }
                #expect(error?.kind == .reportNotFound)
                #expect(error?.message.contains("report-2") == true)
                #expect(error?.message.contains("version \(version)") == true)
            }
            #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 2, delivered: 0, lastDeliveredAt: nil))
        }
    }

    @Test("an erasure after a claim: the next claim carries the erased report, with no personal values and no photo")
    func erasureAfterClaim() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, photo: samplePhoto))
            let first = try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1 << 20)
            #expect(first.first?.photo == samplePhoto)
            #expect(first.first?.report.version == 1)

            _ = try await store.erase(id: "report-1", ownerUID: 1000, now: storeNow)
            // The first claim is acknowledged (its version), the erased one stays pending.
            _ = try await store.markDelivered(firstVersions("report-1"), at: "2026-11-23T10:00:00Z")
            let next = try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1 << 20)
            #expect(next.count == 1)
            #expect(next.first?.photo == nil)
            #expect(next.first?.report.isErased == true)
            #expect(next.first?.report.version == 2)
            #expect(next.first?.report.valuesJSON == #"{"chipNumber":null,"petName":null,"note":null}"#)
            #expect(next.first?.report.photoBytes == nil)
        }
    }
}
