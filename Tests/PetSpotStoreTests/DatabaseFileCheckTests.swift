import Testing
@testable import PetSpotStore

@Suite("Judging whether the database file is still the one at its path")
struct DatabaseFileCheckTests {
    static let database = FileIdentity(device: 8, inode: 100)
    static let wal = FileIdentity(device: 8, inode: 101)
    static let other = FileIdentity(device: 8, inode: 200)
    static let known = DatabaseFileCheck.Known(database: database, wal: wal, largestSize: 8192)
    static let healthy = DatabaseFileCheck.Observation(atPath: database, links: 1, size: 8192, hasHeader: true, walAtPath: wal)

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let change: @Sendable (inout DatabaseFileCheck.Observation) -> Void
        /// nil: intact; otherwise a word the reason must contain.
        let lost: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "unchanged", change: { _ in }, lost: nil),
        Case(name: "grown by a checkpoint", change: { $0.size = 12_288 }, lost: nil),
        Case(name: "a second hard link", change: { $0.links = 2 }, lost: nil),
        Case(name: "no file at the path", change: { $0.atPath = nil }, lost: "deleted"),
        Case(name: "open file has no name left", change: { $0.links = 0 }, lost: "deleted"),
        Case(name: "another file at the path", change: { $0.atPath = other }, lost: "replaced"),
        Case(name: "same inode on another device", change: { $0.atPath = FileIdentity(device: 9, inode: 100) }, lost: "replaced"),
        Case(name: "no -wal file", change: { $0.walAtPath = nil }, lost: "-wal file) was deleted"),
        Case(name: "another -wal file", change: { $0.walAtPath = other }, lost: "-wal file) was replaced"),
        Case(name: "truncated to nothing", change: { $0.size = 0 }, lost: "truncated from 8192 to 0"),
        Case(name: "cut by one byte", change: { $0.size = 8191 }, lost: "truncated"),
        Case(name: "header overwritten", change: { $0.hasHeader = false }, lost: "SQLite header"),
    ]

    @Test("each change of the files", arguments: cases)
    func judge(_ c: Case) {
        var seen = Self.healthy
        c.change(&seen)
        let verdict = DatabaseFileCheck.judge(seen, known: Self.known)
        switch (verdict, c.lost) {
        case (.intact(let updated), nil):
            #expect(updated.database == Self.database)
            #expect(updated.largestSize == seen.size)
        case (.lost(let reason), let word?):
            #expect(reason.contains(word), "\(reason)")
            #expect(!reason.contains("/"))
        default:
            Issue.record("\(c.name): \(verdict)")
        }
    }

    @Test("a -wal file that appears later is adopted, and watched from then on")
    func walAdopted() {
        let noWal = DatabaseFileCheck.Known(database: Self.database, wal: nil, largestSize: 4096)
        var seen = Self.healthy
        seen.walAtPath = nil
        #expect(DatabaseFileCheck.judge(seen, known: noWal) == .intact(.init(database: Self.database, wal: nil, largestSize: seen.size)))
        seen.walAtPath = Self.wal
        guard case .intact(let adopted) = DatabaseFileCheck.judge(seen, known: noWal) else {
            Issue.record("refused")
            return
        }
        #expect(adopted.wal == Self.wal)
        seen.walAtPath = Self.other
        #expect(DatabaseFileCheck.judge(seen, known: adopted) != .intact(adopted))
    }

    @Test("the largest size seen is what a later size is held to")
    func largestSizeRemembered() {
        var seen = Self.healthy
        seen.size = 16_384
        guard case .intact(let grown) = DatabaseFileCheck.judge(seen, known: Self.known) else {
            Issue.record("refused")
            return
        }
        seen.size = 8192
        guard case .lost(let reason) = DatabaseFileCheck.judge(seen, known: grown) else {
            Issue.record("a shrink back to the first size was accepted")
            return
        }
        #expect(reason.contains("from 16384 to 8192"))
    }
}
