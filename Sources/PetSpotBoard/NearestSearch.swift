import PetSpotViews

/// Nearest first over an index that answers rectangles (an R*Tree, which has no "nearest"):
/// the next reports of a listing with an origin, found by asking for the boxes around the
/// origin and measuring what comes back, the circle growing until it holds enough.
///
/// The boxes of a radius r cover every position whose distance, as the listing's standing
/// measures it, is at most r: the public's distances are from positions rounded to 3 decimals,
/// so its boxes are padded by half a unit of the last decimal kept (0.0005°), enough for the
/// exact positions an index holds. Everything the boxes give within r is therefore all there
/// is within r; once that holds `count` reports after the cursor, the first `count` of them
/// in list order are the listing's next ones. Reports further than r may come back too (a
/// box's corners); they count only once r has grown past them.
///
/// The first radius is `initialRadiusKm` past 1.1 × the cursor's distance; each next one is
/// guessed from the density found so far (1.25 to 4 times the last), and never past the
/// listing's own radius, or the whole Earth, where the search ends with whatever there is.
/// A fetch is bounded by `maxFetched`: one that holds more than that (a dense city past a
/// sparse ring) is tried again with a smaller radius, and, should no radius do, without bound.
///
/// Reports without a position follow all the others in a listing with an origin: the caller
/// lists them newest first once this gives fewer than it asked for (and the listing has no
/// radius, which they are never within).
public struct NearestSearch: Sendable, Hashable {
    public var initialRadiusKm: Double
    public var maxFetched: Int

    public init(initialRadiusKm: Double = 2, maxFetched: Int = 10_000) {
        self.initialRadiusKm = initialRadiusKm
        self.maxFetched = max(maxFetched, 1)
    }

    /// What a search found, and what it cost.
    public struct Outcome: Sendable, Hashable {
        /// The next reports with a position, in list order, at most the count asked for: fewer
        /// means none with a position is left after them.
        public let keys: [AnimalOrderKey]
        /// Fetches made, and reports they gave in all.
        public let fetches: Int
        public let fetched: Int
    }

    /// The next `count` (at least 1) reports with a position that `query` lists after `after`
    /// (nil: from the start). `fetch` gives the listed reports whose exact position lies in
    /// any of the boxes (of the listing's species), at most `limit` of them, and whether that
    /// was all. A query without an origin lists newest first and has no nearest: nothing.
    public func next<E: Error>(
        in query: AnimalQuery, after: AnimalOrderKey?, count: Int,
        fetch: ([GeoBox], _ limit: Int) async throws(E) -> (reports: [PlacedReport], complete: Bool)
    ) async throws(E) -> Outcome {
        guard let origin = query.origin?.point else { return Outcome(keys: [], fetches: 0, fetched: 0) }
        // A cursor among the reports without a position is past every one with.
        if let after, after.distanceKm == nil { return Outcome(keys: [], fetches: 0, fetched: 0) }
        let count = max(count, 1)
        let decimals = query.standing.positionDecimals
        let padding = Self.roundingReach(decimals: decimals)
        let cursorKm = after?.distanceKm ?? 0
        let radiusLimit = query.area?.radiusKm ?? GreatCircle.maxDistanceKm
        var radius = min(cursorKm * 1.1 + max(initialRadiusKm, 0.001), radiusLimit)
        var tooFew = 0.0  // the largest radius known to hold too few
        var tooMany: Double?  // the smallest radius whose boxes held more than a fetch takes
        var unbounded = false
        var fetches = 0, fetched = 0
        while true {
            // A radius of the whole Earth covers it: SearchArea gives the world's box. (The
            // radius is finite and not negative by construction.)
            let boxes = (try? SearchArea(center: origin, radiusKm: radius))?.boundingBoxes(padding: padding) ?? [.world]
            let found = try await fetch(boxes, unbounded ? Int.max : maxFetched)
            fetches += 1
            fetched += found.reports.count
            if !found.complete {
                tooMany = radius
                // Between the last radius that held too few and this one; at a metre apart,
                // no radius will do: the reports are that close together.
                if radius - tooFew < 0.001 {
                    unbounded = true
                    tooMany = nil
                } else {
                    radius = (tooFew + radius) / 2
                }
                continue
            }
            var newest: [String: PlacedReport] = [:]
            for report in found.reports where (newest[report.id]?.version ?? .min) < report.version {
                newest[report.id] = report
            }
            var within = 0
            var listed: [AnimalOrderKey] = []
            for report in newest.values {
                let distance = GreatCircle.distanceKm(origin, report.position.rounded(toDecimals: decimals))
                guard distance <= radius else { continue }
                within += 1
                let key = AnimalOrderKey(distanceKm: distance, submittedAt: report.submittedAt, id: report.id)
                if let after, !(after < key) { continue }
                listed.append(key)
            }
            if listed.count >= count || radius >= radiusLimit {
                listed.sort()
                return Outcome(keys: Array(listed.prefix(count)), fetches: fetches, fetched: fetched)
            }
            tooFew = radius
            // Enough expected between the cursor and the next radius, at the density found
            // inside this one (flat, which is near enough for a guess), with a margin.
            var next = radius * 4
            if within > 0 {
                let perSquareKm = Double(within) / (Double.pi * radius * radius)
                next = (Double(count) * 1.5 / (perSquareKm * Double.pi) + cursorKm * cursorKm).squareRoot()
            }
            next = min(max(next, radius * 1.25), radius * 4)
            if let tooMany { next = min(next, (radius + tooMany) / 2) }
            radius = min(next, radiusLimit)
        }
    }

    /// How far (degrees, on each axis) a position may be from the one it is measured from
    /// when rounded to `decimals`: half a unit of the last decimal kept; none at 5.
    static func roundingReach(decimals: Int) -> Double {
        guard decimals < Coordinate.decimals else { return 0 }
        var unit = 1.0
        for _ in 0..<decimals { unit /= 10 }
        return unit / 2
    }
}
