import Foundation
import PetSpotJSON
import PetSpotProtocol
import Testing

@Suite("The protocol's contract")
struct ProtocolContractTests {
    @Test("every method type has exactly one entry, in the list's order, names unique, and every error kind a component")
    func oneEntryPerMethod() {
        let names = ProtocolMethods.all.map { $0.name }
        #expect(ProtocolContract.methods.map(\.name) == names)
        #expect(Set(names).count == names.count)
        let document = ProtocolContract.openRPC(version: "test", relay: true)
        let errors = document["components"]?["errors"]?.objectValue?.keys ?? []
        #expect(errors == RPCErrorKind.allCases.map(\.rawValue))
        for kind in RPCErrorKind.allCases {
            #expect(document["components"]?["errors"]?[kind.rawValue]?["code"] == .int(kind.code))
        }
    }

    @Test("every $ref names a schema of components/schemas, and every shared schema is used")
    func references() {
        let document = ProtocolContract.openRPC(version: "test", relay: true)
        var refs: Set<String> = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let object):
                for member in object {
                    if member.key == "$ref", let ref = member.value.stringValue { refs.insert(ref) } else { collect(member.value) }
                }
            case .array(let elements): elements.forEach(collect)
            default: break
            }
        }
        collect(document)
        let schemas = Set(ProtocolSchemas.all.map { "#/components/schemas/\($0.key)" })
        let errors = Set(RPCErrorKind.allCases.map { "#/components/errors/\($0.rawValue)" })
        #expect(refs.subtracting(schemas).subtracting(errors).isEmpty, "\(refs.subtracting(schemas).subtracting(errors))")
        #expect(schemas.subtracting(refs).isEmpty, "unused: \(schemas.subtracting(refs))")
    }

    @Test("params: names unique; examples give only params the method takes, and every required one")
    func params() {
        for contract in ProtocolContract.methods {
            let names = contract.params.map(\.name)
            #expect(Set(names).count == names.count, "\(contract.name)")
            let required = Set(contract.params.filter(\.required).map(\.name))
            #expect(Set(contract.example.params.keys).isSubset(of: Set(names)), "\(contract.name)")
            #expect(required.isSubset(of: Set(contract.example.params.keys)), "\(contract.name)")
        }
    }

    @Test("each method's name is written once in Sources/, by its type: the programs call methods by the contract's types")
    func methodNamesWrittenOnce() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100)
        var written: [String: [String]] = [:]
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for spec in ProtocolMethods.all where text.contains("\"\(spec.name)\"") { written[spec.name, default: []].append(file) }
        }
        for spec in ProtocolMethods.all {
            #expect(written[spec.name]?.count == 1 && written[spec.name]?.first?.hasPrefix("PetSpotProtocol/Methods/") == true,
                    "\"\(spec.name)\" is written in \(written[spec.name] ?? []); use \(spec).name")
        }
    }

    @Test("docs/PROTOCOL.md has a section for every method of the contract, and no other, naming its params as the contract does")
    func documented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("### ") }.map { String($0.dropFirst(4)) }
        // A method's heading is its name alone; other headings of that level are words.
        let methods = headings.filter { !$0.contains(" ") }
        #expect(Set(methods) == Set(ProtocolContract.methods.map(\.name)))

        // Each section opens by naming its params as the contract has them: `name` when
        // required, `name?` when not, or "No parameters."
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for contract in ProtocolContract.methods {
            guard let heading = lines.firstIndex(of: "### \(contract.name)") else { continue }
            let opening = lines[(heading + 2)...].prefix { !$0.isEmpty }.joined(separator: " ")
            if contract.params.isEmpty {
                #expect(opening.contains("No parameters."), "\(contract.name): \(opening)")
            }
            for param in contract.params {
                let written = "`\(param.name)\(param.required ? "" : "?")`"
                #expect(opening.contains(written), "\(contract.name) does not open with \(written): \(opening)")
            }
            let optional = opening.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 && $0.element.hasSuffix("?") }
            #expect(Set(optional.map { String($0.element.dropLast()) }).isSubset(of: Set(contract.params.map(\.name))), "\(contract.name)")
        }
    }

    @Test("the relay methods' results read back as written, in the wire's member order")
    func relayRoundTrip() throws {
        let claim = RelayClaim.Result(reports: [
            .init(report: ReportView(id: "r1", flowID: "f1", submittedAt: "t1", status: .missing, version: 1, updatedAt: "t1", expiresAt: "t9",
                                     erased: false, values: [:], delivery: .pending), ownerUID: 1000, photo: nil),
            .init(report: ReportView(id: "r2", flowID: "f2", submittedAt: "t2", status: .found, version: 3, updatedAt: "t4", expiresAt: nil,
                                     erased: true, values: ["species": "cat"], delivery: .delivered(at: "t3")),
                  ownerUID: 0, photo: .init(mediaType: "image/png", sha256: "ab", base64: "iVBO")),
        ], claimTimeoutSeconds: 60, pending: 2)
        #expect(try RelayClaim.Result(json: claim.json) == claim)
        #expect(JSONWriter.string(claim.json) == #"{"reports":[{"report":{"id":"r1","flowId":"f1","submittedAt":"t1","status":"missing","version":1,"updatedAt":"t1","expiresAt":"t9","erased":false,"values":{},"delivery":{"state":"pending"}},"ownerUid":1000,"photo":null},{"report":{"id":"r2","flowId":"f2","submittedAt":"t2","status":"found","version":3,"updatedAt":"t4","expiresAt":null,"erased":true,"values":{"species":"cat"},"delivery":{"state":"delivered","deliveredAt":"t3"}},"ownerUid":0,"photo":{"mediaType":"image/png","sha256":"ab","data":"iVBO"}}],"claimTimeoutSeconds":60,"pending":2}"#)
        let ack = RelayAck.Result(delivered: 1, alreadyDelivered: 0)
        #expect(try RelayAck.Result(json: ack.json) == ack)
        #expect(JSONWriter.string(.object(RelayAck.Params(reportIds: ["r1"]).json)) == #"{"reportIds":["r1"]}"#)
        #expect(JSONWriter.string(.object(RelayAck.Params(reports: [.init(reportId: "r1", version: 2)]).json)) == #"{"reports":[{"reportId":"r1","version":2}]}"#)
        let status = RelayStatus.Result(pending: 0, claimed: 0, delivered: 1, lastDeliveredAt: nil)
        #expect(try RelayStatus.Result(json: status.json) == status)
        #expect(JSONWriter.string(status.json) == #"{"pending":0,"claimed":0,"delivered":1,"lastDeliveredAt":null}"#)
        #expect(RelayClaim.Params().json.isEmpty)
    }

    @Test("every method's example params and result read with its types and write back byte for byte", arguments: ProtocolMethods.all.map(MethodCase.init))
    func typesFitTheExamples(_ method: MethodCase) throws {
        try method.check()
    }

    @Test("the relay group alone is offered the relay methods, in the list's order")
    func visibility() {
        let relay = ProtocolMethods.all.filter { $0.visibility == .relayGroup }.map { $0.name }
        #expect(relay == ["relay.claim", "relay.ack", "relay.status", "relay.fleet", "relay.fleetPut", "relay.watch"])
        #expect(ProtocolMethods.offered(toRelay: true).map { $0.name } == ProtocolMethods.all.map { $0.name })
        #expect(ProtocolMethods.offered(toRelay: false).map { $0.name } == ProtocolMethods.all.map { $0.name }.filter { !relay.contains($0) })
    }

    @Test("params the contract does not name are refused, naming the member")
    func unknownParams() {
        for spec in ProtocolMethods.all {
            #expect(throws: RPCError.self, "\(spec.name)") { try MethodCase.readParams(spec, ["nonsense": 1]) }
        }
    }
}

/// One method type, opened so that a test can call its generic readers.
struct MethodCase: Sendable, CustomStringConvertible {
    let spec: any RPCMethodSpec.Type
    var description: String { spec.name }

    init(_ spec: any RPCMethodSpec.Type) {
        self.spec = spec
    }

    func check() throws {
        try Self.check(spec)
    }

    private static func check<M: RPCMethodSpec>(_ spec: M.Type) throws {
        let example = M.contract.example
        var reader = RPCParams(example.params)
        let params = try M.Params(&reader, bounds: .widest)
        #expect(JSONWriter.string(.object(params.json)) == JSONWriter.string(.object(example.params)))
        let result = try M.Result(json: example.result)
        #expect(JSONWriter.string(result.json) == JSONWriter.string(example.result))
        let names = Set(M.contract.params.map(\.name))
        #expect(Set(params.json.members.map(\.key)).isSubset(of: names))
    }

    static func readParams(_ spec: any RPCMethodSpec.Type, _ params: JSONObject) throws {
        try read(spec, params)
    }

    private static func read<M: RPCMethodSpec>(_ spec: M.Type, _ params: JSONObject) throws {
        var reader = RPCParams(params)
        _ = try M.Params(&reader, bounds: .widest)
    }
}
