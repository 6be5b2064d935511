import NIOCore
import PetSpotJSON
import PetSpotProtocol
@testable import PetSpotServer
import Testing

/// The one envelope writer writes what `JSONWriter` writes for `RPCResponse`, byte for byte,
/// whatever the id.
@Suite("Answer lines")
struct AnswerWriterTests {
    static let ids: [JSONValue] = [1, -7, .number(JSONNumber(validatedLiteral: "1.5e3")), "a\"b\u{1}ż", .null, 9_007_199_254_740_993]
    static let result: JSONValue = ["flow": ["id": "f-1", "state": "cancelled"], "accepted": true, "n": nil]
    static let error = RPCError(.limitExceeded, "at most \"3\"", parameter: "values", details: ["limit": "limits.maxFlows", "max": 3])

    @Test("results and errors, under every kind of id", arguments: ids)
    func sameBytes(id: JSONValue) throws {
        let cases: [(ByteBuffer, RPCResponse)] = [
            (AnswerWriter.success(id: id, JSONWriter.bytes(Self.result)), .success(id: id, Self.result)),
            (AnswerWriter.failure(id: id, Self.error), .failure(id: id, Self.error)),
        ]
        for (written, response) in cases {
            var line = written
            #expect(line.readableBytesView.elementsEqual(JSONWriter.bytes(response.json)), "\(response)")
            // Room is left for the newline: appending it does not reallocate.
            #expect(line.writableBytes >= 1)
            line.writeInteger(UInt8(ascii: "\n"))
        }
        #expect(Array(AnswerWriter.failure(Self.error).readableBytesView) == JSONWriter.bytes(RPCResponse.failure(id: .null, Self.error).json))
    }
}
