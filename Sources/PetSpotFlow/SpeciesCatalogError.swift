/// Why a species list is refused: the entry or key at fault and what is wrong with it,
/// e.g. `species[3].names.pl: missing`.
public struct SpeciesCatalogError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the list: `species[3].names.pl`; empty for the document as a whole.
    public let path: String
    public let problem: String

    public init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    public var description: String {
        path.isEmpty ? problem : "\(path): \(problem)"
    }
}
