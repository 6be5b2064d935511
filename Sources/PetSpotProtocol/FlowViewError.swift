/// A flow view that does not have the shape of PROTOCOL.md: which member, and what is wrong
/// with it ("flow.screen.fields[2].label must be a string, not null").
public struct FlowViewError: Error, Sendable, Equatable, CustomStringConvertible {
    /// From the view down: "flow.screen.fields[2].label".
    public let path: String
    public let problem: String

    public init(at path: String, _ problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(path) \(problem)" }
}
