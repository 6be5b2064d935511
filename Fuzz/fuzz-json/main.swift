import FuzzSupport
import PetSpotJSON

// Input: any bytes, read as one JSON text by the parser every request line goes through.
// Must hold: a refusal names an offset inside the input; what is accepted is written and read
// back (compact and indented) as the same value, the compact form has no raw newline and is
// stable byte for byte, every number keeps a valid literal, and the nesting the parser let
// through is exactly what its depth limit allows. Parsed with long strings left in place, the
// same input gives the same value or the same refusal.

/// Levels of arrays and objects: a scalar is 0, `[]` is 1, `[{}]` is 2.
func nesting(_ value: JSONValue) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(nesting).max() ?? 0)
    case .object(let object): 1 + (object.members.map { nesting($0.value) }.max() ?? 0)
    case .null, .bool, .number, .string, .longString: 0
    }
}

/// Every number literal in the value, in order.
func numbers(_ value: JSONValue, into found: inout [JSONNumber]) {
    switch value {
    case .number(let number): found.append(number)
    case .array(let elements): for element in elements { numbers(element, into: &found) }
    case .object(let object): for member in object { numbers(member.value, into: &found) }
    case .null, .bool, .string, .longString: break
    }
}

/// The fuzzer's input as bytes a parse may leave strings in.
struct Input: JSONSourceBytes, @unchecked Sendable {
    // @unchecked: the input is only read, during the one call that hands it.
    let bytes: UnsafeBufferPointer<UInt8>
    func withBytes<R>(in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(rebasing: bytes[range]))
    }
}

fuzz { input in
    let parsed = Result { () throws(JSONParseError) in try JSONParser.parse(buffer: input) }
    let inPlace = Result { () throws(JSONParseError) in try JSONParser.parse(Input(bytes: input), count: input.count, keepingStringsInPlaceFrom: 4) }
    invariant(parsed == inPlace, "with long strings in place, another outcome: \(inPlace)")
    let value: JSONValue
    switch parsed {
    case .success(let parsedValue):
        value = parsedValue
    case .failure(let error):
        invariant(error.offset >= 0 && error.offset <= input.count, "refused at offset \(error.offset) of a \(input.count)-byte input")
        return
    }

    let written = JSONWriter.bytes(value)
    invariant(!written.contains(UInt8(ascii: "\n")), "the compact form holds a raw newline")
    switch Result(catching: { () throws(JSONParseError) in try JSONParser.parse(written) }) {
    case .success(let reread):
        invariant(reread == value, "written and read again, the value changed: \(JSONWriter.string(value))")
        invariant(JSONWriter.bytes(reread) == written, "writing the value read back gives other bytes")
    case .failure(let error):
        invariant(false, "the writer's output is refused (\(error)): \(JSONWriter.string(value))")
    }
    let pretty = JSONPrettyPrinter.string(value)
    invariant((try? JSONParser.parse(pretty)) == value, "the indented form does not read back as the value")

    var found: [JSONNumber] = []
    numbers(value, into: &found)
    for number in found {
        // `decimal` unwraps the literal's parse: a literal the parser let through must be valid.
        invariant(number.decimal.compare(to: number.decimal) == 0, "number \(number.literal) is not equal to itself")
    }

    let depth = nesting(value)
    invariant(depth <= JSONParser.defaultMaxDepth, "nesting \(depth) passed the limit \(JSONParser.defaultMaxDepth)")
    if depth > 0 {
        invariant((try? JSONParser.parse(buffer: input, maxDepth: depth)) == value, "refused at a limit equal to its nesting \(depth)")
        do throws(JSONParseError) {
            _ = try JSONParser.parse(buffer: input, maxDepth: depth - 1)
            invariant(false, "nesting \(depth) passed the limit \(depth - 1)")
        } catch {
            invariant(error.reason == .tooDeep(limit: depth - 1), "under a lower limit refused for another reason: \(error)")
        }
    }
}
