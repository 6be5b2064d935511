/// A report's stored `values` that the board cannot read: which member, and what is wrong
/// ("values.latitude must be a number, not a string"). The daemon wrote them itself, so this is
/// damage or a newer daemon's shape, never a caller's mistake.
public struct StoredValuesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// "values.latitude".
    public let member: String
    public let problem: String

    public init(_ member: String, _ problem: String) {
        self.member = member
        self.problem = problem
    }

    public var description: String { "\(member) \(problem)" }
}
