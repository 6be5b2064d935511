import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// The one writer of answer lines: `{"jsonrpc":"2.0","id":…,"result":…}` or `…,"error":…}`,
/// byte for byte what `JSONWriter` writes for `RPCResponse.json`, in one buffer with room left
/// for the newline. A result already written (`Reply.written`) is copied in, not parsed.
enum AnswerWriter {
    /// A result's answer; `result` is its JSON as written.
    static func success(id: JSONValue, _ result: [UInt8]) -> ByteBuffer {
        write(id: id, member: #","result":"#, result)
    }

    /// An error answer (`id` null when the request's id could not be read).
    static func failure(id: JSONValue = .null, _ error: RPCError) -> ByteBuffer {
        write(id: id, member: #","error":"#, JSONWriter.bytes(error.json))
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
