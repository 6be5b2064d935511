import PetSpotJSON
import Testing

@Suite("JSON parser")
struct JSONParserTests {
    @Test("accepts valid documents", arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        (" false ", .bool(false)),
        ("\"a\\nb\"", .string("a\nb")),
        ("\"\\u00e9\\ud83d\\ude00\"", .string("é😀")),
        ("\"zażółć\"", .string("zażółć")),
        ("[1,2]", [1, 2]),
        ("{\"a\":{\"b\":[]}}", ["a": ["b": []]]),
        ("-0.5e-3", .number(JSONNumber(validatedLiteral: "-0.5e-3"))),
    ] as [(String, JSONValue)])
    func accepts(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test("refuses invalid documents with a reason", arguments: [
        ("", "unexpected end of input"),
        ("{", "expected a member name"),
        ("{\"a\" 1}", "expected ':'"),
        ("[1,]", "unexpected character ']'"),
        ("01", "leading zero"),
        ("1.", "expected a digit after '.'"),
        ("1e", "expected a digit in a number's exponent"),
        ("nul", "unexpected character 'n'"),
        ("\"a\nb\"", "unescaped control character"),
        ("\"\\x\"", "invalid escape"),
        ("\"\\ud800\"", "lone surrogate"),
        ("{} x", "after the value"),
        ("'a'", "unexpected character '''"),
    ])
    func refuses(text: String, reason: String) {
        #expect {
            _ = try JSONParser.parse(text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test("invalid UTF-8 inside a string is refused with its offset", arguments: [
        [0x22, 0xC3, 0x28, 0x22],  // broken two-byte sequence
        [0x22, 0x61, 0xFF, 0x22],  // byte that never appears in UTF-8
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        do {
            _ = try JSONParser.parse(bytes)
        } catch {
            #expect(error.reason == .invalidUTF8)
        }
    }

    /// The string scan takes eight bytes at a time: each special byte is placed at every offset
    /// of a 24-byte string of plain ASCII, so it falls in each lane of a word and in the tail.
    @Test("a quote, a backslash, a control character or a non-ASCII byte is seen at any offset of a long string",
          arguments: ["escape", "control", "non-ASCII", "invalid UTF-8", "DEL"])
    func specialByteAtEveryOffset(kind: String) throws {
        for offset in 0..<24 {
            var text = Array(repeating: UInt8(ascii: "a"), count: 24)
            enum Outcome { case success(String), failure(JSONParseError.Reason) }
            let expected: Outcome
            switch kind {
            case "escape":
                text.replaceSubrange(offset..<offset + 1, with: Array(#"\""#.utf8))
                expected = .success(String(repeating: "a", count: offset) + "\"" + String(repeating: "a", count: 23 - offset))
            case "control":
                text[offset] = 0x1F
                expected = .failure(.syntax("unescaped control character 0x1f in a string"))
            case "non-ASCII":
                text.replaceSubrange(offset..<offset + 1, with: Array("é".utf8))
                expected = .success(String(repeating: "a", count: offset) + "é" + String(repeating: "a", count: 23 - offset))
            case "invalid UTF-8":
                text[offset] = 0xFF
                expected = .failure(.invalidUTF8)
            default:
                text[offset] = 0x7F
                expected = .success(String(repeating: "a", count: offset) + "\u{7F}" + String(repeating: "a", count: 23 - offset))
            }
            let document = [UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")]
            switch expected {
            case .success(let string):
                #expect(try JSONParser.parse(document) == .string(string), "offset \(offset)")
            case .failure(let reason):
                #expect(throws: JSONParseError.self, "offset \(offset)") { try JSONParser.parse(document) }
                do { _ = try JSONParser.parse(document) } catch { #expect(error.reason == reason, "offset \(offset)") }
            }
        }
    }

    @Test("nesting is bounded: the limit itself parses, one more level is refused")
    func depth() throws {
        let limit = 8
        let atLimit = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        let overLimit = "[" + atLimit + "]"
        _ = try JSONParser.parse(atLimit, maxDepth: limit)
        do {
            _ = try JSONParser.parse(overLimit, maxDepth: limit)
            Issue.record("expected a depth error")
        } catch {
            #expect(error.reason == .tooDeep(limit: limit))
        }
    }

    @Test("a number keeps its literal text, however large")
    func numberLiterals() throws {
        for literal in ["123456789012345678901234567890", "1e400", "-0.000000000000000000001", "3.0"] {
            let value = try JSONParser.parse(literal)
            #expect(value == .number(JSONNumber(validatedLiteral: literal)))
            #expect(JSONWriter.string(value) == literal)
        }
    }

    @Test(
        "a repeated member name is refused, at any depth and object size",
        arguments: [
            (#"{"a":1,"a":2}"#, 7),
            (#"{"id":1,"method":"x","id":2}"#, 21),
            (#"[{"x":{"k":null,"k":null}}]"#, 16),
            ("{\"\\u0061\":1,\"a\":2}", 12),
            ("{" + (0..<40).map { #""k\#($0)":0,"# }.joined() + #""k7":1}"#, 311),
        ])
    func duplicates(text: String, offset: Int) throws {
        let error = try #require(throws: JSONParseError.self) { try JSONParser.parse(text) }
        #expect(error.offset == offset)
        guard case .syntax(let what) = error.reason else { Issue.record("not a syntax error: \(error)"); return }
        #expect(what.hasPrefix("duplicate member name"))
    }

    @Test("the same name in sibling objects is no duplicate")
    func siblings() throws {
        let value = try JSONParser.parse(#"[{"a":1},{"a":2}]"#)
        #expect(value.arrayValue?.count == 2)
    }
}

@Suite("JSON writer")
struct JSONWriterTests {
    @Test("never writes a raw newline or control character")
    func escapes() {
        let text = JSONWriter.string(["k": .string("line1\nline2\r\t\u{01}\u{7F}\"\\")])
        #expect(!text.contains("\n"))
        #expect(text == #"{"k":"line1\nline2\r\t\u0001\u007f\"\\"}"#)
    }

    @Test("round-trips through the parser", arguments: [
        JSONValue.object(["a": [1, "x", nil, true], "b": ["c": "ż"]]),
        .array([]),
        .string("\u{2028}"),
    ])
    func roundTrip(value: JSONValue) throws {
        #expect(try JSONParser.parse(JSONWriter.string(value)) == value)
    }

    @Test("members keep their order")
    func order() {
        #expect(JSONWriter.string(["z": 1, "a": 2, "m": 3]) == #"{"z":1,"a":2,"m":3}"#)
    }
}
