/// Input that cannot be made into a poster: the member at fault ("lastSeen.latitude", "" for
/// the document as a whole) and what is wrong with it.
public struct PosterInputError: Error, Sendable, Equatable, CustomStringConvertible {
    public let member: String
    public let problem: String

    public init(_ member: String, _ problem: String) {
        self.member = member
        self.problem = problem
    }

    public var description: String {
        member.isEmpty ? problem : "\(member): \(problem)"
    }
}
