/// What the animal list reads its reports from: the daemon's board in the report store, or a
/// test's. The list's rules (`AnimalQuery`, `NearestSearch`) decide what to ask and what to show.
public protocol AnimalIndex: Sendable {
    associatedtype Failure: Error

    /// The listed reports whose exact position lies in any of `boxes` and in none of
    /// `excluding`, of `species` when given, at most `limit`, and whether that was all of them.
    func places(in boxes: [GeoBox], excluding: [GeoBox], species: String?, limit: Int) async throws(Failure) -> (reports: [PlacedReport], complete: Bool)

    /// The reports of these ids.
    func animals(ids: [String]) async throws(Failure) -> [StoredAnimal]

    /// The listed reports newest first after `after` (`submittedAt`, `id`), of `species` when
    /// given, with a position (`true`), without one (`false`) or either (`nil`), at most `limit`.
    func newestFirst(after: (submittedAt: String, id: String)?, species: String?, withPosition: Bool?,
                     limit: Int) async throws(Failure) -> [StoredAnimal]
}

extension AnimalQuery {
    /// The page this query shows after `after` (nil: the first page), read from `index`: with
    /// an origin, nearest first by growing boxes (`NearestSearch`), then, without a radius,
    /// the reports without a position newest first; without an origin, newest first. One more
    /// than `limit` is read, to know whether a cursor follows.
    public func page<Index: AnimalIndex>(from index: Index, after: AnimalOrderKey?, limit: Int,
                                         search: NearestSearch = NearestSearch()) async throws(Index.Failure) -> AnimalListPage
    {
        let limit = max(limit, 1)
        var candidates: [StoredAnimal] = []
        if origin != nil {
            let outcome = try await search.next(in: self, after: after, count: limit + 1) { (boxes, excluding, fetchLimit) async throws(Index.Failure) in
                try await index.places(in: boxes, excluding: excluding, species: species, limit: fetchLimit)
            }
            candidates = try await index.animals(ids: outcome.keys.map(\.id))
            // Those without a position come after all the others, and never within a radius.
            if outcome.keys.count <= limit, area == nil {
                let unplacedAfter = after.flatMap { $0.distanceKm == nil ? ($0.submittedAt, $0.id) : nil }
                candidates += try await index.newestFirst(after: unplacedAfter, species: species, withPosition: false,
                                                          limit: limit + 1 - outcome.keys.count)
            }
        } else {
            candidates = try await index.newestFirst(after: after.map { ($0.submittedAt, $0.id) }, species: species, withPosition: nil,
                                                     limit: limit + 1)
        }
        return page(of: candidates, after: after, limit: limit)
    }
}
