import PetSpotJSON

extension JSONValue {
    /// A whole number that fits an `Int`, e.g. a byte count or a limit.
    var intValue: Int? {
        if case .number(let number) = self { return number.exactInt }
        return nil
    }

    /// The literal of a number, or the text of a string: values as the daemon wrote them.
    var plainText: String? {
        switch self {
        case .string(let text): text
        case .number(let number): number.literal
        case .bool(let flag): flag ? "true" : "false"
        default: nil
        }
    }
}
