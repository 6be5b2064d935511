import PetSpotJSON

@testable import PetSpotBoard
@testable import PetSpotFlow

/// A point from degrees as a person writes them ("52.22968"), rounded to 5 decimals as the flow does.
func point(_ latitude: String, _ longitude: String) -> GeoPoint {
    try! GeoPoint(latitude: DecimalLiteral(parsing: latitude)!, longitude: DecimalLiteral(parsing: longitude)!)
}
