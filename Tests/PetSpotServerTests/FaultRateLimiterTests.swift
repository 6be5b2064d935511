@testable import PetSpotServer
import PetSpotSystem
import Testing

@Suite("Rate-limiting fault lines")
struct FaultRateLimiterTests {
    typealias Line = FaultRateLimiter<String>.Line

    /// One thing that happens at a time (in seconds), and the lines it must produce.
    enum Step: Sendable {
        case fault(Double, String, String, [Line])
        case flush(Double, [Line])
        case drain([Line])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let steps: [Step]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a single fault is written at once", steps: [
            .fault(0, "storage", "s1", [.single("s1")]),
            .flush(10, []),
        ]),
        Case(name: "faults spaced wider than the interval are each written", steps: [
            .fault(0, "storage", "s1", [.single("s1")]),
            .flush(10, []),
            .fault(20, "storage", "s2", [.single("s2")]),
            .fault(40, "storage", "s3", [.single("s3")]),
        ]),
        Case(name: "a flood becomes its first line and then one count line per interval", steps: [
            .fault(0, "refused", "r1", [.single("r1")]),
            .fault(1, "refused", "r2", []),
            .fault(2, "refused", "r3", []),
            .flush(9.999, []),
            .flush(10, [.repeated(last: "r3", count: 2)]),
            .fault(11, "refused", "r4", []),
            .flush(19, []),
            .flush(20, [.repeated(last: "r4", count: 1)]),
            // A quiet interval ends the flood: the next one is written at once.
            .flush(30, []),
            .fault(31, "refused", "r5", [.single("r5")]),
        ]),
        Case(name: "a fault after the interval, before any flush, writes the count and is held itself", steps: [
            .fault(0, "refused", "r1", [.single("r1")]),
            .fault(5, "refused", "r2", []),
            .fault(15, "refused", "r3", [.repeated(last: "r2", count: 1)]),
            .flush(24, []),
            .flush(25, [.repeated(last: "r3", count: 1)]),
        ]),
        Case(name: "different faults are counted apart", steps: [
            .fault(0, "storage", "s1", [.single("s1")]),
            .fault(0.5, "refused", "r1", [.single("r1")]),
            .fault(1, "storage", "s2", []),
            .fault(1, "refused", "r2", []),
            .fault(1, "refused", "r3", []),
            .flush(10, [.repeated(last: "s2", count: 1)]),
            .flush(10.5, [.repeated(last: "r3", count: 2)]),
        ]),
        Case(name: "at a stop every held-back count is written, interval over or not", steps: [
            .fault(0, "storage", "s1", [.single("s1")]),
            .fault(1, "storage", "s2", []),
            .fault(1, "quiet", "q1", [.single("q1")]),
            .drain([.repeated(last: "s2", count: 1)]),
            .fault(2, "storage", "s3", [.single("s3")]),
        ]),
        Case(name: "a clock reading before the window start holds back rather than trapping", steps: [
            .fault(5, "storage", "s1", [.single("s1")]),
            .fault(4, "storage", "s2", []),
            .flush(3, []),
        ]),
    ]

    @Test("lines written for a sequence of faults", arguments: cases)
    func sequence(_ c: Case) {
        var limiter = FaultRateLimiter<String>(interval: .seconds(10))
        for (index, step) in c.steps.enumerated() {
            switch step {
            case .fault(let seconds, let key, let sample, let expected):
                #expect(limiter.record(key, sample, at: Self.instant(seconds)) == expected, "step \(index)")
            case .flush(let seconds, let expected):
                #expect(limiter.flush(at: Self.instant(seconds)) == expected, "step \(index)")
            case .drain(let expected):
                #expect(limiter.drain() == expected, "step \(index)")
            }
        }
    }

    @Test("every fault of a long flood is either written or counted exactly once")
    func nothingLostNothingTwice() {
        var limiter = FaultRateLimiter<Int>(interval: .nanoseconds(1_000))
        var written = 0, counted = 0, lines = 0
        for n in 0..<10_000 {
            for line in limiter.record("k", n, at: DaemonInstant(sinceOrigin: .nanoseconds(n * 7))) + (n % 50 == 0 ? limiter.flush(at: DaemonInstant(sinceOrigin: .nanoseconds(n * 7))) : []) {
                lines += 1
                switch line {
                case .single: written += 1
                case .repeated(_, let count): counted += count
                }
            }
        }
        for line in limiter.drain() {
            lines += 1
            if case .repeated(_, let count) = line { counted += count }
        }
        #expect(written + counted == 10_000)
        // 70,000 ns of faults at one line per 1,000 ns, give or take the flush cadence.
        #expect(lines <= 71)
        #expect(limiter.openKeys.isEmpty)
    }

    static func instant(_ seconds: Double) -> DaemonInstant { DaemonInstant(sinceOrigin: .seconds(seconds)) }
}
