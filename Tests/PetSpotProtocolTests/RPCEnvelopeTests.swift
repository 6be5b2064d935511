import PetSpotJSON
import PetSpotProtocol
import Testing

@Suite("JSON-RPC envelopes")
struct RPCEnvelopeTests {
    @Test("valid requests", arguments: [
        (#"{"jsonrpc":"2.0","id":1,"method":"daemon.info"}"#, JSONValue?.some(1), "daemon.info"),
        (#"{"id":"a","method":"flow.get","params":{"flowId":"x"}}"#, .some("a"), "flow.get"),
        (#"{"method":"flow.get","params":null}"#, nil, "flow.get"),
    ] as [(String, JSONValue?, String)])
    func valid(text: String, id: JSONValue?, method: String) throws {
        let request = try RPCRequest.validate(try JSONParser.parse(text)).get()
        #expect(request.id == id)
        #expect(request.method == method)
        #expect(request.isNotification == (id == nil))
    }

    @Test("invalid requests name what is wrong", arguments: [
        ("1", RPCErrorKind.invalidRequest, JSONValue.null, "must be a JSON object"),
        (#"{"id":[1],"method":"x"}"#, .invalidRequest, .null, "\"id\" must be a number or a string"),
        (#"{"id":2,"jsonrpc":"1.0","method":"x"}"#, .invalidRequest, 2, "\"jsonrpc\" must be \"2.0\""),
        (#"{"id":3}"#, .invalidRequest, 3, "needs a \"method\""),
        (#"{"id":4,"method":7}"#, .invalidRequest, 4, "\"method\" must be a string"),
        (#"{"id":5,"method":"x","params":[1]}"#, .invalidParams, 5, "named parameters"),
        (#"{"id":6,"method":"x","param":{}}"#, .invalidRequest, 6, "unknown member \"param\""),
        (#"{"method":7}"#, .invalidRequest, .null, "\"method\" must be a string"),
        (#"{"params":{}}"#, .invalidRequest, .null, "needs a \"method\""),
        // A notification (a string method, no id) is never answered, whatever else is wrong.
        (#"{"method":"daemon.info","params":[]}"#, .invalidParams, nil, "named parameters"),
        (#"{"jsonrpc":"1.0","method":"x"}"#, .invalidRequest, nil, "\"jsonrpc\" must be \"2.0\""),
        (#"{"method":"x","param":{}}"#, .invalidRequest, nil, "unknown member \"param\""),
    ] as [(String, RPCErrorKind, JSONValue?, String)])
    func invalid(text: String, kind: RPCErrorKind, id: JSONValue?, message: String) throws {
        guard case .failure(let failure) = RPCRequest.validate(try JSONParser.parse(text)) else {
            Issue.record("expected a failure for \(text)")
            return
        }
        #expect(failure.error.kind == kind)
        #expect(failure.id == id)
        #expect(failure.error.message.contains(message))
    }

    @Test("every error kind has its own code, standard ones as JSON-RPC defines")
    func codes() {
        let codes = RPCErrorKind.allCases.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(RPCErrorKind.parseError.code == -32700)
        #expect(RPCErrorKind.invalidRequest.code == -32600)
        #expect(RPCErrorKind.methodNotFound.code == -32601)
        #expect(RPCErrorKind.invalidParams.code == -32602)
        #expect(RPCErrorKind.internalError.code == -32603)
        for kind in RPCErrorKind.allCases where ![.parseError, .invalidRequest, .methodNotFound, .invalidParams, .internalError].contains(kind) {
            #expect(kind.code <= -32000 && kind.code > -32100, "\(kind) must use an application code")
        }
    }

    @Test("an error answer carries kind and parameter in data, and reads back")
    func errorShape() throws {
        let error = RPCError(.invalidParams, "bad", parameter: "values.age")
        let response = RPCResponse.failure(id: 9, error)
        #expect(JSONWriter.string(response.json) == #"{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"bad","data":{"kind":"invalidParams","parameter":"values.age"}}}"#)
        #expect(RPCResponse(json: response.json) == response)
    }
}

@Suite("Method parameters")
struct RPCParamsTests {
    @Test("unknown parameters are refused by name")
    func unknown() throws {
        var params = RPCParams(["flowId": "a", "flowID": "b"])
        _ = try params.requiredString("flowId")
        #expect(throws: RPCError(.invalidParams, "unknown parameter \"flowID\"; it takes \"flowId\"", parameter: "flowID")) {
            try params.finish()
        }
    }

    @Test("members past the 64 counted by index are checked by name: all taken passes, one not taken is named",
          arguments: [63, 64, 65, 70])
    func manyMembers(count: Int) throws {
        let names = (0..<count).map { "p\($0)" }
        var all = RPCParams(JSONObject(members: names.map { (key: $0, value: JSONValue.string("v")) }))
        for name in names { _ = try all.optionalString(name) }
        try all.finish()

        var allButLast = RPCParams(JSONObject(members: names.map { (key: $0, value: JSONValue.string("v")) }))
        for name in names.dropLast() { _ = try allButLast.optionalString(name) }
        #expect(throws: RPCError.self) { try allButLast.finish() }
        do {
            try allButLast.finish()
        } catch {
            #expect(error.parameter == names[count - 1], "\(error)")
        }
    }

    @Test("a method without parameters says so")
    func none() {
        let params = RPCParams(["x": 1])
        #expect(throws: RPCError(.invalidParams, "unknown parameter \"x\"; this method takes no parameters", parameter: "x")) {
            try params.finish()
        }
    }

    @Test("types and ranges are checked", arguments: [
        JSONValue.string("5"), 0, 101,
        .number(JSONNumber(validatedLiteral: "1e400")),
        .number(JSONNumber(validatedLiteral: "2.5")),
    ])
    func ranges(value: JSONValue) {
        var params = RPCParams(["timeoutMs": value])
        #expect(throws: RPCError(.invalidParams, "\"timeoutMs\" must be a whole number from 1 to 100", parameter: "timeoutMs")) {
            _ = try params.optionalInt("timeoutMs", in: 1...100)
        }
    }

    @Test("the edges of a range are accepted")
    func edges() throws {
        for n in [1, 100] {
            var params = RPCParams(["timeoutMs": .int(n)])
            #expect(try params.optionalInt("timeoutMs", in: 1...100) == n)
        }
    }
}
