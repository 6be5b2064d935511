/// A value as SQLite stores and binds it: one of its five storage classes.
public enum SQLiteValue: Sendable, Hashable {
    case integer(Int)
    case float(Double)
    case text(String)
    case blob([UInt8])
    case null

    /// The text, when this is text.
    public var string: String? {
        if case .text(let text) = self { text } else { nil }
    }

    /// The integer, when this is an integer.
    public var integer: Int? {
        if case .integer(let integer) = self { integer } else { nil }
    }

    /// The number, when this is a real or an integer.
    public var double: Double? {
        switch self {
        case .float(let double): double
        case .integer(let integer): Double(integer)
        default: nil
        }
    }
}
