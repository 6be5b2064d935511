import PetSpotViews

#if canImport(Glibc)
import func Glibc.cos
#elseif canImport(Darwin)
import func Darwin.cos
#endif

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
/// Past a cursor, the reports nearer than it are not wanted: boxes inside the cursor's circle,
/// whose every position is nearer (`innerBoxes`), are left out of each fetch, so that a deep
/// page does not read most of the pages before it again.
///
/// The first radius is the cursor's distance and `initialRadiusKm` more (or 5 % more, when
/// that is further); each next one is
/// guessed from the density found past the cursor (1.25 to 4 times the last), and never past
/// the listing's own radius, or the whole Earth, where the search ends with whatever there is.
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
    /// any of the boxes and in none of those to leave out (of the listing's species), at most
    /// `limit` of them, and whether that was all. A query without an origin
    /// lists newest first and has no nearest: nothing.
    public func next<E: Error>(
        in query: AnimalQuery, after: AnimalOrderKey?, count: Int,
        fetch: (_ boxes: [GeoBox], _ excluding: [GeoBox], _ limit: Int) async throws(E) -> (reports: [PlacedReport], complete: Bool)
    ) async throws(E) -> Outcome {
        guard let origin = query.origin?.point else { return Outcome(keys: [], fetches: 0, fetched: 0) }
        // A cursor among the reports without a position is past every one with.
        if let after, after.distanceKm == nil { return Outcome(keys: [], fetches: 0, fetched: 0) }
        let count = max(count, 1)
        let decimals = query.standing.positionDecimals
        let padding = Self.roundingReach(decimals: decimals)
        let cursorKm = after?.distanceKm ?? 0
        let radiusLimit = query.area?.radiusKm ?? GreatCircle.maxDistanceKm
        var radius = min(cursorKm + max(initialRadiusKm, cursorKm * 0.05, 0.001), radiusLimit)
        let nearer = Self.innerBoxes(around: origin, nearerThanKm: cursorKm, reach: padding)
        var tooFew = 0.0  // the largest radius known to hold too few
        var tooMany: Double?  // the smallest radius whose boxes held more than a fetch takes
        var unbounded = false
        var fetches = 0, fetched = 0
        while true {
            // A radius of the whole Earth covers it: SearchArea gives the world's box. (The
            // radius is finite and not negative by construction.)
            let boxes = (try? SearchArea(center: origin, radiusKm: radius))?.boundingBoxes(padding: padding) ?? [.world]
            let found = try await fetch(boxes, nearer, unbounded ? Int.max : maxFetched)
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
            var listed: [AnimalOrderKey] = []
            for report in newest.values {
                let distance = GreatCircle.distanceKm(origin, report.position.rounded(toDecimals: decimals))
                guard distance <= radius else { continue }
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
            // between the cursor and this one (flat, which is near enough for a guess), with a margin.
            var next = radius * 4
            if !listed.isEmpty {
                let ring = radius * radius - cursorKm * cursorKm
                next = (cursorKm * cursorKm + ring * Double(count) * 1.5 / Double(listed.count)).squareRoot()
            }
            next = min(max(next, radius * 1.25), radius * 4)
            if let tooMany { next = min(next, (radius + tooMany) / 2) }
            radius = min(next, radiusLimit)
        }
    }

    /// Boxes around `origin` whose every position is, as measured after rounding it by up to
    /// `reach` degrees on each axis, nearer than `km`: a cross of two rectangles, one wide and
    /// one tall, which together cover 79 % of the circle (a square inside it, 64 %). None near
    /// a pole or ±180°, or for a circle too small to hold them. The largest distance from a
    /// point to a latitude/longitude box is at one of its corners, so the corners decide.
    static func innerBoxes(around origin: GeoPoint, nearerThanKm km: Double, reach: Double) -> [GeoBox] {
        guard km > 0 else { return [] }
        let reachDegrees = GreatCircle.degrees(radians: km / GreatCircle.meanEarthRadiusKm)
        // Half-sides a and b with a² + b² = r² and the cross's area, 8ab - 4b², greatest: tan 2θ = 2.
        let long = reachDegrees * 0.850_650_808, short = reachDegrees * 0.525_731_112
        guard let wide = rectangle(around: origin, nearerThanKm: km, reach: reach, halfLatitude: short, halfArc: long),
              let tall = rectangle(around: origin, nearerThanKm: km, reach: reach, halfLatitude: long, halfArc: short)
        else { return [] }
        return [wide, tall]
    }

    /// A box of `halfLatitude` degrees north and south of `origin` and `halfArc` degrees of arc
    /// east and west at its widest latitude, shrunk until its corners are nearer than `km`,
    /// then by `reach`; nil when none is left or it would reach a pole or ±180°.
    private static func rectangle(
        around origin: GeoPoint, nearerThanKm km: Double, reach: Double, halfLatitude: Double, halfArc: Double
    ) -> GeoBox? {
        let latitude = origin.latitude.degrees, longitude = origin.longitude.degrees
        var scale = 0.99
        for _ in 0..<8 {
            let half = halfLatitude * scale
            let minLatitude = latitude - half, maxLatitude = latitude + half
            guard minLatitude > -89, maxLatitude < 89 else { return nil }
            let halfLongitude = halfArc * scale / cos(GreatCircle.radians(degrees: max(abs(minLatitude), abs(maxLatitude))))
            let minLongitude = longitude - halfLongitude, maxLongitude = longitude + halfLongitude
            guard minLongitude > -180, maxLongitude < 180 else { return nil }
            let farthest = [(minLatitude, minLongitude), (minLatitude, maxLongitude), (maxLatitude, minLongitude), (maxLatitude, maxLongitude)]
                .map { GreatCircle.distanceKm(latitude: latitude, longitude: longitude, latitude: $0.0, longitude: $0.1) }.max() ?? km
            if farthest < km * (1 - 1e-9) {
                // Positions this far inside round to positions within the box; the last 1e-7°
                // keeps a position on the edge out of doubt.
                let inset = reach + 1e-7
                guard half > inset, halfLongitude > inset else { return nil }
                return GeoBox(minLatitude: minLatitude + inset, maxLatitude: maxLatitude - inset,
                              minLongitude: minLongitude + inset, maxLongitude: maxLongitude - inset)
            }
            scale *= 0.9
        }
        return nil
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
