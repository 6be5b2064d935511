import PetSpotSystem
@testable import PetSpotServer
import Testing

@Suite("Relay claims")
struct RelayClaimsTests {
    /// One step on the manual clock, then what the claims hold.
    enum Step: Sendable {
        case take([String], seconds: Int, expect: [String])
        case advance(Duration)
        case release([String])
        case held([String])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a claimed report is held until its lease ends, and free at that instant", steps: [
            .take(["a", "b"], seconds: 60, expect: ["a", "b"]),
            .advance(.seconds(60) - .nanoseconds(1)), .held(["a", "b"]),
            .advance(.nanoseconds(1)), .held([]),
        ]),
        Case(name: "a held report is not taken twice; the others in the same take are", steps: [
            .take(["a"], seconds: 60, expect: ["a"]),
            .take(["b", "a", "c"], seconds: 60, expect: ["b", "c"]),
            .held(["a", "b", "c"]),
        ]),
        Case(name: "an ended lease is handed out again, with a new end", steps: [
            .take(["a"], seconds: 10, expect: ["a"]),
            .advance(.seconds(10)),
            .take(["a"], seconds: 30, expect: ["a"]),
            .advance(.seconds(29)), .held(["a"]),
            .advance(.seconds(1)), .held([]),
        ]),
        Case(name: "release ends a lease at once; releasing what is not held is harmless", steps: [
            .take(["a", "b"], seconds: 60, expect: ["a", "b"]),
            .release(["a", "zzz"]), .held(["b"]),
            .take(["a"], seconds: 60, expect: ["a"]),
            .held(["a", "b"]),
        ]),
        Case(name: "leases of different lengths end each at its own time", steps: [
            .take(["short"], seconds: 1, expect: ["short"]),
            .take(["long"], seconds: 86_400, expect: ["long"]),
            .advance(.seconds(1)), .held(["long"]),
            .advance(.seconds(86_398)), .held(["long"]),
            .advance(.seconds(1)), .held([]),
        ]),
    ]

    @Test("leases on the daemon clock", arguments: cases)
    func leases(_ testCase: Case) {
        let time = ManualTime()
        let claims = RelayClaims(clock: .manual(time))
        for (index, step) in testCase.steps.enumerated() {
            switch step {
            case .take(let ids, let seconds, let expected):
                #expect(claims.take(ids, for: .seconds(seconds)) == expected, "step \(index)")
            case .advance(let duration):
                time.advance(by: duration)
            case .release(let ids):
                claims.release(ids)
            case .held(let expected):
                #expect(claims.held() == Set(expected), "step \(index)")
                #expect(claims.count == expected.count, "step \(index)")
            }
        }
    }

    @Test("a lease keeps the version handed out, until it ends or is released")
    func versions() {
        let time = ManualTime()
        let claims = RelayClaims(clock: .manual(time))
        #expect(claims.take(["a", "b", "c"], for: .seconds(60), versions: ["a": 3, "b": 1]) == ["a", "b", "c"])
        // Taken again by another claim meanwhile: the first lease and its version stay.
        #expect(claims.take(["a"], for: .seconds(60), versions: ["a": 4]).isEmpty)
        #expect(claims.versions(of: ["a", "b", "c", "zzz"]) == ["a": 3, "b": 1])
        claims.release(["b"])
        #expect(claims.versions(of: ["a", "b"]) == ["a": 3])
        time.advance(by: .seconds(60))
        #expect(claims.versions(of: ["a"]).isEmpty)
    }
}
