/// A JSON value as it travels on the wire.
///
/// Numbers keep their literal text so that an `id` is echoed exactly and decimal rules
/// (rounding coordinates, whole years) work on the digits the client sent, not on a Double.
/// Objects keep their members in order so that answers are stable and readable.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    /// A string longer than the parser was told to copy, still in the line it came in
    /// (`JSONLongString`): the same text as `.string`, equal to it and hashed as it. Indirect:
    /// its payload (an existential and a range, 56 bytes) would make every value that large, and
    /// every copy of a value, on every request, a call through its value witness; boxed, a value
    /// is a String's size and copies with a retain.
    indirect case longString(JSONLongString)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's type, for error messages ("expected a string, got a number").
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string, .longString: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The text of a string (a copy of a long one).
    public var stringValue: String? {
        switch self {
        case .string(let s): s
        case .longString(let s): s.string
        default: nil
        }
    }

    /// The value, with a long string made a `.string` (only the value itself, not its members).
    public var copyingLongString: JSONValue {
        if case .longString(let s) = self { return .string(s.string) }
        return self
    }

    /// Whether the value is a string, without copying a long one.
    public var isString: Bool {
        switch self {
        case .string, .longString: true
        default: false
        }
    }

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.longString(let x), .longString(let y)): x == y
        case (.string(let x), .longString(let y)), (.longString(let y), .string(let x)): x == y.string
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x == y
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .number(let n): hasher.combine(2); hasher.combine(n)
        case .string(let s): hasher.combine(3); hasher.combine(s)
        case .longString(let s): hasher.combine(3); hasher.combine(s.string)
        case .array(let a): hasher.combine(4); hasher.combine(a)
        case .object(let o): hasher.combine(5); hasher.combine(o)
        }
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// A JSON number kept as its literal text (already validated by the parser or built from a
/// Swift integer or decimal).
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    public let literal: String

    /// Wraps text that is known to be a valid JSON number literal.
    public init(validatedLiteral: String) {
        self.literal = validatedLiteral
    }

    public init<I: BinaryInteger>(_ value: I) {
        self.literal = String(value)
    }

    public var description: String { literal }

    /// The exact decimal value of the literal.
    public var decimal: DecimalLiteral {
        // The parser only lets valid literals through, so this cannot fail.
        DecimalLiteral(parsing: literal)!
    }

    /// The value as an `Int` when it is a whole number that fits (`3`, `3.0`, `3e2`).
    public var exactInt: Int? { decimal.exactInt }
}

/// A JSON object: members in the order they were written. Lookups are linear, which is the
/// fastest choice for the handful of members a request carries.
public struct JSONObject: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    public var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    public init(members: [(key: String, value: JSONValue)]) {
        self.members = members
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        members = elements.map { (key: $0.0, value: $0.1) }
    }

    /// The members that have a value, in order: one whose value is nil is left out, not
    /// written as null (`{status, fix?, message}`).
    public init(presentMembers elements: KeyValuePairs<String, JSONValue?>) {
        members = elements.compactMap { element in element.value.map { (key: element.key, value: $0) } }
    }

    /// The member's value. The parser refuses duplicate names; for an object built in code
    /// with a repeated key, the last one wins.
    public subscript(key: String) -> JSONValue? {
        get { index(of: key).map { members[$0].value } }
        set {
            members.removeAll { $0.key == key }
            if let newValue { members.append((key: key, value: newValue)) }
        }
    }

    /// Where the member named `key` is (the last, for an object built in code with a repeated
    /// key). By index and in place: a request's members are looked up on every call, and
    /// iterating copies each (name, value) pair.
    public func index(of key: String) -> Int? {
        var index = members.endIndex
        while index > members.startIndex {
            index -= 1
            if members[index].key == key { return index }
        }
        return nil
    }

    public var keys: [String] { members.map(\.key) }
    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(members: elements.map { (key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// `.string(s)` or `.null` when nil.
    public static func optional(_ string: String?) -> JSONValue {
        string.map(JSONValue.string) ?? .null
    }

    /// `.number(n)` or `.null` when nil.
    public static func optional<I: BinaryInteger>(_ number: I?) -> JSONValue {
        number.map { .number(JSONNumber($0)) } ?? .null
    }

    public static func int<I: BinaryInteger>(_ number: I) -> JSONValue {
        .number(JSONNumber(number))
    }
}
