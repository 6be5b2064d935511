import Foundation
import Logging
import PetSpotJSON
import PetSpotProtocol
@testable import PetSpotServer
import Testing

/// Retention on the daemon's manual clock: nothing before the moment, everything due at it,
/// with the settings in force at each sweep.
@Suite("Retention on the daemon's clock")
struct RetentionSweepTests {
    static let day = Duration.seconds(86_400)

    func report(_ daemon: InProcessDaemon, _ id: String) async throws -> JSONValue {
        guard case .success(let result) = try await daemon.call(ReportsGet.self, ["reportId": .string(id)]).outcome else {
            throw CancellationError()
        }
        return try #require(result["report"])
    }

    func retention(_ daemon: InProcessDaemon, expire: Duration, erase: Duration) {
        let old = daemon.services.settings
        var configuration = old.configuration
        configuration.retention = .init(expireAfter: expire, eraseAfter: erase)
        daemon.services.replace(with: RuntimeSettings(configuration: configuration, location: old.location, species: old.species, calendar: old.calendar))
    }

    @Test("a report expires at reports.expireAfterDays, not a millisecond before; is erased reports.eraseAfterDays later; a reload moves both")
    func onTheClock() async throws {
        let daemon = try await InProcessDaemon()
        let sweep = RetentionSweep(services: daemon.services, logger: Logger(label: "test"))
        let id = try await RequestHandlersTests().submitted(daemon)
        retention(daemon, expire: Self.day * 2, erase: Self.day)

        daemon.time.advance(by: Self.day * 2 - .milliseconds(1))
        await sweep.sweep()
        #expect(try await report(daemon, id)["status"] == "missing")
        #expect(try await report(daemon, id)["expiresAt"] != .null)
        daemon.time.advance(by: .milliseconds(1))
        await sweep.sweep()
        let expired = try await report(daemon, id)
        #expect(expired["status"] == "expired" && expired["version"] == 2 && expired["expiresAt"] == .null)

        // A reload to ten days: the erasure moves with it.
        retention(daemon, expire: Self.day * 2, erase: Self.day * 10)
        daemon.time.advance(by: Self.day * 2)
        await sweep.sweep()
        #expect(try await report(daemon, id)["erased"] == false)
        // Back to one day: due at once.
        retention(daemon, expire: Self.day * 2, erase: Self.day)
        await sweep.sweep()
        let erased = try await report(daemon, id)
        #expect(erased["erased"] == true && erased["version"] == 3 && erased["values"]?["contactEmail"] == .null)
        try await daemon.close()
    }

    @Test("a renewal starts the expiry again from its moment")
    func renewAndClose() async throws {
        let daemon = try await InProcessDaemon()
        let sweep = RetentionSweep(services: daemon.services, logger: Logger(label: "test"))
        retention(daemon, expire: Self.day, erase: Self.day * 365)
        let renewed = try await RequestHandlersTests().submitted(daemon)
        daemon.time.advance(by: Self.day / 2)
        _ = try await daemon.call(ReportsRenew.self, ["reportId": .string(renewed)])
        daemon.time.advance(by: Self.day * 3 / 4)
        await sweep.sweep()
        #expect(try await report(daemon, renewed)["status"] == "missing")
        daemon.time.advance(by: Self.day / 4)
        await sweep.sweep()
        #expect(try await report(daemon, renewed)["status"] == "expired")
        try await daemon.close()
    }
}
