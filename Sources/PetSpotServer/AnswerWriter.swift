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
        var out = ByteBufferAllocator().buffer(capacity: successMaxBytes(id: id, result) + 1)
        writeSuccess(id: id, result, into: &out)
        return out
    }

    /// An error answer (`id` null when the request's id could not be read).
    static func failure(id: JSONValue = .null, _ error: RPCError) -> ByteBuffer {
        let body = JSONWriter.bytes(error.json)
        var out = ByteBufferAllocator().buffer(capacity: maxBytes(id: id, member: errorMember, body) + 1)
        write(id: id, member: errorMember, body, into: &out)
        return out
    }

    /// A result's answer, appended to `out`.
    static func writeSuccess(id: JSONValue, _ result: [UInt8], into out: inout ByteBuffer) {
        write(id: id, member: resultMember, result, into: &out)
    }

    /// The most bytes a result's answer takes, the newline not counted.
    static func successMaxBytes(id: JSONValue, _ result: [UInt8]) -> Int {
        maxBytes(id: id, member: resultMember, result)
    }

    private static let prefix: StaticString = #"{"jsonrpc":"2.0","id":"#
    private static let resultMember: StaticString = #","result":"#
    private static let errorMember: StaticString = #","error":"#

    private static func maxBytes(id: JSONValue, member: StaticString, _ body: [UInt8]) -> Int {
        prefix.utf8CodeUnitCount + maxBytes(of: id) + member.utf8CodeUnitCount + body.count + 1
    }

    /// An id as written takes at most this many bytes: a number its literal, a string its bytes
    /// each escaped at worst (`\u00XX`) and its quotes; counted, not written.
    private static func maxBytes(of id: JSONValue) -> Int {
        switch id {
        case .number(let number): number.literal.utf8.count
        case .string(let string): 2 + 6 * string.utf8.count
        case .null: 4
        default: JSONWriter.bytes(id).count
        }
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
