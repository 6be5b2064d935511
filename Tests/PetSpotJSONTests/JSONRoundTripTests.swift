import PetSpotJSON
import PetSpotText
import Testing

/// Properties on generated values (`JSONGenerator`, seeded, so every run checks the same ones):
/// whatever the writers produce, the parser reads back as the value it came from.
@Suite("JSON round trip")
struct JSONRoundTripTests {
    static let seeds: [UInt64] = [1, 2, 3, 0x5EED]
    static let valuesPerSeed = 400

    @Test("written compactly and read back: the same value, and the same bytes when written again", arguments: seeds)
    func compact(seed: UInt64) throws {
        var generator = JSONGenerator(seed: seed)
        for _ in 0..<Self.valuesPerSeed {
            let value = generator.value()
            let written = JSONWriter.bytes(value)
            #expect(!written.contains(UInt8(ascii: "\n")))
            let reread = try JSONParser.parse(written)
            try #require(reread == value, "\(JSONWriter.string(value))")
            #expect(JSONWriter.bytes(reread) == written)
        }
    }

    @Test("written indented and read back: the same value", arguments: seeds)
    func indented(seed: UInt64) throws {
        var generator = JSONGenerator(seed: seed)
        for _ in 0..<Self.valuesPerSeed {
            let value = generator.value()
            try #require(try JSONParser.parse(JSONPrettyPrinter.string(value)) == value, "\(JSONWriter.string(value))")
        }
    }

    @Test("written for a terminal and read back: the same value, with nothing VisibleText escapes left raw", arguments: seeds)
    func terminal(seed: UInt64) throws {
        var generator = JSONGenerator(seed: seed)
        for _ in 0..<Self.valuesPerSeed {
            let value = generator.value()
            for text in [JSONWriter.terminalString(value), JSONPrettyPrinter.string(value)] {
                #expect(!text.unicodeScalars.contains { VisibleText.isShownEscaped($0) && $0 != "\n" })
                try #require(try JSONParser.parse(text) == value, "\(JSONWriter.string(value))")
            }
        }
        let hostile: JSONValue = ["race\u{9B}": "Lab\u{1B}]0;t\u{07}\u{9B}31m\u{2028}\u{85}é"]
        #expect(JSONWriter.terminalString(hostile) == #"{"race\u009b":"Lab\u001b]0;t\u0007\u009b31m\u2028\u0085é"}"#)
        #expect(JSONWriter.string(hostile).contains("\u{9B}31m"), "the wire keeps what JSON allows raw")
    }

    @Test("every character VisibleText escapes, alone and among text, is escaped for a terminal and reads back as itself")
    func terminalEveryShownEscaped() throws {
        for range in VisibleText.shownEscaped {
            for value in range {
                let scalar = try #require(Unicode.Scalar(value))
                for text in [String(scalar), "Łódź \(scalar) 🐕", "plain\(scalar)"] {
                    let value: JSONValue = [text: .string(text)]
                    for written in [JSONWriter.terminalString(value), JSONPrettyPrinter.string(value)] {
                        #expect(!written.unicodeScalars.contains { VisibleText.isShownEscaped($0) && $0 != "\n" }, "\(written.debugDescription)")
                        #expect(try JSONParser.parse(written) == value, "\(written.debugDescription)")
                    }
                }
            }
        }
        #expect(JSONWriter.terminalString(["a\u{202E}b\u{2066}c\u{200F}d\u{61C}e"]) == #"["a\u202eb\u2066c\u200fd\u061ce"]"#)
    }

    @Test("written with every escape JSON allows, chosen at random, and read back: the same value", arguments: seeds)
    func escaped(seed: UInt64) throws {
        var generator = JSONGenerator(seed: seed)
        var choices = SeededGenerator(seed: ~seed)
        for _ in 0..<Self.valuesPerSeed {
            let value = generator.value()
            var text = ""
            EscapingWriter.write(value, into: &text, using: &choices)
            try #require(try JSONParser.parse(text) == value, "\(text)")
        }
    }
}

/// A second writer for the tests, independent of `JSONWriter`: each scalar of a string is
/// written raw where JSON allows it, as its short escape, or as `\uXXXX` (a surrogate pair above
/// U+FFFF) in upper or lower case hex, at random; white space goes between tokens at random.
enum EscapingWriter {
    static func write(_ value: JSONValue, into text: inout String, using random: inout SeededGenerator) {
        func space() {
            if Int.random(in: 0..<4, using: &random) == 0 { text += [" ", "\t", "\n", "\r\n"].randomElement(using: &random)! }
        }
        space()
        switch value {
        case .null: text += "null"
        case .bool(let b): text += b ? "true" : "false"
        case .number(let n): text += n.literal
        case .string(let s): string(s, into: &text, using: &random)
        case .longString(let s): string(s.string, into: &text, using: &random)
        case .array(let elements):
            text += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { text += "," }
                write(element, into: &text, using: &random)
            }
            space()
            text += "]"
        case .object(let object):
            text += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { text += "," }
                space()
                string(member.key, into: &text, using: &random)
                space()
                text += ":"
                write(member.value, into: &text, using: &random)
            }
            space()
            text += "}"
        }
        space()
    }

    static func string(_ s: String, into text: inout String, using random: inout SeededGenerator) {
        let short: [Unicode.Scalar: String] = ["\"": "\\\"", "\\": "\\\\", "/": "\\/", "\u{8}": "\\b", "\u{C}": "\\f",
                                               "\n": "\\n", "\r": "\\r", "\t": "\\t"]
        text += "\""
        for scalar in s.unicodeScalars {
            let mustEscape = scalar == "\"" || scalar == "\\" || scalar.value < 0x20
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where !mustEscape: text.unicodeScalars.append(scalar)
            case 1 where short[scalar] != nil: text += short[scalar]!
            default:
                let upper = Bool.random(using: &random)
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16, uppercase: upper)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            }
        }
        text += "\""
    }
}
