#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotRelay
import Testing

@Suite("The relay's state file")
struct StateFileTests {
    @Test("written whole and read back; no temporary file stays; none yet is nil")
    func roundTrip() throws {
        let dir = "/tmp/relay-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = StateFile(path: dir + "/state.json")
        #expect(try file.read() == nil)
        var state = RelayState(box: "kiosk-1", pid: 7, startedAt: "2026-11-21T13:00:00Z")
        state.daemon = .unreachable(reason: "petspotd refused relay.claim as an unknown method", kind: "refused")
        state.postgres = .reachable
        state.lastError = "petspotd: petspotd refused relay.claim as an unknown method"
        try file.write(state)
        state.delivered = 3
        try file.write(state)
        #expect(try file.read() == state)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["state.json"])
        #expect(state.currentError == "petspotd: petspotd refused relay.claim as an unknown method")
    }

    @Test("writing into a folder that does not exist fails; reading there finds no state")
    func missingFolder() throws {
        #expect(throws: (any Error).self) { try StateFile(path: "/nonexistent/state.json").write(RelayState(box: "a", pid: 1, startedAt: "x")) }
        #expect(try StateFile(path: "/nonexistent/state.json").read() == nil)
    }
}
