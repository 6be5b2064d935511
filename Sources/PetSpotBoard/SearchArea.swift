#if canImport(Glibc)
import func Glibc.asin
import func Glibc.cos
import func Glibc.sin
#elseif canImport(Darwin)
import func Darwin.asin
import func Darwin.cos
import func Darwin.sin
#endif

/// A radius search: every position within `radiusKm` of `center` along the Earth's surface.
///
/// An R*Tree finds candidates by rectangle; `boundingBoxes` gives the rectangles that cover the
/// circle, and `contains` decides on the great-circle distance.
public struct SearchArea: Sendable, Hashable {
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case radiusNotFinite
        case radiusNegative

        public var description: String {
            switch self {
            case .radiusNotFinite: "radiusKm must be a finite number"
            case .radiusNegative: "radiusKm must not be negative"
            }
        }
    }

    /// Degrees every box is widened by, so that a point the distance admits is never left out
    /// by the last bit of the box's own arithmetic (1e-9° is a tenth of a millimetre).
    public static let floatingMargin = 1e-9

    public let center: GeoPoint
    public let radiusKm: Double

    public init(center: GeoPoint, radiusKm: Double) throws(Problem) {
        guard radiusKm.isFinite else { throw .radiusNotFinite }
        guard radiusKm >= 0 else { throw .radiusNegative }
        self.center = center
        self.radiusKm = radiusKm
    }

    /// Whether a point at this distance from the center is inside.
    public func contains(distanceKm: Double) -> Bool {
        distanceKm <= radiusKm
    }

    /// One box, or two when the circle crosses ±180° (one on each side), or one spanning every
    /// longitude when it covers a pole; the world when the radius reaches the antipode.
    ///
    /// `padding` widens every box by that many degrees on each side: an index of exact positions
    /// asked for public positions (3 decimals, within 0.0005° of the exact ones on each axis)
    /// is padded by 0.0005°.
    public func boundingBoxes(padding: Double = 0) -> [GeoBox] {
        if radiusKm >= GreatCircle.maxDistanceKm { return [.world] }
        let margin = Self.floatingMargin + max(padding, 0)
        let reach = GreatCircle.degrees(radians: radiusKm / GreatCircle.meanEarthRadiusKm)
        let latitude = center.latitude.degrees, longitude = center.longitude.degrees
        let minLatitude = latitude - reach - margin, maxLatitude = latitude + reach + margin
        // A circle over a pole holds points of every longitude.
        if maxLatitude >= 90 || minLatitude <= -90 {
            return [GeoBox(minLatitude: max(minLatitude, -90), maxLatitude: min(maxLatitude, 90), minLongitude: -180, maxLongitude: 180)]
        }
        // The widest point of a circle that misses the poles is at asin(sin r / cos φ) of longitude
        // from the center (not at the center's latitude); the box is as wide everywhere.
        let angular = radiusKm / GreatCircle.meanEarthRadiusKm
        let ratio = sin(angular) / cos(GreatCircle.radians(degrees: latitude))
        let lonReach = ratio >= 1 ? 180 : GreatCircle.degrees(radians: asin(ratio))
        let minLongitude = longitude - lonReach - margin, maxLongitude = longitude + lonReach + margin
        if maxLongitude - minLongitude >= 360 {
            return [GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: -180, maxLongitude: 180)]
        }
        if minLongitude < -180 {
            return [
                GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: minLongitude + 360, maxLongitude: 180),
                GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: -180, maxLongitude: maxLongitude),
            ]
        }
        if maxLongitude > 180 {
            return [
                GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: minLongitude, maxLongitude: 180),
                GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: -180, maxLongitude: maxLongitude - 360),
            ]
        }
        return [GeoBox(minLatitude: minLatitude, maxLatitude: maxLatitude, minLongitude: minLongitude, maxLongitude: maxLongitude)]
    }
}
