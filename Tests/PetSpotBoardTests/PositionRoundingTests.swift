import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("Public positions")
struct PositionRoundingTests {
    @Test(
        "3 decimals, half away from zero on the decimal digits",
        arguments: [
            ("52.22968", "52.230"),
            ("52.22950", "52.230"),
            ("52.22949", "52.229"),
            ("-52.22950", "-52.230"),
            ("-52.22949", "-52.229"),
            ("0.00049", "0.000"),
            ("-0.00049", "0.000"),
            ("-0.00050", "-0.001"),
            ("0.00050", "0.001"),
            ("89.99950", "90.000"),
            ("90.00000", "90.000"),
            ("179.99950", "180.000"),
            ("-179.99950", "-180.000"),
            ("12.34500", "12.345"),
        ])
    func threeDecimals(exact: String, shown: String) throws {
        let decimal = try #require(DecimalLiteral(parsing: exact))
        let coordinate = try #require(Coordinate(decimal))
        #expect(coordinate.text(decimals: 3) == shown)
        #expect(coordinate.rounded(toDecimals: 3).text == shown + "00")
        #expect(coordinate.text(decimals: 5) == exact)
    }

    @Test("the integer rounding agrees with the flow's decimal rounding on every 5-decimal value near the cuts")
    func agreesWithDecimalLiteral() throws {
        for whole in [-180, -52, -1, 0, 1, 52, 179] {
            for fraction in stride(from: 0, to: 100_000, by: 7) {
                let scaled = whole * 100_000 + (whole < 0 ? -fraction : fraction)
                let coordinate = Coordinate(scaled: scaled)
                let viaDecimal = try #require(DecimalLiteral(parsing: coordinate.text)?.scaled(decimals: 3))
                #expect(Coordinate.roundedScaled(scaled, toDecimals: 3) == viaDecimal, "\(coordinate.text)")
            }
        }
    }

    @Test("a point's rounded copy stays in range")
    func roundedPointInRange() throws {
        let corner = point("-89.99990", "179.99999").rounded(toDecimals: 3)
        #expect(corner.description == "-90.00000, 180.00000")
        #expect(throws: Never.self) { try GeoPoint(latitude: corner.latitude, longitude: corner.longitude) }
    }

    @Test(
        "out-of-range points are refused, naming the coordinate",
        arguments: [
            ("90.00001", "0", GeoPoint.Problem.latitudeOutOfRange("90.00001")),
            ("-91", "0", .latitudeOutOfRange("-91.00000")),
            ("0", "180.000005", .longitudeOutOfRange("180.00001")),
            ("0", "-200", .longitudeOutOfRange("-200.00000")),
        ])
    func outOfRange(latitude: String, longitude: String, problem: GeoPoint.Problem) {
        #expect(throws: problem) {
            try GeoPoint(latitude: DecimalLiteral(parsing: latitude)!, longitude: DecimalLiteral(parsing: longitude)!)
        }
    }

    @Test("a literal too large to hold is out of range")
    func tooLarge() {
        #expect(throws: GeoPoint.Problem.latitudeOutOfRange("1e999")) {
            try GeoPoint(latitude: DecimalLiteral(parsing: "1e999")!, longitude: DecimalLiteral(parsing: "0")!)
        }
    }
}
