import PetSpotSystem
import Testing

@Suite("Retry backoff")
struct RetryBackoffTests {
    @Test("doubles from the first wait and stops at the cap", arguments: [
        (0, Duration.zero),
        (1, .milliseconds(250)),
        (2, .milliseconds(500)),
        (3, .seconds(1)),
        (4, .seconds(2)),
        (5, .seconds(4)),
        (8, .seconds(30)),
        (9, .seconds(30)),
        (1_000_000, .seconds(30)),
    ])
    func table(_ failures: Int, _ expected: Duration) {
        #expect(RetryBackoff(initial: .milliseconds(250), maximum: .seconds(30)).delay(afterFailures: failures) == expected)
    }

    @Test("a cap below a doubling is reached exactly")
    func capBetweenSteps() {
        let backoff = RetryBackoff(initial: .seconds(1), maximum: .seconds(5))
        #expect((1...5).map(backoff.delay(afterFailures:)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5)])
    }

    @Test("a first wait above the cap is the cap")
    func initialAboveCap() {
        let backoff = RetryBackoff(initial: .seconds(5), maximum: .seconds(2))
        #expect((1...3).map(backoff.delay(afterFailures:)) == [.seconds(2), .seconds(2), .seconds(2)])
    }

    @Test("a success starts the doubling again")
    func successResets() {
        var backoff = RetryBackoff(initial: .milliseconds(100), maximum: .seconds(1))
        let first = backoff.failed(), second = backoff.failed()
        #expect([first, second] == [.milliseconds(100), .milliseconds(200)])
        #expect(backoff.failures == 2)
        backoff.succeeded()
        #expect(backoff.failures == 0)
        let afterSuccess = backoff.failed()
        #expect(afterSuccess == .milliseconds(100))
    }
}
