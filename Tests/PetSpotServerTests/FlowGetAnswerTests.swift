import Foundation
import Logging
import NIOCore
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore
import PetSpotSystem
import Synchronization
@testable import PetSpotServer
import Testing

/// `flow.get` answers through the daemon's own request path, in process: the bytes on the wire
/// are pinned (golden lines, as a run of the daemon wrote them), and after each change of a
/// flow, `flow.get` answers the flow as it is now.
@Suite("flow.get answers")
struct FlowGetAnswerTests {
    /// Written by a run of the daemon (TZ=UTC, its date set to the manual clock's) for the flows
    /// of `goldenBytes`. flow-b's race and description were stored until control characters in
    /// free text were refused; now they are refused values, shown escaped in `display`.
    static let golden = [
        "flow-a": ##"{"jsonrpc":"2.0","id":7,"result":{"flow":{"id":"flow-a","state":"active","step":"chip","locale":"en","screen":{"title":"Microchip number","progress":{"current":1,"total":4,"label":"1/4"},"heading":"Microchip number","text":"Microchip identification is the most efficient way to reunite with your pet. If your pet has been microchipped and you know the microchip number, please enter it here.","fields":[{"name":"chipNumber","label":"Microchip number (optional)","placeholder":"00000-00000-00000","value":null,"display":null,"required":false,"enabled":true,"error":null,"helper":null,"counter":null}],"actions":["continue","back"],"toast":null,"alert":null},"values":{"chipNumber":null,"photo":null,"disappearanceDate":null,"species":null,"race":null,"gender":null,"age":null,"latitude":null,"longitude":null,"additionalDescription":null,"contactPhone":null,"contactEmail":null}}}}"##,
        "flow-b": ##"{"jsonrpc":"2.0","id":7,"result":{"flow":{"id":"flow-b","state":"active","step":"description","locale":"pl","screen":{"title":"Opis zwierzęcia","progress":{"current":3,"total":4,"label":"3/4"},"heading":"Opis zwierzęcia","text":"Napisz, kiedy zwierzę zaginęło i jak je rozpoznać.","fields":[{"name":"disappearanceDate","label":"Data zaginięcia","placeholder":"RRRR-MM-DD","value":"2026-11-18","display":"18 listopada 2026","required":true,"enabled":true,"error":null,"helper":null,"counter":null},{"name":"species","label":"Gatunek zwierzęcia","placeholder":"Wybierz opcję","value":"dog","display":"Pies","required":true,"enabled":true,"error":null,"helper":null,"counter":null,"options":[{"id":"dog","name":"Pies"},{"id":"cat","name":"Kot"},{"id":"rabbit","name":"Królik"},{"id":"ferret","name":"Fretka"},{"id":"guinea-pig","name":"Świnka morska"},{"id":"hamster","name":"Chomik"},{"id":"rat","name":"Szczur"},{"id":"bird","name":"Ptak"},{"id":"tortoise","name":"Żółw"},{"id":"horse","name":"Koń"},{"id":"other","name":"Inny"}]},{"name":"race","label":"Rasa zwierzęcia","placeholder":"np. labrador","value":null,"display":"x\"1\\\n\t\u0001\u007f ż","required":true,"enabled":true,"error":"Usuń znaki sterujące (np. kody escape); wpisz zwykły tekst.","helper":null,"counter":null},{"name":"gender","label":"Płeć","placeholder":"Wybierz opcję","value":null,"display":null,"required":true,"enabled":true,"error":null,"helper":null,"counter":null,"options":[{"id":"female","name":"Samica"},{"id":"male","name":"Samiec"}]},{"name":"age","label":"Wiek zwierzęcia (opcjonalnie)","placeholder":"Liczba lat, 0–40","value":null,"display":null,"required":false,"enabled":true,"error":null,"helper":null,"counter":null},{"name":"latitude","label":"Szerokość geograficzna (opcjonalnie)","placeholder":"np. 52.22977","value":null,"display":null,"required":false,"enabled":true,"error":null,"helper":null,"counter":null},{"name":"longitude","label":"Długość geograficzna (opcjonalnie)","placeholder":"np. 21.01178","value":null,"display":null,"required":false,"enabled":true,"error":null,"helper":"Na tym etapie nie zbieramy innych informacji o miejscu zaginięcia.","counter":null},{"name":"additionalDescription","label":"Dodatkowy opis zwierzęcia (opcjonalnie)","placeholder":"Umaszczenie, obroża, znaki szczególne…","value":null,"display":"x\"1\\\n\t\u0001\u007f ż","required":false,"enabled":true,"error":"Usuń znaki sterujące (np. kody escape); nowe wiersze i tabulatory są dozwolone.","helper":null,"counter":"0/500"}],"actions":["continue","back","requestLocation"],"toast":null,"alert":null},"values":{"chipNumber":null,"photo":null,"disappearanceDate":"2026-11-18","species":"dog","race":null,"gender":null,"age":null,"latitude":null,"longitude":null,"additionalDescription":null,"contactPhone":null,"contactEmail":null}}}}"##,
    ]

    /// Starts a flow, takes it through `steps` (a method, and the values of an update), and
    /// answers `flow.get` on it (request id 7).
    func startAndGet(_ daemon: InProcessDaemon, locale: String, steps: [(method: String, values: String?)] = []) throws -> (id: String, answer: String) {
        let start = try JSONParser.parse(try daemon.answer(#"{"jsonrpc":"2.0","id":1,"method":"flow.start","params":{"locale":"\#(locale)"}}"#))
        let id = try #require(start["result"]?["flow"]?["id"]?.stringValue)
        for (method, values) in steps {
            let params = values.map { #"{"flowId":"\#(id)","values":\#($0)}"# } ?? #"{"flowId":"\#(id)"}"#
            let answer = try JSONParser.parse(try daemon.answer(#"{"jsonrpc":"2.0","id":2,"method":"\#(method)","params":\#(params)}"#))
            #expect(answer["result"] != nil, "\(method) failed: \(answer)")
        }
        return (id, try daemon.answer(#"{"jsonrpc":"2.0","id":7,"method":"flow.get","params":{"flowId":"\#(id)"}}"#))
    }

    @Test("the answer's bytes are the same as before: a new flow, and a Polish one holding refused values that need escapes")
    func goldenBytes() async throws {
        let daemon = try await InProcessDaemon()
        let a = try startAndGet(daemon, locale: "en")
        let odd = #""x\"1\\\n\t\u0001\u007f ż""#
        let b = try startAndGet(daemon, locale: "pl", steps: [
            ("flow.continue", nil), ("flow.continue", nil),
            ("flow.update", #"{"species":"dog","race":\#(odd),"additionalDescription":\#(odd)}"#),
        ])
        #expect(a.answer == Self.golden["flow-a"])
        #expect(b.answer == Self.golden["flow-b"])
        // Asked again: the same bytes.
        #expect(try daemon.answer(#"{"jsonrpc":"2.0","id":7,"method":"flow.get","params":{"flowId":"flow-b"}}"#) == Self.golden["flow-b"])
        try await daemon.close()
    }

    @Test("after each change of a flow, flow.get answers the view of the flow as it is")
    func changedFlow() async throws {
        let daemon = try await InProcessDaemon()
        let (id, _) = try startAndGet(daemon, locale: "en")
        let steps = [
            #"{"jsonrpc":"2.0","id":3,"method":"flow.continue","params":{"flowId":"\#(id)"}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"flow.continue","params":{"flowId":"\#(id)"}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"flow.update","params":{"flowId":"\#(id)","values":{"species":"dog","race":"Lab \"Rex\" \\ ż\t","gender":"female"}}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"flow.back","params":{"flowId":"\#(id)"}}"#,
        ]
        for step in steps {
            _ = try daemon.answer(step)
            let flow = try daemon.services.registry.withFlow(id, owner: daemon.peer.uid) { $0 }
            let expected = JSONWriter.string(RPCResponse.success(id: 7, ["flow": flow.view(env: daemon.services.flowEnvironment()).json]).json)
            #expect(try daemon.answer(#"{"jsonrpc":"2.0","id":7,"method":"flow.get","params":{"flowId":"\#(id)"}}"#) == expected)
        }
        _ = try daemon.answer(#"{"jsonrpc":"2.0","id":3,"method":"flow.cancel","params":{"flowId":"\#(id)"}}"#)
        let gone = try JSONParser.parse(try daemon.answer(#"{"jsonrpc":"2.0","id":7,"method":"flow.get","params":{"flowId":"\#(id)"}}"#))
        #expect(gone["error"]?["data"]?["kind"]?.stringValue == "flowNotFound")
        try await daemon.close()
    }

    @Test("a batch of flow.get answers is one array of the same answers")
    func batch() async throws {
        let daemon = try await InProcessDaemon()
        let (id, single) = try startAndGet(daemon, locale: "en")
        let get = #"{"jsonrpc":"2.0","id":7,"method":"flow.get","params":{"flowId":"\#(id)"}}"#
        #expect(try daemon.answer("[\(get),\(get)]") == "[\(single),\(single)]")
        try await daemon.close()
    }

    @Test("daemon.info's limits are the table's shown ones, by name and in its order, each with the value in force")
    func daemonInfoLimits() async throws {
        let daemon = try await InProcessDaemon()
        let info = try JSONParser.parse(Array(try daemon.answer(#"{"id":0,"method":"daemon.info"}"#).utf8))
        let limits = try #require(info["result"]?["limits"]?.objectValue)
        let shown = DaemonConfiguration.Limits.table.filter(\.inDaemonInfo)
        #expect(limits.members.map(\.key) == shown.map(\.name))
        let inForce = daemon.services.limits
        for limit in shown { #expect(limits[limit.name] == .int(inForce.effective(limit)), "\(limit.name)") }
        try await daemon.close()
    }

    @Test("daemon.info is written once per settings: the same bytes the writer makes of the whole answer, again after a reload with the new settings")
    func daemonInfoKeptPerSettings() async throws {
        let daemon = try await InProcessDaemon()
        func expected(_ id: String) throws -> String {
            let info = try JSONParser.parse(Array(try daemon.answer(#"{"id":0,"method":"daemon.info"}"#).utf8))["result"]
            return JSONWriter.string(["jsonrpc": "2.0", "id": .string(id), "result": try #require(info)])
        }
        let first = try daemon.answer(#"{"jsonrpc":"2.0","id":"a","method":"daemon.info"}"#)
        #expect(first == (try expected("a")))
        #expect(try daemon.answer(#"{"jsonrpc":"2.0","id":"a","method":"daemon.info"}"#) == first)
        #expect(first.contains(#""maxFlowsPerUser":50,"#))

        let old = daemon.services.settings
        var configuration = old.configuration
        configuration.limits.maxFlowsPerUser = 7
        daemon.services.replace(with: RuntimeSettings(configuration: configuration, location: old.location,
                                                      species: old.species, calendar: old.calendar))
        let reloaded = try daemon.answer(#"{"jsonrpc":"2.0","id":"a","method":"daemon.info"}"#)
        #expect(reloaded.contains(#""maxFlowsPerUser":7,"#), "\(reloaded)")
        #expect(reloaded == (try expected("a")))
        try await daemon.close()
    }
}
