import Foundation
import Logging
import NIOCore
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotSystem
@testable import PetSpotServer
import Synchronization
import Testing

/// The daemon's request path in process, without a socket: a line in, the answer line out,
/// through `Responder` and the daemon's `Routes` as a connection uses them, with a real report
/// store in a temporary directory and a manual clock. Flow ids are "flow-a", "flow-b", … in
/// the order the flows start (reports take ids from the same counter).
final class InProcessDaemon: Sendable {
    let services: DaemonServices
    let routes: Routes
    let directory: URL
    let peer = Peer(pid: 1, uid: 1000, gid: 1000)
    /// The daemon's clock, moved by the test.
    let time = ManualTime()
    /// Members of this group are relays.
    static let relayGroup: UInt32 = 990

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-inprocess-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let clock = DaemonClock.manual(time)
        let speciesFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../config/species.json").path
        let species = try SpeciesCatalog(json: try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: speciesFile)))))
        let settings = RuntimeSettings(configuration: DaemonConfiguration(),
                                       location: LocationService(providers: [], settingsFile: "f", clock: clock),
                                       species: species, calendar: try #require(LocalCalendar(zone: "UTC")),
                                       relayGroupID: Self.relayGroup)
        let store = try await ReportStore(path: directory.appendingPathComponent("reports.sqlite").path, now: clock.wallTime(),
                                          box: settings.boxName)
        let next = IDCounter()
        services = DaemonServices(settings: settings,
                                  registry: FlowRegistry(limits: .registry(maxFlowsPerUser: 10, maxFlows: 10, idleTimeoutSeconds: 60), clock: clock),
                                  store: store, photoSpool: try PhotoSpool.beside(databasePath: directory.appendingPathComponent("reports.sqlite").path), clock: clock,
                                  makeID: { "flow-" + String(UnicodeScalar(UInt8(ascii: "a") + UInt8(next.next()))) })
        routes = Routes.daemon(services: services, faults: RequestFaults(log: FaultLog(logger: Logger(label: "test"), interval: .seconds(60), clock: clock),
                                                                   databasePath: directory.appendingPathComponent("reports.sqlite").path))
    }

    /// What a connection of `peer` answers with; `batchRoom`: where a batch's answers count as
    /// they are made.
    func responder(_ peer: Peer? = nil, batchRoom: BatchRoom? = nil) -> Responder {
        Responder(routes: routes, services: services, peer: peer ?? self.peer, logger: Logger(label: "test"), subscriber: nil,
                  batchRoom: batchRoom)
    }

    /// The answer line for `line` (without its newline), which must be ready at once: it only
    /// touches memory, so the daemon writes it on the event loop. `batchRoom`: where a batch's
    /// answers count as they are made.
    func answer(_ line: String, as peer: Peer? = nil, batchRoom: BatchRoom? = nil) throws -> String {
        guard case .ready(let answer) = responder(peer, batchRoom: batchRoom).respond(line: ByteBuffer(string: line), draining: false) else {
            Issue.record("\(line) did not answer at once")
            return ""
        }
        return String(buffer: try #require(answer).buffer)
    }

    /// The answer line for `line`, whether ready at once or later.
    func answerAnyTime(_ line: String, as peer: Peer? = nil) async throws -> String {
        String(buffer: try #require(await responder(peer).respond(line: ByteBuffer(string: line), draining: false).bytes))
    }

    /// Calls `method` with `params` (request id 1) and gives the answer's result or error.
    func call(_ method: any RPCMethodSpec.Type, _ params: JSONObject = [:], as peer: Peer? = nil) async throws -> RPCResponse {
        let line = JSONWriter.string(["jsonrpc": "2.0", "id": 1, "method": .string(method.name), "params": .object(params)])
        return try #require(RPCResponse(json: try JSONParser.parse(try await answerAnyTime(line, as: peer))))
    }

    /// Calls a method by a name the protocol may not have.
    func callNamed(_ name: String, _ params: JSONObject = [:], as peer: Peer? = nil) async throws -> RPCResponse {
        let line = JSONWriter.string(["jsonrpc": "2.0", "id": 1, "method": .string(name), "params": .object(params)])
        return try #require(RPCResponse(json: try JSONParser.parse(try await answerAnyTime(line, as: peer))))
    }

    func close() async throws {
        try await services.store.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Hands out 0, 1, 2, … to any thread.
final class IDCounter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
