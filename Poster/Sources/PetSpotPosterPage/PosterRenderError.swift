/// Why a poster could not be made.
public enum PosterRenderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The photo is refused: input the poster will not print (exit 65).
    case photo(PhotoRefusal)
    /// cairo or libqrencode failed: out of memory, most likely (exit 70).
    case drawing(String)

    public var description: String {
        switch self {
        case .photo(let refusal): refusal.description
        case .drawing(let reason): "cannot draw the poster: \(reason)"
        }
    }
}
