/// What one listing of the animal list asks for: its origin, radius, species and the caller's
/// standing. Every page of a listing answers the same query (a cursor pins it).
public struct AnimalQuery: Sendable, Hashable {
    /// Where distances are measured from.
    public enum Origin: Sendable, Hashable {
        /// Named by the caller (`near`).
        case near(GeoPoint)
        /// The box's own position, taken when the caller named none.
        case box(GeoPoint)

        public var point: GeoPoint {
            switch self {
            case .near(let point), .box(let point): point
            }
        }
    }

    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        /// A radius needs somewhere to measure from: no `near`, and the box knows no position.
        case radiusWithoutOrigin
        case radius(SearchArea.Problem)

        public var description: String {
            switch self {
            case .radiusWithoutOrigin: "radiusKm needs near: this box knows no position of its own"
            case .radius(let problem): problem.description
            }
        }
    }

    public let origin: Origin?
    public let radiusKm: Double?
    /// A species id; nil lists every species.
    public let species: String?
    public let standing: Standing
    /// The circle to search when there is a radius.
    public let area: SearchArea?

    public init(origin: Origin?, radiusKm: Double?, species: String?, standing: Standing) throws(Problem) {
        if let radiusKm {
            guard let origin else { throw .radiusWithoutOrigin }
            do {
                area = try SearchArea(center: origin.point, radiusKm: radiusKm)
            } catch {
                throw .radius(error)
            }
        } else {
            area = nil
        }
        (self.origin, self.radiusKm, self.species, self.standing) = (origin, radiusKm, species, standing)
    }

    /// Whether the list shows this report: missing, of the species asked for, within the
    /// radius as the caller's standing measures it (a report with no position is in no circle).
    public func admits(_ animal: StoredAnimal) -> Bool {
        guard animal.status == .missing else { return false }
        if let species, animal.species != species { return false }
        if let area {
            guard let distance = animal.distanceKm(from: area.center, for: standing) else { return false }
            return area.contains(distanceKm: distance)
        }
        return true
    }

    /// The report's place in this listing.
    public func orderKey(of animal: StoredAnimal) -> AnimalOrderKey {
        AnimalOrderKey(distanceKm: origin.flatMap { animal.distanceKm(from: $0.point, for: standing) },
                       submittedAt: animal.submittedAt, id: animal.id)
    }
}
