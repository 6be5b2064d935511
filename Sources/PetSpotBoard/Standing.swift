import PetSpotViews
import PetSpotFlow

/// Who is looking at the animal list. Staff (members of `board.staffGroup`, at the shelter or vet
/// where the box stands) are trusted with what reunites an animal at once: the chip number, the
/// exact position, the whole contact. Everyone else is the public.
public enum Standing: String, Sendable, Hashable, CaseIterable {
    case `public`
    case staff

    /// Decimals of a last-seen position shown, and used for every distance: 5 (about 1 m) for
    /// staff, 3 (about 100 m) for the public.
    public var positionDecimals: Int {
        switch self {
        case .public: 3
        case .staff: Coordinate.decimals
        }
    }
}
