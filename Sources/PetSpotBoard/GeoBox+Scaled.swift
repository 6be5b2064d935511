import PetSpotViews

extension GeoBox {
    /// The bounds in degrees × 100 000 (`Coordinate.scaled`), rounded outward: every position
    /// of 5 decimals in the box is within them. What an index of scaled positions is asked for.
    public var scaledOutward: (minLatitude: Int, maxLatitude: Int, minLongitude: Int, maxLongitude: Int) {
        let scale = Double(Coordinate.scale)
        return (Int((minLatitude * scale).rounded(.down)), Int((maxLatitude * scale).rounded(.up)),
                Int((minLongitude * scale).rounded(.down)), Int((maxLongitude * scale).rounded(.up)))
    }

    /// The bounds in degrees × 100 000 rounded inward: every position of 5 decimals within them
    /// is in the box.
    public var scaledInward: (minLatitude: Int, maxLatitude: Int, minLongitude: Int, maxLongitude: Int) {
        let scale = Double(Coordinate.scale)
        return (Int((minLatitude * scale).rounded(.up)), Int((maxLatitude * scale).rounded(.down)),
                Int((minLongitude * scale).rounded(.up)), Int((maxLongitude * scale).rounded(.down)))
    }
}
