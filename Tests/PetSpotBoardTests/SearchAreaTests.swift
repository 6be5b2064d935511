import Foundation
import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("Search boxes")
struct SearchAreaTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let center: GeoPoint
        let radiusKm: Double
        /// Longitude spans of the boxes expected, west to east, rounded to 3 decimals.
        let longitudes: [ClosedRange<Double>]
        let testDescription: String
    }

    static let cases: [Case] = [
        Case(center: point("52.22968", "21.01223"), radiusKm: 10, longitudes: [20.865...21.159], testDescription: "10 km around Warsaw: one box"),
        Case(center: point("52.22968", "21.01223"), radiusKm: 0, longitudes: [21.012...21.012], testDescription: "radius 0: the point"),
        Case(center: point("0", "179.95"), radiusKm: 20, longitudes: [179.77...180, -180 ... -179.87], testDescription: "east of ±180°: two boxes"),
        Case(center: point("-16.5", "-179.99"), radiusKm: 5, longitudes: [179.963...180, -180 ... -179.943], testDescription: "west of ±180°: two boxes"),
        Case(center: point("0", "180"), radiusKm: 0, longitudes: [180...180, -180 ... -180], testDescription: "radius 0 on ±180°: both sides"),
        Case(center: point("89.95", "10"), radiusKm: 10, longitudes: [-180...180], testDescription: "over the north pole: every longitude"),
        Case(center: point("-89.99", "-45"), radiusKm: 1.5, longitudes: [-180...180], testDescription: "over the south pole: every longitude"),
        Case(center: point("60", "0"), radiusKm: 3400, longitudes: [-180...180], testDescription: "Oslo-sized latitude, 3400 km: reaches the pole"),
        Case(center: point("0", "0"), radiusKm: 9000, longitudes: [-80.939...80.939], testDescription: "9000 km from the equator: short of the poles"),
        Case(center: point("0", "0"), radiusKm: 11000, longitudes: [-180...180], testDescription: "11000 km from the equator: both poles"),
        Case(center: point("10", "20"), radiusKm: 20016, longitudes: [-180...180], testDescription: "past half the circumference: the world"),
        Case(center: point("10", "20"), radiusKm: 1e12, longitudes: [-180...180], testDescription: "a huge radius: the world"),
    ]

    @Test("the boxes that cover a circle", arguments: cases)
    func boxes(c: Case) throws {
        let boxes = try SearchArea(center: c.center, radiusKm: c.radiusKm).boundingBoxes()
        let spans = boxes.map { (($0.minLongitude * 1000).rounded() / 1000)...(($0.maxLongitude * 1000).rounded() / 1000) }
        #expect(spans == c.longitudes)
        for box in boxes {
            #expect(box.minLatitude >= -90 && box.maxLatitude <= 90 && box.minLatitude <= box.maxLatitude)
            #expect(box.minLongitude >= -180 && box.maxLongitude <= 180 && box.minLongitude <= box.maxLongitude)
        }
    }

    @Test("radius past half the circumference: the whole world")
    func world() throws {
        #expect(try SearchArea(center: point("10", "20"), radiusKm: 20015.2).boundingBoxes() == [.world])
        #expect(try SearchArea(center: point("10", "20"), radiusKm: 1e300).boundingBoxes() == [.world])
    }

    /// Every point the distance admits lies in a box: a grid around the center, and points on
    /// the circle's edge at every 5° of bearing.
    @Test("no point within the radius falls outside every box", arguments: cases)
    func covers(c: Case) throws {
        let area = try SearchArea(center: c.center, radiusKm: c.radiusKm)
        let boxes = area.boundingBoxes()
        var candidates: [GeoPoint] = [c.center]
        let reach = min(c.radiusKm / GreatCircle.meanEarthRadiusKm * 180 / .pi * 1.3 + 0.001, 180)
        for i in -20...20 {
            for j in -20...20 {
                candidates.append(clamped(c.center.latitude.degrees + reach * Double(i) / 20, c.center.longitude.degrees + 4 * reach * Double(j) / 20))
            }
        }
        for bearing in stride(from: 0.0, to: 360, by: 5) {
            candidates.append(destination(from: c.center, km: c.radiusKm * 0.999_999, bearingDegrees: bearing))
        }
        var inside = 0
        for candidate in candidates where area.contains(distanceKm: GreatCircle.distanceKm(c.center, candidate)) {
            inside += 1
            #expect(boxes.contains { $0.contains(candidate) }, "\(candidate) is \(GreatCircle.distanceKm(c.center, candidate)) km away")
        }
        #expect(inside >= 1)
    }

    @Test("padding widens every box by its degrees on each side, still within range")
    func padding() throws {
        let plain = try SearchArea(center: point("52.22968", "21.01223"), radiusKm: 10).boundingBoxes()[0]
        let padded = try SearchArea(center: point("52.22968", "21.01223"), radiusKm: 10).boundingBoxes(padding: 0.0005)[0]
        #expect(abs(plain.minLatitude - padded.minLatitude - 0.0005) < 1e-12)
        #expect(abs(padded.maxLongitude - plain.maxLongitude - 0.0005) < 1e-12)
        let edge = try SearchArea(center: point("0", "179.9997"), radiusKm: 0).boundingBoxes(padding: 0.0005)
        #expect(edge.count == 2)
        #expect(edge.last?.maxLongitude ?? 0 > -179.9999)
    }

    @Test("a radius that is negative or not finite is refused")
    func badRadius() {
        #expect(throws: SearchArea.Problem.radiusNegative) { try SearchArea(center: point("0", "0"), radiusKm: -0.001) }
        #expect(throws: SearchArea.Problem.radiusNotFinite) { try SearchArea(center: point("0", "0"), radiusKm: .infinity) }
        #expect(throws: SearchArea.Problem.radiusNotFinite) { try SearchArea(center: point("0", "0"), radiusKm: .nan) }
    }

    private func clamped(_ latitude: Double, _ longitude: Double) -> GeoPoint {
        var lon = longitude
        while lon > 180 { lon -= 360 }
        while lon < -180 { lon += 360 }
        let lat = min(max(latitude, -90), 90)
        return try! GeoPoint(latitude: Coordinate(DecimalLiteral(lat)!)!, longitude: Coordinate(DecimalLiteral(lon)!)!)
    }

    /// Where a walk of `km` along `bearingDegrees` from `start` ends.
    private func destination(from start: GeoPoint, km: Double, bearingDegrees: Double) -> GeoPoint {
        let δ = km / GreatCircle.meanEarthRadiusKm, θ = bearingDegrees * .pi / 180
        let φ1 = start.latitude.degrees * .pi / 180, λ1 = start.longitude.degrees * .pi / 180
        let φ2 = asin(sin(φ1) * cos(δ) + cos(φ1) * sin(δ) * cos(θ))
        let λ2 = λ1 + atan2(sin(θ) * sin(δ) * cos(φ1), cos(δ) - sin(φ1) * sin(φ2))
        return clamped(φ2 * 180 / .pi, λ2 * 180 / .pi)
    }
}
