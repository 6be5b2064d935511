import Testing

@testable import PetSpotBoard

@Suite("Great-circle distance")
struct GreatCircleTests {
    static let oneDegree = GreatCircle.meanEarthRadiusKm * .pi / 180

    @Test(
        "haversine distances on a sphere of 6371.0088 km",
        arguments: [
            (point("52.22968", "21.01223"), point("52.22968", "21.01223"), 0.0),
            (point("52.22968", "21.01223"), point("50.06143", "19.93658"), 252.49739015715943),
            (point("51.5007", "-0.1246"), point("40.6892", "-74.0445"), 5574.848157146155),
            (point("0", "0"), point("1", "0"), oneDegree),
            (point("0", "179.5"), point("0", "-179.5"), oneDegree),
            (point("0", "180"), point("0", "-180"), 0),
            (point("90", "0"), point("90", "123"), 0),
            (point("90", "0"), point("-90", "0"), GreatCircle.maxDistanceKm),
            (point("0", "0"), point("0", "180"), GreatCircle.maxDistanceKm),
            (point("10", "20"), point("-10", "-160"), GreatCircle.maxDistanceKm),
        ] as [(GeoPoint, GeoPoint, Double)])
    func distance(a: GeoPoint, b: GeoPoint, kilometres: Double) {
        let there = GreatCircle.distanceKm(a, b), back = GreatCircle.distanceKm(b, a)
        // Near the antipode haversine loses half its digits (sqrt of 1 - h, h close to 1): still
        // within a millionth of the distance.
        #expect(abs(there - kilometres) <= 1e-6 * max(1, kilometres), "\(a) → \(b): \(there)")
        #expect(there == back)
        #expect(there <= GreatCircle.maxDistanceKm)
    }

    @Test("half the circumference is 20015.114 km")
    func maxDistance() {
        #expect(abs(GreatCircle.maxDistanceKm - 20015.114442035923) < 1e-9)
    }
}
