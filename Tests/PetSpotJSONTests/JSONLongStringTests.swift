@testable import PetSpotJSON
import Testing

@Suite("long strings left in the parsed bytes")
struct JSONLongStringTests {
    /// Bytes that a parse may refer to, counting the reads of them.
    final class Source: JSONSourceBytes, @unchecked Sendable {
        // @unchecked: the tests read it from one thread.
        let bytes: [UInt8]
        init(_ text: String) { bytes = Array(text.utf8) }
        func withBytes<R>(in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
        }
    }

    private static func parse(_ text: String, from minBytes: Int) throws -> JSONValue {
        let source = Source(text)
        return try JSONParser.parse(source, count: source.bytes.count, keepingStringsInPlaceFrom: minBytes)
    }

    @Test("a value of at least the size, plain ASCII, stays in place; anything else is copied as before", arguments: [
        (#"{"a":"0123456789"}"#, true),
        (#"["0123456789"]"#, true),
        (#""0123456789""#, true),
        (#"{"a":"012345678"}"#, false),
        (#"{"0123456789":1}"#, false),
        (#"{"a":"01234\/56789"}"#, false),
        (#"{"a":"01234é56789"}"#, false),
        (#"{"a":"0123456789\n"}"#, false),
    ])
    func inPlace(text: String, kept: Bool) throws {
        let value = try Self.parse(text, from: 10)
        #expect(value == (try JSONParser.parse(text)), "the same value either way")
        var strings: [JSONValue] = []
        func collect(_ value: JSONValue) {
            switch value {
            case .array(let elements): elements.forEach(collect)
            case .object(let object): object.members.forEach { collect($0.value) }
            case .string, .longString: strings.append(value)
            default: break
            }
        }
        collect(value)
        let isLong: Bool
        if case .longString? = strings.first { isLong = true } else { isLong = false }
        #expect(isLong == kept, "\(value)")
    }

    @Test("a long string reads, compares, hashes and writes as the string it is")
    func sameAsString() throws {
        let text = String(repeating: "QUJD", count: 20)
        let value = try Self.parse("[\"\(text)\", 1]", from: 16)
        let long = try #require(value.arrayValue?.first)
        guard case .longString(let inPlace) = long else { Issue.record("not kept in place: \(long)"); return }
        #expect(inPlace.utf8Count == 80)
        #expect(inPlace.withUTF8 { Array($0) } == Array(text.utf8))
        #expect(long.stringValue == text && long.isString && long.typeName == "a string")
        #expect(long == .string(text) && JSONValue.string(text) == long)
        #expect(long != .string(text + "A"))
        #expect(Set([long, .string(text)]).count == 1)
        #expect(JSONWriter.string(value) == "[\"\(text)\",1]")
        #expect(long.copyingLongString == .string(text))
        if case .string = long.copyingLongString {} else { Issue.record("copyingLongString kept it in place") }
    }

    @Test("errors after a long string keep their offsets; an unfinished long string is refused")
    func errors() {
        let text = String(repeating: "a", count: 40)
        #expect(throws: JSONParseError(reason: .syntax("unexpected end of input in a string"), offset: 42)) {
            try Self.parse("[\"\(text)", from: 16)
        }
        #expect(throws: JSONParseError(reason: .syntax("expected ',' or ']' in an array, found character 'x'"), offset: 43)) {
            try Self.parse("[\"\(text)\"x]", from: 16)
        }
    }

    @Test("a long string is boxed: a value stays a String's size, so copying one is a retain, not a call through a value witness")
    func valueStaysSmall() {
        #expect(MemoryLayout<JSONValue>.size <= MemoryLayout<String>.size + 1)
    }
}
