import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import Testing

@testable import petspot

/// Where a report stands, in words, from its status, times and erasure, told from a fixed "now".
@Suite("A report's standing in people's words")
struct ReportStandingTests {
    static let now = RelativeTimeTests.now
    static let day = 86_400.0

    static func time(_ seconds: Double) -> String {
        Date(timeIntervalSince1970: now.timeIntervalSince1970 + seconds).formatted(Date.ISO8601FormatStyle())
    }

    static func report(_ status: ReportView.Status, updated: Double = -day, expires: String? = nil, erased: Bool = false) -> ReportView {
        ReportView(id: "r1", flowID: "f1", submittedAt: time(-20 * day), status: status, version: 3, updatedAt: time(updated),
                   expiresAt: expires, erased: erased, values: ["species": "dog"], delivery: .pending)
    }

    static let table: [(report: ReportView, words: String)] = [
        (report(.missing, expires: time(12 * day - 5)), "missing, expires in 12 days"),
        (report(.missing, expires: time(day)), "missing, expires in 1 day"),
        (report(.missing, expires: time(5 * 3_600)), "missing, expires in 5 hours"),
        (report(.missing, expires: time(30)), "missing, expires in less than a minute"),
        (report(.missing, expires: time(90 * day)), "missing, expires in 3 months"),
        // Due, and not yet expired by the daemon (or this clock runs ahead of it).
        (report(.missing, expires: time(-120)), "missing, due to expire 2 minutes ago"),
        (report(.missing), "missing"),
        (report(.missing, expires: "soon"), "missing, expires soon"),
        (report(.expired, updated: -3 * day), "expired 3 days ago"),
        (report(.expired, updated: -95 * day), "expired 3 months ago"),
        (report(.found, updated: -2 * 3_600), "found 2 hours ago"),
        (report(.found, updated: 0), "found less than a minute ago"),
        // A clock behind the daemon's does not tell a past change as a future one.
        (report(.found, updated: 3_600), "found less than a minute ago"),
        (report(.withdrawn, updated: -400 * day), "withdrawn 13 months ago"),
        (report(.found, erased: true), "found, erased"),
        (report(.withdrawn, erased: true), "withdrawn, erased"),
        (report(.expired, erased: true), "expired, erased"),
    ]

    @Test("status, how soon it expires or how long ago it ended, erased", arguments: table)
    func words(_ row: (report: ReportView, words: String)) {
        #expect(ReportRecord(row.report).standing(now: Self.now) == row.words)
    }

    @Test("a time that is no time leaves the status alone")
    func unreadableTime() {
        let report = ReportView(id: "r1", flowID: "f1", submittedAt: "then", status: .expired, version: 2, updatedAt: "yesterday",
                                expiresAt: nil, erased: false, values: [:], delivery: .pending)
        #expect(ReportRecord(report).standing(now: Self.now) == "expired")
    }

    /// Answers species.list with nothing: species are shown by their ids.
    final class NoDaemon: DaemonCalling {
        func call(_ method: String, _ params: JSONObject) throws(ClientError) -> Result<JSONValue, RPCError> {
            .failure(RPCError(.methodNotFound, "no daemon here"))
        }
    }

    @Test("show: the status, when a missing report expires, the version and its last change come first")
    func showLines() {
        let missing = Self.report(.missing, updated: -Self.day, expires: Self.time(12 * Self.day))
        let lines = ReportsShowCommand.lines(ReportRecord(missing), species: SpeciesNames(NoDaemon()), now: Self.now)
        #expect(Array(lines.prefix(5)) == [
            "Report r1",
            "  Status         missing, expires in 12 days",
            "  Expires        \(Self.time(12 * Self.day))",
            "  Version        3, last changed \(Self.time(-Self.day))",
            "  Submitted      \(Self.time(-20 * Self.day))",
        ], "\(lines.joined(separator: "\n"))")
        let found = ReportsShowCommand.lines(ReportRecord(Self.report(.found, updated: -3 * Self.day)), species: SpeciesNames(NoDaemon()), now: Self.now)
        #expect(found[1] == "  Status         found 3 days ago")
        #expect(!found.contains { $0.hasPrefix("  Expires") }, "a closed report does not expire")
    }
}
