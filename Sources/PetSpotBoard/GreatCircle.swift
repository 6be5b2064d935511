import PetSpotViews
import PetSpotFlow

#if canImport(Glibc)
import func Glibc.atan2
import func Glibc.cos
import func Glibc.sin
#elseif canImport(Darwin)
import func Darwin.atan2
import func Darwin.cos
import func Darwin.sin
#endif

/// Distances on a sphere of the Earth's mean radius: within about 0.5 % of the ellipsoid everywhere,
/// far finer than the 3-decimal positions the public sees.
public enum GreatCircle {
    /// The IUGG mean radius R1, in km.
    public static let meanEarthRadiusKm = 6371.0088

    /// Half the circumference: no two points are further apart.
    public static let maxDistanceKm = Double.pi * meanEarthRadiusKm

    /// The haversine distance in km; 0 between equal points, symmetric, never above `maxDistanceKm`.
    public static func distanceKm(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        distanceKm(latitude: a.latitude.degrees, longitude: a.longitude.degrees,
                   latitude: b.latitude.degrees, longitude: b.longitude.degrees)
    }

    /// The same between positions in degrees that need not be on the 5-decimal grid (a box's corner).
    static func distanceKm(latitude aLatitude: Double, longitude aLongitude: Double,
                           latitude bLatitude: Double, longitude bLongitude: Double) -> Double {
        let φ1 = radians(degrees: aLatitude), φ2 = radians(degrees: bLatitude)
        let Δφ = φ2 - φ1, Δλ = radians(degrees: bLongitude) - radians(degrees: aLongitude)
        let sinHalfΔφ = sin(Δφ / 2), sinHalfΔλ = sin(Δλ / 2)
        // Rounding can push h a hair past 1 near the antipode; sqrt(1 - h) must stay real.
        let h = min(1, sinHalfΔφ * sinHalfΔφ + cos(φ1) * cos(φ2) * sinHalfΔλ * sinHalfΔλ)
        return 2 * meanEarthRadiusKm * atan2(h.squareRoot(), (1 - h).squareRoot())
    }

    static func radians(_ coordinate: Coordinate) -> Double {
        coordinate.degrees * .pi / 180
    }

    static func radians(degrees: Double) -> Double { degrees * .pi / 180 }
    static func degrees(radians: Double) -> Double { radians * 180 / .pi }
}
