import Foundation
import PetSpotJSON
import Testing

/// The parser against Foundation's `JSONSerialization` on a generated corpus: valid documents
/// (`JSONGenerator`, written by both writers) and mutations of them. Where one accepts what the
/// other refuses, the document must show one of the `Difference`s, each a decision of this
/// parser that docs/RELIABILITY.md lists too; and every one of them must still occur, so the
/// list cannot go stale.
@Suite("JSON parser against JSONSerialization")
struct JSONDifferentialTests {
    enum Difference: String, CaseIterable {
        /// `{"a":1,"a":2}`: refused here, so a request cannot say two things at once; Foundation
        /// keeps the last (also of names that differ only in Unicode normalisation).
        case duplicateNames
        /// `[1,]`, `{"a":1,}`: refused here, as RFC 8259 has it; Foundation accepts them.
        case trailingComma
        /// Deeper than 64 levels (`limits.maxJSONDepth`, up to 1000): refused here; Foundation
        /// allows 512.
        case depth
        /// A UTF-8 byte-order mark, or NUL bytes among the first four, which Foundation takes for
        /// UTF-16 or UTF-32: the protocol is UTF-8 only, so they are refused here.
        case encoding
        /// A number past Double's range (`1e400`): kept here as its literal, and the rule that
        /// reads it refuses it by its range; Foundation refuses the document.
        case numberRange
    }

    /// Foundation's depth limit, the `depth` difference's other side.
    static let foundationMaxDepth = 512

    struct Outcome {
        var bothAccept = 0
        var bothRefuse = 0
        var differences: [Difference: Int] = [:]
    }

    @Test("they agree on every document but for the listed differences, and each difference occurs")
    func agreement() throws {
        var outcome = Outcome()
        for document in Self.corpus() {
            try Self.compare(document, into: &outcome)
        }
        #expect(outcome.bothAccept >= 1_000, "too few documents both accept: \(outcome.bothAccept)")
        #expect(outcome.bothRefuse >= 1_000, "too few documents both refuse: \(outcome.bothRefuse)")
        for difference in Difference.allCases {
            #expect(outcome.differences[difference, default: 0] > 0, "the corpus no longer shows \(difference)")
        }
    }

    static func compare(_ document: [UInt8], into outcome: inout Outcome) throws {
        let ours = Result { () throws(JSONParseError) in try JSONParser.parse(document) }
        let theirs = try? JSONSerialization.jsonObject(with: Data(document), options: [.fragmentsAllowed])
        switch (ours, theirs) {
        case (.success(let value), let theirs?):
            outcome.bothAccept += 1
            #expect(same(value, theirs), "read differently: \(shown(document))")
        case (.failure, nil):
            outcome.bothRefuse += 1
        case (.failure(let error), _?):
            let difference = refusedHereOnly(document, error)
            #expect(difference != nil, "refused here only (\(error)): \(shown(document))")
            if let difference { outcome.differences[difference, default: 0] += 1 }
        case (.success(let value), nil):
            let difference: Difference? = numbers(in: value).contains { Double($0.literal)?.isFinite == false } ? .numberRange : nil
            #expect(difference != nil, "refused by Foundation only: \(shown(document))")
            if let difference { outcome.differences[difference, default: 0] += 1 }
        }
    }

    /// Which listed difference explains a document Foundation accepts and this parser refuses.
    static func refusedHereOnly(_ document: [UInt8], _ error: JSONParseError) -> Difference? {
        if document.starts(with: [0xEF, 0xBB, 0xBF]) || document.prefix(4).contains(0) { return .encoding }
        if case .tooDeep = error.reason, (try? JSONParser.parse(document, maxDepth: foundationMaxDepth)) != nil { return .depth }
        if "\(error)".hasPrefix("duplicate member name") { return .duplicateNames }
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        if error.offset < document.count, [UInt8(ascii: "]"), UInt8(ascii: "}")].contains(document[error.offset]),
           document[..<error.offset].last(where: { !whitespace.contains($0) }) == UInt8(ascii: ",") {
            return .trailingComma
        }
        return nil
    }

    /// The same value as Foundation read it: types, members, strings; numbers as Doubles.
    static func same(_ value: JSONValue, _ theirs: Any) -> Bool {
        switch value {
        case .null: return theirs is NSNull
        case .bool(let b): return (theirs as? NSNumber)?.boolValue == b
        case .string(let s): return (theirs as? String).map { sameText(s, $0) } ?? false
        case .longString(let s): return (theirs as? String).map { sameText(s.string, $0) } ?? false
        case .number(let n):
            guard let x = Double(n.literal) else { return false }
            let y = (theirs as? NSNumber)?.doubleValue ?? (theirs as? Decimal).map { NSDecimalNumber(decimal: $0).doubleValue }
            guard let y else { return false }
            return x == y || abs(x - y) <= 1e-9 * max(abs(x), abs(y))
        case .array(let elements):
            guard let other = theirs as? [Any], other.count == elements.count else { return false }
            return zip(elements, other).allSatisfy { same($0, $1) }
        case .object(let object):
            guard let other = theirs as? [String: Any], other.count == object.count else { return false }
            let byText = Dictionary(other.map { (withoutFEFF($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            return object.members.allSatisfy { member in
                (other[member.key] ?? byText[withoutFEFF(member.key)]).map { same(member.value, $0) } ?? false
            }
        }
    }

    /// Foundation drops a raw U+FEFF that starts a string or follows an escape in it (taken for a
    /// byte-order mark); here it is text, as RFC 8259 has it. The strings must agree on the rest.
    /// Not an acceptance difference, so not one of `Difference`.
    static func sameText(_ ours: String, _ theirs: String) -> Bool {
        ours == theirs || withoutFEFF(ours) == withoutFEFF(theirs)
    }

    static func withoutFEFF(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{FEFF}" }))
    }

    static func numbers(in value: JSONValue) -> [JSONNumber] {
        switch value {
        case .number(let n): [n]
        case .array(let elements): elements.flatMap(numbers)
        case .object(let object): object.members.flatMap { numbers(in: $0.value) }
        case .null, .bool, .string, .longString: []
        }
    }

    static func shown(_ document: [UInt8]) -> String {
        String(decoding: document.prefix(300), as: UTF8.self).debugDescription
    }

    // MARK: The corpus

    /// Generated values, each written by `JSONWriter` and by the escaping writer, and each
    /// mutated a few times. The same seed gives the same corpus on every run.
    static func corpus() -> [[UInt8]] {
        var generator = JSONGenerator(seed: 0xD1FF)
        var random = SeededGenerator(seed: 0xBAD)
        var documents: [[UInt8]] = []
        for _ in 0..<700 {
            let value = generator.value()
            var escaped = ""
            EscapingWriter.write(value, into: &escaped, using: &random)
            for valid in [JSONWriter.bytes(value), Array(escaped.utf8)] {
                documents.append(valid)
                for _ in 0..<2 { documents.append(mutated(valid, value: value, using: &random)) }
            }
        }
        return documents
    }

    /// Bytes that break, bend or stress a document.
    static let insertions: [[UInt8]] = [
        ",", "]", "}", "[", "{", "\"", "\\", ":", "0", "-", "+", "e", ".", " ", "\u{0}", "\u{7F}", "\u{C}", "\u{A0}",
        "\\u", "\\ud800", "\\udc00", "\\ud83d\\ude00", "1e400", "-2e308", "true", "nul", "\u{FEFF}", "/*", "'",
    ].map { Array($0.utf8) } + [[0xC3], [0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]]

    static func mutated(_ document: [UInt8], value: JSONValue, using random: inout SeededGenerator) -> [UInt8] {
        var bytes = document
        let at = Int.random(in: 0...bytes.count, using: &random)
        switch Int.random(in: 0..<10, using: &random) {
        case 0 where !bytes.isEmpty:
            bytes.remove(at: min(at, bytes.count - 1))
        case 1 where !bytes.isEmpty:
            bytes[min(at, bytes.count - 1)] = UInt8.random(in: 0...255, using: &random)
        case 2:
            bytes.removeSubrange(at...)
        case 3:
            // A trailing comma before a closing bracket, when there is one.
            if let close = bytes.indices.filter({ bytes[$0] == UInt8(ascii: "]") || bytes[$0] == UInt8(ascii: "}") }).randomElement(using: &random) {
                bytes.insert(UInt8(ascii: ","), at: close)
            }
        case 4:
            // A member repeated, in the first object that has one.
            if let repeated = repeatingAMember(value) { bytes = JSONWriter.bytes(repeated) }
        case 5:
            let levels = [Int.random(in: 50...70, using: &random), Int.random(in: 500...520, using: &random)].randomElement(using: &random)!
            bytes = Array(repeating: UInt8(ascii: "["), count: levels) + bytes + Array(repeating: UInt8(ascii: "]"), count: levels)
        case 6:
            bytes = [0xEF, 0xBB, 0xBF] + bytes
        case 7:
            // As UTF-16, either byte order.
            let bigEndian = Bool.random(using: &random)
            bytes = String(decoding: bytes, as: UTF8.self).utf16.flatMap { unit in
                bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            }
        default:
            bytes.insert(contentsOf: insertions.randomElement(using: &random)!, at: at)
        }
        return bytes
    }

    static func repeatingAMember(_ value: JSONValue) -> JSONValue? {
        switch value {
        case .object(var object):
            guard let first = object.members.first else { return nil }
            object.members.append(first)
            return .object(object)
        case .array(var elements):
            for (i, element) in elements.enumerated() {
                if let changed = repeatingAMember(element) {
                    elements[i] = changed
                    return .array(elements)
                }
            }
            return nil
        case .null, .bool, .number, .string, .longString:
            return nil
        }
    }
}
