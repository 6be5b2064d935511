import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// The one writer of answer lines: `{"jsonrpc":"2.0","id":…,"result":…}` or `…,"error":…}`,
/// byte for byte what `JSONWriter` writes for `RPCResponse.json`, in one buffer with room left
/// for the newline or appended to one (`AnswerLine.result`, written where it goes). A result
/// already written (`Reply.written`) is copied in, not parsed.
enum AnswerWriter {
    /// A result's answer; `result` is its JSON as written.
    static func success(id: JSONValue, _ result: [UInt8]) -> ByteBuffer {
        var out = ByteBufferAllocator().buffer(capacity: successMaxBytes(result) + 1)
        writeSuccess(id: id, result, into: &out)
        return out
    }

    /// An error answer (`id` null when the request's id could not be read).
    static func failure(id: JSONValue = .null, _ error: RPCError) -> ByteBuffer {
        let body = JSONWriter.bytes(error.json)
        var out = ByteBufferAllocator().buffer(capacity: maxBytes(member: errorMember, body) + 1)
        write(id: id, member: errorMember, body, into: &out)
        return out
    }

    /// A result's answer, appended to `out`.
    static func writeSuccess(id: JSONValue, _ result: [UInt8], into out: inout ByteBuffer) {
        write(id: id, member: resultMember, result, into: &out)
    }

    /// The most bytes a result's answer takes for a short id; a longer one only grows the buffer.
    static func successMaxBytes(_ result: [UInt8]) -> Int {
        maxBytes(member: resultMember, result)
    }

    private static let prefix: StaticString = #"{"jsonrpc":"2.0","id":"#
    private static let resultMember: StaticString = #","result":"#
    private static let errorMember: StaticString = #","error":"#

    private static func maxBytes(member: StaticString, _ body: [UInt8]) -> Int {
        // The id is the client's: a short number or string almost always; 48 covers those.
        prefix.utf8CodeUnitCount + 48 + member.utf8CodeUnitCount + body.count + 1
    }

    private static func write(id: JSONValue, member: StaticString, _ body: [UInt8], into out: inout ByteBuffer) {
        out.writeStaticString(prefix)
        if case .number(let number) = id {
            out.writeString(number.literal)
        } else {
            out.writeBytes(JSONWriter.bytes(id))
        }
        out.writeStaticString(member)
        out.writeBytes(body)
        out.writeInteger(UInt8(ascii: "}"))
    }
}
