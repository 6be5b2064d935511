import PetSpotText

/// A flow view that does not have the shape of PROTOCOL.md: which member, and what is wrong
/// with it ("flow.screen.fields[2].label must be a string, not null").
///
/// The path and the problem may quote the answer (a word that is not one of the choices, a
/// member name): both are kept as `VisibleText` writes them, so a refusal a client prints or
/// logs carries nothing a terminal would act on, whatever the daemon sent.
public struct FlowViewError: Error, Sendable, Equatable, CustomStringConvertible {
    /// From the view down: "flow.screen.fields[2].label".
    public let path: String
    public let problem: String

    public init(at path: String, _ problem: String) {
        self.path = VisibleText.line(path)
        self.problem = VisibleText.line(problem)
    }

    public var description: String { "\(path) \(problem)" }
}
