import Testing
@testable import PetSpotStore

@Suite("Listing and reading an owner's reports")
struct ReportStoreListTests {
    /// Reads every page of `owner`'s reports; stops at 100 pages so a cursor loop fails instead of hanging.
    private func allPages(_ store: ReportStore, owner: UInt32, limit: Int) async throws -> [ReportPage] {
        var pages: [ReportPage] = []
        var cursor: String?
        repeat {
            let page = try await store.list(ownerUID: owner, limit: limit, cursor: cursor)
            pages.append(page)
            cursor = page.nextCursor
        } while cursor != nil && pages.count < 100
        return pages
    }

    @Test("pages run newest first by insertion, and the last page has no cursor", arguments: [1, 2, 3, 4, 6, 7, Int.max])
    func pagination(limit: Int) async throws {
        try await withTemporaryStore { store in
            // Six reports of owner 1000, interleaved with another owner's; their clock text runs backwards.
            for number in 1...6 {
                _ = try await store.submit(sampleReport(number, owner: 1000))
                _ = try await store.submit(sampleReport(100 + number, owner: 2000))
            }

            let pages = try await allPages(store, owner: 1000, limit: limit)

            #expect(pages.flatMap(\.reports).map(\.id) == (1...6).reversed().map { "report-\($0)" })
            #expect(pages.count == (6 + min(limit, 6) - 1) / min(limit, 6))  // no empty trailing page
            #expect(pages.dropLast().allSatisfy { $0.reports.count == limit && $0.nextCursor != nil })
            #expect(pages.last?.nextCursor == nil)
        }
    }

    @Test("an owner with no reports gets one empty page")
    func emptyListing() async throws {
        try await withTemporaryStore { store in
            let page = try await store.list(ownerUID: 1000, limit: 5, cursor: nil)
            #expect(page.reports.isEmpty)
            #expect(page.nextCursor == nil)
        }
    }

    @Test("reports submitted between pages do not shift the next page")
    func cursorIsStableUnderInserts() async throws {
        try await withTemporaryStore { store in
            for number in 1...4 { _ = try await store.submit(sampleReport(number)) }
            let first = try await store.list(ownerUID: 1000, limit: 2, cursor: nil)
            _ = try await store.submit(sampleReport(5))
            let second = try await store.list(ownerUID: 1000, limit: 2, cursor: first.nextCursor)

            #expect(first.reports.map(\.id) == ["report-4", "report-3"])
            #expect(second.reports.map(\.id) == ["report-2", "report-1"])
            #expect(second.nextCursor == nil)
        }
    }

    @Test("owners see only their own reports in list, get and photo")
    func ownersAreIsolated() async throws {
        try await withTemporaryStore { store in
            let alice1 = try await store.submit(sampleReport(1, owner: 1000, photo: samplePhoto)).report
            let bob = try await store.submit(sampleReport(2, owner: 2000, photo: samplePhoto)).report
            let alice2 = try await store.submit(sampleReport(3, owner: 1000)).report

            #expect(try await store.list(ownerUID: 1000, limit: 10, cursor: nil).reports == [alice2, alice1])
            #expect(try await store.list(ownerUID: 2000, limit: 10, cursor: nil).reports == [bob])
            #expect(try await store.list(ownerUID: 3000, limit: 10, cursor: nil).reports.isEmpty)
            #expect(try await store.get(id: alice1.id, ownerUID: 2000) == nil)
            #expect(try await store.get(id: bob.id, ownerUID: 1000) == nil)
            #expect(try await store.photo(reportID: alice1.id, ownerUID: 2000) == nil)
            #expect(try await store.photo(reportID: bob.id, ownerUID: 2000) == samplePhoto)

            // Alice's cursor in Bob's hands is refused, and it counts nobody's reports.
            let alicePage = try await store.list(ownerUID: 1000, limit: 1, cursor: nil)
            let aliceCursor = try #require(alicePage.nextCursor)
            #expect(aliceCursor == alice2.id, "a cursor names only a report its owner has seen")
            await #expect(throws: ReportStoreError.self) {
                try await store.list(ownerUID: 2000, limit: 10, cursor: aliceCursor)
            }
            #expect(try await store.list(ownerUID: 1000, limit: 10, cursor: aliceCursor).reports == [alice1])
            #expect(try await store.count() == 3)
        }
    }

    @Test("a cursor no listing produced is refused", arguments: [
        "", "r1", "report-2", "report-1 ", "REPORT-1", String(repeating: "x", count: 129),
    ])
    func invalidCursor(cursor: String) async throws {
        try await withTemporaryStore { store in
            _ = try await store.submit(sampleReport(1))
            let error = await #expect(throws: ReportStoreError.self) {
                try await store.list(ownerUID: 1000, limit: 10, cursor: cursor)
            }
            #expect(error?.kind == .invalidCursor)
        }
    }

    @Test("a limit below 1 is refused", arguments: [0, -1, Int.min])
    func invalidLimit(limit: Int) async throws {
        try await withTemporaryStore { store in
            let error = await #expect(throws: ReportStoreError.self) {
                try await store.list(ownerUID: 1000, limit: limit, cursor: nil)
            }
            #expect(error?.kind == .invalidLimit)
        }
    }
}
