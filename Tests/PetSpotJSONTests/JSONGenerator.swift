import PetSpotJSON

/// SplitMix64: a small generator whose sequence depends only on its seed, so a failing case is
/// the same on every machine and every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random JSON values for property tests: nested objects and arrays, strings of every kind of
/// scalar (escapes, control characters, combining marks, surrogate pairs once encoded), and
/// number literals of every form the grammar has.
struct JSONGenerator {
    var random: SeededGenerator
    /// Deeper containers than this are not generated (the parser's default limit is 64).
    var maxDepth = 8

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &random) < percent
    }

    mutating func value(depth: Int = 1) -> JSONValue {
        if depth <= maxDepth, chance(30) {
            guard chance(50) else { return .object(object(depth: depth)) }
            return .array((0..<Int.random(in: 0...5, using: &random)).map { _ in value(depth: depth + 1) })
        }
        switch Int.random(in: 0..<100, using: &random) {
        case ..<35: return .string(string())
        case ..<75: return .number(number())
        case ..<88: return .bool(chance(50))
        default: return .null
        }
    }

    /// Members with distinct names (distinct as Swift compares strings: canonically).
    mutating func object(depth: Int) -> JSONObject {
        var names: Set<String> = []
        var object = JSONObject()
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            let name = string(maxLength: 6)
            guard names.insert(name).inserted else { continue }
            object.members.append((key: name, value: value(depth: depth + 1)))
        }
        return object
    }

    mutating func string(maxLength: Int = 12) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &random) {
            scalars.append(scalar())
        }
        return String(scalars)
    }

    mutating func scalar() -> Unicode.Scalar {
        let value: UInt32 = switch Int.random(in: 0..<100, using: &random) {
        case ..<35: UInt32.random(in: 0x20...0x7E, using: &random)
        case ..<45: [0x22, 0x5C, 0x2F].randomElement(using: &random)!  // " \ /
        case ..<55: UInt32.random(in: 0x00...0x1F, using: &random)
        case ..<58: 0x7F
        case ..<68: UInt32.random(in: 0x80...0x7FF, using: &random)
        case ..<78: [UInt32.random(in: 0x800...0xD7FF, using: &random), UInt32.random(in: 0xE000...0xFFFD, using: &random)].randomElement(using: &random)!
        case ..<83: [0x0301, 0xFEFF, 0x2028, 0x2029, 0xFFFF, 0xFFFE, 0x200B].randomElement(using: &random)!
        default: UInt32.random(in: 0x1_0000...0x10_FFFF, using: &random)
        }
        return Unicode.Scalar(value)!
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, with long digit runs and huge
    /// exponents now and then.
    mutating func number() -> JSONNumber {
        var text = chance(40) ? "-" : ""
        if chance(25) {
            text += "0"
        } else {
            text += String(Int.random(in: 1...9, using: &random)) + digits(upTo: chance(10) ? 40 : 6)
        }
        if chance(40) {
            text += "." + String(Int.random(in: 0...9, using: &random)) + digits(upTo: chance(10) ? 30 : 5)
        }
        if chance(30) {
            text += ["e", "E"].randomElement(using: &random)! + ["", "+", "-"].randomElement(using: &random)!
            text += String(Int.random(in: 0...9, using: &random)) + digits(upTo: chance(10) ? 20 : 2)
        }
        return JSONNumber(validatedLiteral: text)
    }

    private mutating func digits(upTo count: Int) -> String {
        String((0..<Int.random(in: 0...count, using: &random)).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
    }
}
