import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// The one writer of answer lines: `{"jsonrpc":"2.0","id":…,"result":…}` or `…,"error":…}`,
/// byte for byte what `JSONWriter` writes for `RPCResponse.json`, in one buffer with room left
/// for the newline. A result already written (`MethodResult.written`) is copied in, not parsed.
enum AnswerLine {
    static func write(id: JSONValue, _ outcome: MethodOutcome) -> ByteBuffer {
        switch outcome {
        case .success(.written(let result)): write(id: id, member: #","result":"#, result)
        case .success(.json(let result)): write(id: id, member: #","result":"#, JSONWriter.bytes(result))
        case .failure(let error): write(id: id, member: #","error":"#, JSONWriter.bytes(error.json))
        }
    }

    /// An error answer (`id` null when the request's id could not be read).
    static func failure(id: JSONValue = .null, _ error: RPCError) -> ByteBuffer {
        write(id: id, .failure(error))
    }

    private static func write(id: JSONValue, member: StaticString, _ body: [UInt8]) -> ByteBuffer {
        let prefix: StaticString = #"{"jsonrpc":"2.0","id":"#
        // The id is the client's: a short number or string almost always; 48 covers those.
        var out = ByteBufferAllocator().buffer(capacity: prefix.utf8CodeUnitCount + 48 + member.utf8CodeUnitCount + body.count + 2)
        out.writeStaticString(prefix)
        if case .number(let number) = id {
            out.writeString(number.literal)
        } else {
            out.writeBytes(JSONWriter.bytes(id))
        }
        out.writeStaticString(member)
        out.writeBytes(body)
        out.writeInteger(UInt8(ascii: "}"))
        return out
    }
}
