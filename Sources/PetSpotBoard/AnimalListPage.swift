import PetSpotViews

/// One page of the animal list, as the caller may see it, and where the next one starts.
public struct AnimalListPage: Sendable, Equatable {
    public let animals: [Animal]
    /// Nil on the last page.
    public let cursor: AnimalCursor?

    public init(animals: [Animal], cursor: AnimalCursor?) {
        self.animals = animals
        self.cursor = cursor
    }
}

extension AnimalQuery {
    /// The page of `candidates` this query shows after `after` (nil: the first page): those it
    /// admits, in list order, at most `limit` (at least 1), with a cursor when more follow.
    ///
    /// `candidates` may hold more than the query admits (an R*Tree's boxes are wider than the
    /// circle) and a report twice (its own row and the fleet's copy): it is listed once, as its
    /// highest version says (an older copy still `missing` does not bring a found pet back).
    public func page(of candidates: some Sequence<StoredAnimal>, after: AnimalOrderKey?, limit: Int) -> AnimalListPage {
        var newest: [String: StoredAnimal] = [:]
        for candidate in candidates {
            if let known = newest[candidate.id], known.version >= candidate.version { continue }
            newest[candidate.id] = candidate
        }
        var listed = newest.values.filter(admits).map { (key: orderKey(of: $0), animal: $0) }
        if let after { listed.removeAll { !(after < $0.key) } }
        listed.sort { $0.key < $1.key }
        let shown = listed.prefix(max(limit, 1))
        let cursor = listed.count > shown.count ? shown.last.map { AnimalCursor(query: self, after: $0.key) } : nil
        return AnimalListPage(animals: shown.map { $0.animal.animal(for: standing, near: origin?.point) }, cursor: cursor)
    }
}
