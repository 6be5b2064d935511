import Testing
@testable import PetSpotStore

/// Submits `reports` while the store is held busy, as it is behind a commit waiting for its
/// fsync, each queued before the next is sent (so they queue in order); lets them go once every
/// one is queued; returns their answers in the same order.
func submitTogether(_ store: ReportStore, _ reports: [NewReport]) async throws -> [SubmitOutcome] {
    let before = store.queuedSubmits
    let submits = try await store.holdingTurn {
        var submits: [Task<SubmitOutcome, Never>] = []
        for report in reports {
            // Twenty seconds for each to queue, not for all: on a loaded machine the tests that
            // block the cooperative pool's threads delay every task here alike.
            let deadline = ContinuousClock.now + .seconds(20)
            submits.append(Task { () async -> SubmitOutcome in
                do throws(ReportStoreError) {
                    return .success(try await store.submit(report))
                } catch {
                    return .failure(error)
                }
            })
            while store.queuedSubmits < before + submits.count {
                guard ContinuousClock.now < deadline else { throw GroupNotQueued(queued: store.queuedSubmits) }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        return submits
    }
    var outcomes: [SubmitOutcome] = []
    for submit in submits { outcomes.append(await submit.value) }
    return outcomes
}

struct GroupNotQueued: Error { let queued: Int }

@Suite("Submits share transactions (group commit)")
struct ReportStoreGroupCommitTests {
    @Test("submits that arrive while the store is busy are stored in one transaction, each answered with its own report")
    func queuedSubmitsShareOneCommit() async throws {
        try await withTemporaryStore { store in
            let commitsBefore = store.committedTransactions.withLockedValue { $0 }
            let reports = (0..<10).map { sampleReport($0) }
            let outcomes = try await submitTogether(store, reports)

            #expect(store.committedTransactions.withLockedValue { $0 } == commitsBefore + 1)
            for (report, outcome) in zip(reports, outcomes) {
                let stored = try outcome.get()
                #expect(stored.inserted)
                #expect(stored.report == StoredReport(report))
                #expect(try await store.get(id: report.id, ownerUID: 1000) == stored.report)
            }
            #expect(try await store.count() == 10)
        }
    }

    @Test("a group holds at most maxGroupMembers reports: one more waits for the next transaction")
    func groupSizeIsBounded() async throws {
        try await withTemporaryStore { store in
            for (extra, commits) in [(0, 1), (1, 2)] {
                let first = store.committedTransactions.withLockedValue { $0 }
                let base = 1000 * (extra + 1)
                let reports = (0..<(ReportStore.maxGroupMembers + extra)).map { sampleReport(base + $0) }
                let outcomes = try await submitTogether(store, reports)

                #expect(store.committedTransactions.withLockedValue { $0 } == first + commits)
                #expect(try outcomes.allSatisfy { try $0.get().inserted })
            }
            #expect(try await store.count() == 2 * ReportStore.maxGroupMembers + 1)
        }
    }

    @Test("a close waits for the submits called before it, however many groups they take")
    func closeAfterABacklog() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let store = try await ReportStore(path: path, now: storeNow, box: testBox)
            // One group more than a turn takes: the second group's turn is asked for after the close.
            let reports = (0..<(ReportStore.maxGroupMembers + 6)).map { sampleReport($0) }
            let (submits, closing) = try await store.holdingTurn {
                var submits: [Task<SubmitOutcome, Never>] = []
                for report in reports {
                    submits.append(Task { () async -> SubmitOutcome in
                        do throws(ReportStoreError) {
                            return .success(try await store.submit(report))
                        } catch {
                            return .failure(error)
                        }
                    })
                }
                try await waitUntil { store.queuedSubmits == reports.count }
                let closing = Task { try await store.close() }
                // The first group's turn, then the close.
                try await waitUntil { store.gate.waitingCount == 2 }
                return (submits, closing)
            }
            try await closing.value
            for submit in submits {
                #expect(try await submit.value.get().inserted)
            }
            let stored = try await withStore(path: path) { store in try await store.count() }
            #expect(stored == reports.count)
        }
    }

    /// Waits, with a deadline, until `condition` holds.
    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw GroupNotQueued(queued: -1) }
            try await Task.sleep(for: .milliseconds(1))
        }
    }

    @Test("photos end a group at maxGroupBytes; the first member goes in whatever its size")
    func groupBytesAreBounded() async throws {
        try await withTemporaryStore { store in
            // Each photo is just over half the bound: no two fit in one group.
            let size = ReportStore.maxGroupBytes / 2 + 1
            let photo = StoredPhoto(mediaType: "image/jpeg", sha256: String(repeating: "cd", count: 32),
                                    data: [UInt8](repeating: 0x5A, count: size))
            let first = store.committedTransactions.withLockedValue { $0 }
            let outcomes = try await submitTogether(store, (0..<3).map { sampleReport($0, photo: photo) })

            #expect(store.committedTransactions.withLockedValue { $0 } == first + 3)
            #expect(try outcomes.allSatisfy { try $0.get().report.photoBytes == size })
            #expect(try await store.photo(reportID: "report-2", ownerUID: 1000)?.data.count == size)
        }
    }

    @Test("two submits of one flow in one group store one report; both are answered with it")
    func oneFlowTwiceInAGroup() async throws {
        try await withTemporaryStore { store in
            let first = store.committedTransactions.withLockedValue { $0 }
            let outcomes = try await submitTogether(store, [
                sampleReport(1, flowID: "flow-A"), sampleReport(2), sampleReport(3, flowID: "flow-A", photo: samplePhoto),
            ]).map { try $0.get() }

            #expect(store.committedTransactions.withLockedValue { $0 } == first + 1)
            #expect(outcomes.map(\.inserted) == [true, true, false])
            #expect(outcomes[2].report == outcomes[0].report)
            #expect(try await store.count() == 2)
            #expect(try await store.get(id: "report-3", ownerUID: 1000) == nil)
            #expect(try await store.photo(reportID: "report-1", ownerUID: 1000) == nil)
        }
    }

    @Test("a member refused for a conflict gets its error; the rest of its group is stored")
    func oneBadMember() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, flowID: "flow-A"))
            let first = store.committedTransactions.withLockedValue { $0 }
            let outcomes = try await submitTogether(store, [
                sampleReport(2, flowID: "flow-B"),
                sampleReport(1, flowID: "flow-C"),               // report id of flow-A's report
                sampleReport(3, owner: 2000, flowID: "flow-A"),  // flow of another user
                sampleReport(4, flowID: "flow-D"),
            ])

            #expect(store.committedTransactions.withLockedValue { $0 } == first + 1)
            #expect(try outcomes[0].get().inserted)
            #expect(try outcomes[3].get().inserted)
            for refused in [outcomes[1], outcomes[2]] {
                guard case .failure(let error) = refused else {
                    Issue.record("a conflicting member was stored")
                    continue
                }
                #expect(error.kind == .conflict)
            }
            #expect(try await store.list(ownerUID: 1000, limit: 10, cursor: nil).reports.map(\.id)
                    == ["report-4", "report-2", "report-1"])
            #expect(try await store.list(ownerUID: 2000, limit: 10, cursor: nil).reports.isEmpty)
        }
    }

    @Test("a flow whose first submit in a group is refused for its report id is stored by its next submit")
    func refusedFirstOfAFlow() async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1, flowID: "flow-A"))
            let first = store.committedTransactions.withLockedValue { $0 }
            let outcomes = try await submitTogether(store, [
                sampleReport(1, flowID: "flow-B"),   // report id of flow-A's report
                sampleReport(2),
                sampleReport(3, flowID: "flow-B"),
                sampleReport(4, flowID: "flow-B"),
            ])

            #expect(store.committedTransactions.withLockedValue { $0 } == first + 1)
            guard case .failure(let error) = outcomes[0] else {
                Issue.record("a report id of another flow was taken")
                return
            }
            #expect(error.kind == .conflict)
            #expect(error.message.contains("report id report-1 already belongs to another flow"), "\(error)")
            let stored = try outcomes[1...].map { try $0.get() }
            #expect(stored.map(\.inserted) == [true, true, false])
            #expect(stored[1].report.id == "report-3")
            #expect(stored[2].report == stored[1].report)
            #expect(try await store.get(id: "report-1", ownerUID: 1000)?.flowID == "flow-A")
            #expect(try await store.count() == 3)
        }
    }

    /// A trigger of the file's own that refuses report-2 with `RAISE(raise)`.
    static func refuseReport2(in store: ReportStore, raising raise: String) async throws {
        try await store.execute("""
            CREATE TRIGGER refuse_report_2 BEFORE INSERT ON report WHEN NEW.id = 'report-2'
            BEGIN SELECT RAISE(\(raise)); END
            """)
    }

    @Test("a constraint of the file's own that refuses one member: the group's statement is undone and each member stored alone, in one transaction")
    func fileConstraintRefusesOneMember() async throws {
        try await withTemporaryStore { store in
            try await Self.refuseReport2(in: store, raising: "ABORT, 'report-2 is refused here'")
            let first = store.committedTransactions.withLockedValue { $0 }
            let outcomes = try await submitTogether(store, (1...3).map { sampleReport($0) })

            #expect(store.committedTransactions.withLockedValue { $0 } == first + 1)
            #expect(try outcomes[0].get().inserted)
            #expect(try outcomes[2].get().inserted)
            guard case .failure(let error) = outcomes[1] else {
                Issue.record("the refused member was answered as stored")
                return
            }
            #expect(error.message.contains("report-2 is refused here"), "\(error)")
            #expect(try await store.list(ownerUID: 1000, limit: 10, cursor: nil).reports.map(\.id) == ["report-3", "report-1"])
            #expect(try await store.deliveryCounts().pending == 2)
        }
    }

    @Test("a constraint of the file's own that rolls the whole transaction back fails the whole group: nothing is stored behind the answers")
    func fileConstraintRollsBackTheGroup() async throws {
        try await withTemporaryStore { store in
            try await Self.refuseReport2(in: store, raising: "ROLLBACK, 'report-2 rolls back here'")
            let outcomes = try await submitTogether(store, (1...3).map { sampleReport($0) })
            for outcome in outcomes {
                guard case .failure(let error) = outcome else {
                    Issue.record("a member was answered as stored after its transaction was rolled back")
                    continue
                }
                #expect(error.message.contains("report-2 rolls back here"), "\(error)")
            }
            #expect(try await store.count() == 0)
            #expect(try await store.deliveryCounts().pending == 0)
        }
    }

    @Test("every report of a group gets its pending delivery row")
    func groupMembersArePending() async throws {
        try await withTemporaryStore { store in
            let outcomes = try await submitTogether(store, (1...20).map { sampleReport($0) })
            #expect(try outcomes.allSatisfy { try $0.get().report.delivery == .pending })
            #expect(try await store.deliveryCounts().pending == 20)
            let claimable = try await store.claimable(excluding: [], maxReports: 100, maxPhotoBytes: 1 << 20)
            #expect(claimable.map(\.report.id) == (1...20).map { "report-\($0)" })
        }
    }

    @Test("a full database fails every member of the group, none is stored; once there is room all are")
    func fullDatabaseFailsTheWholeGroup() async throws {
        try await withTemporaryStore { store in
            // SQLite's own limit on the file's size, held at its size now: a small row still fits
            // in the pages the file has, a photo needs new ones and fails with SQLITE_FULL.
            try await store.execute("PRAGMA max_page_count = 1")
            #expect(try await store.submit(sampleReport(0)).inserted, "a small report alone still fits")
            let reports = [sampleReport(1), sampleReport(2, photo: samplePhoto), sampleReport(3)]
            let outcomes = try await submitTogether(store, reports)

            for outcome in outcomes {
                guard case .failure(let error) = outcome else {
                    Issue.record("a member of a failed group was answered as stored")
                    continue
                }
                #expect(error.kind == .io)
                #expect(error.message.contains("full"), "\(error)")
            }
            #expect(try await store.count() == 1)

            try await store.execute("PRAGMA max_page_count = 1000000")
            let retried = try await submitTogether(store, reports)
            #expect(try retried.allSatisfy { try $0.get().inserted })
            #expect(try await store.count() == 4)
        }
    }
}
