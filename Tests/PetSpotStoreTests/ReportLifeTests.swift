import Foundation
import Testing
@testable import PetSpotStore

/// The rules of a report's life, as a table of every (state, change) pair.
@Suite("A report's life")
struct ReportLifeTests {
    static let base = Date(timeIntervalSince1970: 1_795_000_000)
    static let now = Date(timeIntervalSince1970: 1_796_000_000)

    /// The states a stored report can be in.
    enum State: String, CaseIterable, Sendable {
        case missing, found, withdrawn, expired, erasedFound, erasedWithdrawn, erasedExpired

        var life: ReportLife {
            let b = ReportLifeTests.base
            return switch self {
            case .missing: ReportLife(status: .missing, version: 3, updatedAt: b, expiryBase: b, eraseBase: nil, erasedAt: nil)
            case .found: ReportLife(status: .found, version: 4, updatedAt: b, expiryBase: nil, eraseBase: b, erasedAt: nil)
            case .withdrawn: ReportLife(status: .withdrawn, version: 4, updatedAt: b, expiryBase: nil, eraseBase: b, erasedAt: nil)
            case .expired: ReportLife(status: .expired, version: 2, updatedAt: b, expiryBase: nil, eraseBase: b, erasedAt: nil)
            case .erasedFound: ReportLife(status: .found, version: 5, updatedAt: b, expiryBase: nil, eraseBase: nil, erasedAt: b)
            case .erasedWithdrawn: ReportLife(status: .withdrawn, version: 5, updatedAt: b, expiryBase: nil, eraseBase: nil, erasedAt: b)
            case .erasedExpired: ReportLife(status: .expired, version: 3, updatedAt: b, expiryBase: nil, eraseBase: nil, erasedAt: b)
            }
        }
    }

    static let changes: [ReportChange] = [
        .close(.found), .close(.withdrawn), .renew, .amend(changesValues: true), .amend(changesValues: false), .erase, .expire,
        .eraseByRetention,
    ]

    /// Where a base stands after a change.
    enum Base: Sendable { case none, now, kept }

    enum Expected: Sendable {
        case becomes(ReportStatus, expiry: Base, erase: Base, erased: Bool = false)
        case unchanged
        case refused(ReportRefusal)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let state: State
        let change: ReportChange
        let expected: Expected
        var testDescription: String { "\(state.rawValue) + \(change)" }
    }

    static let closedByFound = ReportRefusal.reportClosed(.found)
    static let closedByWithdrawn = ReportRefusal.reportClosed(.withdrawn)

    static let cases: [Case] = [
        Case(state: .missing, change: .close(.found), expected: .becomes(.found, expiry: .none, erase: .now)),
        Case(state: .missing, change: .close(.withdrawn), expected: .becomes(.withdrawn, expiry: .none, erase: .now)),
        Case(state: .missing, change: .renew, expected: .becomes(.missing, expiry: .now, erase: .none)),
        Case(state: .missing, change: .amend(changesValues: true), expected: .becomes(.missing, expiry: .kept, erase: .none)),
        Case(state: .missing, change: .amend(changesValues: false), expected: .unchanged),
        Case(state: .missing, change: .erase, expected: .becomes(.withdrawn, expiry: .none, erase: .none, erased: true)),
        Case(state: .missing, change: .expire, expected: .becomes(.expired, expiry: .none, erase: .now)),
        Case(state: .missing, change: .eraseByRetention, expected: .refused(.stillMissing)),

        Case(state: .found, change: .close(.found), expected: .unchanged),
        Case(state: .found, change: .close(.withdrawn), expected: .refused(closedByFound)),
        Case(state: .found, change: .renew, expected: .refused(closedByFound)),
        Case(state: .found, change: .amend(changesValues: true), expected: .refused(closedByFound)),
        Case(state: .found, change: .amend(changesValues: false), expected: .refused(closedByFound)),
        Case(state: .found, change: .erase, expected: .becomes(.found, expiry: .none, erase: .none, erased: true)),
        Case(state: .found, change: .expire, expected: .refused(closedByFound)),
        Case(state: .found, change: .eraseByRetention, expected: .becomes(.found, expiry: .none, erase: .none, erased: true)),

        Case(state: .withdrawn, change: .close(.found), expected: .refused(closedByWithdrawn)),
        Case(state: .withdrawn, change: .close(.withdrawn), expected: .unchanged),
        Case(state: .withdrawn, change: .renew, expected: .refused(closedByWithdrawn)),
        Case(state: .withdrawn, change: .amend(changesValues: true), expected: .refused(closedByWithdrawn)),
        Case(state: .withdrawn, change: .amend(changesValues: false), expected: .refused(closedByWithdrawn)),
        Case(state: .withdrawn, change: .erase, expected: .becomes(.withdrawn, expiry: .none, erase: .none, erased: true)),
        Case(state: .withdrawn, change: .expire, expected: .refused(closedByWithdrawn)),
        Case(state: .withdrawn, change: .eraseByRetention,
             expected: .becomes(.withdrawn, expiry: .none, erase: .none, erased: true)),

        Case(state: .expired, change: .close(.found), expected: .becomes(.found, expiry: .none, erase: .now)),
        Case(state: .expired, change: .close(.withdrawn), expected: .becomes(.withdrawn, expiry: .none, erase: .now)),
        Case(state: .expired, change: .renew, expected: .becomes(.missing, expiry: .now, erase: .none)),
        Case(state: .expired, change: .amend(changesValues: true), expected: .becomes(.expired, expiry: .none, erase: .kept)),
        Case(state: .expired, change: .amend(changesValues: false), expected: .unchanged),
        Case(state: .expired, change: .erase, expected: .becomes(.expired, expiry: .none, erase: .none, erased: true)),
        Case(state: .expired, change: .expire, expected: .unchanged),
        Case(state: .expired, change: .eraseByRetention, expected: .becomes(.expired, expiry: .none, erase: .none, erased: true)),
    ] + [State.erasedFound, .erasedWithdrawn, .erasedExpired].flatMap { state in
        changes.map { change in
            switch change {
            case .erase, .eraseByRetention: Case(state: state, change: change, expected: .unchanged)
            default: Case(state: state, change: change, expected: .refused(.reportErased))
            }
        }
    }

    @Test("the table holds every pair of state and change once")
    func tableIsComplete() {
        var pairs = Set<String>()
        for testCase in Self.cases { pairs.insert("\(testCase.state) \(testCase.change)") }
        #expect(pairs.count == Self.cases.count)
        #expect(pairs.count == State.allCases.count * Self.changes.count)
    }

    @Test("a change gives the next version, no change, or a named refusal", arguments: cases)
    func applying(_ testCase: Case) {
        let before = testCase.state.life
        let outcome = before.applying(testCase.change, at: Self.now)
        switch testCase.expected {
        case .unchanged:
            #expect(outcome == .unchanged)
        case .refused(let refusal):
            #expect(outcome == .refused(refusal))
        case .becomes(let status, let expiry, let erase, let erased):
            guard case .changed(let after) = outcome else {
                Issue.record("expected a new version, got \(outcome)")
                return
            }
            func expectedBase(_ base: Base, _ kept: Date?) -> Date? {
                switch base {
                case .none: nil
                case .now: Self.now
                case .kept: kept
                }
            }
            #expect(after == ReportLife(
                status: status, version: before.version + 1, updatedAt: Self.now,
                expiryBase: expectedBase(expiry, before.expiryBase), eraseBase: expectedBase(erase, before.eraseBase),
                erasedAt: erased ? Self.now : before.erasedAt))
        }
    }

    @Test("a new report is missing, version 1, expiring from its submit")
    func submitted() {
        let life = ReportLife.submitted(at: Self.base)
        #expect(life == ReportLife(status: .missing, version: 1, updatedAt: Self.base, expiryBase: Self.base, eraseBase: nil,
                                   erasedAt: nil))
        #expect(!life.isErased)
    }

    @Test("deadlines: base plus the setting as it is now, to the millisecond; none where the status has none")
    func deadlines() {
        let day = Duration.seconds(86_400)
        let missing = State.missing.life
        #expect(missing.expiresAt(after: day * 90) == Self.base.addingTimeInterval(90 * 86_400))
        // Decimal days: 1.5 days, and a setting of a fraction of a millisecond more is cut.
        #expect(missing.expiresAt(after: .seconds(129_600) + .microseconds(999)) == Self.base.addingTimeInterval(129_600))
        #expect(missing.erasesAt(after: day) == nil)
        for state in [State.found, .withdrawn, .expired] {
            #expect(state.life.expiresAt(after: day) == nil)
            #expect(state.life.erasesAt(after: day * 365) == Self.base.addingTimeInterval(365 * 86_400))
            // 0 days: at once.
            #expect(state.life.erasesAt(after: .zero) == Self.base)
        }
        for state in [State.erasedFound, .erasedWithdrawn, .erasedExpired] {
            #expect(state.life.expiresAt(after: day) == nil)
            #expect(state.life.erasesAt(after: day) == nil)
        }
    }

    @Test("erased values keep species and disappearanceDate; every other member stays, null")
    func erasedValues() {
        let values = #"{"chipNumber":"616091234567890","photo":{"mediaType":"image/jpeg","bytes":3,"sha256":"ab"},"#
            + #""disappearanceDate":"2026-11-20","species":"dog","race":"Beagle","gender":"male","age":3,"#
            + #""latitude":52.22968,"longitude":21.01223,"additionalDescription":"shy","contactPhone":"+48123456789","#
            + #""contactEmail":"owner@example.org","note":"unknown member"}"#
        #expect(ErasedValues.of(values)
            == #"{"chipNumber":null,"photo":null,"disappearanceDate":"2026-11-20","species":"dog","race":null,"#
            + #""gender":null,"age":null,"latitude":null,"longitude":null,"additionalDescription":null,"contactPhone":null,"#
            + #""contactEmail":null,"note":null}"#)
        // Nothing to keep from what is not an object.
        #expect(ErasedValues.of("not json") == "{}")
        #expect(ErasedValues.of("[1,2]") == "{}")
    }
}
