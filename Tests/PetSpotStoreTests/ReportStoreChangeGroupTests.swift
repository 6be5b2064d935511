import FoundationEssentials
import Testing
@testable import PetSpotStore

/// Makes `changes` while the store is held busy, each queued before the next is sent; lets them
/// go once every one is queued; returns their answers in the same order.
func changeTogether(_ store: ReportStore, _ changes: [StoreChange]) async throws -> [Result<ReportChangeResult, ReportChangeError>] {
    let before = store.queuedChanges
    let tasks = try await store.holdingTurn {
        var tasks: [Task<Result<ReportChangeResult, ReportChangeError>, Never>] = []
        for change in changes {
            let deadline = ContinuousClock.now + .seconds(20)
            tasks.append(Task { await change.make(in: store) })
            while store.queuedChanges < before + tasks.count {
                guard ContinuousClock.now < deadline else { throw GroupNotQueued(queued: store.queuedChanges) }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        return tasks
    }
    var outcomes: [Result<ReportChangeResult, ReportChangeError>] = []
    for task in tasks { outcomes.append(await task.value) }
    return outcomes
}

/// An owner's change, as the tests of groups queue it.
enum StoreChange: Sendable {
    case close(String, ReportChange.Closing, owner: UInt32 = 1000)
    case renew(String, owner: UInt32 = 1000)
    case erase(String)

    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    func make(in store: ReportStore) async -> Result<ReportChangeResult, ReportChangeError> {
        do throws(ReportChangeError) {
            switch self {
            case .close(let id, let outcome, let owner): return .success(try await store.close(id: id, ownerUID: owner, outcome: outcome, now: Self.now))
            case .renew(let id, let owner): return .success(try await store.renew(id: id, ownerUID: owner, now: Self.now))
            case .erase(let id): return .success(try await store.erase(id: id, ownerUID: 1000, now: Self.now))
            }
        } catch {
            return .failure(error)
        }
    }
}

@Suite("Changes share transactions (group commit)")
struct ReportStoreChangeGroupTests {
    @Test("changes that arrive while the store is busy are made in one transaction, in order, each answered as if made alone")
    func queuedChangesShareOneCommit() async throws {
        try await withTemporaryStore { store in
            let reports = (0..<3).map { sampleReport($0) }
            for report in reports { _ = try await store.submit(report) }
            let commitsBefore = store.committedTransactions.withLockedValue { $0 }
            let (a, b, c) = (reports[0].id, reports[1].id, reports[2].id)
            let outcomes = try await changeTogether(store, [
                .close(a, .found), .renew(b), .erase(c),
                // The first change is seen by the next: the report is found now, so it cannot be withdrawn.
                .close(a, .withdrawn), .close(a, .found), .close("no-such-report", .found), .renew(b, owner: 2000),
            ])
            #expect(store.committedTransactions.withLockedValue { $0 } == commitsBefore + 1, "one transaction for all seven")

            let found = try outcomes[0].get()
            #expect(found.changed && found.report.status == .found && found.report.version == 2)
            let renewed = try outcomes[1].get()
            #expect(renewed.changed && renewed.report.status == .missing && renewed.report.version == 2)
            let erased = try outcomes[2].get()
            #expect(erased.changed && erased.report.isErased && erased.report.status == .withdrawn)
            guard case .failure(.refused(.reportClosed(.found))) = outcomes[3] else { Issue.record("\(outcomes[3])"); return }
            let again = try outcomes[4].get()
            #expect(!again.changed && again.report.version == 2, "the same close again changes nothing")
            guard case .failure(.refused(.reportNotFound)) = outcomes[5] else { Issue.record("\(outcomes[5])"); return }
            guard case .failure(.refused(.reportNotFound)) = outcomes[6] else { Issue.record("another user's report: \(outcomes[6])"); return }

            // Each answer is the report as it reads back after the group.
            #expect(try await store.get(id: a, ownerUID: 1000) == found.report)
            #expect(try await store.get(id: b, ownerUID: 1000) == renewed.report)
            #expect(try await store.get(id: c, ownerUID: 1000) == erased.report)
            #expect(store.pendingDiskCleanup == nil, "the erasure in the group cleaned the disk after the commit")
        }
    }

    @Test("a change that fails in the store undoes its group's transaction; each member is then made alone, and only it fails")
    func failingMemberIsMadeAlone() async throws {
        try await withTemporaryStore { store in
            let reports = (0..<3).map { sampleReport($0) }
            for report in reports { _ = try await store.submit(report) }
            // A constraint of the file's own that refuses one report's new life.
            try await store.execute("""
                CREATE TRIGGER refuse_one BEFORE UPDATE ON report_life
                WHEN old.report_seq = (SELECT seq FROM report WHERE id = '\(reports[1].id)')
                BEGIN SELECT RAISE(ABORT, 'refused by the file'); END
                """)
            let commitsBefore = store.committedTransactions.withLockedValue { $0 }
            let outcomes = try await changeTogether(store, reports.map { .close($0.id, .found) })
            #expect(try outcomes[0].get().report.status == .found)
            guard case .failure(.failed(let failure)) = outcomes[1] else { Issue.record("\(outcomes[1])"); return }
            #expect(failure.description.contains("refused by the file"), "\(failure)")
            #expect(try outcomes[2].get().report.status == .found)
            #expect(store.committedTransactions.withLockedValue { $0 } == commitsBefore + 2, "the group undone, then two alone")
            #expect(try await store.get(id: reports[1].id, ownerUID: 1000)?.status == .missing)
        }
    }
}
