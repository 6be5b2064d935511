import PetSpotJSON

extension JSONValue {
    /// This value with each U+0000 in its strings and member names replaced by U+FFFD.
    ///
    /// PostgreSQL's text, and so jsonb, cannot hold U+0000 ("unsupported Unicode escape
    /// sequence"); a report holding one would be refused on every attempt and, being the
    /// oldest undelivered, stop every report behind it.
    public var replacingNULCharacters: JSONValue {
        switch self {
        case .string(let s):
            return s.contains("\u{0}") ? .string(Self.replacingNUL(s)) : self
        case .array(let items):
            return .array(items.map(\.replacingNULCharacters))
        case .object(let object):
            return .object(JSONObject(members: object.members.map { (key: Self.replacingNUL($0.key), value: $0.value.replacingNULCharacters) }))
        default:
            return self
        }
    }

    /// Whether any string or member name holds U+0000.
    public var containsNULCharacter: Bool {
        switch self {
        case .string(let s): s.contains("\u{0}")
        case .array(let items): items.contains(where: \.containsNULCharacter)
        case .object(let object): object.members.contains { $0.key.contains("\u{0}") || $0.value.containsNULCharacter }
        default: false
        }
    }

    private static func replacingNUL(_ s: String) -> String {
        guard s.contains("\u{0}") else { return s }
        return String(String.UnicodeScalarView(s.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
    }
}
