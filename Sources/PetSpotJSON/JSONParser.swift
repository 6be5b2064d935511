/// Why a text is not acceptable JSON, with the byte offset where reading stopped.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        case invalidUTF8
        case tooDeep(limit: Int)
        case syntax(String)
    }

    public let reason: Reason
    public let offset: Int

    public var description: String {
        switch reason {
        case .invalidUTF8: "invalid UTF-8 at byte \(offset)"
        case .tooDeep(let limit): "nesting deeper than \(limit) levels at byte \(offset)"
        case .syntax(let what): "\(what) at byte \(offset)"
        }
    }
}

/// A strict RFC 8259 parser over bytes: UTF-8 is validated, nesting is bounded, and the whole
/// input must be one value (surrounding white space allowed).
public struct JSONParser {
    public static let defaultMaxDepth = 64

    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            try parse(buffer: buffer, maxDepth: maxDepth)
        }
    }

    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    public static func parse(buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Reader(bytes: buffer, maxDepth: maxDepth))
    }

    /// Parses the first `count` bytes of `source`, leaving each string of at least `minBytes`
    /// plain ASCII bytes where it is (`.longString`, which keeps `source`) instead of copying it.
    public static func parse(_ source: some JSONSourceBytes, count: Int, maxDepth: Int = defaultMaxDepth,
                             keepingStringsInPlaceFrom minBytes: Int) throws(JSONParseError) -> JSONValue
    {
        try source.withBytes(in: 0..<count) { buffer in
            var reader = Reader(bytes: buffer, maxDepth: maxDepth)
            reader.inPlace = (source, max(1, minBytes))
            return Result { () throws(JSONParseError) in try parse(reader) }
        }.get()
    }

    private static func parse(_ reader: Reader) throws(JSONParseError) -> JSONValue {
        var parser = reader
        let buffer = parser.bytes
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 1)
        parser.skipWhitespace()
        if parser.position != buffer.count {
            throw parser.error(.syntax("unexpected \(parser.describeCurrent()) after the value"))
        }
        return value
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var position = 0
        /// Where long strings may stay, and from how many bytes.
        var inPlace: (source: any JSONSourceBytes, minBytes: Int)?

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
        }

        func error(_ reason: JSONParseError.Reason) -> JSONParseError {
            JSONParseError(reason: reason, offset: position)
        }

        func describeCurrent() -> String {
            guard position < bytes.count else { return "end of input" }
            let b = bytes[position]
            if b >= 0x21 && b < 0x7F { return "character '\(Character(Unicode.Scalar(b)))'" }
            if b >= 0x80 { return "non-ASCII byte" }
            return "control character 0x\(String(b, radix: 16))"
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x09, 0x0A, 0x0D: position += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
            guard position < bytes.count else { throw error(.syntax("unexpected end of input")) }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""):
                if let inPlace, let range = plainString(minBytes: inPlace.minBytes) {
                    return .longString(JSONLongString(source: inPlace.source, range: range))
                }
                return .string(try parseString())
            case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectWord("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
            default: throw error(.syntax("unexpected \(describeCurrent())"))
            }
        }

        mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
            let n = word.utf8CodeUnitCount
            guard position + n <= bytes.count else { throw error(.syntax("unexpected \(describeCurrent())")) }
            let start = word.utf8Start
            for i in 0..<n where bytes[position + i] != start[i] {
                throw error(.syntax("unexpected \(describeCurrent())"))
            }
            position += n
        }

        mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw error(.tooDeep(limit: maxDepth)) }
            position += 1
            var members: [(key: String, value: JSONValue)] = []
            // "Last one wins" would let a request say two things at once ({"id":1,"id":2}), so
            // a repeated name is refused. Small objects are checked by a scan, large ones by a set.
            var names: Set<String> = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(JSONObject(members: members))
            }
            while true {
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw error(.syntax("expected a member name in quotes, found \(describeCurrent())"))
                }
                let keyStart = position
                let key = try parseString()
                if members.count < 16 {
                    if members.contains(where: { $0.key == key }) { throw duplicate(key, at: keyStart) }
                } else {
                    if names.isEmpty { names = Set(members.map(\.key)) }
                    guard names.insert(key).inserted else { throw duplicate(key, at: keyStart) }
                }
                skipWhitespace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw error(.syntax("expected ':' after a member name, found \(describeCurrent())"))
                }
                position += 1
                skipWhitespace()
                let value = try parseValue(depth: depth + 1)
                // A request has up to four members: one allocation rather than growing 1, 2, 4.
                if members.isEmpty { members.reserveCapacity(4) }
                members.append((key: key, value: value))
                skipWhitespace()
                guard position < bytes.count else { throw error(.syntax("unexpected end of input in an object")) }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(JSONObject(members: members))
                }
                throw error(.syntax("expected ',' or '}' in an object, found \(describeCurrent())"))
            }
        }

        func duplicate(_ key: String, at offset: Int) -> JSONParseError {
            let shown = key.count > 40 ? String(key.prefix(40)) + "…" : key
            return JSONParseError(reason: .syntax("duplicate member name \"\(shown)\""), offset: offset)
        }

        mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
            guard depth <= maxDepth else { throw error(.tooDeep(limit: maxDepth)) }
            position += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard position < bytes.count else { throw error(.syntax("unexpected end of input in an array")) }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(elements)
                }
                throw error(.syntax("expected ',' or ']' in an array, found \(describeCurrent())"))
            }
        }

        mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
            let start = position
            if bytes[position] == UInt8(ascii: "-") { position += 1 }
            func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
            guard position < bytes.count, isDigit(bytes[position]) else {
                throw error(.syntax("expected a digit in a number"))
            }
            if bytes[position] == 0x30 {
                position += 1
                if position < bytes.count, isDigit(bytes[position]) {
                    throw error(.syntax("leading zero in a number"))
                }
            } else {
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
                position += 1
                guard position < bytes.count, isDigit(bytes[position]) else {
                    throw error(.syntax("expected a digit after '.' in a number"))
                }
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                    position += 1
                }
                guard position < bytes.count, isDigit(bytes[position]) else {
                    throw error(.syntax("expected a digit in a number's exponent"))
                }
                while position < bytes.count, isDigit(bytes[position]) { position += 1 }
            }
            let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            return JSONNumber(validatedLiteral: literal)
        }

        /// The bytes of the string at `position` if it has at least `minBytes`, all plain ASCII
        /// (no escape, control or other byte needing a look), and moves past it; else nil, with
        /// `position` where it was.
        mutating func plainString(minBytes: Int) -> Range<Int>? {
            let start = position + 1
            guard bytes.count - start > minBytes else { return nil }
            var end = start
            while true {
                end = skipPlainWords(from: end)
                guard end < bytes.count else { return nil }
                let b = bytes[end]
                if b == UInt8(ascii: "\"") { break }
                if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { return nil }
                end += 1
            }
            guard end - start >= minBytes else { return nil }
            position = end + 1
            return start..<end
        }

        mutating func parseString() throws(JSONParseError) -> String {
            position += 1  // opening quote
            let start = position
            // Fast path: no escapes. Find the closing quote, then validate the UTF-8 once.
            var ascii = true
            while position < bytes.count {
                position = skipPlainWords(from: position)
                guard position < bytes.count else { break }
                let b = bytes[position]
                if b == UInt8(ascii: "\"") {
                    let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                    if ascii {
                        // ASCII is valid UTF-8: no validation (generic, and slow to set up each time).
                        position += 1
                        return String(decoding: slice, as: UTF8.self)
                    }
                    guard let s = String(validating: slice, as: UTF8.self) else {
                        throw JSONParseError(reason: .invalidUTF8, offset: start + invalidUTF8Offset(slice))
                    }
                    position += 1
                    return s
                }
                if b == UInt8(ascii: "\\") { break }
                if b < 0x20 { throw error(.syntax("unescaped control character 0x\(String(b, radix: 16)) in a string")) }
                if b >= 0x80 { ascii = false }
                position += 1
            }
            // Slow path: unescape into a byte buffer.
            var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while position < bytes.count {
                let b = bytes[position]
                switch b {
                case UInt8(ascii: "\""):
                    guard let s = String(validating: out, as: UTF8.self) else {
                        throw JSONParseError(reason: .invalidUTF8, offset: start)
                    }
                    position += 1
                    return s
                case UInt8(ascii: "\\"):
                    position += 1
                    guard position < bytes.count else { break }
                    let e = bytes[position]
                    position += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        let scalar = try parseUnicodeEscape()
                        out.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default:
                        position -= 1
                        throw error(.syntax("invalid escape '\\\(Character(Unicode.Scalar(e)))' in a string"))
                    }
                default:
                    if b < 0x20 { throw error(.syntax("unescaped control character 0x\(String(b, radix: 16)) in a string")) }
                    out.append(b)
                    position += 1
                }
            }
            throw error(.syntax("unexpected end of input in a string"))
        }

        /// The first offset from `offset` on that may need a look, found eight bytes at a time
        /// while none does (a base64 photo is megabytes of them); the word that may is left to
        /// the byte-by-byte path.
        @inline(__always)
        func skipPlainWords(from offset: Int) -> Int {
            var offset = offset
            while offset &+ 8 <= bytes.count,
                  !Self.needsLook(UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self)) {
                offset &+= 8
            }
            return offset
        }

        /// Whether any of the eight bytes in `word` may be a quote, a backslash, a control
        /// character or not ASCII (SWAR: a byte's high bit after the subtraction means it was
        /// below the constant; a borrow can flag a byte above such a byte too, which only sends
        /// the word through the byte-by-byte path).
        @inline(__always)
        static func needsLook(_ word: UInt64) -> Bool {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            func hasZero(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
            let control = (word &- ones &* 0x20) & ~word & highs
            return (control | hasZero(word ^ (ones &* 0x22)) | hasZero(word ^ (ones &* 0x5C)) | (word & highs)) != 0
        }

        mutating func parseHex4() throws(JSONParseError) -> UInt32 {
            guard position + 4 <= bytes.count else { throw error(.syntax("expected 4 hex digits after \\u")) }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[position]
                let digit: UInt32
                switch b {
                case 0x30...0x39: digit = UInt32(b - 0x30)
                case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
                default: throw error(.syntax("expected 4 hex digits after \\u"))
                }
                value = value << 4 | digit
                position += 1
            }
            return value
        }

        mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
            let first = try parseHex4()
            if first >= 0xD800 && first < 0xDC00 {
                guard position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error(.syntax("lone surrogate \\u\(String(first, radix: 16)) in a string"))
                }
                position += 2
                let second = try parseHex4()
                guard second >= 0xDC00 && second < 0xE000 else {
                    throw error(.syntax("lone surrogate \\u\(String(first, radix: 16)) in a string"))
                }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
            }
            guard let scalar = Unicode.Scalar(first) else {
                throw error(.syntax("lone surrogate \\u\(String(first, radix: 16)) in a string"))
            }
            return scalar
        }

        func invalidUTF8Offset(_ slice: UnsafeBufferPointer<UInt8>) -> Int {
            var offset = 0
            var decoder = UTF8()
            var iterator = slice.makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): offset += UTF8.width(s)
                case .emptyInput, .error: return offset
                }
            }
        }
    }
}
